"""The simulated exchange's Kalshi routes, walked by the real ``KalshiClient`` into a real receipt store:
every page a receipt, the cursor paging through every event once, both price shapes read alike, the
markets the debate arena's topic filter must handle, the same bytes for the same instant, and Kalshi's
400 envelope for a bad ``limit`` or ``cursor``."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from colosseum_core.exchanges.kalshi import client as kalshi_client
from colosseum_core.exchanges.kalshi.client import KalshiClient, KalshiSweep
from colosseum_core.exchanges.kalshi.markets import KalshiMarket
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.simulated_exchange import AS_OF_HEADER, running_exchange
from colosseum_standins.simulated_exchange._time import iso_z, to_ts
from colosseum_standins.simulated_exchange.kalshi import KALSHI_PREFIX, KalshiBoard

# Half a minute past noon: the exchange floors its clock to the minute, so it serves 12:00:00.
AT = datetime(2026, 8, 14, 12, 0, 30, tzinfo=UTC)
SERVED = datetime(2026, 8, 14, 12, 0, tzinfo=UTC)
CENT = Decimal("0.01")


def _clock() -> datetime:
    return AT


@pytest.fixture(scope="module")
def exchange() -> Iterator[str]:
    with running_exchange(seed=0, markets=300, clock=_clock) as url:
        yield url


@pytest.fixture(scope="module")
def api(exchange: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"{exchange}{KALSHI_PREFIX}", timeout=30) as c:
        yield c


def _walk(url: str, root: Path) -> tuple[KalshiSweep, ReceiptStore]:
    receipts = ReceiptStore(root)
    sweep = KalshiClient(f"{url}{KALSHI_PREFIX}", receipts=receipts, clock=_clock).open_markets()
    return sweep, receipts


@pytest.fixture(scope="module")
def walked(exchange: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[KalshiSweep, ReceiptStore]:
    return _walk(exchange, tmp_path_factory.mktemp("kalshi") / "receipts")


def _events(api: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    r = api.get("/events", params={"status": "open", "with_nested_markets": "true", **params})
    assert r.status_code == 200, r.text
    assert r.json()["cursor"] == "", "one page of 200 holds every event"
    return r.json()["events"]


def _raw_markets(api: httpx.Client) -> dict[str, dict[str, Any]]:
    return {m["ticker"]: m for ev in _events(api) for m in ev["markets"]}


# ---------------------------------------------------------------------------------------------
# The walk


def test_the_client_walks_every_open_event_and_keeps_every_page(
    walked: tuple[KalshiSweep, ReceiptStore], exchange: str, api: httpx.Client
) -> None:
    sweep, receipts = walked
    assert sweep.complete and sweep.reason is None and sweep.pages == 1
    assert len(sweep.receipt_ids) == 1 and all(r in receipts for r in sweep.receipt_ids)
    receipt = receipts.get(sweep.receipt_ids[0])
    assert receipt.status == 200 and receipt.url.startswith(f"{exchange}/trade-api/v2/events?")
    assert dict(receipt.params) == {"status": "open", "with_nested_markets": "true", "limit": "200"}
    assert receipt.headers["x-colosseum-as-of"] == iso_z(to_ts(SERVED))
    # The receipt holds exactly what the parsed markets came from.
    assert [m["ticker"] for ev in receipt.json()["events"] for m in ev["markets"]] == [
        m.ticker for m in sweep.markets
    ]
    events = _events(api)
    assert 40 <= len(events) <= 60
    assert {m.ticker for m in sweep.markets} == set(_raw_markets(api))
    assert len({m.ticker for m in sweep.markets}) == len(sweep.markets)
    assert all(m.receipt_id == sweep.receipt_ids[0] for m in sweep.markets)


def test_a_small_limit_pages_through_every_event_once(
    exchange: str, tmp_path: Path, api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kalshi_client, "PAGE_LIMIT", 7)
    sweep, receipts = _walk(exchange, tmp_path / "receipts")
    events = _events(api)
    assert sweep.complete and sweep.pages == math.ceil(len(events) / 7) > 5
    assert len(set(sweep.receipt_ids)) == sweep.pages and all(r in receipts for r in sweep.receipt_ids)
    pages = [receipts.get(r) for r in sweep.receipt_ids]
    sent = None
    walked_events: list[str] = []
    for page in pages:
        # Each page asks for the cursor the page before it handed back; the first asks for none.
        assert dict(page.params).get("cursor") == sent and dict(page.params)["limit"] == "7"
        body = page.json()
        assert isinstance(body["cursor"], str) and len(body["events"]) <= 7
        walked_events += [ev["event_ticker"] for ev in body["events"]]
        sent = body["cursor"]
    assert sent == "", "the last page's cursor is the empty string"
    assert all(len(p.json()["events"]) == 7 for p in pages[:-1])
    assert walked_events == [ev["event_ticker"] for ev in events], "every event once, in order"
    assert sorted(m.ticker for m in sweep.markets) == sorted(_raw_markets(api))


# ---------------------------------------------------------------------------------------------
# What the markets are


def test_both_shapes_parse_to_the_same_kind_of_market(
    walked: tuple[KalshiSweep, ReceiptStore], api: httpx.Client
) -> None:
    sweep, _ = walked
    raw = _raw_markets(api)
    cents = [m for m in sweep.markets if "yes_bid" in raw[m.ticker]]
    fixed = [m for m in sweep.markets if "yes_bid_dollars" in raw[m.ticker]]
    assert cents and fixed and len(cents) + len(fixed) == len(sweep.markets)
    legacy_events = {m.event_ticker for m in cents}
    assert 3 <= len(legacy_events) <= 10, "a few events in the older shape"
    for m in cents:
        r = raw[m.ticker]
        assert not any(k.endswith(("_dollars", "_fp")) for k in r), "no field of the current shape"
        assert all(type(r[k]) is int for k in ("yes_bid", "yes_ask", "last_price", "volume_24h"))
        assert m.yes_bid == r["yes_bid"] * CENT and m.yes_ask == r["yes_ask"] * CENT
        assert m.last_price == r["last_price"] * CENT and m.volume_24h == Decimal(r["volume_24h"])
    for m in fixed:
        r = raw[m.ticker]
        assert not any(k in r for k in ("yes_bid", "yes_ask", "last_price", "volume_24h"))
        assert all(len(r[k]) == 6 and r[k][1] == "." for k in ("yes_bid_dollars", "yes_ask_dollars"))
        assert m.yes_bid == Decimal(r["yes_bid_dollars"]) and m.volume_24h == Decimal(r["volume_24h_fp"])
        assert r["volume_fp"].count(".") == 1 and len(r["volume_fp"].split(".")[1]) == 2
    for m in sweep.markets:
        # The same kind of value whichever shape it came from: exact cents within [0, 1], an aware
        # close time, the event's category and series.
        for price in (m.yes_bid, m.yes_ask, m.last_price):
            assert isinstance(price, Decimal) and 0 <= price <= 1 and price == price.quantize(CENT)
        assert m.yes_bid < m.yes_ask
        assert isinstance(m.volume_24h, Decimal) and m.volume_24h >= 0
        assert m.status == "active" and m.result == "" and m.rules_primary
        assert m.close_time is not None and m.close_time.tzinfo is not None
        assert m.category and m.series_ticker and m.event_ticker.startswith(m.series_ticker)
        assert m.yes_price is not None


def _extreme(m: KalshiMarket) -> bool:
    assert m.yes_ask is not None
    return m.yes_ask >= Decimal("0.96") or m.yes_ask <= Decimal("0.04")


def test_the_listing_has_what_the_topic_filter_must_handle(
    walked: tuple[KalshiSweep, ReceiptStore], api: httpx.Client
) -> None:
    sweep, _ = walked
    markets = sweep.markets
    raw = _raw_markets(api)
    extreme = [m for m in markets if _extreme(m)]
    assert any(m.yes_ask is not None and m.yes_ask >= Decimal("0.96") for m in extreme)
    assert any(m.yes_ask is not None and m.yes_ask <= Decimal("0.04") for m in extreme)
    assert any("yes_ask" in raw[m.ticker] for m in extreme), "priced out in the older shape too"
    assert len(extreme) < len(markets), "and plenty of live ones"
    past = [m for m in markets if m.close_time is not None and m.close_time <= SERVED]
    assert past and all(m.status == "active" for m in past), "past their close, still listed open"
    # Multi-deadline siblings: one event, one question, one market per deadline.
    by_event: dict[str, list[str]] = {}
    for m in markets:
        by_event.setdefault(m.event_ticker, []).append(m.title)
    siblings = [
        titles
        for titles in by_event.values()
        if any(t.endswith("by March 31, 2027?") for t in titles)
        and any(t.endswith("by June 30, 2027?") for t in titles)
    ]
    assert siblings
    for titles in siblings:
        stems = {t.rsplit(" by ", 1)[0] for t in titles}
        assert len(stems) == 1 and len(titles) >= 2
    assert {m.category for m in markets} >= {"Companies", "Economics", "Crypto", "Climate and Weather"}


# ---------------------------------------------------------------------------------------------
# Determinism and the instant


def test_same_clock_gives_identical_bytes(exchange: str, api: httpx.Client) -> None:
    params = {"status": "open", "with_nested_markets": "true", "limit": "9"}
    first = api.get("/events", params=params)
    with running_exchange(seed=0, markets=300, clock=_clock) as other:
        again = httpx.get(f"{other}{KALSHI_PREFIX}/events", params=params)
        second_page = {**params, "cursor": first.json()["cursor"]}
        # A cursor is the exchange's own (signed with its seed), not one server's: another server
        # started alike takes it.
        assert httpx.get(f"{other}{KALSHI_PREFIX}/events", params=second_page).content == (
            api.get("/events", params=second_page).content
        )
    assert first.status_code == 200 and first.content == again.content
    # The as-of header names the same instant the clock gives; another instant gives other bytes.
    header = api.get("/events", params=params, headers={AS_OF_HEADER: "2026-08-14T12:00:00Z"})
    assert header.content == first.content
    later = api.get("/events", params=params, headers={AS_OF_HEADER: "2026-08-14T18:00:00Z"})
    assert later.status_code == 200 and later.content != first.content
    assert KalshiBoard(seed=0).events(to_ts(SERVED)) == KalshiBoard(seed=0).events(to_ts(SERVED))
    assert json.dumps(KalshiBoard(seed=1).events(to_ts(SERVED))) != json.dumps(_events(api))


# ---------------------------------------------------------------------------------------------
# The query parameters


def test_without_nested_markets_the_events_carry_no_markets(api: httpx.Client) -> None:
    nested = _events(api)
    for params in ({}, {"with_nested_markets": "false"}):
        r = api.get("/events", params=params)
        assert r.status_code == 200
        bare = r.json()["events"]
        assert all("markets" not in ev for ev in bare)
        assert bare == [{k: v for k, v in ev.items() if k != "markets"} for ev in nested]
    assert api.get("/events", params={"status": "settled"}).json() == {
        "cursor": "",
        "events": [],
        "milestones": [],
    }
    btc = api.get("/events", params={"series_ticker": "KXBTCD"}).json()["events"]
    assert [ev["series_ticker"] for ev in btc] == ["KXBTCD"]


def test_the_markets_route_by_event_ticker(api: httpx.Client) -> None:
    event = next(ev for ev in _events(api) if len(ev["markets"]) >= 5)
    r = api.get("/markets", params={"event_ticker": event["event_ticker"], "limit": 2})
    assert r.status_code == 200
    got, cursor = r.json()["markets"], r.json()["cursor"]
    while cursor:
        r = api.get("/markets", params={"event_ticker": event["event_ticker"], "limit": 2, "cursor": cursor})
        got += r.json()["markets"]
        cursor = r.json()["cursor"]
    assert got == sorted(event["markets"], key=lambda m: m["ticker"])
    assert len(api.get("/markets").json()["markets"]) == 100  # Kalshi's default page


@pytest.mark.parametrize(
    ("route", "params", "details"),
    [
        ("/events", {"limit": "0"}, "limit must be an integer between 1 and 200"),
        ("/events", {"limit": "201"}, "limit must be an integer between 1 and 200"),
        ("/events", {"limit": "ten"}, "limit must be an integer between 1 and 200"),
        ("/events", {"limit": "+5"}, "limit must be an integer between 1 and 200"),
        ("/events", {"cursor": "not-a-cursor"}, "invalid cursor"),
        ("/events", {"cursor": "CgYI8OG8lQ8SE0tYTkVYVE5BVE9TRUNHRU4tOTk"}, "invalid cursor"),
        ("/events", {"status": "active"}, "status must be one of unopened, open, closed, settled"),
        ("/events", {"with_nested_markets": "yes"}, "with_nested_markets must be true or false"),
        ("/markets", {"limit": "1001"}, "limit must be an integer between 1 and 1000"),
        ("/markets", {"cursor": "nope"}, "invalid cursor"),
    ],
)
def test_bad_parameters_answer_400_in_kalshis_envelope(
    api: httpx.Client, route: str, params: dict[str, str], details: str
) -> None:
    r = api.get(route, params=params)
    assert r.status_code == 400
    assert r.json() == {
        "error": {"code": "invalid_parameters", "message": "invalid parameters", "details": details}
    }


def test_a_cursor_only_resumes_the_listing_it_was_minted_for(api: httpx.Client) -> None:
    cursor = api.get("/events", params={"limit": 3}).json()["cursor"]
    assert cursor and api.get("/events", params={"limit": 5, "cursor": cursor}).status_code == 200
    for params in ({"series_ticker": "KXBTCD"}, {"status": "closed"}):
        r = api.get("/events", params={**params, "cursor": cursor})
        assert r.status_code == 400 and r.json()["error"]["details"] == "invalid cursor"
    markets_cursor = api.get("/markets", params={"limit": 3}).json()["cursor"]
    assert api.get("/events", params={"cursor": markets_cursor}).status_code == 400


def test_a_bad_page_ends_the_clients_walk_as_partial(
    exchange: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kalshi_client, "PAGE_LIMIT", 201)
    sweep, receipts = _walk(exchange, tmp_path / "receipts")
    assert not sweep.complete and sweep.pages == 1 and "HTTP 400" in (sweep.reason or "")
    assert receipts.get(sweep.receipt_ids[0]).json()["error"]["code"] == "invalid_parameters"


# ---------------------------------------------------------------------------------------------
# Faults


def test_faults_leave_the_kalshi_path_working(exchange: str, api: httpx.Client, tmp_path: Path) -> None:
    clean = api.get("/events", params={"with_nested_markets": "true"}).content
    # The hostile author rewrites Gamma's market fields only: Kalshi's bytes are untouched.
    with running_exchange(seed=0, markets=300, clock=_clock, faults="hostile:always") as url:
        assert (
            httpx.get(f"{url}{KALSHI_PREFIX}/events", params={"with_nested_markets": "true"}).content == clean
        )
    # Each item counts every matching request, and the first that fires answers: the 500 takes the
    # first request, the truncation the second.
    with running_exchange(seed=0, markets=300, clock=_clock, faults="500:n=1;truncate:n=2") as url:
        first, _ = _walk(url, tmp_path / "first")
        assert not first.complete and "HTTP 500" in (first.reason or "")
        second, _ = _walk(url, tmp_path / "second")
        assert not second.complete and "page 1" in (second.reason or "")
        third, _ = _walk(url, tmp_path / "third")
        assert third.complete and len(third.markets) == len(_raw_markets(api))
