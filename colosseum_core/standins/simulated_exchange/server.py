"""The simulated exchange's HTTP server: Polymarket's Gamma API on loopback.

Routes (shapes as the real Gamma API): ``GET /markets/keyset``, ``/events/keyset`` (keyset pages,
``after_cursor`` / ``next_cursor``), ``/markets``, ``/events`` (legacy offset pages, bare arrays,
``offset`` capped at 2000, ``Deprecation``/``Sunset`` headers), ``/markets/{id}``, ``/events/{id}``
and ``/status``.

The instant a request is served at comes from the request header ``X-Colosseum-As-Of`` (ISO-8601;
the real Gamma ignores it), else from the injected clock floored to the minute so that a sweep
without the header sees one board and reuses its cache. Every response carries
``X-Colosseum-Simulator: colosseum-exchange/1; seed=S; markets=N`` and ``X-Colosseum-As-Of`` so a
recorded receipt proves where and when a sweep came from.

Keyset cursors are opaque URL-safe base64 of ``{page, last sort key, filter hash}`` plus a
signature; a cursor used with other filters (anything but ``after_cursor`` and ``limit``) or not
minted here answers 422 ``invalid cursor``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import logging
import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import parse_qsl

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from colosseum_core.standins.loopback import (
    ServerProcess,
    running_app,
    running_process,
    serve_on_fd,
    uvicorn_config,
)
from colosseum_core.standins.simulated_exchange._common import _micro
from colosseum_core.standins.simulated_exchange._skeleton import _Ev, _Mk
from colosseum_core.standins.simulated_exchange._time import iso_z, parse_iso, to_ts
from colosseum_core.standins.simulated_exchange.board import Board, Snapshot
from colosseum_core.standins.simulated_exchange.faults import FaultInjector, hostile_body, parse_faults

__all__ = ["AS_OF_HEADER", "SIMULATOR_HEADER", "build_app", "running_exchange", "serve"]

AS_OF_HEADER: Final = "X-Colosseum-As-Of"
SIMULATOR_HEADER: Final = "X-Colosseum-Simulator"
MAX_LIMIT: Final = 100
DEFAULT_LIMIT: Final = 20
MAX_OFFSET: Final = 2000
CLOCK_TICK: Final = 60
FRAGMENT_CACHE_BYTES: Final = 64 * 2**20  # per instant
KEYSET_PATHS: Final = ("/markets/keyset", "/events/keyset")
MARKET_ORDER: Final = frozenset(
    {
        "id",
        "endDate",
        "startDate",
        "createdAt",
        "volume24hr",
        "volumeNum",
        "liquidityNum",
        "volume",
        "liquidity",
    }
)
EVENT_ORDER: Final = frozenset(
    {"id", "endDate", "startDate", "createdAt", "volume24hr", "volume", "liquidity"}
)
_NULL_LAST: Final = 1e18  # sort position of an absent date (ascending: last)

ASGIApp = Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]
Scope = MutableMapping[str, Any]
log = logging.getLogger(__name__)


class _Invalid(Exception):
    """A request the real Gamma would answer with 422 validation error."""


def _dumps(obj: Any) -> bytes:
    # orjson writes what json.dumps(ensure_ascii=False, separators=(",", ":")) writes, but for the
    # spelling of a few small floats (0.00001 for 1e-05), several times faster: encoding was a third
    # of the exchange's time on a 50,000-market board. What it refuses (NaN, a lone surrogate, an
    # integer beyond 64 bits, the hostile author's texts) is written by json itself.
    try:
        return orjson.dumps(obj)
    except TypeError:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def _json(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(_dumps(obj), status_code=status, media_type="application/json", headers=headers)


def _error(status: int, kind: str, message: str) -> Response:
    return _json({"type": kind, "error": message}, status)


# --------------------------------------------------------------------------------------------
# Cursors


class _Cursors:
    def __init__(self, seed: int) -> None:
        self._key = f"colosseum-exchange:{seed}".encode()

    def _sig(self, payload: bytes) -> bytes:
        return hashlib.sha256(self._key + payload).hexdigest()[:16].encode()

    def mint(self, page: int, last: list[float] | None, fhash: str) -> str:
        payload = json.dumps({"p": page, "k": last, "h": fhash}, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(payload + b"." + self._sig(payload)).decode().rstrip("=")

    def read(self, token: str) -> dict[str, Any] | None:
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            payload, _dot, sig = raw.rpartition(b".")
            if not payload or sig != self._sig(payload):
                return None
            data = json.loads(payload)
            if not isinstance(data, dict) or not isinstance(data.get("p"), int):
                return None
            return data
        except (ValueError, UnicodeDecodeError):
            return None


def _filter_hash(route: str, items: list[tuple[str, str]]) -> str:
    kept = sorted((k, v) for k, v in items if k not in ("after_cursor", "limit"))
    return hashlib.sha256(json.dumps([route, kept]).encode()).hexdigest()[:20]


# --------------------------------------------------------------------------------------------
# Query parsing


def _bool(params: list[tuple[str, str]], name: str, default: bool) -> bool:
    vals = [v for k, v in params if k == name]
    if not vals:
        return default
    v = vals[-1].strip().lower()
    if v in ("true", "1"):
        return True
    if v in ("false", "0"):
        return False
    raise _Invalid(f"invalid {name}")


def _int(params: list[tuple[str, str]], name: str) -> int | None:
    vals = [v for k, v in params if k == name]
    if not vals:
        return None
    try:
        return int(vals[-1])
    except ValueError:
        raise _Invalid(f"invalid {name}") from None


def _date(params: list[tuple[str, str]], name: str) -> int | None:
    vals = [v for k, v in params if k == name]
    if not vals:
        return None
    try:
        return parse_iso(vals[-1])
    except ValueError:
        raise _Invalid(f"invalid {name}") from None


def _multi(params: list[tuple[str, str]], name: str) -> list[str]:
    out: list[str] = []
    for k, v in params:
        if k in (name, f"{name}[]"):
            out.extend(x for x in v.split(",") if x)
    return out


def _limit(params: list[tuple[str, str]]) -> int:
    limit = _int(params, "limit")
    if limit is None:
        return DEFAULT_LIMIT
    if limit < 1:
        raise _Invalid("invalid limit")
    return min(limit, MAX_LIMIT)  # clamped, never rejected for being large


def _order(params: list[tuple[str, str]], allowed: frozenset[str]) -> tuple[list[str], bool]:
    vals = [v for k, v in params if k == "order"]
    fields = [f.strip() for v in vals for f in v.split(",") if f.strip()]
    if any(f not in allowed for f in fields):
        raise _Invalid("order fields are not valid")
    return fields, _bool(params, "ascending", True)


# --------------------------------------------------------------------------------------------
# The exchange


class _Exchange:
    def __init__(self, *, seed: int, markets: int, faults: str | None, clock: Callable[[], datetime]) -> None:
        self.board = Board(seed=seed, markets=markets)
        self.seed = seed
        self.markets = markets
        self.clock = clock
        self.plan = parse_faults(faults)
        self.injector = FaultInjector(self.plan, seed)
        self.cursors = _Cursors(seed)
        self.signature = f"colosseum-exchange/1; seed={seed}; markets={markets}"
        self._queries: OrderedDict[tuple[Any, ...], tuple[list[tuple[float, ...]], list[Any]]] = OrderedDict()
        self._lock = threading.Lock()
        # Serialized objects of the two most recent instants: re-walking a cached instant then
        # costs a join, not a rebuild (sweeps are retried, and tests walk the same board often).
        # Bounded in bytes: a 50,000-market board serializes to 250 MB, which a process that also
        # runs the card (the CLI, the benchmarks) can not spare; a default board fits many times.
        self._frags: OrderedDict[int, dict[tuple[bool, int, bool], bytes]] = OrderedDict()
        self._frag_bytes: dict[int, int] = {}

    def _fragment(self, snap: Snapshot, row: Any, *, events: bool, include: bool = True) -> bytes:
        with self._lock:
            cache = self._frags.get(snap.ts)
            if cache is None:
                cache = self._frags[snap.ts] = {}
                self._frag_bytes[snap.ts] = 0
                while len(self._frags) > 2:
                    dropped, _ = self._frags.popitem(last=False)
                    del self._frag_bytes[dropped]
        key = (events, row.eid if events else row.mid, include)
        got = cache.get(key)
        if got is None:
            obj = snap.event_dict(row, include_markets=include) if events else snap.market_dict(row)
            got = _dumps(obj)
            with self._lock:
                if (
                    snap.ts in self._frag_bytes
                    and self._frag_bytes[snap.ts] + len(got) <= FRAGMENT_CACHE_BYTES
                ):
                    cache[key] = got
                    self._frag_bytes[snap.ts] += len(got)
        return got

    # instant ------------------------------------------------------------------------------
    def instant(self, scope: Scope) -> int:
        for name, value in scope.get("headers", ()):
            if name == b"x-colosseum-as-of":
                return parse_iso(value.decode("latin-1"))
        ts = to_ts(self.clock())
        return ts - ts % CLOCK_TICK

    # listing machinery --------------------------------------------------------------------
    def _market_rows(self, snap: Snapshot, params: list[tuple[str, str]]) -> list[_Mk]:
        return self._filtered(
            params, snap.ts, snap.market_rows, self.board.market_row, _start_ts, snap.market_slug
        )

    def _event_rows(self, snap: Snapshot, params: list[tuple[str, str]]) -> list[_Ev]:
        return self._filtered(
            params,
            snap.ts,
            snap.event_rows,
            self.board.event_row,
            lambda ev: ev.created + 40,
            snap.event_slug,
        )

    def _filtered(
        self,
        params: list[tuple[str, str]],
        ts: float,
        listed: list[Any],
        by_id: Callable[[str], Any],
        start_of: Callable[[Any], float | None],
        slug_of: Callable[[Any], str],
    ) -> list[Any]:
        """Gamma's filters, shared by markets and events: closed, end and start windows, id, slug."""
        closed = _bool(params, "closed", False)
        emin, emax = _date(params, "end_date_min"), _date(params, "end_date_max")
        smin, smax = _date(params, "start_date_min"), _date(params, "start_date_max")
        ids = _multi(params, "id")
        slugs = set(_multi(params, "slug"))
        if ids:
            # A lookup by id reaches any row created by now, listed or long closed.
            rows = [
                row for ident in dict.fromkeys(ids) if (row := by_id(ident)) is not None and row.created <= ts
            ]
        else:
            rows = listed
        out = []
        for row in rows:
            if (ts >= row.close) != closed:
                continue
            if (emin is not None and row.end < emin) or (emax is not None and row.end > emax):
                continue
            if smin is not None or smax is not None:
                start = start_of(row)
                if (
                    start is None
                    or (smin is not None and start < smin)
                    or (smax is not None and start > smax)
                ):
                    continue
            out.append(row)
        if slugs:
            out = [row for row in out if slug_of(row) in slugs]
        return out

    def _sorted(
        self, route: str, snap: Snapshot, params: list[tuple[str, str]], fhash: str
    ) -> tuple[list[tuple[float, ...]], list[Any]]:
        events = route.startswith("/events")
        fields, asc = _order(params, EVENT_ORDER if events else MARKET_ORDER)
        key = (snap.ts, events, fhash)
        with self._lock:
            hit = self._queries.get(key)
            if hit is not None:
                self._queries.move_to_end(key)
                return hit
        rows: list[Any] = self._event_rows(snap, params) if events else self._market_rows(snap, params)
        sign = 1.0 if asc else -1.0

        def nk(row: Any) -> tuple[float, ...]:
            ident = row.eid if events else row.mid
            vals = [sign * _sort_value(snap, row, f, events) for f in fields]
            vals.append(sign * ident)
            return tuple(vals)

        decorated = sorted(((nk(r), r) for r in rows), key=lambda x: x[0])
        result = ([d[0] for d in decorated], [d[1] for d in decorated])
        with self._lock:
            self._queries[key] = result
            while len(self._queries) > 48:
                self._queries.popitem(last=False)
        return result

    # handlers -----------------------------------------------------------------------------
    def snapshot(self, request: Request) -> Snapshot:
        return self.board.snapshot(request.state.colosseum_ts)

    async def keyset(self, request: Request) -> Response:
        route = request.url.path
        params = list(request.query_params.multi_items())
        try:
            if any(k == "offset" for k, _v in params):
                raise _Invalid("offset is not allowed on keyset endpoints")
            limit = _limit(params)
            fhash = _filter_hash(route, params)
            token = next((v for k, v in reversed(params) if k == "after_cursor"), None)
            page_no, last = 1, None
            if token is not None:
                cur = self.cursors.read(token)
                if cur is None or cur.get("h") != fhash:
                    raise _Invalid("invalid cursor")
                page_no, last = cur["p"], cur.get("k")
            snap = self.snapshot(request)
            keys, rows = self._sorted(route, snap, params, fhash)
        except _Invalid as exc:
            return _error(422, "validation error", str(exc))
        start = 0 if last is None else bisect_right(keys, tuple(last))
        chunk = rows[start : start + limit]
        events = route.startswith("/events")
        include = _bool(params, "include_markets", True) if events else True
        items = b",".join(self._fragment(snap, row, events=events, include=include) for row in chunk)
        nxt: str | None = None
        if request.state.colosseum_cursor_loop:
            # The fault: hand back the very cursor that was sent (page 1: a cursor to page 1 again).
            nxt = token if token is not None else self.cursors.mint(1, None, fhash)
        elif len(chunk) == limit:
            nxt = self.cursors.mint(page_no + 1, list(keys[start + limit - 1]), fhash)
        tail = b"]}" if nxt is None else b'],"next_cursor":' + json.dumps(nxt).encode() + b"}"
        body = (b'{"events":[' if events else b'{"markets":[') + items + tail
        return Response(body, media_type="application/json")

    async def legacy(self, request: Request) -> Response:
        route = request.url.path
        params = list(request.query_params.multi_items())
        try:
            limit = _limit(params)
            offset = _int(params, "offset") or 0
            if offset < 0:
                raise _Invalid("invalid offset")
            if offset > MAX_OFFSET:
                raise _Invalid(f"offset too large, use {route}/keyset for deeper pagination")
            snap = self.snapshot(request)
            _keys, rows = self._sorted(route, snap, params, _filter_hash(route, params))
        except _Invalid as exc:
            return _error(422, "validation error", str(exc))
        chunk = rows[offset : offset + limit]
        events = route == "/events"
        include = _bool(params, "include_markets", True) if events else True
        items = b",".join(self._fragment(snap, row, events=events, include=include) for row in chunk)
        return Response(
            b"[" + items + b"]",
            media_type="application/json",
            headers={
                "Deprecation": "true",
                "Sunset": "2026-05-01",
                "Warning": f'299 - "deprecated: use {route}/keyset"',
            },
        )

    async def market_by_id(self, request: Request) -> Response:
        found = self.board.market(request.path_params["ident"], request.state.colosseum_ts)
        if found is None:
            return _error(404, "not found", "market not found")
        return _json(found)

    async def event_by_id(self, request: Request) -> Response:
        snap = self.snapshot(request)
        ev = self.board.event_row(request.path_params["ident"])
        if ev is None or ev.created > snap.ts:
            return _error(404, "not found", "event not found")
        params = list(request.query_params.multi_items())
        try:
            include = _bool(params, "include_markets", True)
        except _Invalid as exc:
            return _error(422, "validation error", str(exc))
        return _json(snap.event_dict(ev, include_markets=include))

    async def status(self, request: Request) -> Response:
        return _json({"status": "ok"})


def _start_ts(m: _Mk) -> float | None:
    if m.placeholder:
        return None
    return m.created + 60 + m.mid % 300 + (_micro(m.mid + 1) // 10 * 10) / 1e6


def _sort_value(snap: Snapshot, row: Any, field: str, events: bool) -> float:
    if field == "id":
        return float(row.eid if events else row.mid)
    if field == "endDate":
        return float(row.end)
    if field == "createdAt":
        return float(row.created)
    if field == "startDate":
        if events:
            return float(row.created + 40)
        st = _start_ts(row)
        return _NULL_LAST if st is None else st
    if events:
        agg = snap.event_numbers(row)
        closed = snap.ts >= row.close
        if field == "volume":
            return float(agg["volume"])
        if field == "volume24hr":
            return float(agg["volume24hr"])
        return 0.0 if closed else float(agg["liquidity"])
    st = snap.market_numbers(row)
    if field in ("volumeNum", "volume"):
        return round(st.vol, 6)
    if field == "volume24hr":
        return 0.0 if st.closed else max(0.0, round(st.v24, 6))
    return 0.0 if st.closed else round(st.liq, 5)


# --------------------------------------------------------------------------------------------
# ASGI middleware: instant, signature headers and faults


class _ResetFault(Exception):
    """Raised to make the server drop a connection when the transport cannot be reached."""


def _peek_page(cursors: _Cursors, scope: Scope) -> int | None:
    if scope.get("path") not in KEYSET_PATHS:
        return None
    qs = scope.get("query_string", b"").decode("latin-1")
    token = next((v for k, v in reversed(parse_qsl(qs, keep_blank_values=True)) if k == "after_cursor"), None)
    if token is None:
        return 1
    cur = cursors.read(token)
    return None if cur is None else int(cur["p"])


class _Middleware:
    def __init__(self, app: ASGIApp, exchange: _Exchange) -> None:
        self.app = app
        self.ex = exchange

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        ex = self.ex
        try:
            ts = ex.instant(scope)
        except ValueError:
            ts = None
        extra = [(b"x-colosseum-simulator", ex.signature.encode())]
        if ts is not None:
            extra.append((b"x-colosseum-as-of", iso_z(ts).encode()))

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        if ts is None:
            resp = _error(422, "validation error", f"invalid {AS_OF_HEADER} header")
            await resp(scope, receive, send_with_headers)
            return
        state = scope.setdefault("state", {})
        state["colosseum_ts"] = ts
        state["colosseum_cursor_loop"] = False
        decision = (
            ex.injector.decide(scope.get("path", ""), _peek_page(ex.cursors, scope)) if ex.plan else None
        )
        if decision is not None:
            if decision.delay > 0:
                await asyncio.sleep(decision.delay)
            action = decision.action
            if action == "429":
                resp = _json(
                    {"type": "rate limit", "error": "too many requests"},
                    429,
                    headers={"Retry-After": str(decision.retry_after)},
                )
                await resp(scope, receive, send_with_headers)
                return
            if action == "500":
                await _error(500, "internal error", "cannot get the information")(
                    scope, receive, send_with_headers
                )
                return
            if action == "reset":
                await _drop_connection(receive)
                return
            if action == "cursor_loop":
                state["colosseum_cursor_loop"] = True
            if action == "truncate" or decision.hostile:
                await self._rewritten(
                    scope, receive, send_with_headers, hostile=decision.hostile, truncate=action == "truncate"
                )
                return
        await self.app(scope, receive, send_with_headers)

    async def _rewritten(
        self, scope: Scope, receive: Any, send: Any, *, hostile: tuple[str, ...], truncate: bool
    ) -> None:
        """Serve the app's response with its markets made hostile, then (if asked) cut in half."""
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, capture)
        body = b"".join(chunks)
        status = start.get("status", 200)
        if hostile and status == 200:
            body = _hostile_bytes(scope.get("path", ""), body, hostile)
        if truncate:
            body = body[: len(body) // 2]
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _hostile_bytes(path: str, body: bytes, fields: tuple[str, ...]) -> bytes:
    """``body`` with its markets made hostile; the same bytes when it carries none.

    Every body is serialized by ``_dumps`` (keyset pages are joined from ``_dumps`` fragments),
    and ``_dumps(json.loads(b)) == b`` for those bytes, so re-serializing changes only the fields
    the fault rewrote.
    """
    try:
        parsed = json.loads(body)
    except ValueError:
        return body
    rewritten = hostile_body(path, parsed, fields)
    return body if rewritten is parsed else _dumps(rewritten)


async def _drop_connection(receive: Any) -> None:
    """Abort the TCP connection so the client sees a reset, not an HTTP response.

    uvicorn's ``receive`` is a bound method of its request cycle, which holds the transport.
    Aborting it sends a RST; waiting for the disconnect message then lets uvicorn see the
    connection is gone, so it neither logs an error nor tries to write a 500.
    """
    cycle = getattr(receive, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if transport is None:
        raise _ResetFault("reset fault")
    transport.abort()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(2.0):
            while (await receive())["type"] != "http.disconnect":
                pass


class _QuietResets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, _ResetFault)


# --------------------------------------------------------------------------------------------
# Public API


def _wall_clock() -> datetime:
    return datetime.now(UTC)


def build_app(
    *,
    seed: int = 0,
    markets: int = 3000,
    faults: str | None = None,
    clock: Callable[[], datetime] | None = None,
) -> Starlette:
    """The simulated exchange as a Starlette app (fault SPEC grammar: ``faults`` module docstring)."""
    ex = _Exchange(seed=seed, markets=markets, faults=faults, clock=clock or _wall_clock)

    async def not_found(request: Request, exc: Exception) -> Response:
        code = exc.status_code if isinstance(exc, HTTPException) else 404
        return _error(code, "not found" if code == 404 else "error", "not found" if code == 404 else str(exc))

    app = Starlette(
        routes=[
            Route("/status", ex.status),
            Route("/markets/keyset", ex.keyset),
            Route("/events/keyset", ex.keyset),
            Route("/markets", ex.legacy),
            Route("/events", ex.legacy),
            Route("/markets/{ident}", ex.market_by_id),
            Route("/events/{ident}", ex.event_by_id),
        ],
        exception_handlers={404: not_found, 405: not_found},
    )
    app.add_middleware(_Middleware, exchange=ex)  # type: ignore[arg-type]
    app.state.exchange = ex
    app.state.board = ex.board
    return app


_QUIET_RESETS = _QuietResets()  # one instance: addFilter ignores an instance it already holds


def _quiet_resets() -> None:
    logging.getLogger("uvicorn.error").addFilter(_QUIET_RESETS)


def _served_app(**settings: Any) -> Starlette:
    """``build_app(**settings)``, with the connection resets a sweep's retries cause kept out of the log."""
    app = build_app(**settings)
    _quiet_resets()
    return app


def serve(host: str, port: int, *, seed: int = 0, markets: int = 3000, faults: str | None = None) -> None:
    """Serve the simulated exchange until interrupted (blocking)."""
    app = _served_app(seed=seed, markets=markets, faults=faults)
    uvicorn.Server(uvicorn_config(app, host, port)).run()


def serve_fd(fd: int, *, seed: int = 0, markets: int = 3000, faults: str | None = None) -> None:
    """Serve on the listening socket ``exchange_process`` hands its child, until SIGTERM (blocking)."""
    serve_on_fd(_served_app(seed=seed, markets=markets, faults=faults), fd)


@contextlib.contextmanager
def running_exchange(
    *,
    seed: int = 0,
    markets: int = 3000,
    faults: str | None = None,
    clock: Callable[[], datetime] | None = None,
    host: str = "127.0.0.1",
) -> Iterator[str]:
    """Run the exchange on a free loopback port in a background thread; yield its base URL."""
    app = _served_app(seed=seed, markets=markets, faults=faults, clock=clock)
    with running_app(app, host=host) as url:
        yield url


@contextlib.contextmanager
def exchange_process(
    *, seed: int = 0, markets: int = 3000, faults: str | None = None, host: str = "127.0.0.1"
) -> Iterator[ServerProcess]:
    """Run the exchange in a child process on a free loopback port; yield its URL and pid.

    What ``colosseum forecast card run`` uses: the exchange then works beside the sweep, on its own core and
    in its own memory, as the real one does, instead of inside the card's process.
    """
    argv = ["colosseum_core.standins.simulated_exchange", "--seed", str(seed), "--markets", str(markets)]
    if faults:
        argv += ["--faults", faults]
    with running_process(argv, host=host) as server:
        yield server
