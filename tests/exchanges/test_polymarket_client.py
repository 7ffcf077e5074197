"""The Gamma client against a small fake keyset server (httpx.MockTransport), and one real-socket run.

The fake server implements the keyset protocol as documented: filters by ``closed`` and the
end-date window (inclusive), orders by id, clamps ``limit`` to 100, issues an opaque cursor hashed
against the query's filters (a cursor sent with other filters is a 422), and omits
``next_cursor`` on the last page, i.e. on a page shorter than the effective limit. Faults are
injected per (shard window, page).
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import datetime as dt
import email.utils
import hashlib
import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import colosseum_core.exchanges.polymarket.client as client_module
from colosseum_core.exchanges.polymarket import (
    AS_OF_HEADER,
    GammaClient,
    GammaRequestError,
    SweepProgress,
    SweepResult,
    retry_after_seconds,
    shard_windows,
)
from colosseum_core.record import ReceiptStore

UTC = dt.UTC
T0 = dt.datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
WINDOW = (T0, T0 + dt.timedelta(hours=102))
FILTER_KEYS = ("closed", "end_date_min", "end_date_max", "order", "ascending", "limit")

Fault = Callable[["PageCall"], "httpx.Response | Exception | None"]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def make_market(number: int, end: dt.datetime, *, closed: bool = False) -> dict[str, Any]:
    return {
        "id": str(number),
        "question": f"Will fixture question {number} resolve Yes?",
        "conditionId": f"0x{number:064x}",
        "slug": f"fixture-{number}",
        "endDate": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "outcomes": '["Yes", "No"]',
        "outcomePrices": '["0.5", "0.5"]',
        "volume": "100.5",
        "active": True,
        "closed": closed,
        "events": [{"id": str(100000 + number // 3), "title": f"Event {number // 3}"}],
    }


def spread_markets(
    count: int, *, start: int = 1, window: tuple[dt.datetime, dt.datetime] = WINDOW
) -> list[dict]:
    """``count`` markets with ids from ``start``, end dates spread evenly (and off-boundary) in ``window``."""
    span = (window[1] - window[0]).total_seconds()
    # Odd seconds: never on a shard cut (those fall on whole minutes for the windows used here).
    return [
        make_market(start + i, window[0] + dt.timedelta(seconds=int(span * (i + 0.5) / count) // 2 * 2 + 1))
        for i in range(count)
    ]


def format_window(value: dt.datetime) -> str:
    """A shard bound as the client sends it."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _instant(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclasses.dataclass(frozen=True)
class PageCall:
    """What the fake server saw: the shard window (by its end_date_min), the page number, the call."""

    end_date_min: str
    page: int
    call: int  # how many times this (window, page) has been requested, this one included
    request: httpx.Request


class FakeGamma:
    def __init__(
        self,
        markets: list[dict[str, Any]],
        *,
        clamp: int = 100,
        delay: float = 0.0,
        fault: Fault | None = None,
    ) -> None:
        self.markets = sorted(markets, key=lambda m: int(m["id"]))
        self.clamp = clamp
        self.delay = delay
        self.fault = fault
        self.requests: list[httpx.Request] = []
        self.calls: dict[tuple[str, int], int] = {}
        self.in_flight = 0
        self.max_in_flight = 0
        self.events: list[tuple[str, Any]] = []

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            return self.respond(request)
        finally:
            self.in_flight -= 1

    @staticmethod
    def _query_hash(filters: list[tuple[str, str]]) -> str:
        return hashlib.sha256(json.dumps(filters).encode()).hexdigest()[:16]

    def respond(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/markets/") and request.url.path != "/markets/keyset":
            return self.single(request)
        assert request.url.path == "/markets/keyset", request.url
        params = request.url.params
        filters = [(k, v) for k, v in params.multi_items() if k != "after_cursor"]
        page, after = 1, 0
        cursor = params.get("after_cursor")
        if cursor is not None:
            state = json.loads(base64.urlsafe_b64decode(cursor))
            if state["q"] != self._query_hash(filters):
                return httpx.Response(422, json={"type": "validation error", "error": "invalid cursor"})
            page, after = state["page"], state["after"]
        key = (params["end_date_min"], page)
        self.calls[key] = self.calls.get(key, 0) + 1
        self.events.append(("arrive", key))
        if self.fault is not None:
            injected = self.fault(PageCall(params["end_date_min"], page, self.calls[key], request))
            if isinstance(injected, Exception):
                raise injected
            if injected is not None:
                return injected
        low, high = _instant(params["end_date_min"]), _instant(params["end_date_max"])
        closed = params["closed"] == "true"
        limit = min(int(params["limit"]), self.clamp)
        matching = [
            m
            for m in self.markets
            if int(m["id"]) > after and m["closed"] == closed and low <= _instant(m["endDate"]) <= high
        ]
        chunk = matching[:limit]
        body: dict[str, Any] = {"markets": chunk}
        if len(chunk) == limit:
            state = {"after": int(chunk[-1]["id"]), "page": page + 1, "q": self._query_hash(filters)}
            body["next_cursor"] = base64.urlsafe_b64encode(json.dumps(state).encode()).decode()
        return httpx.Response(200, json=body)

    def single(self, request: httpx.Request) -> httpx.Response:
        market_id = request.url.path.rsplit("/", 1)[1]
        for market in self.markets:
            if market["id"] == market_id:
                return httpx.Response(200, json={"$schema": "https://example/Market.json", **market})
        return httpx.Response(404, json={"type": "not found", "error": "market not found"})


class Recorder:
    """An injected sleep that records and returns at once (virtual time stands still)."""

    def __init__(self, events: list[tuple[str, Any]] | None = None) -> None:
        self.sleeps: list[float] = []
        self.events = events if events is not None else []

    async def __call__(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.events.append(("sleep", seconds))
        await asyncio.sleep(0)


def client_for(server: FakeGamma, tmp_path: Any, **kwargs: Any) -> GammaClient:
    kwargs.setdefault("sleep", Recorder(server.events))
    kwargs.setdefault("rng", random.Random(7))
    return GammaClient(
        "http://gamma.test", ReceiptStore(tmp_path / "receipts"), transport=server.transport(), **kwargs
    )


async def sweep(client: GammaClient, **kwargs: Any) -> SweepResult:
    async with client:
        return await client.sweep_markets(end_date_min=WINDOW[0], end_date_max=WINDOW[1], **kwargs)


def ids_of(result: SweepResult) -> list[str]:
    return [m.market["id"] for m in result.markets]


# -- shards ------------------------------------------------------------------------------------


def test_shard_windows_are_contiguous_whole_second_and_cover_the_window() -> None:
    low, high = T0 + dt.timedelta(microseconds=250), T0 + dt.timedelta(hours=102)
    windows = shard_windows(low, high, 4)
    assert len(windows) == 4
    assert windows[0][0] == low and windows[-1][1] == high
    for (_, end), (start, _) in itertools.pairwise(windows):
        assert end == start and start.microsecond == 0
    assert all(a < b for a, b in windows)
    assert shard_windows(T0, T0, 4) == [(T0, T0)]
    assert shard_windows(T0, T0 + dt.timedelta(seconds=2), 8) == [
        (T0, T0 + dt.timedelta(seconds=1)),
        (T0 + dt.timedelta(seconds=1), T0 + dt.timedelta(seconds=2)),
    ]
    with pytest.raises(ValueError, match="after"):
        shard_windows(high, low, 2)
    with pytest.raises(ValueError, match="naive"):
        shard_windows(dt.datetime(2026, 1, 1), dt.datetime(2026, 1, 2), 2)
    with pytest.raises(ValueError, match="at least 1"):
        shard_windows(low, high, 0)


# -- pagination --------------------------------------------------------------------------------


def test_pagination_over_shards_resends_filters_and_follows_after_cursor(tmp_path: Any) -> None:
    markets = spread_markets(1234)
    server = FakeGamma(markets)
    progress: list[SweepProgress] = []
    result = run(sweep(client_for(server, tmp_path, as_of=T0), shards=4, progress=progress.append))

    assert result.complete and result.reason is None
    assert sorted(ids_of(result), key=int) == [m["id"] for m in markets]
    assert len(result.markets) == 1234 and not result.duplicates
    # Sequential per shard, every page but the last is full: ceil(n/100) pages per shard.
    per_shard = [report.markets for report in result.shards]
    assert sum(per_shard) == 1234
    assert result.pages == sum(-(-n // 100) + (1 if n % 100 == 0 else 0) for n in per_shard)
    assert result.requests == result.pages == len(server.requests)

    by_window: dict[str, list[httpx.Request]] = {}
    for request in server.requests:
        by_window.setdefault(request.url.params["end_date_min"], []).append(request)
    assert len(by_window) == 4
    for requests in by_window.values():
        first = requests[0].url.params
        assert "after_cursor" not in first
        assert [k for k, _ in first.multi_items()] == list(FILTER_KEYS)
        assert (first["closed"], first["order"], first["ascending"], first["limit"]) == (
            "false",
            "id",
            "true",
            "100",
        )
        for request in requests[1:]:
            params = request.url.params
            assert [(k, params[k]) for k in FILTER_KEYS] == [(k, first[k]) for k in FILTER_KEYS]
            assert params.get("after_cursor")
            assert "cursor" not in params and "next_cursor" not in params and "offset" not in params

    # The log: one record per attempt, each naming a stored receipt; pages in shard then page order.
    store = ReceiptStore(tmp_path / "receipts")
    assert [r.seq for r in result.requests_log] == list(range(1, result.requests + 1))
    assert result.receipt_ids == [r.receipt_id for r in result.requests_log]
    assert all(rid in store for rid in result.receipt_ids)
    ordered = sorted(result.requests_log, key=lambda r: (r.shard, r.page))
    assert result.page_receipt_ids == [r.receipt_id for r in ordered]
    assert [(m.shard, m.page) for m in result.markets] == sorted((m.shard, m.page) for m in result.markets)
    assert {r.outcome for r in result.requests_log} == {"page", "last_page"}
    assert sum(r.outcome == "last_page" for r in result.requests_log) == 4
    for record in result.requests_log:
        receipt = store.get(record.receipt_id)
        assert receipt.url == record.url and receipt.url.startswith(
            "http://gamma.test/markets/keyset?closed=false"
        )
        assert list(receipt.params) == list(record.params)
        assert receipt.status == 200 and receipt.started_at == record.started_at
        assert receipt.started_at.endswith("Z") and len(receipt.started_at) == len(
            "2026-11-30T10:00:00.000000Z"
        )
    for swept in result.markets:
        assert swept.event is swept.market["events"][0]
        page = json.loads(store.get(swept.receipt_id).body)
        assert page["markets"][swept.position] == swept.market

    assert result.summary() == {
        "complete": True,
        "reason": None,
        "pages": result.pages,
        "requests": result.requests,
        "markets": 1234,
        "receipts": len(set(result.receipt_ids)),
    }
    assert [p.requests for p in progress] == list(range(1, result.requests + 1))
    assert progress[-1] == SweepProgress(pages=result.pages, requests=result.requests, markets=1234)
    assert result.base_url == "http://gamma.test" and result.as_of == "2026-11-30T10:00:00Z"
    # asyncio and loggers repr a finished task's result: it must not spell out the whole board.
    assert len(repr(result)) < 300 and "complete=True" in repr(result)


def test_stops_on_absent_next_cursor_never_on_a_short_page(tmp_path: Any) -> None:
    # The server clamps pages to 30 while the client asks for 100: every page is "short".
    server = FakeGamma(spread_markets(95), clamp=30)
    result = run(sweep(client_for(server, tmp_path), shards=1))
    assert result.complete
    assert len(result.markets) == 95
    assert result.pages == 4  # 30 + 30 + 30 + 5, the last without next_cursor


def test_exactly_full_last_page_is_followed_to_the_empty_page(tmp_path: Any) -> None:
    server = FakeGamma(spread_markets(200))
    result = run(sweep(client_for(server, tmp_path), shards=1))
    assert result.complete
    assert result.pages == 3 and len(result.markets) == 200
    assert [r.outcome for r in result.requests_log] == ["page", "page", "last_page"]


def test_keyset_order_can_be_left_to_the_server(tmp_path: Any) -> None:
    server = FakeGamma(spread_markets(150))
    result = run(sweep(client_for(server, tmp_path, keyset_order=None), shards=1))
    assert result.complete and len(result.markets) == 150
    assert all("order" not in r.url.params and "ascending" not in r.url.params for r in server.requests)


def test_closed_flag_and_page_size_are_sent(tmp_path: Any) -> None:
    markets = [make_market(i, T0 + dt.timedelta(hours=i), closed=i % 2 == 0) for i in range(1, 21)]
    server = FakeGamma(markets)
    client = client_for(server, tmp_path, page_size=4)
    result = run(sweep(client, shards=1, closed=True))
    assert result.complete and sorted(ids_of(result), key=int) == [str(i) for i in range(2, 21, 2)]
    assert {r.url.params["limit"] for r in server.requests} == {"4"}
    assert {r.url.params["closed"] for r in server.requests} == {"true"}


def test_boundary_market_is_reported_as_a_duplicate(tmp_path: Any) -> None:
    windows = shard_windows(WINDOW[0], WINDOW[1], 2)
    boundary = windows[0][1]
    markets = [*spread_markets(10), make_market(999, boundary)]
    server = FakeGamma(markets)
    result = run(sweep(client_for(server, tmp_path), shards=2))
    assert result.complete
    assert ids_of(result).count("999") == 2
    (duplicate,) = result.duplicates
    assert duplicate.market_id == "999" and duplicate.identical and duplicate.shards == (0, 1)


class LoopingGamma(FakeGamma):
    """A server whose every page hands back the same cursor (the trap of a misspelt cursor param)."""

    LOOP = base64.urlsafe_b64encode(b"same-cursor").decode()

    def respond(self, request: httpx.Request) -> httpx.Response:
        number = len(self.requests)
        return httpx.Response(200, json={"markets": [make_market(number, T0)], "next_cursor": self.LOOP})


def test_cursor_loop_ends_the_shard_as_partial(tmp_path: Any) -> None:
    server = LoopingGamma([])
    result = run(sweep(client_for(server, tmp_path), shards=1))
    assert not result.complete
    assert result.pages == 2 and len(server.requests) == 2
    assert [r.url.params.get("after_cursor") for r in server.requests] == [None, LoopingGamma.LOOP]
    reason = result.reason or ""
    assert "cursor loop" in reason and "already sent for page 2" in reason
    assert result.requests_log[-1].receipt_id in reason
    assert [m.market["id"] for m in result.markets] == ["1", "2"]


def test_page_cap_ends_the_shard_as_partial(tmp_path: Any) -> None:
    server = FakeGamma(spread_markets(1000))
    result = run(sweep(client_for(server, tmp_path, page_cap=3), shards=1))
    assert not result.complete
    assert result.pages == 3 and len(result.markets) == 300
    assert "page cap 3" in (result.reason or "")
    assert result.requests_log[-1].receipt_id in (result.reason or "")


def test_page_cap_reached_on_the_last_page_is_complete(tmp_path: Any) -> None:
    server = FakeGamma(spread_markets(250))
    result = run(sweep(client_for(server, tmp_path, page_cap=3), shards=1))
    assert result.complete and result.pages == 3


# -- retries -----------------------------------------------------------------------------------


class SlowVirtualSleep:
    """Virtual time that advances by each sleep, but only after a real pause, so that other tasks
    run (and meet the gate) while a sleeper is still asleep."""

    def __init__(self, events: list[tuple[str, Any]], pause: float) -> None:
        self.now = T0
        self.sleeps: list[float] = []
        self.events = events
        self.pause = pause

    def clock(self) -> dt.datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.events.append(("sleep", seconds))
        await asyncio.sleep(self.pause)
        self.now += dt.timedelta(seconds=seconds)
        self.events.append(("woke", seconds))


def test_429_with_retry_after_pauses_every_shard_then_completes(tmp_path: Any) -> None:
    first_window = format_window(shard_windows(*WINDOW, 2)[0][0])

    def fault(call: PageCall) -> httpx.Response | None:
        if call.end_date_min == first_window and call.page == 1 and call.call == 1:
            return httpx.Response(429, headers={"Retry-After": "7"}, text="Too Many Requests")
        return None

    server = FakeGamma(spread_markets(400), fault=fault)

    async def handle(request: httpx.Request) -> httpx.Response:
        # The other shard's first page is slow: its next request is sent after the 429 was seen,
        # while the 429'd request is still waiting out the Retry-After.
        server.requests.append(request)
        if request.url.params["end_date_min"] != first_window and "after_cursor" not in request.url.params:
            await asyncio.sleep(0.1)
        return server.respond(request)

    time_ = SlowVirtualSleep(server.events, pause=0.5)
    client = GammaClient(
        "http://gamma.test",
        ReceiptStore(tmp_path / "receipts"),
        sleep=time_.sleep,
        clock=time_.clock,
        rng=random.Random(1),
        transport=httpx.MockTransport(handle),
    )
    result = run(sweep(client, shards=2))
    assert result.complete and result.reason is None
    assert len(result.markets) == 400
    # Both the retry and the other shard's next page waited out the Retry-After: the gate is shared.
    assert time_.sleeps == [7.0, 7.0]
    (retried,) = [r for r in result.requests_log if r.outcome == "retry"]
    assert (retried.status, retried.attempt, retried.shard, retried.page) == (429, 1, 0, 1)
    other_page_2 = server.events.index(("arrive", (format_window(shard_windows(*WINDOW, 2)[1][0]), 2)))
    assert [kind for kind, _ in server.events[:other_page_2]].count("woke") == 2
    # No request of either shard started before the gate (T0 + 7 s) once the 429 had been seen.
    after = [r for r in result.requests_log if r.seq > retried.seq and r.shard == 0]
    assert after and all(r.started_at >= "2026-11-30T10:00:07" for r in after)


def test_retry_after_as_http_date(tmp_path: Any) -> None:
    later = email.utils.format_datetime(T0 + dt.timedelta(seconds=30), usegmt=True)

    def fault(call: PageCall) -> httpx.Response | None:
        if call.call == 1:
            return httpx.Response(503, headers={"Retry-After": later}, json={"error": "busy"})
        return None

    server = FakeGamma(spread_markets(5), fault=fault)
    recorder = Recorder()
    result = run(sweep(client_for(server, tmp_path, sleep=recorder, clock=lambda: T0), shards=1))
    assert result.complete
    assert recorder.sleeps == [30.0]


def test_retry_after_parsing() -> None:
    assert retry_after_seconds("7", T0) == 7.0
    assert retry_after_seconds(" 2.5 ", T0) == 2.5
    assert retry_after_seconds("Mon, 30 Nov 2026 10:01:00 GMT", T0) == 60.0
    assert retry_after_seconds("Mon, 30 Nov 2026 09:00:00 GMT", T0) == 0.0
    assert retry_after_seconds("soon", T0) is None
    assert retry_after_seconds(None, T0) is None


def test_retry_after_beyond_the_limit_gives_up(tmp_path: Any) -> None:
    def fault(call: PageCall) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "3600"})

    server = FakeGamma(spread_markets(5), fault=fault)
    recorder = Recorder()
    result = run(sweep(client_for(server, tmp_path, sleep=recorder), shards=1))
    assert not result.complete and result.requests == 1
    assert "Retry-After 3600s exceeds 300s" in (result.reason or "")
    assert recorder.sleeps == []


def test_500_that_never_clears_is_partial_with_every_attempt_recorded(tmp_path: Any) -> None:
    windows = shard_windows(*WINDOW, 3)
    broken = format_window(windows[1][0])

    def fault(call: PageCall) -> httpx.Response | None:
        if call.end_date_min == broken and call.page == 2:
            return httpx.Response(500, json={"type": "internal error", "error": "cannot get the information"})
        return None

    server = FakeGamma(spread_markets(900), fault=fault)
    recorder = Recorder()
    result = run(sweep(client_for(server, tmp_path, sleep=recorder, max_attempts=4), shards=3))

    assert not result.complete
    failing = [r for r in result.requests_log if r.shard == 1 and r.page == 2]
    assert [(r.attempt, r.status, r.outcome) for r in failing] == [
        (1, 500, "retry"),
        (2, 500, "retry"),
        (3, 500, "retry"),
        (4, 500, "failed"),
    ]
    store = ReceiptStore(tmp_path / "receipts")
    assert all(r.receipt_id in store for r in failing)
    assert (
        store.get(failing[-1].receipt_id).body
        == b'{"type":"internal error","error":"cannot get the information"}'
    )
    reason = result.reason or ""
    assert failing[-1].receipt_id in reason and "HTTP 500" in reason and "after 4 attempt(s)" in reason
    assert failing[-1].url in reason and reason.startswith("shard 1 [")
    # The good pages' markets are still returned: shards 0 and 2 whole, shard 1's first page.
    assert [(s.complete, s.pages) for s in result.shards] == [(True, 4), (False, 1), (True, 4)]
    assert len(result.markets) == 300 + 100 + 300
    assert len(result.page_receipt_ids) == result.pages == 9
    assert result.requests == 9 + 4
    assert result.summary()["receipts"] == len(set(result.receipt_ids))
    # Backoff is exponential with full jitter: each wait within [0, 0.5 * 2^(attempt-1)].
    assert len(recorder.sleeps) == 3
    for attempt, delay in enumerate(recorder.sleeps, start=1):
        assert 0 <= delay <= 0.5 * 2 ** (attempt - 1)


def test_other_4xx_is_not_retried(tmp_path: Any) -> None:
    def fault(call: PageCall) -> httpx.Response:
        return httpx.Response(422, json={"type": "validation error", "error": "order fields are not valid"})

    server = FakeGamma(spread_markets(5), fault=fault)
    recorder = Recorder()
    result = run(sweep(client_for(server, tmp_path, sleep=recorder), shards=1))
    assert not result.complete and result.requests == 1 and recorder.sleeps == []
    assert "not retryable" in (result.reason or "") and "HTTP 422" in (result.reason or "")
    assert "order fields are not valid" in (result.reason or "")


def test_connection_error_then_success(tmp_path: Any) -> None:
    def fault(call: PageCall) -> Exception | None:
        if call.page == 1 and call.call == 1:
            return httpx.ConnectError("connection reset by peer", request=call.request)
        if call.page == 2 and call.call == 1:
            return httpx.ReadTimeout("timed out", request=call.request)
        return None

    server = FakeGamma(spread_markets(150), fault=fault)
    result = run(sweep(client_for(server, tmp_path), shards=1))
    assert result.complete and len(result.markets) == 150
    failures = [r for r in result.requests_log if r.outcome == "retry"]
    assert [(r.status, r.error) for r in failures] == [
        (None, "ConnectError: connection reset by peer"),
        (None, "ReadTimeout: timed out"),
    ]
    store = ReceiptStore(tmp_path / "receipts")
    receipt = store.get(failures[0].receipt_id)
    assert (
        receipt.status is None
        and receipt.body == b""
        and receipt.error == "ConnectError: connection reset by peer"
    )


def test_transport_errors_that_will_not_heal_are_not_retried(tmp_path: Any) -> None:
    def fault(call: PageCall) -> Exception:
        return httpx.UnsupportedProtocol("no such scheme", request=call.request)

    server = FakeGamma(spread_markets(5), fault=fault)
    result = run(sweep(client_for(server, tmp_path), shards=1))
    assert not result.complete and result.requests == 1
    assert "UnsupportedProtocol" in (result.reason or "")


def _truncated(call: PageCall) -> httpx.Response:
    body = json.dumps({"markets": [make_market(1, T0)], "next_cursor": None}).encode()
    return httpx.Response(200, content=body[: len(body) // 2], headers={"content-type": "application/json"})


def test_truncated_json_then_success(tmp_path: Any) -> None:
    server = FakeGamma(spread_markets(50), fault=lambda call: _truncated(call) if call.call == 1 else None)
    result = run(sweep(client_for(server, tmp_path), shards=1))
    assert result.complete and len(result.markets) == 50
    assert [(r.status, r.outcome) for r in result.requests_log] == [(200, "retry"), (200, "last_page")]


def test_truncated_json_forever_is_partial_naming_the_receipt(tmp_path: Any) -> None:
    server = FakeGamma(spread_markets(50), fault=_truncated)
    result = run(sweep(client_for(server, tmp_path), shards=1))
    assert not result.complete and result.requests == 6 and result.pages == 0
    last = result.requests_log[-1]
    assert last.outcome == "failed"
    reason = result.reason or ""
    assert last.receipt_id in reason and "not JSON" in reason and "after 6 attempt(s)" in reason
    body = ReceiptStore(tmp_path / "receipts").get(last.receipt_id).body
    assert body.startswith(b'{"markets"') and len(body) > 0


def test_deterministic_backoff_with_a_seeded_rng(tmp_path: Any) -> None:
    def fault(call: PageCall) -> httpx.Response | None:
        return httpx.Response(502, text="bad gateway") if call.call <= 4 else None

    def sleeps(seed: int, directory: str) -> list[float]:
        recorder = Recorder()
        server = FakeGamma(spread_markets(5), fault=fault)
        client = client_for(
            server, tmp_path / directory, sleep=recorder, rng=random.Random(seed), backoff_cap_s=3.0
        )
        assert run(sweep(client, shards=1)).complete
        return recorder.sleeps

    reference = random.Random(42)
    expected = [reference.uniform(0, ceiling) for ceiling in (0.5, 1.0, 2.0, 3.0)]
    assert sleeps(42, "a") == expected
    assert sleeps(42, "b") == expected
    assert sleeps(43, "c") != expected


# -- concurrency, receipts, headers ------------------------------------------------------------


@pytest.mark.parametrize(("limit", "shards"), [(4, 8), (2, 6)])
def test_never_more_than_max_in_flight(tmp_path: Any, limit: int, shards: int) -> None:
    server = FakeGamma(spread_markets(2400), delay=0.005)
    result = run(sweep(client_for(server, tmp_path, max_in_flight=limit), shards=shards))
    assert result.complete
    assert server.max_in_flight == limit  # the pipe is kept full, never overfull


def test_max_in_flight_above_four_is_refused(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="max_in_flight"):
        GammaClient("http://gamma.test", ReceiptStore(tmp_path), max_in_flight=5)
    with pytest.raises(ValueError, match="page_size"):
        GammaClient("http://gamma.test", ReceiptStore(tmp_path), page_size=500)


class OrderedStore(ReceiptStore):
    def __init__(self, root: Any, events: list[tuple[str, bytes]]) -> None:
        super().__init__(root)
        self.events = events

    def put(self, receipt: Any) -> str:
        self.events.append(("put", receipt.body))
        return super().put(receipt)


def test_receipts_are_stored_before_bodies_are_parsed(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[tuple[str, bytes]] = []

    def recording(original: Any) -> Any:
        def decode(body: bytes) -> Any:
            events.append(("parse", body))
            return original(body)

        return decode

    # A sweep parses its pages with _decode_keyset, which falls back to _decode_json.
    monkeypatch.setattr(client_module, "_decode_keyset", recording(client_module._decode_keyset))
    monkeypatch.setattr(client_module, "_decode_json", recording(client_module._decode_json))
    server = FakeGamma(
        spread_markets(250), fault=lambda c: _truncated(c) if c.page == 2 and c.call == 1 else None
    )
    client = GammaClient(
        "http://gamma.test",
        OrderedStore(tmp_path, events),
        sleep=Recorder(),
        rng=random.Random(0),
        transport=server.transport(),
    )
    result = run(sweep(client, shards=1))
    assert result.complete
    parses = [i for i, (kind, _) in enumerate(events) if kind == "parse"]
    # Each request's body parsed once, and once more where it is not a plain keyset page (page 2's
    # first answer, cut short).
    assert len({events[i][1] for i in parses}) == result.requests == 4
    assert len(parses) == 5
    for index in parses:
        assert ("put", events[index][1]) in events[:index]


def test_a_page_that_fails_to_parse_still_has_its_receipt(tmp_path: Any) -> None:
    def fault(call: PageCall) -> httpx.Response | None:
        if call.page == 2:
            return httpx.Response(200, json={"unexpected": "shape"})
        return None

    server = FakeGamma(spread_markets(150), fault=fault)
    result = run(sweep(client_for(server, tmp_path), shards=1))
    assert not result.complete and result.pages == 1 and len(result.markets) == 100
    last = result.requests_log[-1]
    assert (last.page, last.outcome, last.status) == (2, "failed", 200)
    assert ReceiptStore(tmp_path / "receipts").get(last.receipt_id).body == b'{"unexpected":"shape"}'
    assert last.receipt_id in (result.reason or "") and "not a /markets/keyset envelope" in (
        result.reason or ""
    )
    assert result.page_receipt_ids == [result.requests_log[0].receipt_id]


def test_as_of_header_is_sent_on_every_request_and_recorded(tmp_path: Any) -> None:
    server = FakeGamma(spread_markets(300))
    as_of = dt.datetime(2026, 11, 30, 5, 0, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    result = run(sweep(client_for(server, tmp_path, as_of=as_of), shards=2))
    assert {r.headers.get(AS_OF_HEADER) for r in server.requests} == {"2026-11-30T10:00:00Z"}
    assert {r.headers.get("user-agent") for r in server.requests} == {"colosseum/0.1"}
    store = ReceiptStore(tmp_path / "receipts")
    for receipt_id in result.receipt_ids:
        assert store.get(receipt_id).request_headers == {"x-colosseum-as-of": "2026-11-30T10:00:00Z"}

    plain = FakeGamma(spread_markets(3))
    run(sweep(client_for(plain, tmp_path / "plain"), shards=1))
    assert all(AS_OF_HEADER not in r.headers for r in plain.requests)


def test_receipt_times_come_from_the_injected_clock(tmp_path: Any) -> None:
    ticks = iter(T0 + dt.timedelta(milliseconds=i) for i in range(1000))
    server = FakeGamma(spread_markets(5))
    result = run(sweep(client_for(server, tmp_path, clock=lambda: next(ticks)), shards=1))
    (record,) = result.requests_log
    assert result.started_at == "2026-11-30T10:00:00.000000Z"
    assert (record.started_at, record.ended_at) == (
        "2026-11-30T10:00:00.001000Z",
        "2026-11-30T10:00:00.002000Z",
    )
    assert result.ended_at == "2026-11-30T10:00:00.003000Z"


def test_a_broken_receipt_store_is_raised_not_swallowed(tmp_path: Any) -> None:
    class Broken(ReceiptStore):
        def put(self, receipt: Any) -> str:
            raise OSError("disk full")

    server = FakeGamma(spread_markets(5))
    client = GammaClient("http://gamma.test", Broken(tmp_path), transport=server.transport())
    with pytest.raises(OSError, match="disk full"):
        run(sweep(client, shards=2))


# -- single market -----------------------------------------------------------------------------


def test_get_market_returns_the_body_and_its_receipt(tmp_path: Any) -> None:
    server = FakeGamma(spread_markets(5))

    async def go() -> Any:
        async with client_for(server, tmp_path, as_of=T0) as client:
            return await client.get_market("3")

    fetched = run(go())
    assert fetched.status == 200 and fetched.body["id"] == "3" and "$schema" in fetched.body
    assert fetched.url == "http://gamma.test/markets/3"
    assert fetched.receipt_ids == (fetched.receipt_id,)
    receipt = ReceiptStore(tmp_path / "receipts").get(fetched.receipt_id)
    assert json.loads(receipt.body) == fetched.body
    assert server.requests[0].headers[AS_OF_HEADER] == "2026-11-30T10:00:00Z"


def test_get_market_404_raises_naming_the_receipt_without_retrying(tmp_path: Any) -> None:
    server = FakeGamma(spread_markets(5))

    async def go() -> Any:
        async with client_for(server, tmp_path) as client:
            return await client.get_market("404404")

    with pytest.raises(GammaRequestError, match="HTTP 404") as caught:
        run(go())
    assert len(server.requests) == 1
    assert caught.value.status == 404 and caught.value.receipt_id in str(caught.value)
    assert caught.value.receipt_id in ReceiptStore(tmp_path / "receipts")
