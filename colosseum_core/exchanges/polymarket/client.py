"""The async Gamma client: keyset sweeps of the board and single-market fetches, every attempt a receipt.

Each HTTP attempt, whatever became of it (a page, a 429, a 500, a connection reset with no response
at all, a 200 whose body was cut short), is written to the content-addressed receipt store before
its body is parsed, so the record always holds exactly what was received.

A sweep pages ``GET /markets/keyset`` with ``after_cursor``. Keyset paging is sequential per cursor,
so to keep up to ``max_in_flight`` requests busy the end-date window is split into contiguous
shards that are paged concurrently under one semaphore. Transient failures (429, 5xx, resets,
timeouts, truncated JSON) are retried with capped exponential backoff and full jitter; a
``Retry-After`` pauses every request of the client, not just the one that received it. A shard
that can not reach its last page (attempts exhausted, a 4xx, a cursor loop, the page cap, a body
that is not a keyset page) ends as partial with a reason naming the receipt; the sweep is complete
only if every shard reached its last page.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import itertools
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal
from urllib.parse import quote

import httpx

from colosseum_core import json_values
from colosseum_core.exchanges.polymarket.pages import (
    KeysetSummary,
    PageError,
    PageMarket,
    keyset_summary,
    next_cursor_of,
    page_items,
)
from colosseum_core.exchanges.polymarket.timestamps import format_timestamp
from colosseum_core.gc_pause import gc_paused
from colosseum_core.record.http import retry_after_seconds, store_exchange
from colosseum_core.record.receipts import ReceiptStore, format_receipt_time

AS_OF_HEADER = "X-Colosseum-As-Of"
MARKETS_KEYSET_PATH = "/markets/keyset"
# Polymarket's edge (Cloudflare) starts refusing clients that open more than about four
# concurrent requests; the design caps every client at four.
MAX_IN_FLIGHT = 4
# Gamma clamps listing pages to 100 items; asking for more is pointless at best and a 422 at worst.
MAX_PAGE_SIZE = 100
# Keyset order. ``id`` is immutable, so a market can not move across the cursor while the sweep
# runs (ordering by ``endDate`` or volume would let an edited market be skipped or seen twice).
# Gamma only accepts camelCase field names here; snake_case gives 422.
KEYSET_ORDER = "id"
DEFAULT_USER_AGENT = "colosseum/0.1"

Outcome = Literal["page", "last_page", "retry", "failed"]

# Transport failures worth another attempt: timeouts (including stalls), resets and refused
# connections, a response cut off mid-stream, or a compressed body that does not decompress.
# Not retried: a malformed URL, an unsupported scheme, redirects: those will not heal.
_RETRYABLE_ERRORS: tuple[type[Exception], ...] = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
    httpx.DecodingError,
)
_BODY_SNIPPET = 160


@dataclasses.dataclass(frozen=True)
class SweepSettings:
    """How a sweep reaches and pages a Gamma-compatible exchange: the real one, or a stand-in."""

    base_url: str
    shards: int = 4
    max_in_flight: int = 4
    timeout_s: float = 30.0
    page_cap: int = 2000


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _decode_json(body: bytes) -> Any:
    """The one parse of a response body (kept separate so the order "store, then parse" is testable)."""
    return json_values.loads(body)


def _decode_keyset(body: bytes) -> Any:
    """A sweep's parse of a page: what it reads of a plain keyset page (``KeysetSummary``), else all."""
    summary = keyset_summary(body)
    return _decode_json(body) if summary is None else summary


@dataclasses.dataclass(frozen=True)
class RequestRecord:
    """One HTTP attempt of a sweep. ``shard`` is 0-based; ``seq``, ``page`` and ``attempt`` are 1-based.

    ``outcome`` is ``page`` (a good page with a next cursor), ``last_page`` (a good page without
    one), ``retry`` (failed, tried again) or ``failed`` (failed for good).
    """

    seq: int
    shard: int | None
    page: int | None
    attempt: int
    method: str
    url: str
    params: tuple[tuple[str, str], ...]
    status: int | None
    error: str | None
    receipt_id: str
    started_at: str
    ended_at: str
    outcome: Outcome


class _PageBody:
    """A good page's bytes, as received (and stored as its receipt), decoded again only when asked.

    A sweep decodes every page once, to judge it; holding tens of thousands of decoded markets
    until the card is done cost more memory than the rest of the card (550 MB on a 50,000-market
    board), and nothing in a card reads them: their ids are kept apart.
    """

    __slots__ = ("_body", "_items", "_receipt_id")

    def __init__(self, body: bytes, receipt_id: str) -> None:
        self._body = body
        self._receipt_id = receipt_id
        self._items: list[PageMarket] | None = None

    def items(self) -> list[PageMarket]:
        if self._items is None:
            # Not _decode_json: that is the sweep's one parse of a response, already made.
            self._items = page_items(json_values.loads(self._body), self._receipt_id)
        return self._items


@dataclasses.dataclass(frozen=True)
class SweptMarket:
    """One market object of a good page, with its parent event and the receipt it was read from.

    ``market`` and ``event`` are the page's own objects (decoded from its bytes on first use);
    ``market_id`` is the market's ``id`` as text, None if it has none that is a string or integer.
    """

    receipt_id: str
    shard: int
    page: int
    position: int
    market_id: str | None
    source: _PageBody = dataclasses.field(repr=False, compare=False)

    @property
    def market(self) -> Mapping[str, Any]:
        return self.source.items()[self.position].market

    @property
    def event(self) -> Mapping[str, Any] | None:
        return self.source.items()[self.position].event


def _market_id(market: Mapping[str, Any]) -> str | None:
    raw = market.get("id")
    return str(raw) if isinstance(raw, str | int) and not isinstance(raw, bool) else None


def _summary(body: Any, receipt_id: str) -> KeysetSummary:
    """What a sweep reads of a keyset page; raises ``PageError`` if the body is not one."""
    if isinstance(body, KeysetSummary):
        return body
    if not isinstance(body, Mapping) or "markets" not in body:
        raise PageError(receipt_id, "the body is not a /markets/keyset envelope")
    items = page_items(body, receipt_id)
    return KeysetSummary(
        market_ids=[_market_id(item.market) for item in items],
        with_parent=[item.event is not None for item in items],
        next_cursor=next_cursor_of(body, receipt_id),
    )


@dataclasses.dataclass(frozen=True)
class DuplicateMarket:
    """A market id met more than once (normally on a shard boundary) and whether the copies agree."""

    market_id: str
    receipt_ids: tuple[str, ...]
    shards: tuple[int, ...]
    identical: bool


@dataclasses.dataclass(frozen=True)
class ShardReport:
    shard: int
    end_date_min: str
    end_date_max: str
    complete: bool
    reason: str | None
    pages: int
    markets: int


@dataclasses.dataclass(frozen=True)
class SweepProgress:
    pages: int
    requests: int
    markets: int


@dataclasses.dataclass(frozen=True, repr=False)
class SweepResult:
    """What a sweep saw. ``complete`` only if every shard reached its last page."""

    complete: bool
    reason: str | None
    pages: int
    requests: int
    receipt_ids: list[str]
    page_receipt_ids: list[str]
    requests_log: list[RequestRecord]
    markets: list[SweptMarket]
    started_at: str
    ended_at: str
    base_url: str
    as_of: str | None
    shards: list[ShardReport] = dataclasses.field(default_factory=list)
    duplicates: list[DuplicateMarket] = dataclasses.field(default_factory=list)
    # Markets whose page named no parent event (``events`` absent or empty). The copy refuses
    # them; a sweep where this is most markets means Gamma stopped nesting events.
    markets_without_event: int = 0

    def __repr__(self) -> str:
        # The generated repr would spell out every market of the board (tens of megabytes); asyncio
        # and loggers repr a finished task's result, so keep it to the summary.
        fields = ", ".join(f"{k}={v!r}" for k, v in self.summary().items())
        return f"SweepResult({fields}, base_url={self.base_url!r}, as_of={self.as_of!r})"

    def summary(self) -> dict[str, Any]:
        return {
            "complete": self.complete,
            "reason": self.reason,
            "pages": self.pages,
            "requests": self.requests,
            "markets": len(self.markets),
            "receipts": len(set(self.receipt_ids)),
        }


@dataclasses.dataclass(frozen=True)
class FetchResult:
    """A single successful GET: its receipt, the decoded body, and every attempt it took."""

    receipt_id: str
    url: str
    status: int
    body: Any
    receipt_ids: tuple[str, ...]
    requests_log: tuple[RequestRecord, ...]


@dataclasses.dataclass(frozen=True)
class LookupResult:
    """Markets looked up by id: what came back, and the receipt of every page."""

    markets: list[PageMarket]
    receipt_ids: list[str]
    requests: int


class GammaRequestError(Exception):
    """A request that did not succeed within its attempts, or failed in a way retrying can not fix."""

    def __init__(self, message: str, *, receipt_id: str, status: int | None, url: str) -> None:
        self.receipt_id = receipt_id
        self.status = status
        self.url = url
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_request_error, (str(self), self.receipt_id, self.status, self.url))

    @classmethod
    def at(cls, message: str, exchange: _Exchange) -> GammaRequestError:
        """The error of ``exchange``'s attempt, naming its receipt, status and URL."""
        return cls(message, receipt_id=exchange.receipt_id, status=exchange.status, url=exchange.url)


def _rebuild_request_error(message: str, receipt_id: str, status: int | None, url: str) -> GammaRequestError:
    return GammaRequestError(message, receipt_id=receipt_id, status=status, url=url)


def shard_windows(
    end_date_min: dt.datetime, end_date_max: dt.datetime, shards: int
) -> list[tuple[dt.datetime, dt.datetime]]:
    """``[end_date_min, end_date_max]`` cut into at most ``shards`` contiguous windows.

    Inner cut points are floored to whole seconds so every query carries Gamma's plain ISO form.
    Neighbouring windows share their cut instant: both bounds are inclusive on Gamma, so a market
    ending exactly there is listed twice rather than risk it being listed nowhere.
    """
    if shards < 1:
        raise ValueError(f"shards must be at least 1, not {shards}")
    for name, value in (("end_date_min", end_date_min), ("end_date_max", end_date_max)):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"{name} {value!r} is naive; pass an aware (UTC) instant")
    low, high = end_date_min.astimezone(dt.UTC), end_date_max.astimezone(dt.UTC)
    if low > high:
        raise ValueError(f"end_date_min {low.isoformat()} is after end_date_max {high.isoformat()}")
    cuts = [low]
    for index in range(1, shards):
        cut = (low + (high - low) * index / shards).replace(microsecond=0)
        if cuts[-1] < cut < high:
            cuts.append(cut)
    cuts.append(high)
    return list(itertools.pairwise(cuts))


@dataclasses.dataclass(frozen=True)
class _Exchange:
    """One attempt as it went over the wire, already stored as ``receipt_id``."""

    url: str
    params: tuple[tuple[str, str], ...]
    status: int | None
    headers: httpx.Headers
    body: bytes
    error: str | None
    retryable_error: bool
    receipt_id: str
    started_at: str
    ended_at: str


@dataclasses.dataclass(frozen=True)
class _Fetched:
    exchange: _Exchange
    attempt: int
    body: Any = None
    failure: str | None = None


@dataclasses.dataclass(frozen=True)
class _Verdict:
    ok: bool
    body: Any = None
    retryable: bool = False
    problem: str = ""
    retry_after: float | None = None


@dataclasses.dataclass
class _ShardRun:
    index: int
    window: tuple[str, str]
    complete: bool = False
    reason: str | None = None
    page_receipt_ids: list[str] = dataclasses.field(default_factory=list)
    markets: list[SweptMarket] = dataclasses.field(default_factory=list)
    without_event: int = 0

    def label(self) -> str:
        return f"shard {self.index} [{self.window[0]} .. {self.window[1]}]"


class _Tally:
    """The attempts of one operation, in completion order, feeding the progress callback."""

    def __init__(self, progress: Callable[[SweepProgress], None] | None) -> None:
        self.log: list[RequestRecord] = []
        self.pages = 0
        self.markets = 0
        self._progress = progress

    def record(
        self, exchange: _Exchange, *, shard: int | None, page: int | None, attempt: int, outcome: Outcome
    ) -> None:
        self.log.append(
            RequestRecord(
                seq=len(self.log) + 1,
                shard=shard,
                page=page,
                attempt=attempt,
                method="GET",
                url=exchange.url,
                params=exchange.params,
                status=exchange.status,
                error=exchange.error,
                receipt_id=exchange.receipt_id,
                started_at=exchange.started_at,
                ended_at=exchange.ended_at,
                outcome=outcome,
            )
        )
        if self._progress is not None:
            self._progress(SweepProgress(pages=self.pages, requests=len(self.log), markets=self.markets))


def _describe_error(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _snippet(body: bytes) -> str:
    text = body[:_BODY_SNIPPET].decode("utf-8", errors="replace")
    return text + ("…" if len(body) > _BODY_SNIPPET else "")


class GammaClient:
    """Async client for Polymarket's Gamma API (or the project's simulated exchange at another URL).

    ``as_of`` is sent as ``X-Colosseum-As-Of`` on every request (the simulated exchange serves the
    board as of that instant; the real Gamma ignores it). At most ``max_in_flight`` (≤ 4) requests
    are in flight at once, across all operations of this client. A request is tried at most
    ``max_attempts`` times; waits between attempts are drawn from ``rng`` (full jitter under
    ``backoff_base_s * 2**(attempt-1)``, capped at ``backoff_cap_s``) or set by ``Retry-After``,
    which is refused (the request fails) beyond ``max_retry_after_s``. A sweep shard stops as
    partial after ``page_cap`` pages. ``clock`` (aware UTC instants), ``sleep`` and ``rng`` are
    injected; ``transport`` replaces the network (tests, the in-process simulator).
    """

    def __init__(
        self,
        base_url: str,
        receipts: ReceiptStore,
        *,
        as_of: dt.datetime | None = None,
        max_in_flight: int = MAX_IN_FLIGHT,
        max_attempts: int = 6,
        page_size: int = MAX_PAGE_SIZE,
        page_cap: int = 2000,
        timeout_s: float = 30.0,
        backoff_base_s: float = 0.5,
        backoff_cap_s: float = 30.0,
        max_retry_after_s: float = 300.0,
        keyset_order: str | None = KEYSET_ORDER,
        clock: Callable[[], dt.datetime] = _utc_now,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        user_agent: str = DEFAULT_USER_AGENT,
    ) -> None:
        if not 1 <= max_in_flight <= MAX_IN_FLIGHT:
            raise ValueError(f"max_in_flight must be 1..{MAX_IN_FLIGHT}, not {max_in_flight}")
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {max_attempts}")
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ValueError(f"page_size must be 1..{MAX_PAGE_SIZE}, not {page_size}")
        if page_cap < 1:
            raise ValueError(f"page_cap must be at least 1, not {page_cap}")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, not {timeout_s}")
        if min(backoff_base_s, backoff_cap_s, max_retry_after_s) < 0:
            raise ValueError("backoff_base_s, backoff_cap_s and max_retry_after_s must not be negative")
        self.base_url = base_url.rstrip("/")
        self._receipts = receipts
        self._as_of = None if as_of is None else format_timestamp(as_of)
        self._max_attempts = max_attempts
        self._page_size = page_size
        self._page_cap = page_cap
        self._backoff_base_s = backoff_base_s
        self._backoff_cap_s = backoff_cap_s
        self._max_retry_after_s = max_retry_after_s
        self._keyset_order = keyset_order
        self._clock = clock
        self._sleep = sleep
        self._rng = rng if rng is not None else random.Random()
        headers = {"User-Agent": user_agent, "Accept": "application/json"}
        if self._as_of is not None:
            headers[AS_OF_HEADER] = self._as_of
        self._http = httpx.AsyncClient(
            transport=transport,
            headers=headers,
            timeout=httpx.Timeout(timeout_s),
            limits=httpx.Limits(max_connections=max_in_flight, max_keepalive_connections=max_in_flight),
            follow_redirects=False,
        )
        self._in_flight = asyncio.Semaphore(max_in_flight)
        # The shared not-before gate: when any response carries Retry-After, no request of this
        # client starts before it has passed. ``_gate_generation`` tells a sleeper the gate moved.
        self._not_before: dt.datetime | None = None
        self._gate_generation = 0

    @property
    def as_of(self) -> str | None:
        return self._as_of

    async def __aenter__(self) -> GammaClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- time -------------------------------------------------------------------------------

    def _now(self) -> dt.datetime:
        now = self._clock()
        if now.tzinfo is None or now.utcoffset() is None:
            raise ValueError(f"the clock returned a naive datetime {now!r}; it must return UTC instants")
        return now.astimezone(dt.UTC)

    async def _wait_gate(self) -> None:
        while self._not_before is not None:
            generation = self._gate_generation
            delay = (self._not_before - self._now()).total_seconds()
            if delay <= 0:
                return
            await self._sleep(delay)
            # Re-check only if someone pushed the gate further while we slept; an injected clock
            # that does not advance must not turn this into a busy loop.
            if generation == self._gate_generation:
                return

    def _push_gate(self, seconds: float) -> None:
        until = self._now() + dt.timedelta(seconds=seconds)
        if self._not_before is None or until > self._not_before:
            self._not_before = until
            self._gate_generation += 1

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self._backoff_cap_s, self._backoff_base_s * 2 ** min(attempt - 1, 60))
        return self._rng.uniform(0.0, ceiling)

    # -- one attempt ------------------------------------------------------------------------

    async def _exchange(self, url: str, params: tuple[tuple[str, str], ...]) -> _Exchange:
        async with self._in_flight:
            await self._wait_gate()
            request = self._http.build_request("GET", url, params=params)
            started = self._now()
            response: httpx.Response | None = None
            error: str | None = None
            retryable_error = False
            try:
                response = await self._http.send(request)
            except httpx.RequestError as exc:
                error = _describe_error(exc)
                retryable_error = isinstance(exc, _RETRYABLE_ERRORS)
            ended = self._now()
        receipt, receipt_id = await store_exchange(
            self._receipts, request, response, params=params, started=started, ended=ended, error=error
        )
        headers = response.headers if response is not None else httpx.Headers()
        return _Exchange(
            url=receipt.url,
            params=params,
            status=receipt.status,
            headers=headers,
            body=receipt.body,
            error=error,
            retryable_error=retryable_error,
            receipt_id=receipt_id,
            started_at=receipt.started_at,
            ended_at=receipt.ended_at,
        )

    def _judge(self, exchange: _Exchange, decode: Callable[[bytes], Any] | None) -> _Verdict:
        status = exchange.status
        if status is None:
            return _Verdict(
                ok=False, retryable=exchange.retryable_error, problem=f"no response ({exchange.error})"
            )
        if 200 <= status < 300:
            try:
                return _Verdict(ok=True, body=(decode or _decode_json)(exchange.body))
            except (ValueError, RecursionError) as exc:
                # A 200 that is not JSON is almost always a transfer cut short; asking again heals it.
                return _Verdict(
                    ok=False,
                    retryable=True,
                    problem=f"HTTP {status} but the body is not JSON ({len(exchange.body)} bytes; {exc})",
                )
        retryable = status == 429 or 500 <= status <= 599
        retry_after = None
        if retryable:
            retry_after = retry_after_seconds(exchange.headers.get("retry-after"), self._now())
        problem = f"HTTP {status}"
        if exchange.body:
            problem += f" {_snippet(exchange.body)!r}"
        return _Verdict(ok=False, retryable=retryable, problem=problem, retry_after=retry_after)

    async def _fetch(
        self,
        path: str,
        params: Sequence[tuple[str, str]],
        tally: _Tally,
        *,
        shard: int | None,
        page: int | None,
        decode: Callable[[bytes], Any] | None = None,
    ) -> _Fetched:
        """GET ``path`` until it yields JSON or its attempts run out; logs every attempt but a success.

        The successful attempt is left for the caller to log, since only it knows whether the
        page was a good page, the last page, or a body of the wrong shape.
        """
        url = self.base_url + path
        sent = tuple((str(k), str(v)) for k, v in params)
        attempt = 0
        while True:
            attempt += 1
            exchange = await self._exchange(url, sent)
            verdict = self._judge(exchange, decode)
            if verdict.ok:
                return _Fetched(exchange, attempt, body=verdict.body)
            problem = verdict.problem
            final = not verdict.retryable or attempt >= self._max_attempts
            retry_after = verdict.retry_after if verdict.retry_after is not None else 0.0
            wait_for_gate = retry_after > 0
            if not final and retry_after > self._max_retry_after_s:
                # Retrying sooner than the server asked would be hammering; waiting this long
                # would stall the card. Give up and say why.
                final = True
                problem += f"; Retry-After {retry_after:g}s exceeds {self._max_retry_after_s:g}s"
            tally.record(
                exchange, shard=shard, page=page, attempt=attempt, outcome="failed" if final else "retry"
            )
            if final:
                if not verdict.retryable:
                    why = "not retryable"
                elif attempt >= self._max_attempts:
                    why = f"after {attempt} attempt(s)"
                else:
                    why = "not retried"
                failure = f"{why}: last receipt {exchange.receipt_id}: {problem} for GET {exchange.url}"
                return _Fetched(exchange, attempt, failure=failure)
            if wait_for_gate:
                self._push_gate(retry_after)
            else:
                await self._sleep(self._backoff(attempt))

    # -- public operations ------------------------------------------------------------------

    async def get_market(self, market_id: str) -> FetchResult:
        """``GET /markets/{id}``; raises ``GammaRequestError`` (naming its receipt) if it fails."""
        if not isinstance(market_id, str) or not market_id:
            raise ValueError(f"market id {market_id!r} must be a non-empty string")
        tally = _Tally(None)
        fetched = await self._fetch(f"/markets/{quote(market_id, safe='')}", (), tally, shard=None, page=None)
        exchange = fetched.exchange
        if fetched.failure is not None:
            raise GammaRequestError.at(f"market {market_id}: {fetched.failure}", exchange)
        tally.record(exchange, shard=None, page=None, attempt=fetched.attempt, outcome="last_page")
        assert exchange.status is not None
        return FetchResult(
            receipt_id=exchange.receipt_id,
            url=exchange.url,
            status=exchange.status,
            body=fetched.body,
            receipt_ids=tuple(r.receipt_id for r in tally.log),
            requests_log=tuple(tally.log),
        )

    async def lookup_markets(self, market_ids: Sequence[str], *, closed: bool) -> LookupResult:
        """The markets among ``market_ids`` whose ``closed`` is ``closed``, by ``/markets/keyset?id=…``.

        Ids are sent in batches of at most ``page_size`` (Gamma's page limit, far below the URL
        length that draws a 414), batches concurrently within the in-flight limit, each paged to
        its last page. Every page's receipt is listed; a batch that fails raises
        ``GammaRequestError`` naming its last receipt.
        """
        ids = list(dict.fromkeys(market_ids))
        if any(not isinstance(i, str) or not i for i in ids):
            raise ValueError(f"market ids must be non-empty strings: {ids!r:.200}")
        tally = _Tally(None)
        batches = [ids[i : i + self._page_size] for i in range(0, len(ids), self._page_size)]
        found = await asyncio.gather(*(self._lookup_batch(batch, closed, tally) for batch in batches))
        return LookupResult(
            markets=[item for batch in found for item in batch[0]],
            receipt_ids=[rid for batch in found for rid in batch[1]],
            requests=len(tally.log),
        )

    async def _lookup_batch(
        self, ids: list[str], closed: bool, tally: _Tally
    ) -> tuple[list[PageMarket], list[str]]:
        items: list[PageMarket] = []
        receipt_ids: list[str] = []
        cursor: str | None = None
        sent: set[str] = set()
        while True:
            params = [("closed", "true" if closed else "false"), *(("id", i) for i in ids)]
            params += [("limit", str(self._page_size))]
            if cursor is not None:
                params.append(("after_cursor", cursor))
            fetched = await self._fetch(MARKETS_KEYSET_PATH, params, tally, shard=None, page=None)
            exchange = fetched.exchange
            if fetched.failure is not None:
                raise GammaRequestError.at(
                    f"markets {ids[0]}…{ids[-1]} ({len(ids)} ids): {fetched.failure}", exchange
                )
            try:
                if not isinstance(fetched.body, Mapping) or "markets" not in fetched.body:
                    raise PageError(exchange.receipt_id, "the body is not a /markets/keyset envelope")
                items.extend(page_items(fetched.body, exchange.receipt_id))
                next_cursor = next_cursor_of(fetched.body, exchange.receipt_id)
            except PageError as exc:
                raise GammaRequestError.at(str(exc), exchange) from exc
            receipt_ids.append(exchange.receipt_id)
            tally.record(exchange, shard=None, page=None, attempt=fetched.attempt, outcome="page")
            if next_cursor is None:
                return items, receipt_ids
            if next_cursor in sent or len(sent) >= self._page_cap:
                raise GammaRequestError.at(
                    f"markets {ids[0]}…{ids[-1]}: cursor loop or page cap at receipt {exchange.receipt_id}",
                    exchange,
                )
            sent.add(next_cursor)
            cursor = next_cursor

    def _keyset_params(
        self, window: tuple[str, str], closed: bool, cursor: str | None
    ) -> list[tuple[str, str]]:
        # Every filter is re-sent on every page: Gamma hashes the cursor against the query that
        # issued it and rejects (or silently restarts) a cursor sent with different filters.
        params = [
            ("closed", "true" if closed else "false"),
            ("end_date_min", window[0]),
            ("end_date_max", window[1]),
        ]
        if self._keyset_order is not None:
            params += [("order", self._keyset_order), ("ascending", "true")]
        params.append(("limit", str(self._page_size)))
        if cursor is not None:
            params.append(("after_cursor", cursor))
        return params

    async def _sweep_shard(self, run: _ShardRun, closed: bool, tally: _Tally) -> None:
        cursor: str | None = None
        # Each cursor sent, with the page it was sent for: a cursor handed back twice is a loop.
        sent: dict[str, int] = {}
        page = 0
        while True:
            page += 1
            if cursor is not None:
                sent[cursor] = page
            params = self._keyset_params(run.window, closed, cursor)
            fetched = await self._fetch(
                MARKETS_KEYSET_PATH, params, tally, shard=run.index, page=page, decode=_decode_keyset
            )
            exchange = fetched.exchange
            if fetched.failure is not None:
                run.reason = f"{run.label()}: page {page} failed {fetched.failure}"
                return
            try:
                summary = _summary(fetched.body, exchange.receipt_id)
            except PageError as exc:
                tally.record(exchange, shard=run.index, page=page, attempt=fetched.attempt, outcome="failed")
                run.reason = f"{run.label()}: page {page} is not a keyset page: {exc} (GET {exchange.url})"
                return
            next_cursor = summary.next_cursor
            run.page_receipt_ids.append(exchange.receipt_id)
            source = _PageBody(exchange.body, exchange.receipt_id)
            run.markets.extend(
                SweptMarket(exchange.receipt_id, run.index, page, position, market_id, source)
                for position, market_id in enumerate(summary.market_ids)
            )
            run.without_event += summary.with_parent.count(False)
            tally.pages += 1
            tally.markets += len(summary.market_ids)
            outcome: Outcome = "page" if next_cursor is not None else "last_page"
            tally.record(exchange, shard=run.index, page=page, attempt=fetched.attempt, outcome=outcome)
            if next_cursor is None:
                run.complete = True
                return
            if next_cursor in sent:
                run.reason = (
                    f"{run.label()}: cursor loop: page {page} (receipt {exchange.receipt_id}) returned "
                    f"next_cursor {next_cursor!r:.80}, already sent for page {sent[next_cursor]}"
                )
                return
            if page >= self._page_cap:
                run.reason = (
                    f"{run.label()}: page cap {self._page_cap} reached with pages still to fetch "
                    f"(last receipt {exchange.receipt_id})"
                )
                return
            cursor = next_cursor

    async def sweep_markets(
        self,
        *,
        end_date_min: dt.datetime,
        end_date_max: dt.datetime,
        shards: int = 4,
        closed: bool = False,
        progress: Callable[[SweepProgress], None] | None = None,
    ) -> SweepResult:
        """Every market with ``end_date_min <= endDate <= end_date_max``, paged to the last page."""
        # Tens of thousands of decoded markets stay alive for the whole sweep and its result;
        # without the pause, full collections rescanning them stalled the pipe for up to 0.8 s.
        with gc_paused():
            return await self._sweep_markets(end_date_min, end_date_max, shards, closed, progress)

    async def _sweep_markets(
        self,
        end_date_min: dt.datetime,
        end_date_max: dt.datetime,
        shards: int,
        closed: bool,
        progress: Callable[[SweepProgress], None] | None,
    ) -> SweepResult:
        windows = shard_windows(end_date_min, end_date_max, shards)
        runs = [
            _ShardRun(index, (format_timestamp(low), format_timestamp(high)))
            for index, (low, high) in enumerate(windows)
        ]
        tally = _Tally(progress)
        started = self._now()
        try:
            async with asyncio.TaskGroup() as group:
                for run in runs:
                    group.create_task(self._sweep_shard(run, closed, tally))
        except BaseExceptionGroup as grouped:
            # A failure here is not an HTTP outcome (those end a shard as partial) but a broken
            # receipt store or progress callback, often hitting every shard alike: surface the
            # first as itself (the group, with the others, stays attached as its cause).
            raise grouped.exceptions[0] from grouped
        ended = self._now()

        markets = [market for run in runs for market in run.markets]
        reasons = [run.reason for run in runs if run.reason]
        return SweepResult(
            complete=all(run.complete for run in runs),
            reason="; ".join(reasons) if reasons else None,
            pages=tally.pages,
            requests=len(tally.log),
            receipt_ids=[record.receipt_id for record in tally.log],
            page_receipt_ids=[rid for run in runs for rid in run.page_receipt_ids],
            requests_log=list(tally.log),
            markets=markets,
            started_at=format_receipt_time(started),
            ended_at=format_receipt_time(ended),
            base_url=self.base_url,
            as_of=self._as_of,
            shards=[
                ShardReport(
                    shard=run.index,
                    end_date_min=run.window[0],
                    end_date_max=run.window[1],
                    complete=run.complete,
                    reason=run.reason,
                    pages=len(run.page_receipt_ids),
                    markets=len(run.markets),
                )
                for run in runs
            ],
            duplicates=find_duplicates(markets),
            markets_without_event=sum(run.without_event for run in runs),
        )


def find_duplicates(markets: Sequence[SweptMarket]) -> list[DuplicateMarket]:
    """Market ids met more than once, in first-seen order, and whether all their copies agree."""
    seen: dict[str, list[SweptMarket]] = {}
    for swept in markets:
        if swept.market_id is not None:
            seen.setdefault(swept.market_id, []).append(swept)
    return [
        DuplicateMarket(
            market_id=market_id,
            receipt_ids=tuple(copy.receipt_id for copy in copies),
            shards=tuple(copy.shard for copy in copies),
            identical=all(copy.market == copies[0].market for copy in copies[1:]),
        )
        for market_id, copies in seen.items()
        if len(copies) > 1
    ]
