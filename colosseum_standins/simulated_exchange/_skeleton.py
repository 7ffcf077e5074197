"""Cohort skeletons: the *truth* of every event and market, drawn cheaply per (stream, day).

A skeleton fixes what must be consistent across instants: creation and end times, when the
outcome becomes known (``info1``), the winner, and the oracle's settlement timeline (proposal,
dispute, re-proposal, resolution). Wording and other cosmetics are added later by ``_details``.

This runs for a few hundred thousand markets when a 50,000-market board is first built, so it
draws with ``rng.random()`` and arithmetic instead of ``choice``/``randrange``/``sample``, which cost
several times more per call in CPython.
"""

from __future__ import annotations

import math
import random
from bisect import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Any

from colosseum_standins.simulated_exchange import catalog as C
from colosseum_standins.simulated_exchange._common import (
    EPOCH_DAY,
    EVENT_ID_BASE,
    LONG_MAX_LIFE,
    MARKET_ID_BASE,
    MARQUEE_MAX_LIFE,
    NO,
    PERIOD_DAYS,
    ROTATION_DAYS,
    SEASON_DAYS,
    STREAMS,
    VOID,
    YES,
    _nice_step,
    team_capacity,
)
from colosseum_standins.simulated_exchange._time import DAY, HOUR, MINUTE, from_ts


@dataclass(frozen=True, slots=True)
class _Plan:
    markets: int
    sports_per_day: float
    daily_per_day: float
    weekly_per_day: float
    long_per_day: float
    crypto_series: int
    crypto_slots: int
    marquee_families: int
    m_offsets: dict[str, int]
    m_caps: dict[str, int]
    m_stride: int
    e_offsets: dict[str, int]
    e_caps: dict[str, int]
    e_stride: int
    teams: tuple[int, ...]  # how many teams each league of ``C.LEAGUES`` fields


def _team_pools(sports_per_day: float) -> tuple[int, ...]:
    """Teams per league, enough for its share of the day's fixtures at the weekend peak.

    A team plays at most one day in ``ROTATION_DAYS``, so a league fields a fixture a day per
    ``2 * ROTATION_DAYS`` teams; the peak is a weekend's 1.3 times the busiest count ``_count`` draws
    (1.2 times the rate) plus room for the day's luck of the draw. Never fewer than the curated teams,
    never more than the league's names allow.
    """
    total = sum(lg[8] for lg in C.LEAGUES)
    pools = []
    for index, league in enumerate(C.LEAGUES):
        peak = sports_per_day * 1.3 * 1.2 * league[8] / total
        need = math.ceil(2 * ROTATION_DAYS * (peak + 2.0 * math.sqrt(peak) + 1.0))
        curated = len(C.TEAMS.get(league[0], ()))
        pools.append(min(max(curated, need), team_capacity(index)))
    return tuple(pools)


def _plan(markets: int) -> _Plan:
    n = max(int(markets), 50)
    # Each rate is (share of the open board) / (days a market of that stream stays open) /
    # (markets per event). The shares were tuned so ~75% of open markets end within 102 h of any
    # instant and the open count lands near ``markets`` (see the tests).
    sports = 0.36 * n / 3.0 / 2.05
    daily = 0.31 * n / 2.0 / 7.6
    weekly = 0.115 * n / 7.5 / 6.0
    long_ = 0.125 * n / 120.0 / 3.1
    crypto_total = 0.075 * n  # open 5-minute markets, listed ahead
    series = max(1, min(len(C.CRYPTO), math.ceil(crypto_total / 288)))
    slots = max(6, min(288, round(crypto_total / series)))
    marquee = max(1, round(n / 4000))

    def cap(per_day: float, per_event: int) -> tuple[int, int]:
        events = math.ceil(per_day * 1.6) + 8
        return events, events * per_event

    e_caps: dict[str, int] = {}
    m_caps: dict[str, int] = {}
    e_caps["sports"], m_caps["sports"] = cap(sports * 1.4, 4)  # weekend peak + "More Markets" events
    e_caps["daily"], m_caps["daily"] = cap(daily, 12)
    e_caps["weekly"], m_caps["weekly"] = cap(weekly, 16)
    e_caps["crypto"], m_caps["crypto"] = series * 288, series * 288
    e_caps["long"], m_caps["long"] = cap(long_, 18)
    e_caps["marquee"], m_caps["marquee"] = marquee, marquee * 50
    m_off: dict[str, int] = {}
    e_off: dict[str, int] = {}
    acc_m = acc_e = 0
    for s in STREAMS:
        m_off[s], e_off[s] = acc_m, acc_e
        acc_m += m_caps[s]
        acc_e += e_caps[s]
    m_stride = -(-acc_m // 100) * 100
    e_stride = -(-acc_e // 100) * 100
    return _Plan(
        n,
        sports,
        daily,
        weekly,
        long_,
        series,
        slots,
        marquee,
        m_off,
        m_caps,
        m_stride,
        e_off,
        e_caps,
        e_stride,
        _team_pools(sports),
    )


# A settlement: (info1, propose, dispute, repropose, close, trail).
_Settlement = tuple[int, int | None, int | None, int | None, int, int]


class _Ev:
    """An event skeleton. Plain class (no slots) so the many defaults live on the class, which
    makes creating the ~120,000 events of a 50k board markedly cheaper."""

    start: int | None = None
    shape = "binary"  # "binary" | "cat" (mutually exclusive, softmax) | "latent" (numeric)
    cat_w: list[float] = []  # noqa: RUF012 - replaced, never mutated
    latent: tuple[float, float, float] | None = None  # (mu0, sigma0, truth)
    winner = -1
    league = -1
    parent: _Ev | None = None
    close = 0
    detail = False
    tmpl: tuple[tuple[str, ...], tuple[Any, ...]] | None = None
    stmpl: tuple[tuple[str, ...], tuple[Any, ...]] | None = None

    def __init__(self, eid: int, stream: str, key: int, kind: str, created: int, end: int) -> None:
        self.eid = eid
        self.stream = stream
        self.key = key
        self.kind = kind
        self.created = created
        self.end = end
        self.markets: list[_Mk] = []
        self.extra: dict[str, Any] = {}


class _Mk:
    # Skeleton fields are set here; book/volume fields (tick .. liqw) are set by the detailer
    # before any state is computed.
    __slots__ = (
        "book",
        "close",
        "created",
        "dispute",
        "end",
        "ev",
        "hi",
        "idx",
        "info0",
        "info1",
        "k",
        "liq0",
        "liqw",
        "lo",
        "mid",
        "other",
        "p0",
        "placeholder",
        "propose",
        "repropose",
        "spread_t",
        "thin",
        "tick",
        "tmpl",
        "trail",
        "vtot",
        "win",
        "wob",
    )

    def __init__(
        self, mid: int, ev: _Ev, idx: int, created: int, end: int, s: _Settlement, jitter: int = 0
    ) -> None:
        self.mid = mid
        self.ev = ev
        self.idx = idx
        self.created = created
        self.end = end
        self.info0 = created
        self.info1 = s[0]
        self.propose: int | None = None if s[1] is None else s[1] + jitter
        self.dispute: int | None = None if s[2] is None else s[2] + jitter
        self.repropose: int | None = None if s[3] is None else s[3] + jitter
        self.close = s[4] + jitter
        self.trail = s[5]  # 0: '["proposed"]', 1: '["proposed", "resolved"]', 2: the disputed trail
        self.k = 2.0
        self.win = NO
        self.p0 = 0.5
        self.lo: float | None = None
        self.hi: float | None = None
        self.placeholder = False
        self.other = False
        self.tmpl: tuple[tuple[str, ...], tuple[Any, ...]] | None = None


def _settlement(r: Any, h: int, *, long_dated: bool, lag: tuple[float, float] = (1.0, 6.0)) -> _Settlement:
    """How the oracle settles a question whose outcome is known at ``h`` (``r`` is ``rng.random``).

    Most resolve 1-6 h later (the proposal's 2-hour challenge window ends at resolution); some
    late by days; some disputed (re-proposed, then resolved 4-6 days after the dispute); long-dated
    ones can also sit ``proposed`` for weeks.
    """
    x = r()
    late, disp, stuck = (0.06, 0.08, 0.10) if long_dated else (0.04, 0.055, 0.055)
    if x < late:
        close = h + int((1.0 + r() * (4.0 if long_dated else 2.0)) * DAY)
        return h, max(h + 5 * MINUTE, close - 2 * HOUR), None, None, close, 0
    if x < disp:
        propose = h + int((1.0 + 3.0 * r()) * HOUR)
        dispute = propose + int((0.5 + 1.4 * r()) * HOUR)
        close = dispute + int((4.0 + 2.0 * r()) * DAY)
        return h, propose, dispute, dispute + (close - dispute) // 2, close, 2
    if x < stuck:
        propose = h + int((1.0 + 5.0 * r()) * HOUR)
        return h, propose, None, None, propose + int((15.0 + 43.0 * r()) * DAY), 0
    close = h + int((lag[0] + (lag[1] - lag[0]) * r()) * HOUR)
    return h, max(h + 5 * MINUTE, close - 2 * HOUR), None, None, close, 1 if x > 0.75 else 0


def _count(r: Any, rate: float) -> int:
    # Poisson-like: +-20% around the rate with randomized rounding; cheap and never negative.
    x = rate * (0.8 + 0.4 * r())
    n = int(x)
    return n + (1 if r() < x - n else 0)


def _beta_ish(r: Any) -> float:
    # A hump on (0, 1) (Irwin-Hall of 3); stands in for betavariate(2.2, 2.2) at a fraction of the cost.
    return (r() + r() + r()) / 3.0


_LEAGUE_CUM = list(accumulate(lg[8] for lg in C.LEAGUES))
_DAILY_KINDS = ("weather", "crypto_above", "crypto_range", "stock_updown", "stock_above", "mentions")
_DAILY_CUM_WEEKDAY = list(accumulate((0.22, 0.24, 0.1, 0.16, 0.1, 0.18)))
_DAILY_CUM_WEEKEND = list(accumulate((0.3, 0.34, 0.14, 0.0, 0.0, 0.22)))
_WEEKLY_KINDS = ("tweets", "crypto_reach", "box_office", "by_date")
_WEEKLY_CUM = list(accumulate((0.35, 0.25, 0.12, 0.28)))
_LONG_KINDS = ("fed", "cpi", "election", "company", "company_ladder", "geo", "macro", "ai_rank")
_LONG_CUM = list(accumulate((0.09, 0.08, 0.09, 0.27, 0.08, 0.2, 0.14, 0.05)))
_SOCCER_MINUTES = (0, 0, 5, 10, 15, 30, 35, 40, 45)
# How often one real-world event is listed a second time under an event id of its own, as Polymarket
# now and then does (a fixture written the other way round; a second Powell or Musk "mentions" event).
_RELISTED_FIXTURE = 0.05
_RELISTED_MENTIONS = 0.1


def _pick(cum: list[float], x: float) -> int:
    return min(bisect(cum, x * cum[-1]), len(cum) - 1)


@lru_cache(maxsize=1024)
def _rotation(
    seed: int, league: int, season: int, pool: int
) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Each team's day of the rotation for a season, and the teams of each day: a dealt-out shuffle,
    so every day of the rotation has its share of the league."""
    order = list(range(pool))
    random.Random(f"{seed}:rotation:{league}:{season}").shuffle(order)
    days = [0] * pool
    for position, team in enumerate(order):
        days[team] = position % ROTATION_DAYS
    return tuple(days), tuple(tuple(sorted(order[k::ROTATION_DAYS])) for k in range(ROTATION_DAYS))


def free_teams(seed: int, league: int, pool: int, day: int) -> list[int]:
    """The teams of a league that may play on ``day``: those whose rotation day it is, less any whose
    last rotation day of the season before is fewer than ``ROTATION_DAYS`` days back.

    So within a season a team's days are ``ROTATION_DAYS`` apart, and across the change of season
    they are never closer: whatever each day's fixtures draw, no team plays twice in that span.
    """
    season, into = divmod(day, SEASON_DAYS)
    _, groups = _rotation(seed, league, season, pool)
    # Rotation day k plays on the days with (day + k) divisible by ROTATION_DAYS.
    teams = list(groups[-day % ROTATION_DAYS])
    if into >= ROTATION_DAYS:
        return teams
    eve = day - into - 1  # the last day of the season before
    before, _ = _rotation(seed, league, season - 1, pool)
    return [team for team in teams if into + 1 + (eve + before[team]) % ROTATION_DAYS >= ROTATION_DAYS]


class _Gen:
    """Generates cohorts; pure with respect to (seed, plan, stream, key)."""

    def __init__(self, seed: int, plan: _Plan) -> None:
        self.seed = seed
        self.plan = plan

    def _fact(self, what: str, subject: int, day: int) -> random.Random:
        """The draws of one real quantity (a city's high, an asset's noon price, a week's tweets): a
        subject's day has one truth, however many events list it."""
        return random.Random(f"{self.seed}:{what}:{subject}:{day}")

    def cohort(self, stream: str, key: int) -> list[_Ev]:
        if key < EPOCH_DAY or (stream == "marquee" and key % PERIOD_DAYS):
            return []
        rng = random.Random(f"{self.seed}:{stream}:{key}")
        p = self.plan
        mbase = MARKET_ID_BASE + key * p.m_stride + p.m_offsets[stream]
        ebase = EVENT_ID_BASE + key * p.e_stride + p.e_offsets[stream]
        mids = iter(range(mbase, mbase + p.m_caps[stream]))
        eids = iter(range(ebase, ebase + p.e_caps[stream]))
        out: list[_Ev] = []
        try:
            getattr(self, f"_gen_{stream}")(rng, key, mids, eids, out)
        except StopIteration:
            # A cohort that would overflow its id block stops early (capacities carry 60% headroom);
            # the event being built when that happened is dropped whole so families stay intact.
            if out and out[-1].markets and out[-1].markets[-1].mid == mbase + p.m_caps[stream] - 1:
                out.pop()
        out = [e for e in out if e.markets]
        for e in out:
            real = [m.close for m in e.markets if not m.placeholder]
            e.close = max(real) if real else e.end
            for m in e.markets:
                if m.placeholder:
                    m.close = e.close
        return out

    # sports ---------------------------------------------------------------------------------
    def _gen_sports(
        self, rng: random.Random, day: int, mids: Iterator[int], eids: Iterator[int], out: list[_Ev]
    ) -> None:
        r = rng.random
        weekday = (day + 3) % 7  # 0 = Monday (1970-01-01 was a Thursday)
        rate = self.plan.sports_per_day * (1.3 if weekday >= 5 else 0.88)
        free: dict[int, list[int]] = {}

        def teams_for(league: int) -> list[int]:
            """The league's teams still free today, in the order they are drawn (from the end)."""
            if league not in free:
                draw = random.Random(f"{self.seed}:fixtures:{league}:{day}")
                curated = len(C.TEAMS.get(C.LEAGUES[league][0], ()))
                teams = free_teams(self.seed, league, self.plan.teams[league], day)
                # The league's own clubs play whenever their rest allows; the made-up ones fill the day.
                first, rest = [t for t in teams if t < curated], [t for t in teams if t >= curated]
                draw.shuffle(first)
                draw.shuffle(rest)
                free[league] = rest + first
            return free[league]

        # The leagues that can still field a fixture today, with their weights; rebuilt when one runs out.
        spare: tuple[list[int], list[float]] | None = None
        for _ in range(_count(r, rate)):
            li = _pick(_LEAGUE_CUM, r())
            if len(teams_for(li)) < 2:
                # The league has no two teams left to play today: the fixture goes to another league
                # that has, as likely as its weight; when none has, the day's card of games is full.
                if spare is None:
                    leagues = [i for i in range(len(C.LEAGUES)) if len(teams_for(i)) >= 2]
                    spare = leagues, list(accumulate(C.LEAGUES[i][8] for i in leagues))
                if not spare[0]:
                    break
                li = spare[0][_pick(spare[1], r())]
            slug, _name, _sport, dur, endoff, _src, _tag, hours, _w = C.LEAGUES[li]
            start = day * DAY + hours[int(r() * len(hours))] * HOUR + _SOCCER_MINUTES[int(r() * 9)] * MINUTE
            quick = slug in C.ESPORTS or slug in C.INDIVIDUAL
            lead = 0.6 + 1.4 * r() if quick else 1.0 + 3.0 * r()
            created = start - int(lead * DAY) - int(r() * 3600)
            game_end = start + int(dur * HOUR * (0.9 + 0.35 * r()))
            end = start + int(endoff * HOUR)
            soccer = slug in C.SOCCER
            ev = _Ev(next(eids), "sports", day, "soccer" if soccer else "game", created, end)
            out.append(ev)
            ev.start = start
            ev.league = li
            home, away = teams_for(li).pop(), teams_for(li).pop()
            if len(teams_for(li)) < 2:
                spare = None
            ev.extra = {"game_end": game_end, "teams": (home, away)}
            p_home = _beta_ish(r)
            # One settlement per game; every market of the game shares it (plus seconds of jitter).
            s = _settlement(r, game_end, long_dated=False, lag=(0.3, 2.5))
            void = r() < 0.012
            if void:  # postponed: voided before the scheduled start (the real Yankees-Rays case)
                close = max(created + 2 * HOUR, start - int((1.0 + 11.0 * r()) * HOUR))
                s = (close - 2 * HOUR, close - 2 * HOUR, None, None, close, 0)
            if soccer:
                ev.shape = "cat"
                draw = 0.2 + 0.1 * r()
                ph = (1 - draw) * p_home
                ev.cat_w = [ph, draw, (1 - draw) - ph]
                x = r()
                ev.winner = 0 if x < ph else 1 if x < ph + draw else 2
                for i in range(3):
                    m = _Mk(next(mids), ev, i, created + i, end, s, 1 + int(r() * 240))
                    ev.markets.append(m)
                    m.info0, m.k = start, 1.6
                    m.win = VOID if void else (YES if i == ev.winner else NO)
                if r() < 0.4:  # "More Markets": the same fixture in a second event
                    child = _Ev(next(eids), "sports", day, "soccer_more", created + 1800, end)
                    out.append(child)
                    child.start, child.league, child.parent, child.extra = start, li, ev, ev.extra
                    for j in range(2):
                        m = _Mk(next(mids), child, j, created + 1800 + j, end, s, 1 + int(r() * 240))
                        child.markets.append(m)
                        m.info0, m.k, m.p0 = start, 1.6, 0.4 + 0.22 * r()
                        m.win = VOID if void else (YES if r() < m.p0 else NO)
                self._relist(ev, r, mids, eids, out, ph, VOID if void else YES if ev.winner == 0 else NO, s)
                continue
            won_a = r() < p_home
            kinds = ["moneyline"]
            if slug in C.ESPORTS:
                if r() < 0.5:
                    kinds.append("map_handicap")
            elif slug == "ufc":
                if r() < 0.5:
                    kinds.append("distance")
            elif not quick and slug != "mlp":
                if r() < 0.55:
                    kinds.append("spreads")
                if r() < 0.55:
                    kinds.append("totals")
            ev.extra["kinds"] = kinds
            for i, kind in enumerate(kinds):
                m = _Mk(next(mids), ev, i, created + i * 7, end, s, 1 + int(r() * 240))
                ev.markets.append(m)
                m.info0, m.k = start, 1.6
                if kind == "moneyline":
                    m.p0, w = p_home, won_a
                elif kind in ("spreads", "map_handicap"):
                    m.p0 = 0.42 + 0.16 * r()
                    w = r() < (0.62 if won_a else 0.12)
                else:
                    m.p0 = 0.42 + 0.16 * r()
                    w = r() < m.p0
                m.win = VOID if void else (YES if w else NO)
            self._relist(ev, r, mids, eids, out, p_home, VOID if void else YES if won_a else NO, s)

    def _relist(
        self,
        ev: _Ev,
        r: Any,
        mids: Iterator[int],
        eids: Iterator[int],
        out: list[_Ev],
        p_home: float,
        home_wins: float,
        s: _Settlement,
    ) -> None:
        """Now and then the fixture listed again: an event of its own asking whether the home side
        wins, written another way, with the fixture's game id, one of its own, or none. One game, so
        the same start, end, settlement and outcome."""
        if r() >= _RELISTED_FIXTURE:
            return
        assert ev.start is not None
        created = ev.created + int((0.2 + 0.6 * r()) * (ev.start - ev.created))
        twin = _Ev(next(eids), "sports", ev.key, "fixture_dup", created, ev.end)
        out.append(twin)
        twin.start, twin.league, twin.parent = ev.start, ev.league, ev
        twin.extra = {
            "teams": ev.extra["teams"],
            "game_end": ev.extra["game_end"],
            "style": int(r() * len(C.FIXTURE_STYLES)),
            "game": int(r() * 3),  # 0: the fixture's game id, 1: one of its own, 2: none
        }
        m = _Mk(next(mids), twin, 0, created, ev.end, s, 1 + int(r() * 240))
        twin.markets.append(m)
        m.info0, m.k, m.p0, m.win = ev.start, 1.6, p_home, home_wins

    # daily ----------------------------------------------------------------------------------
    def _latent(
        self,
        ev: _Ev,
        r: Any,
        mids: Iterator[int],
        bounds: list[tuple[float | None, float | None]],
        truth: float,
        info1: int,
        k: float,
    ) -> None:
        s = _settlement(r, info1, long_dated=False)
        created, end = ev.created, ev.end
        for i, (lo, hi) in enumerate(bounds):
            m = _Mk(next(mids), ev, i, created + i, end, s, 1 + int(r() * 200))
            ev.markets.append(m)
            m.lo, m.hi, m.k = lo, hi, k
            m.win = YES if (lo is None or truth >= lo) and (hi is None or truth < hi) else NO

    def _gen_daily(
        self, rng: random.Random, day: int, mids: Iterator[int], eids: Iterator[int], out: list[_Ev]
    ) -> None:
        r = rng.random
        cum = _DAILY_CUM_WEEKDAY if (day + 3) % 7 < 5 else _DAILY_CUM_WEEKEND
        month = from_ts(day * DAY).month
        spoken: set[int] = set()  # a speaker gives one press conference, briefing or rally a day
        for _ in range(_count(r, self.plan.daily_per_day)):
            kind = _DAILY_KINDS[_pick(cum, r())]
            if kind == "weather":
                ci = int(r() * len(C.CITIES_WEATHER))
                end = day * DAY + 23 * HOUR
                created = end - int((1.2 + r()) * DAY)
                ev = _Ev(next(eids), "daily", day, kind, created, end)
                out.append(ev)
                fact = self._fact("weather", ci, day)
                mu0 = 58 + 24 * math.sin((month - 4) / 12 * 2 * math.pi) + 20 * fact.random() - 10 + ci
                sigma = 3.2
                truth = fact.gauss(mu0, sigma)
                lo0 = int(mu0) - 7
                bounds: list[tuple[float | None, float | None]] = [(None, lo0 + 0.5)]
                bounds += [(lo0 + 0.5 + 2 * i, lo0 + 2.5 + 2 * i) for i in range(7)]
                bounds.append((lo0 + 14.5, None))
                ev.shape, ev.latent, ev.extra = "latent", (mu0, sigma, truth), {"city": ci, "neg": True}
                # Known once the local day is over, hours after endDate.
                self._latent(ev, r, mids, bounds, truth, day * DAY + 29 * HOUR, 1.8)
            elif kind in ("crypto_above", "crypto_range"):
                ai = min(int(-math.log(1.0 - r()) / 0.45), 5)
                _name, _tick, _s, base, vol = C.CRYPTO[ai]
                end = day * DAY + 16 * HOUR
                created = end - int((1.0 + 2.0 * r()) * DAY)
                ev = _Ev(next(eids), "daily", day, kind, created, end)
                out.append(ev)
                level = base * math.exp(
                    0.25 * math.sin(day / 97.0 + ai) + 0.1 * math.sin(day / 13.0 + 2 * ai)
                )
                sigma = level * vol * 1.3
                truth = self._fact("crypto", ai, day).gauss(level, sigma)
                step = _nice_step(sigma * 0.7)
                center = round(level / step) * step
                ev.shape, ev.latent = "latent", (level, sigma, truth)
                if kind == "crypto_above":
                    n = (7, 9, 11)[int(r() * 3)]
                    bounds = [(center + (i - n // 2) * step, None) for i in range(n)]
                    ev.extra = {"asset": ai, "step": step, "neg": False}
                else:
                    n = (6, 8)[int(r() * 2)]
                    edges = [center + (i - n // 2) * step for i in range(n + 1)]
                    bounds = (
                        [(None, edges[0])]
                        + [(edges[i], edges[i + 1]) for i in range(n)]
                        + [(edges[-1], None)]
                    )
                    ev.extra = {"asset": ai, "step": step, "neg": True}
                self._latent(ev, r, mids, bounds, truth, end, 1.8)
            elif kind == "stock_updown":
                end = day * DAY + 20 * HOUR
                created = end - int((1.0 + 1.5 * r()) * DAY)
                ev = _Ev(next(eids), "daily", day, kind, created, end)
                out.append(ev)
                ev.extra = {"stock": int(r() * len(C.STOCKS))}
                m = _Mk(next(mids), ev, 0, created, end, _settlement(r, end, long_dated=False))
                ev.markets.append(m)
                fact = self._fact("stock_updown", ev.extra["stock"], day)
                m.p0, m.info0, m.k = 0.45 + 0.11 * fact.random(), end - int(6.5 * HOUR), 1.4
                m.win = YES if fact.random() < m.p0 else NO
                if fact.random() < 0.004:
                    m.win = VOID
            elif kind == "stock_above":
                si = int(r() * len(C.STOCKS))
                end = day * DAY + 20 * HOUR
                created = end - int((1.0 + 2.0 * r()) * DAY)
                ev = _Ev(next(eids), "daily", day, kind, created, end)
                out.append(ev)
                level = C.STOCKS[si][2] * math.exp(0.2 * math.sin(day / 71.0 + si))
                sigma = level * 0.022
                truth = self._fact("stock", si, day).gauss(level, sigma)
                step = _nice_step(sigma * 0.8)
                center = round(level / step) * step
                ev.shape, ev.latent = "latent", (level, sigma, truth)
                ev.extra = {"stock": si, "step": step, "neg": False}
                self._latent(
                    ev, r, mids, [(center + (i - 2) * step, None) for i in range(5)], truth, end, 1.8
                )
            else:  # mentions
                left = [i for i in range(len(C.MENTION_SPEAKERS)) if i not in spoken]
                if not left:
                    continue
                speaker = left[int(r() * len(left))]
                spoken.add(speaker)
                end = day * DAY + int((15.0 + 8.5 * r()) * HOUR)
                created = end - int((1.0 + 1.5 * r()) * DAY)
                ev = _Ev(next(eids), "daily", day, kind, created, end)
                out.append(ev)
                nw = 3 + int(r() * 6)
                words = rng.sample(range(len(C.MENTION_WORDS)), nw)
                ev.extra = {"speaker": speaker, "words": words}
                info1 = end - int((0.2 + 1.8 * r()) * HOUR)
                s = _settlement(r, info1, long_dated=False)
                for i in range(nw):
                    m = _Mk(next(mids), ev, i, created, end, s, 1 + int(r() * 300))
                    ev.markets.append(m)
                    m.p0, m.info0, m.k = 0.05 + 0.9 * _beta_ish(r), info1 - 2 * HOUR, 1.0
                    m.win = YES if r() < m.p0 else NO
                    if r() < 0.012:
                        m.win = VOID
                if r() < _RELISTED_MENTIONS:
                    self._relist_mentions(ev, rng, mids, eids, out, s)

    def _relist_mentions(
        self,
        ev: _Ev,
        rng: random.Random,
        mids: Iterator[int],
        eids: Iterator[int],
        out: list[_Ev],
        s: _Settlement,
    ) -> None:
        """The same appearance listed again under an event id of its own: the same speaker, occasion
        and end, some of the same words (which resolve as they do on the first listing) and some new."""
        r = rng.random
        created = ev.created + int((0.1 + 0.5 * r()) * (ev.end - ev.created))
        twin = _Ev(next(eids), "daily", ev.key, "mentions_twin", created, ev.end)
        out.append(twin)
        twin.parent = ev
        kept = [m for m in ev.markets if r() < 0.5] or ev.markets[:1]
        fresh = [w for w in range(len(C.MENTION_WORDS)) if w not in ev.extra["words"]]
        added = rng.sample(fresh, min(len(fresh), int(r() * 3)))
        twin.extra = {
            "speaker": ev.extra["speaker"],
            "words": [ev.extra["words"][m.idx] for m in kept] + added,
        }
        for i, original in enumerate(kept):
            m = _Mk(next(mids), twin, i, created, ev.end, s, 1 + int(r() * 300))
            twin.markets.append(m)
            m.p0, m.info0, m.k, m.win = original.p0, original.info0, original.k, original.win
        for i in range(len(kept), len(kept) + len(added)):
            m = _Mk(next(mids), twin, i, created, ev.end, s, 1 + int(r() * 300))
            twin.markets.append(m)
            m.p0, m.info0, m.k = 0.05 + 0.9 * _beta_ish(r), ev.markets[0].info0, 1.0
            m.win = YES if r() < m.p0 else NO

    # weekly ---------------------------------------------------------------------------------
    def _gen_weekly(
        self, rng: random.Random, day: int, mids: Iterator[int], eids: Iterator[int], out: list[_Ev]
    ) -> None:
        r = rng.random
        for _ in range(_count(r, self.plan.weekly_per_day)):
            kind = _WEEKLY_KINDS[_pick(_WEEKLY_CUM, r())]
            end = day * DAY + 16 * HOUR
            created = end - int((6.6 + 1.2 * r()) * DAY)
            ev = _Ev(next(eids), "weekly", day, kind, created, end)
            out.append(ev)
            if kind == "tweets":
                ti = int(r() * len(C.TWEETERS))
                fact = self._fact("tweets", ti, day)
                mu0 = (430.0, 120.0, 65.0)[ti] * (0.8 + 0.4 * fact.random())
                sigma = mu0 * 0.14
                truth = fact.gauss(mu0, sigma)
                width = (20, 10, 5)[ti]
                lo0 = int((mu0 - 5.5 * width) // width * width)
                nb = 10 + int(r() * 4)
                bounds: list[tuple[float | None, float | None]] = [(None, float(lo0))]
                bounds += [(float(lo0 + i * width), float(lo0 + (i + 1) * width)) for i in range(nb - 2)]
                bounds.append((float(lo0 + (nb - 2) * width), None))
                ev.shape, ev.latent = "latent", (mu0, sigma, truth)
                ev.extra = {"who": ti, "width": width, "neg": True}
                self._latent(ev, r, mids, bounds, truth, end, 1.0)  # the count accrues through the week
            elif kind == "crypto_reach":
                ai = min(int(-math.log(1.0 - r()) / 0.6), 4)
                _n, _t, _s, base, vol = C.CRYPTO[ai]
                level = base * math.exp(0.25 * math.sin(day / 97.0 + ai))
                step = _nice_step(level * vol * 1.1)
                center = round(level / step) * step
                ev.extra = {"asset": ai, "step": step}
                for i, j in enumerate((-3, -2, -1, 1, 2, 3, 4)):
                    dist = abs(j) - 0.5
                    p0 = max(0.03, min(0.93, math.exp(-0.55 * dist * dist)))
                    hit = r() < p0  # touched during the week: resolves early, Yes
                    h = created + int((0.1 + 0.88 * r()) * (end - created)) if hit else end
                    m = _Mk(next(mids), ev, i, created + i, end, _settlement(r, h, long_dated=False))
                    ev.markets.append(m)
                    m.lo, m.k, m.p0, m.win = center + j * step, 1.3, p0, YES if hit else NO
            elif kind == "box_office":
                ev.extra = {"movie": int(r() * len(C.MOVIES)), "gross": (40, 60, 80, 100, 150)[int(r() * 5)]}
                m = _Mk(
                    next(mids),
                    ev,
                    0,
                    created,
                    end,
                    _settlement(r, end - int((2 + 18 * r()) * HOUR), long_dated=False),
                )
                ev.markets.append(m)
                m.p0, m.k = 0.1 + 0.8 * _beta_ish(r), 2.5
                m.win = YES if r() < m.p0 else NO
                if r() < 0.01:
                    m.win = VOID
            else:
                self._by_date(ev, r, mids, long_dated=False)

    def _by_date(self, ev: _Ev, r: Any, mids: Iterator[int], *, long_dated: bool) -> _Mk:
        created, end = ev.created, ev.end
        p0 = min(0.97, max(0.02, r() ** 1.6))
        h = end
        win = NO
        if r() < p0:
            win = YES
            if r() < 0.55:  # it happened before the deadline: resolves early
                h = created + int((0.15 + 0.82 * r()) * (end - created))
        elif long_dated and r() < 0.05:  # became impossible early (the Katana case)
            h = created + int((0.2 + 0.7 * r()) * (end - created))
        if r() < 0.008:
            win = VOID
        m = _Mk(next(mids), ev, 0, created, end, _settlement(r, h, long_dated=long_dated))
        ev.markets.append(m)
        m.p0, m.k, m.win = p0, 2.4, win
        return m

    # crypto 5-minute ------------------------------------------------------------------------
    def _gen_crypto(
        self, rng: random.Random, day: int, mids: Iterator[int], eids: Iterator[int], out: list[_Ev]
    ) -> None:
        r = rng.random
        horizon = self.plan.crypto_slots * 300
        for asset in range(self.plan.crypto_series):
            extra = {"asset": asset}
            for k in range(288):
                start = day * DAY + k * 300
                end = start + 300
                created = start - horizon - int(r() * 240)
                ev = _Ev(next(eids), "crypto", day, "updown5m", created, end)
                out.append(ev)
                ev.start = start
                ev.extra = extra
                m = _Mk(
                    next(mids),
                    ev,
                    0,
                    created + 1,
                    end,
                    (end, end + 30, None, None, end + 60 + int(r() * 360), 0),
                )
                ev.markets.append(m)
                m.info0, m.k = start, 1.0
                m.win = YES if r() < 0.5 else NO

    # long-dated -----------------------------------------------------------------------------
    def _gen_long(
        self, rng: random.Random, day: int, mids: Iterator[int], eids: Iterator[int], out: list[_Ev]
    ) -> None:
        r = rng.random
        log_lo, log_hi = math.log(7), math.log(LONG_MAX_LIFE)
        for _ in range(_count(r, self.plan.long_per_day)):
            kind = _LONG_KINDS[_pick(_LONG_CUM, r())]
            created = day * DAY + int(r() * DAY)
            if kind == "fed":
                end = (created // DAY + 18 + int(r() * 43)) * DAY + 18 * HOUR
                ev = _Ev(next(eids), "long", day, "fed", created, end)
                out.append(ev)
                w = [0.01 + 0.14 * r(), 0.05 + 0.45 * r(), 0.3 + 0.6 * r(), 0.005 + 0.095 * r()]
                tot = sum(w)
                ev.shape, ev.cat_w = "cat", [x / tot for x in w]
                x = r()
                ev.winner = _pick(list(accumulate(ev.cat_w)), x)
                s = _settlement(r, end, long_dated=True)
                for i in range(4):
                    m = _Mk(next(mids), ev, i, created + i, end, s, 1 + int(r() * 120))
                    ev.markets.append(m)
                    m.win = YES if i == ev.winner else NO
                # The standalone "cut" question, sometimes listed twice (identical text, two events).
                first: _Ev | None = None
                for c in range(2 if r() < 0.45 else 1):
                    solo = _Ev(next(eids), "long", day, "fed_cut", created + 600 + c * 3600, end)
                    out.append(solo)
                    solo.parent, solo.extra = first or ev, {"copy": c}
                    m = _Mk(next(mids), solo, 0, solo.created, end, s, 1 + int(r() * 120))
                    solo.markets.append(m)
                    m.p0 = ev.cat_w[0] + ev.cat_w[1]
                    m.win = YES if ev.winner in (0, 1) else NO
                    first = first or solo
            elif kind == "cpi":
                end = (created // DAY + 15 + int(r() * 31)) * DAY + 12 * HOUR + 30 * MINUTE
                mu0 = 2.2 + 1.4 * r()
                sigma = 0.18
                truth = round(rng.gauss(mu0, sigma), 1)
                ev = _Ev(next(eids), "long", day, "cpi", created, end)
                out.append(ev)
                ev.shape, ev.latent, ev.extra = "latent", (mu0, sigma, truth), {"neg": False}
                base = round(mu0, 1) - 0.3
                s = _settlement(r, end, long_dated=True)
                for i in range(6):
                    m = _Mk(next(mids), ev, i, created + i, end, s, 1 + int(r() * 120))
                    ev.markets.append(m)
                    x = round(base + 0.1 * i, 1)
                    m.win = YES if truth > x + 1e-9 else NO
                    m.lo, m.k = x + 0.05, 3.0  # "above 3.1%" means a print of at least 3.2%
            elif kind in ("election", "ai_rank"):
                life = int(math.exp(log_lo + (log_hi - log_lo) * r()) * DAY) + 3 * DAY
                end = (created + life) // DAY * DAY + (5 * HOUR if kind == "election" else 0)
                ev = _Ev(next(eids), "long", day, kind, created, end)
                out.append(ev)
                n = 3 + int(r() * 13) if kind == "election" else 6 + int(r() * 4)
                self._categorical(
                    ev, rng, mids, n, augmented=kind == "election" and r() < 0.3, placeholders=1
                )
            elif kind == "company_ladder" or (kind == "geo" and r() < 0.35):
                n = 3 + int(r() * 3)
                step = (30, 61, 91)[int(r() * 3)]
                first_end = (created // DAY + 7 + int(r() * 34)) * DAY + 4 * HOUR
                ends = [first_end + i * step * DAY for i in range(n)]
                name = "company_ladder" if kind == "company_ladder" else "geo_ladder"
                # The event's endDate can be earlier than a child's (the real Macron case).
                ev = _Ev(next(eids), "long", day, name, created, ends[-1] if r() < 0.85 else ends[-2])
                out.append(ev)
                scale = n * step * DAY * 0.9
                tau = created + int(-math.log(1.0 - r()) * scale)
                for i, e_end in enumerate(ends):
                    hit = tau <= e_end
                    h = max(created + HOUR, tau) if hit else e_end
                    m = _Mk(next(mids), ev, i, created + i * 5, e_end, _settlement(r, h, long_dated=True))
                    ev.markets.append(m)
                    m.k = 2.4
                    m.p0 = min(0.95, 1 - math.exp(-(e_end - created) / scale))
                    m.win = VOID if r() < 0.004 else YES if hit else NO
            else:  # company / geo / macro: one "by date" question
                life = int(math.exp(log_lo + (log_hi - log_lo) * r()) * DAY)
                end = (created + life) // DAY * DAY + 4 * HOUR
                ev = _Ev(next(eids), "long", day, kind, created, end)
                out.append(ev)
                m = self._by_date(ev, r, mids, long_dated=True)
                if r() < 0.06:  # the same question listed again under another event
                    twin = _Ev(next(eids), "long", day, f"{kind}_twin", created + 5400, end)
                    out.append(twin)
                    twin.parent = ev
                    same = (m.info1, m.propose, m.dispute, m.repropose, m.close, m.trail)
                    t = _Mk(next(mids), twin, 0, twin.created, end, same, 60 + int(r() * 840))
                    twin.markets.append(t)
                    t.p0, t.k, t.win = m.p0, m.k, m.win

    def _categorical(
        self, ev: _Ev, rng: random.Random, mids: Iterator[int], n: int, *, augmented: bool, placeholders: int
    ) -> None:
        r = rng.random
        created, end = ev.created, ev.end
        ev.shape = "cat"
        raw = sorted((rng.paretovariate(1.1) for _ in range(n)), reverse=True)
        if augmented:
            raw.append((0.02 + 0.18 * r()) * raw[0])  # "Other"
        tot = sum(raw)
        ev.cat_w = [w / tot for w in raw]
        ev.winner = _pick(list(accumulate(ev.cat_w)), r())
        ev.extra["augmented"] = augmented
        # Multi-outcome questions are often decided well before their endDate (primaries, ballots).
        h = end - int(0.25 * r() * (end - created)) if r() < 0.5 else end
        s = _settlement(r, h, long_dated=True)
        for i in range(len(raw)):
            m = _Mk(next(mids), ev, i, created + i * 3, end, s, 1 + int(r() * 120))
            ev.markets.append(m)
            m.k = 2.2
            m.other = augmented and i == len(raw) - 1
            m.win = YES if i == ev.winner else NO
        for j in range(placeholders if augmented else 0):
            named = created + int((0.05 + 0.55 * r()) * (end - created)) + j
            m = _Mk(next(mids), ev, len(ev.markets), named, end, s)  # its close is the family's (set later)
            ev.markets.append(m)
            m.placeholder = True

    # marquee families -----------------------------------------------------------------------
    def _gen_marquee(
        self, rng: random.Random, day: int, mids: Iterator[int], eids: Iterator[int], out: list[_Ev]
    ) -> None:
        r = rng.random
        for f in range(self.plan.marquee_families):
            created = day * DAY + int(r() * (12 if f == 0 else 90) * DAY) + int(r() * DAY)
            end = (created + int((200 + (MARQUEE_MAX_LIFE - 220) * r()) * DAY)) // DAY * DAY
            ev = _Ev(next(eids), "marquee", day, "marquee", created, end)
            out.append(ev)
            ev.extra = {"template": (day // PERIOD_DAYS + f) % len(C.MARQUEE), "serial": f}
            # The first family of every half-year has exactly 50 siblings: 45 named, "Other" and
            # four unnamed placeholders (conditionId "", inactive, no prices).
            total = 50 if f == 0 else 22 + int(r() * 27)
            ph = 4 if f == 0 else 1 + int(r() * 3)
            self._categorical(ev, rng, mids, total - ph - 1, augmented=True, placeholders=ph)
