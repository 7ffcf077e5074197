"""The debate's topics, COMPELLE-TOPICS-1: the filters and their edges, the dedup, the caps and the
source order, the evergreen fill and its turn, the rotation keys, the context strings, the search's
strict reading, and Polymarket's top events against the simulated exchange and a real sample."""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import polars as pl
import pytest

from colosseum_core.debate.prompts import PROMPTS, SEARCH
from colosseum_core.debate.topics import (
    CANDIDATE_SCHEMA,
    MOTION_SCHEMA,
    SOURCES_SCHEMA,
    VERDICT_SCHEMA,
    RotationKeyError,
    build_rotation,
    collect_topics,
    load_evergreen,
    rotation_key,
    rotation_start,
)
from colosseum_core.debate.topics.candidates import (
    candidate_frame,
    kalshi_candidates,
    kalshi_motion,
    polymarket_candidates,
    search_candidates,
)
from colosseum_core.debate.topics.context import (
    evergreen_context,
    market_context,
    motion_context,
    search_context,
)
from colosseum_core.debate.topics.duplicate import proposition_stem
from colosseum_core.debate.topics.evergreen import (
    EvergreenError,
    evergreen_offset,
    parse_evergreen,
)
from colosseum_core.debate.topics.names import (
    DECIDED,
    DUPLICATE,
    MARKET_CAP,
    PAST_END,
    ROTATION_FULL,
    ROTATION_SIZE,
    SEARCH_CAP,
    SOURCE_CAP,
    TOPICS_VERSION,
)
from colosseum_core.debate.topics.rotation import motion_id, rotation_index
from colosseum_core.debate.topics.search import ask_search, read_search_reply
from colosseum_core.exchanges.kalshi.markets import events_page, market_of
from colosseum_core.exchanges.polymarket.top import top_events
from colosseum_core.providers.call import Endpoint
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.simulated_exchange import AS_OF_HEADER, running_exchange
from tests.support import REPO

SAMPLES = REPO.parent / "shared" / "reference" / "polymarket_samples"
KEY = "2026-12-01T06Z"
START = dt.datetime(2026, 12, 1, 6, tzinfo=dt.UTC)
LATER = dt.datetime(2027, 6, 1, tzinfo=dt.UTC)
EVERGREEN = load_evergreen()
SEARCH_URL = "https://search.test"
SEARCH_ENDPOINT = Endpoint("openai", SEARCH_URL, "house-search", "sk-test-not-a-secret")


def _clock() -> dt.datetime:
    return START


def _market(source_id: str, motion: str, volume: float, **fields: Any) -> dict[str, Any]:
    return {
        "source": "polymarket",
        "source_id": source_id,
        "event_key": f"event-{source_id}",
        "motion": motion,
        "price_yes": 0.5,
        "end_date": LATER,
        "volume_24h": volume,
        **fields,
    }


def _search(rank: int, motion: str, **fields: Any) -> dict[str, Any]:
    return {
        "source": "search",
        "source_id": f"s{rank}",
        "source_rank": rank,
        "motion": motion,
        "reported": "Reported widely.",
        "citations": [f"https://news.example.org/{rank}"],
        **fields,
    }


def _pick(rows: list[dict[str, Any]], key: str = KEY) -> tuple[pl.DataFrame, pl.DataFrame]:
    pick = build_rotation(key, candidate_frame(rows), EVERGREEN)
    return pick.candidates_with_verdicts, pick.motions


def _verdict(verdicts: pl.DataFrame, source_id: str) -> dict[str, Any]:
    return verdicts.filter(pl.col("source_id") == source_id).row(0, named=True)


# ------------------------------------------------------------------------------------------------
# The filters


def test_decided_excludes_a_price_above_95_percent_on_either_side_and_keeps_the_edges() -> None:
    prices = {"hi": 0.96, "lo": 0.04, "edge-hi": 0.95, "edge-lo": 0.05, "mid": 0.5, "none": None}
    rows = [_market(i, f"Will {i} happen?", 10.0, price_yes=p) for i, p in prices.items()]
    verdicts, motions = _pick(rows)
    assert _verdict(verdicts, "hi")["rule"] == DECIDED
    assert _verdict(verdicts, "hi")["value"] == "price_yes 0.96 above 0.95"
    assert _verdict(verdicts, "lo")["value"] == "price_yes 0.04 below 0.05"
    for kept in ("edge-hi", "edge-lo", "mid", "none"):
        assert _verdict(verdicts, kept)["verdict"] == "kept", kept
    assert set(motions.filter(pl.col("source") == "polymarket")["source_id"]) == {
        "edge-hi",
        "edge-lo",
        "mid",
        "none",
    }


def test_past_end_excludes_an_end_at_or_before_the_rotations_start() -> None:
    ends = {
        "before": START - dt.timedelta(hours=1),
        "at": START,
        "just-after": START + dt.timedelta(microseconds=1),
        "none": None,
    }
    rows = [_market(i, f"Will {i} happen?", 10.0, end_date=e) for i, e in ends.items()]
    verdicts, _ = _pick(rows)
    assert _verdict(verdicts, "before")["rule"] == PAST_END
    assert _verdict(verdicts, "at")["value"] == (
        "end_date 2026-12-01T06:00:00Z at or before the rotation's start 2026-12-01T06:00:00Z"
    )
    assert _verdict(verdicts, "just-after")["verdict"] == "kept"
    assert _verdict(verdicts, "none")["verdict"] == "kept"


def test_a_candidate_stopped_by_both_filters_carries_the_first() -> None:
    verdicts, _ = _pick([_market("both", "Will it?", 1.0, price_yes=0.99, end_date=START)])
    assert _verdict(verdicts, "both")["rule"] == DECIDED


# ------------------------------------------------------------------------------------------------
# The dedup


@pytest.mark.parametrize(
    ("motion", "stem"),
    [
        ("Kraken IPO by March 31, 2026?", "kraken ipo"),
        ("Kraken IPO in 2025?", "kraken ipo"),
        ("Kraken IPO by December 31st, 2026?", "kraken ipo"),
        ("Will X happen by April 30?", "will x happen"),
        ("Will X happen before 2027?", "will x happen"),
        ("Will X happen by end of year?", "will x happen"),
        ("Will X happen by the end of the month?", "will x happen"),
        ("Will X happen this week?", "will x happen"),
        ("Will X happen by Q3 2026?", "will x happen"),
        ("Will X happen in June 2026?", "will x happen"),
        # Not deadlines: a year that names the thing, a number, a preposition without a date.
        ("Will the 2026 World Cup final go to penalties?", "will the 2026 world cup final go to penalties"),
        ("Will GDP grow by 2.5% in Q3?", "will gdp grow by 2 5"),
        ("Will it rain in Paris?", "will it rain in paris"),
        ("By April 30?", None),
    ],
)
def test_the_proposition_stem_strips_deadline_phrases(motion: str, stem: str | None) -> None:
    assert pl.select(proposition_stem(pl.lit(motion))).item() == stem


def test_multi_deadline_siblings_in_one_event_collapse_to_the_most_traded() -> None:
    rows = [
        _market("a", "Will X resign by April 30?", 50.0, event_key="x-out"),
        _market("b", "Will X resign by May 31?", 80.0, event_key="x-out"),
        _market("c", "Will X resign by June 30?", 20.0, event_key="x-out"),
    ]
    verdicts, motions = _pick(rows)
    assert _verdict(verdicts, "b")["verdict"] == "kept"
    for twin in ("a", "c"):
        row = _verdict(verdicts, twin)
        assert row["rule"] == DUPLICATE and row["value"].endswith("kept as b"), row
        assert row["value"] == 'event x-out proposition "will x resign": kept as b'
    assert motions.filter(pl.col("source") == "polymarket")["source_id"].to_list() == ["b"]


def test_siblings_with_equal_volume_keep_the_lower_source_id() -> None:
    rows = [
        _market("20", "X by April 30?", 5.0, event_key="e"),
        _market("10", "X by May 31?", 5.0, event_key="e"),
    ]
    verdicts, _ = _pick(rows)
    assert _verdict(verdicts, "10")["verdict"] == "kept" and _verdict(verdicts, "20")["rule"] == DUPLICATE


def test_a_decided_sibling_never_represents_its_family() -> None:
    rows = [
        _market("a", "Will X resign by April 30?", 90.0, event_key="e", price_yes=0.01),
        _market("b", "Will X resign by May 31?", 10.0, event_key="e"),
    ]
    verdicts, _ = _pick(rows)
    assert _verdict(verdicts, "a")["rule"] == DECIDED and _verdict(verdicts, "b")["verdict"] == "kept"


def test_the_same_stem_in_different_events_is_kept_twice() -> None:
    rows = [
        _market("a", "Will X resign by April 30?", 50.0, event_key="one"),
        _market("b", "Will X resign by May 31?", 40.0, event_key="two"),
        _market("k", "Will X resign by May 31?", 30.0, source="kalshi", event_key="KXONE"),
    ]
    verdicts, _ = _pick(rows)
    assert verdicts.filter(pl.col("source_id").is_in(["a", "b", "k"]))["verdict"].to_list() == ["kept"] * 3


def test_search_and_evergreen_items_dedup_by_stem_against_what_stands_before_them() -> None:
    voting_age = next(m for m in EVERGREEN.motions if "voting age" in m.text)
    rows = [
        _market("m", "Will Kraken IPO by June 30?", 50.0, event_key="kraken"),
        _search(1, "Will Kraken IPO in 2026?"),
        _search(2, "Cities should ban private cars."),
        _search(3, "Cities should ban private cars"),
        _search(4, voting_age.text.upper()),
    ]
    verdicts, motions = _pick(rows)
    assert _verdict(verdicts, "s1")["value"] == 'proposition "will kraken ipo": kept as polymarket m'
    assert (
        _verdict(verdicts, "s3")["value"] == 'proposition "cities should ban private cars": kept as search s2'
    )
    evergreen = _verdict(verdicts, voting_age.id)
    assert evergreen["rule"] == DUPLICATE and evergreen["value"].endswith("kept as search s4")
    assert motions.filter(pl.col("source") == "search")["source_id"].to_list() == ["s2", "s4"]


# ------------------------------------------------------------------------------------------------
# The caps, the source order and the fill


def test_caps_and_source_order_markets_then_search_then_evergreen() -> None:
    markets = [
        _market(f"p{i}", f"Will polymarket thing {i} happen?", float(100 - i * 10)) for i in range(5)
    ] + [
        _market(
            f"K-{i}",
            f"Will kalshi thing {i} happen?",
            float(95 - i * 10),
            source="kalshi",
            event_key=f"KX{i}",
        )
        for i in range(5)
    ]
    search = [_search(rank, f"Motion number {rank} should pass.") for rank in (5, 1, 4, 2, 3)]
    verdicts, motions = _pick(markets + search)
    assert motions.height == ROTATION_SIZE
    assert motions["position"].to_list() == list(range(1, ROTATION_SIZE + 1))
    assert motions["source_id"].to_list()[:MARKET_CAP] == ["p0", "K-0", "p1", "K-1", "p2", "K-2"]
    assert motions["source_id"].to_list()[MARKET_CAP : MARKET_CAP + SEARCH_CAP] == ["s1", "s2", "s3"]
    assert motions["source"].to_list()[MARKET_CAP + SEARCH_CAP :] == ["evergreen"] * 3
    capped = verdicts.filter(pl.col("rule") == SOURCE_CAP)
    assert sorted(capped["source_id"].to_list()) == ["K-3", "K-4", "p3", "p4", "s4", "s5"]
    assert _verdict(verdicts, "p3")["value"] == "market item 7 in the source order; the cap is 6"
    assert _verdict(verdicts, "s4")["value"] == "search item 4 in the source order; the cap is 3"
    full = verdicts.filter(pl.col("rule") == ROTATION_FULL)
    assert full.height == len(EVERGREEN.motions) - 3
    assert full["value"][0] == "evergreen motion 4 of this rotation's turn; 3 places were left to fill"


def test_the_evergreen_list_fills_a_rotation_when_every_source_failed() -> None:
    verdicts, motions = _pick([])
    assert motions["source"].to_list() == ["evergreen"] * ROTATION_SIZE
    offset = evergreen_offset(rotation_index(KEY), len(EVERGREEN.motions))
    expected = [EVERGREEN.motions[(offset + k) % len(EVERGREEN.motions)].id for k in range(ROTATION_SIZE)]
    assert motions["source_id"].to_list() == expected
    assert motions["context"].unique().to_list() == ["(An evergreen motion, COMPELLE-EVERGREEN-1 list.)"]
    assert verdicts.height == len(EVERGREEN.motions)


def test_consecutive_rotations_share_no_evergreen_motion_and_every_start_comes_round() -> None:
    key = rotation_key(START)
    starts: set[str] = set()
    previous: set[str] | None = None
    for step in range(len(EVERGREEN.motions)):
        key = rotation_key(START + dt.timedelta(hours=6 * step))
        ids = set(_pick([], key)[1]["source_id"].to_list())
        if previous is not None:
            assert not ids & previous, key
        previous = ids
        starts.add(_pick([], key)[1]["source_id"][0])
    assert len(starts) == len(EVERGREEN.motions)


def test_a_rotation_has_exactly_twelve_motions_in_the_published_schema() -> None:
    rows = [_market("m", "Will it?", 1.0, url="https://polymarket.com/event/e", resolution="Yes if so.")]
    verdicts, motions = _pick([*rows, _search(1, "A motion.")])
    assert dict(motions.schema) == MOTION_SCHEMA and dict(verdicts.schema) == VERDICT_SCHEMA
    assert motions.height == ROTATION_SIZE and motions["motion_id"].n_unique() == ROTATION_SIZE
    assert motions["rotation"].unique().to_list() == [KEY]
    assert motions["rules"].unique().to_list() == [TOPICS_VERSION]
    assert motions["evergreen_version"].unique().to_list() == [EVERGREEN.version]
    first = motions.row(0, named=True)
    assert first["motion_id"] == motion_id("polymarket", "m", "Will it?")
    assert len(first["motion_id"]) == 16
    assert first["context"] == "(Polymarket, 2026-12-01 06:00 UTC: Yes 50%. Resolves: Yes if so. " + (
        "https://polymarket.com/event/e)"
    )
    assert verdicts.filter(pl.col("verdict") == "kept").height == ROTATION_SIZE


def test_the_rotation_does_not_depend_on_the_order_of_its_input_rows() -> None:
    rows = [
        _market("a", "Will X resign by April 30?", 50.0, event_key="e"),
        _market("b", "Will X resign by May 31?", 50.0, event_key="e"),
        _market("c", "Will Y win?", 70.0, price_yes=0.97),
        _market("d", "Will Z win?", 70.0, source="kalshi"),
        *(_market(f"v{i}", f"Volume {i}?", 30.0) for i in range(8)),
        _search(1, "Will X resign?"),
        _search(2, "Cities should ban cars."),
        _search(3, "Schools should ban phones."),
        _search(4, "Museums should return artefacts."),
    ]
    reference = _pick(rows)
    for seed in range(5):
        shuffled = rows[:]
        random.Random(seed).shuffle(shuffled)
        verdicts, motions = _pick(shuffled)
        assert verdicts.equals(reference[0]) and motions.equals(reference[1]), seed


def test_candidates_that_cannot_be_judged_are_refused() -> None:
    with pytest.raises(ValueError, match="two candidates are polymarket 'a'"):
        _pick([_market("a", "One?", 1.0), _market("a", "Two?", 2.0)])
    with pytest.raises(ValueError, match="evergreen list is given on its own"):
        _pick([{"source": "evergreen", "source_id": "x", "motion": "M."}])
    with pytest.raises(ValueError, match="unknown source 'gossip'"):
        _pick([{"source": "gossip", "source_id": "x", "motion": "M."}])


# ------------------------------------------------------------------------------------------------
# Rotation keys


@pytest.mark.parametrize(
    ("instant", "key"),
    [
        (dt.datetime(2026, 12, 1, 0, tzinfo=dt.UTC), "2026-12-01T00Z"),
        (dt.datetime(2026, 12, 1, 5, 59, 59, 999999, tzinfo=dt.UTC), "2026-12-01T00Z"),
        (dt.datetime(2026, 12, 1, 6, tzinfo=dt.UTC), "2026-12-01T06Z"),
        (dt.datetime(2026, 12, 1, 12, 30, tzinfo=dt.UTC), "2026-12-01T12Z"),
        (dt.datetime(2026, 12, 1, 23, 59, tzinfo=dt.UTC), "2026-12-01T18Z"),
        # 01:00 in UTC+2 is 23:00 UTC the day before.
        (dt.datetime(2026, 12, 2, 1, tzinfo=dt.timezone(dt.timedelta(hours=2))), "2026-12-01T18Z"),
    ],
)
def test_rotation_key_names_the_six_hour_window_of_utc(instant: dt.datetime, key: str) -> None:
    assert rotation_key(instant) == key
    assert rotation_start(key) <= instant < rotation_start(key) + dt.timedelta(hours=6)


def test_rotation_keys_round_trip_and_bad_keys_are_named() -> None:
    for hour in (0, 6, 12, 18):
        start = dt.datetime(2026, 12, 1, hour, tzinfo=dt.UTC)
        assert rotation_start(rotation_key(start)) == start
    assert rotation_index("1970-01-01T06Z") == 1
    assert rotation_index("2026-12-01T12Z") == rotation_index("2026-12-01T06Z") + 1
    for bad in ("2026-12-01T07Z", "2026-13-01T06Z", "2026-02-30T06Z", "2026-12-01T06", "2026-12-01 06Z", ""):
        with pytest.raises(RotationKeyError, match=f"rotation key '{bad}' is not a rotation"):
            rotation_start(bad)
    with pytest.raises(RotationKeyError, match="2026-12-01T07Z"):
        build_rotation("2026-12-01T07Z", candidate_frame([]), EVERGREEN)
    with pytest.raises(ValueError, match="naive datetime"):
        rotation_key(dt.datetime(2026, 12, 1, 6))


# ------------------------------------------------------------------------------------------------
# Context strings


def test_market_context_gives_the_price_the_criteria_cut_and_the_live_url() -> None:
    criteria = "This market resolves Yes if it happens.\n\n" + "Details follow. " * 40
    text = market_context("polymarket", START, 0.42, criteria, "https://polymarket.com/event/kraken-ipo")
    head = "(Polymarket, 2026-12-01 06:00 UTC: Yes 42%. Resolves: This market resolves Yes if it happens. "
    assert text.startswith(head) and text.endswith("…. https://polymarket.com/event/kraken-ipo)")
    shown = text.removeprefix(head[: head.index("This")]).removesuffix(
        ". https://polymarket.com/event/kraken-ipo)"
    )
    assert "\n" not in text and len(shown) == 280 and shown.endswith(".…")
    short = market_context("kalshi", START, None, "Resolves Yes if so.", "https://kalshi.com/markets/kxa-1")
    assert short == (
        "(Kalshi, 2026-12-01 06:00 UTC: no price published. Resolves: Resolves Yes if so. "
        "https://kalshi.com/markets/kxa-1)"
    )
    assert market_context("kalshi", START, 0.075, None, None) == "(Kalshi, 2026-12-01 06:00 UTC: Yes 8%)"


def test_search_and_evergreen_context() -> None:
    assert search_context("Cities argue.", ["https://a.example/1", "https://b.example/2"]) == (
        "(Reported: Cities argue. Sources: https://a.example/1, https://b.example/2)"
    )
    assert search_context(None, ["https://a.example/1"]) == "(Sources: https://a.example/1)"
    assert evergreen_context("COMPELLE-EVERGREEN-1") == "(An evergreen motion, COMPELLE-EVERGREEN-1 list.)"
    row = {"source": "search", "reported": "x", "citations": ["https://a.example"]}
    assert motion_context(row, at=START, evergreen_version="V") == "(Reported: x. Sources: https://a.example)"


# ------------------------------------------------------------------------------------------------
# Sources: Kalshi


@pytest.mark.skipif(
    not SAMPLES.is_dir(), reason=f"the recorded payloads are not beside this checkout ({SAMPLES})"
)
def test_kalshi_candidates_from_the_recorded_samples() -> None:
    body = json.loads((SAMPLES / "kalshi_events_page_with_nested_markets_2026.json").read_text())
    markets, _ = events_page(body, "r" * 64)
    frame = kalshi_candidates(markets)
    assert dict(frame.schema) == CANDIDATE_SCHEMA and frame.height == len(markets)
    mars = frame.filter(pl.col("source_id") == "KXELONMARS-99").row(0, named=True)
    assert mars["motion"] == "Will Elon Musk visit Mars before Aug 1, 2099?"  # "Mars" is in the title
    assert mars["url"] == "https://kalshi.com/markets/kxelonmars-99" and mars["event_key"] == "KXELONMARS-99"
    assert mars["price_yes"] == 0.12 and mars["volume_24h"] == 45.25 and mars["receipt_id"] == "r" * 64
    assert mars["resolution"].startswith("If Elon Musk visits Mars before")
    ladder = json.loads((SAMPLES / "kalshi_markets_page_2026_07.json").read_text())["markets"]
    strike = market_of(ladder[0], {}, "r" * 64)
    assert kalshi_motion(strike) == "Bitcoin price on Jul 25, 2026? $74,300 or above"


# ------------------------------------------------------------------------------------------------
# Sources: Polymarket's top events


def _serve(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler))


@pytest.mark.skipif(
    not SAMPLES.is_dir(), reason=f"the recorded payloads are not beside this checkout ({SAMPLES})"
)
def test_top_events_reads_a_real_events_page(tmp_path: Path) -> None:
    raw = (SAMPLES / "gamma_events_page_2_events_4_markets_each_2026_07.json").read_bytes()
    seen: list[httpx.URL] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        return httpx.Response(200, content=raw, headers={"content-type": "application/json"})

    receipts = ReceiptStore(tmp_path / "receipts")
    top = top_events("https://gamma.test/", receipts=receipts, clock=_clock, client=_serve(handler))
    assert top.ok and len(top.events) == 2 and len(top.markets) == 8
    assert str(seen[0]) == (
        "https://gamma.test/events?active=true&closed=false&order=volume24hr&ascending=false&limit=50"
    )
    assert receipts.get(top.receipt_id).body == raw
    frame = polymarket_candidates(top)
    # Only the open Yes/No markets: the resolved ones and the undeployed placeholder are not candidates.
    assert frame["source_id"].to_list() == ["691547", "2694508"]
    kraken = frame.row(0, named=True)
    assert kraken["motion"] == "Kraken IPO by December 31, 2026?" and kraken["price_yes"] == 0.265
    assert kraken["event_key"] == "kraken-ipo-in-2025"
    assert kraken["url"] == "https://polymarket.com/event/kraken-ipo-in-2025"
    assert kraken["end_date"] == dt.datetime(2027, 1, 1, 5, tzinfo=dt.UTC) and kraken["volume_24h"] == 5.0
    assert kraken["resolution"] and kraken["receipt_id"] == top.receipt_id
    verdicts = build_rotation("2026-07-25T12Z", frame, EVERGREEN).candidates_with_verdicts
    assert _verdict(verdicts, "2694508")["value"] == "price_yes 0.0035 below 0.05"  # Macron out by July 31
    assert _verdict(verdicts, "691547")["verdict"] == "kept"


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (
            httpx.Response(500, json={"type": "internal error", "error": "cannot get the information"}),
            "HTTP 500",
        ),
        (httpx.Response(200, content=b"<html>busy</html>"), "the body is not JSON"),
        (httpx.Response(200, json={"type": "validation error", "error": "bad"}), "the body is an error"),
        (
            httpx.Response(200, json=[{"id": "1", "question": "Q?", "outcomes": "[]"}]),
            "is a market, not an event",
        ),
        (httpx.Response(200, json={"cursor": "", "events": []}), "not an array of events"),
    ],
)
def test_top_events_reports_a_bad_answer_naming_its_receipt(
    tmp_path: Path, answer: httpx.Response, problem: str
) -> None:
    receipts = ReceiptStore(tmp_path / "receipts")
    top = top_events("https://gamma.test", receipts=receipts, clock=_clock, client=_serve(lambda r: answer))
    assert top.error is not None and problem in top.error and top.receipt_id in top.error
    assert top.receipt_id in receipts and not top.events and not top.markets


def test_top_events_reports_no_answer_as_an_error(tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    receipts = ReceiptStore(tmp_path / "receipts")
    top = top_events("https://gamma.test", receipts=receipts, clock=_clock, client=_serve(refuse))
    assert top.error is not None and "no answer (ConnectError" in top.error and top.receipt_id in receipts


@pytest.fixture(scope="module")
def exchange() -> Iterator[str]:
    with running_exchange(seed=5, markets=900) as url:
        yield url


def test_top_events_against_the_simulated_exchange_make_a_rotation(exchange: str, tmp_path: Path) -> None:
    receipts = ReceiptStore(tmp_path / "receipts")
    with httpx.Client(headers={AS_OF_HEADER: "2026-12-01T06:00:00Z"}, timeout=60) as client:
        top = top_events(exchange, receipts=receipts, clock=_clock, client=client, limit=30)
    assert top.ok, top.error
    volumes = [e.get("volume24hr", 0) for e in top.events]
    assert len(top.events) == 30 and volumes == sorted(volumes, reverse=True)
    recorded = receipts.get(top.receipt_id)
    assert ("order", "volume24hr") in recorded.params and ("ascending", "false") in recorded.params
    frame = polymarket_candidates(top)
    assert frame.height and dict(frame.schema) == CANDIDATE_SCHEMA
    yes_no = {m.market["id"] for m in top.markets if json.loads(m.market["outcomes"]) == ["Yes", "No"]}
    assert set(frame["source_id"]) <= yes_no
    assert frame["url"].str.starts_with("https://polymarket.com/event/").all()
    pick = build_rotation(KEY, frame, EVERGREEN)
    assert pick.motions.height == ROTATION_SIZE
    markets = pick.motions.filter(pl.col("source") == "polymarket")
    assert 0 < markets.height <= MARKET_CAP
    assert markets["volume_24h"].to_list() == sorted(markets["volume_24h"].to_list(), reverse=True)
    assert ((markets["price_yes"] >= 0.05) & (markets["price_yes"] <= 0.95)).all()
    # The simulated board keeps markets listed past their end until they resolve, as Gamma does.
    judged = pick.candidates_with_verdicts
    assert judged.filter(pl.col("verdict") == "kept", pl.col("end_date") <= START).is_empty()


# ------------------------------------------------------------------------------------------------
# Sources: the search


GOOD = {
    "controversies": [
        {
            "motion": "Cities should ban private cars from their historic centres",
            "context": "Several cities are widening car-free zones.",
            "citations": ["https://news.example.org/2026/12/01/cars"],
        },
        {"motion": "Schools should ban smartphones for the whole day", "context": "Ministries weigh bans."},
    ]
}
TOP_CITATIONS = ["https://news.example.org/2026/12/01/cars", "https://wire.example.com/2026/12/01/phones"]


def _reply(content: str, citations: list[str] | None = TOP_CITATIONS, status: int = 200) -> httpx.Response:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "house-search",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
    }
    if citations is not None:
        body["citations"] = citations
    return httpx.Response(status, json=body)


def _ask(tmp_path: Path, answer: httpx.Response | Callable[[httpx.Request], httpx.Response]) -> Any:
    handler = answer if callable(answer) else (lambda request: answer)
    receipts = ReceiptStore(tmp_path / "receipts")
    result = ask_search(
        SEARCH_ENDPOINT, date=START.date(), receipts=receipts, clock=_clock, client=_serve(handler)
    )
    return result, receipts


def test_the_search_prompt_is_published_and_pinned() -> None:
    assert (
        SEARCH in PROMPTS
        and SEARCH.version == "COMPELLE-SEARCH-PROMPT-1"
        and SEARCH.placeholders == ("date",)
    )
    text = SEARCH.render({"date": "2026-12-01"})
    assert "TODAY'S DATE: 2026-12-01." in text
    assert '{"controversies": [{"motion": "...", "context": "...", "citations": ["https://..."]}]}' in text


def test_a_good_search_reply_gives_its_items_with_their_citations(tmp_path: Path) -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return _reply(json.dumps(GOOD))

    result, receipts = _ask(tmp_path, handler)
    assert result.error is None and result.rejected == () and result.model == "house-search"
    assert [i.motion for i in result.items] == [c["motion"] for c in GOOD["controversies"]]
    assert result.items[0].citations == ("https://news.example.org/2026/12/01/cars",)
    assert result.items[1].citations == tuple(TOP_CITATIONS)  # none of its own: the reply's
    assert result.citations == tuple(TOP_CITATIONS)
    request = sent[0]
    assert str(request.url) == f"{SEARCH_URL}/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-not-a-secret"
    body = json.loads(request.content)
    assert list(body) == ["model", "messages", "temperature", "search_parameters"]
    assert body["model"] == "house-search" and body["temperature"] == 0
    assert body["search_parameters"] == {"mode": "on", "return_citations": True, "max_search_results": 10}
    assert body["messages"] == [{"role": "user", "content": SEARCH.render({"date": "2026-12-01"})}]
    receipt = receipts.get(result.receipt_id)
    assert receipt.request_body == request.content and "authorization" not in receipt.request_headers
    frame = search_candidates(result.items, result.receipt_id)
    assert (
        frame["source_rank"].to_list() == [1, 2] and frame["receipt_id"].to_list() == [result.receipt_id] * 2
    )
    assert frame["reported"][0] == "Several cities are widening car-free zones."


def test_a_fenced_json_reply_is_read(tmp_path: Path) -> None:
    result, _ = _ask(tmp_path, _reply("```json\n" + json.dumps(GOOD) + "\n```"))
    assert result.error is None and len(result.items) == 2


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("Sure! Here is what people are arguing about today: cars, phones.", "the content is not JSON"),
        (
            json.dumps({"topics": GOOD["controversies"]}),
            "field controversies: expected an object holding a list",
        ),
        (json.dumps(GOOD["controversies"]), "field controversies"),
    ],
)
def test_a_search_reply_that_is_not_the_shape_is_rejected_whole(
    tmp_path: Path, content: str, problem: str
) -> None:
    result, receipts = _ask(tmp_path, _reply(content))
    assert result.items == () and result.error is not None and problem in result.error
    assert result.error.startswith(f"receipt {result.receipt_id}: ") and result.receipt_id in receipts


def test_an_item_without_citations_is_rejected_on_its_own(tmp_path: Path) -> None:
    result, _ = _ask(tmp_path, _reply(json.dumps(GOOD), citations=None))
    assert [i.motion for i in result.items] == [GOOD["controversies"][0]["motion"]]
    assert result.rejected == (
        f"receipt {result.receipt_id}: controversies[1] field citations: none given, "
        "and the reply has no top-level citations",
    )
    content = {
        "controversies": [{"context": "no motion", "citations": TOP_CITATIONS}, *GOOD["controversies"]]
    }
    result, _ = _ask(tmp_path, _reply(json.dumps(content)))
    assert "controversies[0] field motion" in result.rejected[0] and len(result.items) == 2
    assert [i.rank for i in result.items] == [2, 3]
    bad_url = {"controversies": [{"motion": "M", "citations": ["not a url"]}]}
    result, _ = _ask(tmp_path, _reply(json.dumps(bad_url)))
    assert "controversies[0].citations[0]" in result.rejected[0] and "no usable controversy" in result.error


def test_a_search_that_refuses_or_speaks_another_protocol_is_an_error(tmp_path: Path) -> None:
    result, _ = _ask(tmp_path, httpx.Response(429, json={"error": {"message": "slow down"}}))
    assert result.error is not None and "HTTP 429: slow down" in result.error
    anthropic = Endpoint("anthropic", SEARCH_URL, "claude", "k")
    result = ask_search(anthropic, date="2026-12-01", receipts=ReceiptStore(tmp_path / "r"), clock=_clock)
    assert result.receipt_id is None and "speaks openai chat completions, not anthropic" in result.error


def test_reading_a_reply_is_pure() -> None:
    raw = _reply(json.dumps(GOOD)).content
    assert read_search_reply(raw, "r") == read_search_reply(raw, "r")
    assert read_search_reply(b"\xff", "r").error == "receipt r: the reply is not JSON: '\ufffd'"


# ------------------------------------------------------------------------------------------------
# Collecting the three live sources


KALSHI_PAGE = {
    "cursor": "",
    "events": [
        {
            "event_ticker": "KXCARS-26",
            "category": "World",
            "markets": [
                {
                    "ticker": "KXCARS-26-Y",
                    "event_ticker": "KXCARS-26",
                    "title": "Will Paris ban cars before 2027?",
                    "status": "active",
                    "close_time": "2027-01-01T00:00:00Z",
                    "last_price_dollars": "0.3000",
                    "volume_24h_fp": "1200.00",
                    "rules_primary": "Resolves Yes if Paris bans cars.",
                    "result": "",
                }
            ],
        }
    ],
}
GAMMA_EVENTS = [
    {
        "id": "1",
        "slug": "will-x-resign",
        "title": "X out by ...?",
        "active": True,
        "closed": False,
        "markets": [
            {
                "id": str(100 + i),
                "question": f"Will X resign by {month}?",
                "outcomes": '["Yes", "No"]',
                "outcomePrices": '["0.4", "0.6"]',
                "active": True,
                "closed": False,
                "endDate": "2027-03-01T00:00:00Z",
                "volume24hr": volume,
                "description": "Resolves Yes if X resigns.",
            }
            for i, (month, volume) in enumerate([("April 30", 10.0), ("May 31", 30.0)])
        ],
    }
]


def _router(*, kalshi_status: int = 200, first_search_status: int = 200) -> Callable[[httpx.Request], Any]:
    def handler(request: httpx.Request) -> httpx.Response:
        host = request.url.host
        if host == "gamma.test":
            return httpx.Response(200, json=GAMMA_EVENTS)
        if host == "kalshi.test":
            return httpx.Response(kalshi_status, json=KALSHI_PAGE)
        if host == "search-a.test" and first_search_status != 200:
            return httpx.Response(first_search_status, json={"error": {"message": "busy"}})
        return _reply(json.dumps(GOOD))

    return handler


def _collect(tmp_path: Path, handler: Callable[[httpx.Request], Any]) -> Any:
    chain = [
        Endpoint("openai", f"https://{h}", "house-search", "k") for h in ("search-a.test", "search-b.test")
    ]
    return collect_topics(
        KEY,
        gamma_url="https://gamma.test",
        kalshi_url="https://kalshi.test/trade-api/v2",
        search_chain=chain,
        receipts=ReceiptStore(tmp_path / "receipts"),
        clock=_clock,
        client=_serve(handler),
    )


def test_collect_topics_asks_the_three_live_sources(tmp_path: Path) -> None:
    got = _collect(tmp_path, _router())
    assert dict(got.sources.schema) == SOURCES_SCHEMA and dict(got.candidates.schema) == CANDIDATE_SCHEMA
    assert got.sources["source"].to_list() == ["polymarket", "kalshi", "search"]
    assert got.sources["status"].to_list() == ["ok"] * 3 and got.sources["items"].to_list() == [2, 1, 2]
    assert got.sources["receipt_ids"].list.len().to_list() == [1, 1, 1]
    pick = build_rotation(KEY, got.candidates, EVERGREEN)
    assert pick.motions["source_id"].to_list()[:2] == ["KXCARS-26-Y", "101"]  # by 24 h volume; 100 is a twin
    assert _verdict(pick.candidates_with_verdicts, "100")["rule"] == DUPLICATE
    kalshi = pick.motions.row(0, named=True)
    assert kalshi["context"] == (
        "(Kalshi, 2026-12-01 06:00 UTC: Yes 30%. Resolves: Resolves Yes if Paris bans cars. "
        "https://kalshi.com/markets/kxcars-26)"
    )
    assert pick.motions.height == ROTATION_SIZE


def test_a_failed_source_contributes_nothing_and_the_search_walks_its_chain(tmp_path: Path) -> None:
    got = _collect(tmp_path, _router(kalshi_status=500, first_search_status=429))
    rows = {r["source"]: r for r in got.sources.iter_rows(named=True)}
    assert rows["kalshi"]["status"] == "failed" and rows["kalshi"]["items"] == 0
    assert "HTTP 500" in rows["kalshi"]["error"] and len(rows["kalshi"]["receipt_ids"]) == 1
    assert rows["search"]["status"] == "ok" and len(rows["search"]["receipt_ids"]) == 2
    assert "HTTP 429: busy" in rows["search"]["notes"][0] and rows["search"]["error"] is None
    assert set(got.candidates["source"]) == {"polymarket", "search"}
    motions = build_rotation(KEY, got.candidates, EVERGREEN).motions
    assert motions.height == ROTATION_SIZE and motions["source"].to_list().count("evergreen") == 9

    dead = _collect(tmp_path, lambda request: httpx.Response(503))
    assert dead.sources["status"].to_list() == ["failed"] * 3 and dead.candidates.is_empty()
    assert len(dead.sources.filter(pl.col("source") == "search")["receipt_ids"][0]) == 2
    assert build_rotation(KEY, dead.candidates, EVERGREEN).motions["source"].unique().to_list() == [
        "evergreen"
    ]


# ------------------------------------------------------------------------------------------------
# The evergreen list


def test_the_evergreen_list_is_pinned_and_checked(tmp_path: Path) -> None:
    assert EVERGREEN.version == "COMPELLE-EVERGREEN-1" and len(EVERGREEN.motions) >= 2 * ROTATION_SIZE
    assert len({m.id for m in EVERGREEN.motions}) == len(EVERGREEN.motions)
    doc = {"format": "compelle-evergreen/1", "version": "COMPELLE-EVERGREEN-9"}
    motions = [{"id": f"m{i}", "motion": f"Motion {i} should pass."} for i in range(24)]
    path = tmp_path / "list.json"
    path.write_text(json.dumps({**doc, "motions": motions}))
    assert len(load_evergreen(path).motions) == 24 and load_evergreen(path).sha256 != EVERGREEN.sha256
    for broken, problem in [
        ({**doc, "motions": motions[:23]}, "at least 24"),
        (
            {**doc, "motions": [*motions[:23], {"id": "m0", "motion": "Another."}]},
            "'m0' is used more than once",
        ),
        (
            {**doc, "motions": [*motions[:23], {"id": "x", "motion": "MOTION 0 should pass"}]},
            "share the stem",
        ),
        ({**doc, "format": "other", "motions": motions}, "field format"),
        ({**doc, "version": "1", "motions": motions}, "field version"),
    ]:
        with pytest.raises(EvergreenError, match=problem):
            parse_evergreen(json.dumps(broken).encode())
