"""The simulated Polymarket board: a deterministic, realistic population of events and markets.

The board is a pure function of ``(seed, markets, instant)``. It is assembled from *cohorts*: for
each stream (sports games, daily questions, weekly questions, 5-minute crypto, long-dated politics
and macro, marquee multi-outcome families) and each UTC day, ``random.Random(f"{seed}:{stream}:{day}")``
draws the cohort's *truth*: when each market is created, when it ends, when its outcome becomes
known, who wins, and how the oracle settles it (normal, late, disputed, stuck in ``proposed``,
50-50 void). Cosmetics (question wording, ids, hashes, books, volumes) are drawn lazily per event
from ``random.Random(f"{seed}:e:{event_id}")`` the first time the event is shown. Because every
market's outcome and settlement timeline are fixed at generation, any instant (past or future) is
consistent with every other: a market open at T resolves at T+x the way its price path predicted.

Time-varying fields (prices, books, volumes, liquidity) are pure functions of (seed, market,
5-minute bucket): a logit path from the opening probability towards the predetermined outcome plus
a few seeded sinusoids, never a stateful random walk.

The real world behind the board is consistent. A team plays at most once in any four days (each
league deals its teams a day of a four-day rotation, redealt every 28 days without ever shortening a
rest), so no two of its games start within 72 hours; a league's curated clubs play whenever they may
and made-up ones (``catalog.PLACES`` and friends) fill a bigger board. A speaker makes one appearance
a day, and a city's high, an asset's noon price or a week's tweets is one draw however many events
list it. As on Polymarket, one event is now and then listed twice under two event ids: a fixture
written the other way round ("B @ A", "A v B", capitals, the league in front) with its game id, one
of its own or none, or a "mentions" event listed again with the same title and end; such listings
resolve alike.

Ids are decodable: ``market id = 400000 + day * stride + stream offset + sequence``, so
``Board.market(id, at)`` can rebuild any market of any age by regenerating its cohort alone.

Listings (``Snapshot.markets`` / ``Snapshot.events``) hold what exists at the instant and is either
not closed or closed within the last ``closed_days`` (default 4). Older closed markets stay reachable
by id. Returned dicts are fresh at the top level but share nested objects with the cache: treat
them as read-only.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from colosseum_core.gc_pause import gc_paused
from colosseum_standins.simulated_exchange._cache import BoundedCache
from colosseum_standins.simulated_exchange._common import (
    BUCKET,
    EPOCH_DAY,
    EVENT_ID_BASE,
    LONG_MAX_LIFE,
    LONG_TAIL_DAYS,
    MARKET_ID_BASE,
    MARQUEE_MAX_LIFE,
    NO,
    PERIOD_DAYS,
    SCHEMA_URL,
    SHORT_TAIL_DAYS,
    STREAMS,
    VOID,
    YES,
    _logit,
    _micro,
    _phi,
    _price_str,
    _progress,
    _sigmoid,
)
from colosseum_standins.simulated_exchange._details import _Detailer
from colosseum_standins.simulated_exchange._skeleton import _Ev, _Gen, _Mk, _plan
from colosseum_standins.simulated_exchange._time import DAY, HOUR, from_ts, iso_z, pg, to_ts

__all__ = ["SCHEMA_URL", "Board", "Snapshot"]


class _St:
    """A market's dynamic state at an instant (computed once per snapshot)."""

    __slots__ = ("ask", "bid", "closed", "last", "liq", "p", "status", "v1mo", "v1wk", "v1yr", "v24", "vol")

    def __init__(self) -> None:
        self.status = ""  # "", "proposed", "disputed", "resolved"
        self.closed = False
        self.p = 0.5
        self.bid: int | None = None
        self.ask = 0
        self.last = 0.0
        self.vol = 0.0
        self.v24 = 0.0
        self.v1wk = 0.0
        self.v1mo = 0.0
        self.v1yr = 0.0
        self.liq = 0.0


def _wob(m: _Mk, t: int) -> float:
    a, w1, p1, w2, p2 = m.wob
    return a * (0.65 * math.sin(t * w1 + p1) + 0.35 * math.sin(t * w2 + p2))


def _volume_at(m: _Mk, t: int) -> float:
    if t <= m.created or m.vtot <= 0:
        return 0.0
    if m.thin is not None:
        return sum(s for ts, s in m.thin if ts <= t)
    end = m.close
    if t >= end:
        return m.vtot
    u = (t - m.created) / max(end - m.created, 1)
    return m.vtot * u**1.5


def _round_num(x: float) -> float:
    # Gamma's numbers carry float noise like 1160797.590214999; 6 decimals looks the same and is stable.
    return round(x, 6)


class _Family:
    """Per-snapshot memo of sibling prices in a mutually exclusive family."""

    @staticmethod
    def cat_probs(ev: _Ev, t: int) -> dict[int, float]:
        logits: dict[int, float] = {}
        for m in ev.markets:
            if m.placeholder or m.created > t:
                continue
            g = _progress(t, m.info0, m.info1, m.k)
            a = math.log(max(ev.cat_w[m.idx], 1e-4))
            target = 5.5 if m.win == YES else -5.5
            logits[m.idx] = (1 - g) * a + g * target + (1 - g) * _wob(m, t)
        if not logits:
            return {}
        hi = max(logits.values())
        ex = {i: math.exp(v - hi) for i, v in logits.items()}
        tot = sum(ex.values())
        return {i: v / tot for i, v in ex.items()}


def _fair(m: _Mk, t: int, fam: dict[int, float] | None) -> float:
    ev = m.ev
    if ev.shape == "cat" and fam is not None:
        return fam.get(m.idx, 0.01)
    g = _progress(t, m.info0, m.info1, m.k)
    if ev.shape == "latent" and ev.latent is not None:
        mu0, sigma0, truth = ev.latent
        mu = mu0 + g * (truth - mu0) + (1 - g) * sigma0 * 0.35 * _wob(m.ev.markets[0], t)
        sd = sigma0 * math.sqrt(max(1 - g, 0.0)) + sigma0 * 0.004
        lo = 0.0 if m.lo is None else _phi((m.lo - mu) / sd)
        hi = 1.0 if m.hi is None else _phi((m.hi - mu) / sd)
        p = hi - lo
        return min(max(p, 0.0005), 0.9995)
    target = 6.0 if m.win == YES else -6.0 if m.win == NO else 0.0
    return _sigmoid((1 - g) * _logit(m.p0) + g * target + (1 - g) * _wob(m, t))


def _state(m: _Mk, t: int, fam: dict[int, float] | None) -> _St:
    st = _St()
    tb = t - t % BUCKET
    if m.placeholder:
        st.closed = t >= m.close
        return st
    if t >= m.close:
        st.status, st.closed = "resolved", True
    elif m.propose is not None and t >= m.propose:
        st.status = "proposed"
        if m.dispute is not None and t >= m.dispute and (m.repropose is None or t < m.repropose):
            st.status = "disputed"
    p = _fair(m, tb, fam)
    if st.status == "disputed":
        p = 0.5 + (p - 0.5) * 0.93  # a live dispute keeps some doubt in the book
    st.p = p
    u = m.tick
    if st.closed:
        st.ask = u if m.win == YES else 1
        st.bid = u - 1 if m.win == YES else None
        st.last = {YES: 0.999, NO: 0.001}.get(m.win, 0.5)
    else:
        c = min(max(round(p * u), 1), u - 1)
        if m.book == 2:  # one-sided: asks only
            st.bid = None
            st.ask = min(u, c + max(1, u // 25))
        elif m.book == 3:  # empty bid side, ask pinned at 1: spread 1
            st.bid = None
            st.ask = u
        else:
            sp = max(1, m.spread_t)
            bid = c - sp // 2
            ask = bid + sp
            if bid < 1:
                bid, ask = 1, 1 + sp
            if ask > u - 1:
                ask = u - 1
                bid = max(1, ask - sp)
            st.bid, st.ask = bid, ask
        last = round(p * u) / u
        st.last = round(min(max(last, 1 / u), 1 - 1 / u), 4)
    vol = _volume_at(m, tb)
    st.vol = vol
    if not st.closed:
        st.v24 = vol - _volume_at(m, tb - DAY)
        st.liq = 0.0 if m.liq0 <= 0 else m.liq0 * (0.78 + 0.22 * math.sin(tb / 43200.0 + m.liqw))
    st.v1wk = vol - _volume_at(m, tb - 7 * DAY)
    st.v1mo = vol - _volume_at(m, tb - 30 * DAY)
    st.v1yr = vol - _volume_at(m, tb - 365 * DAY)
    return st


_STATUSES_RESOLVED = (
    '["proposed"]',
    '["proposed", "resolved"]',
    '["proposed", "disputed", "proposed", "resolved"]',
)


def _market_dict(
    m: _Mk, st: _St, t: int, fair_at: Any, *, listing_event: dict[str, Any] | None
) -> dict[str, Any]:
    assert m.tmpl is not None
    keys, vals = m.tmpl
    d = dict(zip(keys, vals, strict=True))
    tb = t - t % BUCKET
    if m.placeholder:
        d["liquidity"] = "0"
        d["volume"] = "0"
        d["volumeNum"] = 0
        d["liquidityNum"] = 0
        d["volume24hr"] = 0
        d["liquidityClob"] = 0
        d["volumeClob"] = 0
        d["competitive"] = 0
        d["spread"] = 1
        d["lastTradePrice"] = 0
        d["bestBid"] = 0
        d["bestAsk"] = 1
        d["umaResolutionStatuses"] = "[]"
        d["updatedAt"] = iso_z(max(m.created, tb - 3600 - m.mid % 3000), _micro(m.mid + tb))
        d["closed"] = st.closed
        for k in (
            "outcomePrices",
            "closedTime",
            "umaEndDate",
            "umaResolutionStatus",
            "volume1wk",
            "volume1mo",
            "volume1yr",
            "volume24hrClob",
            "volume1wkClob",
            "volume1moClob",
            "volume1yrClob",
            "acceptingOrders",
            "automaticallyResolved",
            "oneDayPriceChange",
            "oneHourPriceChange",
            "oneWeekPriceChange",
        ):
            del d[k]
        if listing_event is None:
            del d["events"]
        else:
            d["events"] = [listing_event]
        return d
    u = m.tick
    vol = _round_num(st.vol)
    d["volume"] = repr(vol) if vol else "0"
    d["volumeNum"] = vol
    d["volumeClob"] = vol
    if st.closed:
        for k in (
            "liquidity",
            "liquidityNum",
            "liquidityClob",
            "volume24hr",
            "volume24hrClob",
            "oneHourPriceChange",
            "oneDayPriceChange",
            "competitive",
        ):
            del d[k]
        w = m.win
        d["outcomePrices"] = '["1", "0"]' if w == YES else '["0", "1"]' if w == NO else '["0.5", "0.5"]'
        d["closed"] = True
        d["acceptingOrders"] = False
        d["closedTime"] = pg(m.close)
        d["umaEndDate"] = iso_z(m.close)
        d["umaResolutionStatus"] = "resolved"
        d["umaResolutionStatuses"] = _STATUSES_RESOLVED[m.trail]
        d["automaticallyResolved"] = True
        d["updatedAt"] = iso_z(m.close + 600 + m.mid % 7200, _micro(m.mid))
    else:
        liq = round(st.liq, 5)
        d["liquidity"] = repr(liq) if liq else "0"
        d["liquidityNum"] = liq
        d["liquidityClob"] = liq
        v24 = _round_num(st.v24)
        if v24 > 0:
            d["volume24hr"] = v24
            d["volume24hrClob"] = v24
        else:  # no trades in 24 h: Gamma drops the key
            del d["volume24hr"]
            del d["volume24hrClob"]
        half = (st.bid or 0) + st.ask
        p0 = _price_str(half, 2 * u)
        p1 = _price_str(2 * u - half, 2 * u)
        d["outcomePrices"] = f'["{p0}", "{p1}"]'
        d["closed"] = False
        d["acceptingOrders"] = True
        d["updatedAt"] = iso_z(max(m.created + 60, tb - m.mid % 280), _micro(m.mid + tb))
        del d["closedTime"]
        del d["automaticallyResolved"]
        if st.status:
            d["umaResolutionStatus"] = st.status
            d["umaEndDate"] = iso_z((m.propose or t) + 2 * HOUR)
            if st.status == "proposed" and m.repropose is not None and t >= m.repropose:
                d["umaResolutionStatuses"] = '["proposed", "disputed", "proposed"]'
            elif st.status == "disputed":
                d["umaResolutionStatuses"] = '["proposed", "disputed"]'
            else:
                d["umaResolutionStatuses"] = '["proposed"]'
        else:
            del d["umaResolutionStatus"]
            del d["umaEndDate"]
            d["umaResolutionStatuses"] = "[]"
        spread = (st.ask - (st.bid or 0)) / u
        d["competitive"] = round(max(0.0, 1.0 - spread) ** 2, 12)
    # Changes over the last hour/day: only for markets old enough to have them.
    if not st.closed and t - m.created > DAY:
        d["oneDayPriceChange"] = round(st.p - fair_at(m, tb - DAY), 4)
        d["oneHourPriceChange"] = round(st.p - fair_at(m, tb - HOUR), 4)
    elif not st.closed:
        del d["oneDayPriceChange"]
        del d["oneHourPriceChange"]
    if t - m.created > 7 * DAY and not st.closed:
        d["oneWeekPriceChange"] = round(st.p - fair_at(m, tb - 7 * DAY), 4)
    else:
        del d["oneWeekPriceChange"]
    for key, val in (("volume1wk", st.v1wk), ("volume1mo", st.v1mo), ("volume1yr", st.v1yr)):
        v = _round_num(val)
        if v > 0:
            d[key] = v
            d[key + "Clob"] = v
        else:
            del d[key]
            del d[key + "Clob"]
    d["spread"] = round((st.ask - (st.bid or 0)) / u, 4)
    d["lastTradePrice"] = st.last
    if st.bid is None:
        del d["bestBid"]
    else:
        d["bestBid"] = st.bid / u
    d["bestAsk"] = st.ask / u
    if listing_event is None:
        del d["events"]
    else:
        d["events"] = [listing_event]
    return d


# --------------------------------------------------------------------------------------------
# Snapshot and Board.


class _LazyMap(Mapping[str, dict[str, Any]]):
    def __init__(self, ids: list[str], build: Any) -> None:
        self._ids = ids
        self._index = {k: i for i, k in enumerate(ids)}
        self._build = build

    def __getitem__(self, key: str) -> dict[str, Any]:
        if key not in self._index:
            raise KeyError(key)
        return self._build(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, key: object) -> bool:
        return key in self._index


class Snapshot:
    """The board at one instant.

    ``markets`` maps market id to the Market object as ``/markets`` and ``/markets/keyset`` list it
    (with ``events: [EventSummary]``); ``events`` maps event id to the Event object with its nested
    ``markets``. Both iterate in ascending numeric id order and are built lazily per access.
    """

    def __init__(self, board: Board, ts: int, events: list[_Ev], markets: list[_Mk]) -> None:
        self.board = board
        self.ts = ts
        self.at = from_ts(ts)
        self._events = events
        self._markets = markets
        self._m_by_id = {m.mid: m for m in markets}
        self._e_by_id = {e.eid: e for e in events}
        self._states: dict[int, _St] = {}
        self._fams: dict[int, dict[int, float]] = {}
        self._agg: dict[int, dict[str, Any]] = {}
        self._summ: dict[int, dict[str, Any]] = {}
        self._past: dict[tuple[int, int], dict[int, float]] = {}
        self.markets: Mapping[str, dict[str, Any]] = _LazyMap(
            [str(m.mid) for m in markets], lambda k: self.market_dict(self._m_by_id[int(k)])
        )
        self.events: Mapping[str, dict[str, Any]] = _LazyMap(
            [str(e.eid) for e in events], lambda k: self.event_dict(self._e_by_id[int(k)])
        )

    # raw access for the server (filtering and ordering without building dicts)
    @property
    def market_rows(self) -> list[_Mk]:
        return self._markets

    @property
    def event_rows(self) -> list[_Ev]:
        return self._events

    def state(self, m: _Mk) -> _St:
        st = self._states.get(m.mid)
        if st is None:
            self.board._detailer.ensure(m.ev)
            fam = None
            if m.ev.shape == "cat":
                fam = self._fams.get(m.ev.eid)
                if fam is None:
                    fam = self._fams[m.ev.eid] = _Family.cat_probs(m.ev, self.ts - self.ts % BUCKET)
            st = self._states[m.mid] = _state(m, self.ts, fam)
        return st

    def is_closed(self, m: _Mk) -> bool:
        return self.ts >= m.close

    def event_closed(self, ev: _Ev) -> bool:
        return self.ts >= ev.close

    def _aggregate(self, ev: _Ev) -> dict[str, Any]:
        agg = self._agg.get(ev.eid)
        if agg is not None:
            return agg
        t = self.ts
        vol = v24 = v1wk = v1mo = v1yr = liq = 0.0
        comp: list[float] = []
        for m in ev.markets:
            if m.created > t or m.placeholder:
                continue
            st = self.state(m)
            vol += st.vol
            v24 += st.v24
            v1wk += st.v1wk
            v1mo += st.v1mo
            v1yr += st.v1yr
            liq += st.liq
            if not st.closed:
                comp.append(max(0.0, 1.0 - (st.ask - (st.bid or 0)) / m.tick) ** 2)
        agg = {
            "volume": _round_num(vol),
            "volume24hr": _round_num(v24),
            "volume1wk": _round_num(v1wk),
            "volume1mo": _round_num(v1mo),
            "volume1yr": _round_num(v1yr),
            "liquidity": _round_num(liq),
            "competitive": round(sum(comp) / len(comp), 12) if comp else 0,
        }
        self._agg[ev.eid] = agg
        return agg

    def event_numbers(self, ev: _Ev) -> dict[str, Any]:
        """Event-level volume/liquidity sums, as used for ordering and the money floor."""
        self.board._detailer.ensure(ev)
        return self._aggregate(ev)

    def market_slug(self, m: _Mk) -> str:
        self.board._detailer.ensure(m.ev)
        assert m.tmpl is not None
        return str(m.tmpl[1][m.tmpl[0].index("slug")])

    def event_slug(self, ev: _Ev) -> str:
        self.board._detailer.ensure(ev)
        assert ev.tmpl is not None
        return str(ev.tmpl[1][ev.tmpl[0].index("slug")])

    def market_numbers(self, m: _Mk) -> _St:
        return self.state(m)

    def _event_base(self, ev: _Ev, *, summary: bool) -> dict[str, Any]:
        self.board._detailer.ensure(ev)
        tmpl = ev.stmpl if summary else ev.tmpl
        assert tmpl is not None
        d = dict(zip(tmpl[0], tmpl[1], strict=True))
        t = self.ts
        tb = t - t % BUCKET
        agg = self._aggregate(ev)
        closed = t >= ev.close
        d["closed"] = closed
        d["volume"] = agg["volume"]
        d["openInterest"] = _round_num(agg["volume"] * 0.07) if not closed else 0
        d["updatedAt"] = iso_z(
            ev.close + 900 if closed else max(ev.created + 90, tb - ev.eid % 240), _micro(ev.eid + tb)
        )
        for key in ("volume24hr", "volume1wk", "volume1mo", "volume1yr"):
            if agg[key] > 0 and not (closed and key == "volume24hr" and ev.stream != "sports"):
                d[key] = agg[key]
            else:
                d.pop(key, None)
        if closed:
            for key in ("liquidity", "liquidityClob", "competitive"):
                d.pop(key, None)
            d["closedTime"] = iso_z(ev.close + 30)
            d["automaticallyResolved"] = True
        else:
            d["liquidity"] = agg["liquidity"]
            d["liquidityClob"] = agg["liquidity"]
            d["competitive"] = agg["competitive"]
            d.pop("closedTime", None)
            d.pop("automaticallyResolved", None)
        if "score" in d and ev.start is not None:
            game_end = ev.extra.get("game_end", ev.start + 3 * HOUR)
            voided = ev.markets[0].win == VOID
            if t < ev.start or voided:
                d["score"], d["period"] = "0-0", "NS" if not voided else "PST"
                del d["live"], d["ended"], d["finishedTimestamp"]
            elif t < game_end:
                d["score"] = f"{(t - ev.start) // 3000 % 4}-{(t - ev.start) // 4100 % 3}"
                d["period"] = "2H" if ev.kind.startswith("soccer") else "Q2" if ev.league < 4 else "2/3"
                d["live"], d["ended"] = True, False
                del d["finishedTimestamp"]
            else:
                first = ev.markets[0]
                hw = first.win == YES
                d["score"] = f"{3 if hw else 1}-{1 if hw else 2}"
                d["period"] = "FT" if ev.kind.startswith("soccer") else "VFT"
                d["live"], d["ended"] = False, True
                d["finishedTimestamp"] = iso_z(game_end, _micro(ev.eid + 9))
        return d

    def event_summary(self, ev: _Ev) -> dict[str, Any]:
        """The parent-event object nested in a Market (no ``markets``, no ``tags``)."""
        cached = self._summ.get(ev.eid)
        if cached is None:
            cached = self._summ[ev.eid] = self._event_base(ev, summary=True)
        return cached

    def _fair_at(self, m: _Mk, t: int) -> float:
        fam = None
        if m.ev.shape == "cat":
            key = (m.ev.eid, t)
            fam = self._past.get(key)
            if fam is None:
                fam = self._past[key] = _Family.cat_probs(m.ev, t)
        return _fair(m, t, fam)

    def market_dict(self, m: _Mk, *, nested: bool = False) -> dict[str, Any]:
        st = self.state(m)
        return _market_dict(
            m, st, self.ts, self._fair_at, listing_event=None if nested else self.event_summary(m.ev)
        )

    def event_dict(self, ev: _Ev, *, include_markets: bool = True) -> dict[str, Any]:
        d = self._event_base(ev, summary=False)
        if not include_markets:
            del d["markets"]
        else:
            d["markets"] = [self.market_dict(m, nested=True) for m in ev.markets if m.created <= self.ts]
        return d


class Board:
    """A deterministic simulated Gamma board.

    ``seed`` selects the universe; ``markets`` is the approximate number of open markets at any
    instant (50 to 50,000+). ``closed_days`` is how long closed markets keep appearing in listings.
    """

    def __init__(
        self,
        seed: int = 0,
        markets: int = 3000,
        *,
        closed_days: float = 4.0,
        cohort_cache: int = 4096,
        snapshot_cache: int = 8,
    ) -> None:
        self.seed = int(seed)
        self.markets = int(markets)
        self.closed_days = float(closed_days)
        self._plan = _plan(self.markets)
        self._gen = _Gen(self.seed, self._plan)
        self._detailer = _Detailer(self.seed)
        self._cohorts: BoundedCache[tuple[str, int], list[_Ev]] = BoundedCache(cohort_cache)
        self._snaps: BoundedCache[int, Snapshot] = BoundedCache(snapshot_cache)

    # cohorts --------------------------------------------------------------------------------
    def _cohort(self, stream: str, key: int) -> list[_Ev]:
        return self._cohorts.get((stream, key), lambda: self._gen.cohort(stream, key))

    def _windows(self, tday: int) -> list[tuple[str, int, int]]:
        cd = math.ceil(self.closed_days)
        short_back = cd + SHORT_TAIL_DAYS
        return [
            ("sports", tday - short_back, tday + 5),
            ("daily", tday - short_back, tday + 4),
            ("weekly", tday - short_back, tday + 9),
            ("crypto", tday - cd - 1, tday + 2),
            ("long", tday - LONG_MAX_LIFE - LONG_TAIL_DAYS - cd, tday),
            ("marquee", tday - MARQUEE_MAX_LIFE - PERIOD_DAYS - LONG_TAIL_DAYS - cd, tday),
        ]

    # snapshots ------------------------------------------------------------------------------
    def snapshot(self, at: datetime | int) -> Snapshot:
        """The board at ``at`` (an aware datetime, or UNIX seconds), floored to whole seconds."""
        ts = at if isinstance(at, int) else to_ts(at)
        return self._snaps.get(ts, lambda: self._build(ts))

    def _build(self, ts: int) -> Snapshot:
        with gc_paused():
            return self._build_inner(ts)

    def _build_inner(self, ts: int) -> Snapshot:
        horizon = ts - int(self.closed_days * DAY)
        tday = ts // DAY
        evs: list[_Ev] = []
        mks: list[_Mk] = []
        for stream, lo, hi in self._windows(tday):
            for key in range(max(lo, EPOCH_DAY), hi + 1):
                if stream == "marquee" and key % PERIOD_DAYS:
                    continue
                for ev in self._cohort(stream, key):
                    if ev.created > ts or ev.close <= horizon:
                        continue
                    evs.append(ev)
                    for m in ev.markets:
                        if m.created <= ts and m.close > horizon:
                            mks.append(m)
        evs.sort(key=lambda e: e.eid)
        mks.sort(key=lambda m: m.mid)
        return Snapshot(self, ts, evs, mks)

    # lookups of any age ---------------------------------------------------------------------
    def _decode(self, ident: str, *, event: bool) -> _Mk | _Ev | None:
        if not ident.isdigit() or len(ident) > 15:
            return None
        p = self._plan
        base, stride = (EVENT_ID_BASE, p.e_stride) if event else (MARKET_ID_BASE, p.m_stride)
        offsets, caps = (p.e_offsets, p.e_caps) if event else (p.m_offsets, p.m_caps)
        n = int(ident) - base
        if n < 0:
            return None
        day, off = divmod(n, stride)
        for stream in STREAMS:
            if offsets[stream] <= off < offsets[stream] + caps[stream]:
                if stream == "marquee" and day % PERIOD_DAYS:
                    return None
                for ev in self._cohort(stream, day):
                    if event:
                        if ev.eid == int(ident):
                            return ev
                    else:
                        for m in ev.markets:
                            if m.mid == int(ident):
                                return m
                return None
        return None

    def market_row(self, market_id: str) -> _Mk | None:
        got = self._decode(market_id, event=False)
        return got if isinstance(got, _Mk) else None

    def event_row(self, event_id: str) -> _Ev | None:
        got = self._decode(event_id, event=True)
        return got if isinstance(got, _Ev) else None

    def market(self, market_id: str, at: datetime | int) -> dict[str, Any] | None:
        """``GET /markets/{id}`` at ``at``: any market ever created by then, or None."""
        snap = self.snapshot(at)
        m = self.market_row(market_id)
        if m is None or m.created > snap.ts:
            return None
        d = snap.market_dict(m)
        return {"$schema": SCHEMA_URL, **d}

    def event(self, event_id: str, at: datetime | int) -> dict[str, Any] | None:
        snap = self.snapshot(at)
        ev = self.event_row(event_id)
        if ev is None or ev.created > snap.ts:
            return None
        return snap.event_dict(ev)
