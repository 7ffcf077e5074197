"""Kalshi's public trade API, simulated: open events with their nested markets, at any instant.

``KalshiBoard(seed).events(ts)`` is a pure function of the exchange's seed and the instant a request is
served at (the instant the Gamma routes use: the ``X-Colosseum-As-Of`` header, else the injected clock
floored to the minute), so the same instant gives the same bytes. Roughly fifty events are listed at any
instant, in *series* that recur on their own cycles as Kalshi's do:

- by-date ladders (companies, geopolitics, macro): one event per four consecutive quarter-ends with a
  market per deadline ("... by March 31, 2027?", "... by June 30, 2027?"); a deadline that has passed
  stays listed, still ``active``, for three days (the settlement review);
- mutually exclusive fields (elections, prizes, the next prime minister), each with long shots priced
  at a few cents;
- daily crypto strike ladders, whose far strikes always trade at 0.01 or 0.99;
- daily high-temperature brackets, each kept listed and ``active`` for 26 hours past its close (waiting
  for the climate report), so that every instant lists markets past their close time;
- Fed decisions per FOMC meeting, monthly CPI ladders and the best-AI-model race; weekly mention markets.

Prices move in 5-minute buckets (``BUCKET``), as on the Gamma board: a logit path towards a truth drawn
when the event is generated, plus seeded sinusoids, never a stateful walk; books and volumes freeze at a
market's close. Most series are written in Kalshi's current shape (fixed-point dollar strings
``yes_bid_dollars: "0.4200"``, fixed-point counts ``volume_24h_fp: "45.25"``); a few are written in the
older integer-cent shape (``yes_bid: 42``, ``volume_24h: 45``, no ``_dollars`` or ``_fp`` fields) so that
both readers are exercised. Keys are written in the order Kalshi writes them (alphabetical).

Events list in ascending ``event_ticker`` order, and the routes page them by keyset on that ticker, so a
walk that crosses an instant (the clock ticks every minute) neither repeats nor skips an event that is
listed at both.
"""

from __future__ import annotations

import calendar
import dataclasses
import hashlib
import math
import random
import unicodedata
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Final

from colosseum_standins.simulated_exchange import catalog as C
from colosseum_standins.simulated_exchange._cache import BoundedCache
from colosseum_standins.simulated_exchange._common import (
    BUCKET,
    _logit,
    _month_day,
    _nice_step,
    _phi,
    _progress,
    _sigmoid,
)
from colosseum_standins.simulated_exchange._time import DAY, HOUR, MINUTE, from_ts, iso_z

__all__ = [
    "EVENTS_DEFAULT_LIMIT",
    "EVENTS_MAX_LIMIT",
    "EVENT_STATUSES",
    "KALSHI_PREFIX",
    "MARKETS_DEFAULT_LIMIT",
    "MARKETS_MAX_LIMIT",
    "KalshiBoard",
    "after",
]

KALSHI_PREFIX: Final = "/trade-api/v2"  # the path of KalshiClient's default base URL
EVENTS_DEFAULT_LIMIT: Final = 200
EVENTS_MAX_LIMIT: Final = 200
MARKETS_DEFAULT_LIMIT: Final = 100
MARKETS_MAX_LIMIT: Final = 1000
# Kalshi's ``status`` filter values. Everything simulated here is open; the others list nothing.
EVENT_STATUSES: Final = ("unopened", "open", "closed", "settled")

YEAR: Final = 365 * DAY
DEADLINE_LAG: Final = 3 * DAY  # a passed by-date deadline stays listed while its settlement is reviewed
WEATHER_LAG: Final = 26 * HOUR  # longer than a day, so some weather event is always past its close
FIELD_LAG: Final = 2 * DAY
CPI_LAG: Final = 6 * HOUR
AI_LAG: Final = DAY
_SPEC_CACHE: Final = 512
_INSTANT_CACHE: Final = 4

_PRICE_RANGES: Final = ({"end": "1.0000", "start": "0.0000", "step": "0.0100"},)
_EARLY_CLOSE: Final = "This market will close and expire early if the event occurs."

# Codes for the series tickers, parallel to the catalog's templates.
_COMPANY_CODES: Final = ("CEO", "IPO", "ACQ", "LAYOFFS", "MODEL", "1T", "SPLIT", "ANTITRUST")
_GEO_CODES: Final = ("CEASEFIRE", "SNAPELECTION", "PMOUT", "CUSTOMS", "DIPLOMACY", "DEFAULT")
_MACRO_CODES: Final = ("RECESSION", "GAS4", "TENYEAR5", "GOLD4K", "SHUTDOWN", "ECBCUT")
assert len(_COMPANY_CODES) == len(C.COMPANY_EVENTS)
assert len(_GEO_CODES) == len(C.GEO_EVENTS)
assert len(_MACRO_CODES) == len(C.MACRO_EVENTS)

# (ticker code, category, cycle in years (0: one open-ended event), close month, close day), parallel
# to catalog.MARQUEE.
_FIELDS: Final = (
    ("PRESWIN", "Elections", 4, 11, 8),
    ("DEMNOM", "Elections", 4, 8, 31),
    ("GOPNOM", "Elections", 4, 8, 31),
    ("TIMEPOY", "Entertainment", 1, 12, 10),
    ("NEXTUKPM", "Politics", 0, 1, 8),
    ("NOBELPEACE", "World", 1, 10, 10),
)
assert len(_FIELDS) == len(C.MARQUEE)

# (name, symbol, index name): the daily strike ladders; prices and volatility come from catalog.CRYPTO.
_LADDERS: Final = (
    ("Bitcoin", "BTC", "Bitcoin Real-Time Index (BRTI)"),
    ("Ethereum", "ETH", "Ether Real-Time Index (ETHUSD_RTI)"),
    ("Solana", "SOL", "Solana Real-Time Index (SOLUSD_RTI)"),
    ("BNB", "BNB", "BNB Real-Time Index (BNBUSD_RTI)"),
)

# (catalog.CITIES_WEATHER short name, ticker code, station name, UTC offset of local midnight in hours,
#  mean daily high °F, half the seasonal swing °F)
_CITIES: Final = (
    ("NYC", "NY", "Central Park, New York", 4, 62.0, 20.0),
    ("Chicago", "CHI", "Chicago Midway Airport", 5, 59.0, 24.0),
    ("Miami", "MIA", "Miami International Airport", 4, 84.0, 6.0),
    ("Seattle", "SEA", "Seattle-Tacoma International Airport", 7, 60.0, 14.0),
)

# Which series are written in the older integer-cent shape: fixed indices, so every seed has some.
_LEGACY_BYDATE: Final = frozenset({5, 10})
_LEGACY_FIELD: Final = frozenset({3})
_LEGACY_CITY: Final = frozenset({2})
_LEGACY_CPI: Final = True  # the CPI ladder too: an Economics event in the older shape

_BYDATE_SOURCES: Final = {
    "Companies": (("Bloomberg", "https://www.bloomberg.com/"), ("Reuters", "https://www.reuters.com")),
    "World": (("the Associated Press", "https://www.ap.org"), ("Reuters", "https://www.reuters.com")),
    "Economics": (("FRED", "https://fred.stlouisfed.org/"), ("Bloomberg", "https://www.bloomberg.com/")),
}


# ---------------------------------------------------------------------------------------------
# Small pure helpers


def _h(*parts: object) -> int:
    """A stable 64-bit hash: ``hash()`` is salted per process, and bytes must not change across runs."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _ts(y: int, mo: int, d: int, h: int = 0, mi: int = 0) -> int:
    return calendar.timegm((y, mo, d, h, mi, 0, 0, 0, 0))


def _mon(month: int) -> str:
    return C.MONTHS[month - 1][:3]


def _kdate(sec: int) -> str:
    """Kalshi's short date: "Jul 25, 2026"."""
    d = from_ts(sec)
    return f"{_mon(d.month)} {d.day}, {d.year}"


def _long_date(sec: int) -> str:
    """The Gamma board's deadline wording: "March 31, 2027"."""
    return f"{_month_day(sec)}, {from_ts(sec).year}"


def _stamp(sec: int, *, day: bool = True) -> str:
    """A ticker's date part: "27MAR31", or "27MAR" without the day."""
    d = from_ts(sec)
    return f"{d.year % 100:02d}{_mon(d.month).upper()}" + (f"{d.day:02d}" if day else "")


def _ascii(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if c.isascii() and c.isalnum()).upper()


def _country_code(name: str) -> str:
    words = name.split()
    return "".join(w[0] for w in words).upper() if len(words) > 1 else _ascii(name)[:3]


def _dollars(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}00"


def _fp(x: float) -> str:
    return f"{x:.2f}"


@dataclasses.dataclass(frozen=True, slots=True)
class _Wob:
    """Two seeded sinusoids: the board's wobble, periods of days (or hours for ``fast``)."""

    a: float
    w1: float
    p1: float
    w2: float
    p2: float

    def __call__(self, t: int) -> float:
        return self.a * (0.65 * math.sin(t * self.w1 + self.p1) + 0.35 * math.sin(t * self.w2 + self.p2))


def _wob(rng: random.Random, amp: float, lo: float = 1.5 * DAY, hi: float = 9 * DAY) -> _Wob:
    return _Wob(
        amp,
        2 * math.pi / rng.uniform(lo, hi),
        rng.uniform(0, 2 * math.pi),
        2 * math.pi / rng.uniform(lo, hi),
        rng.uniform(0, 2 * math.pi),
    )


# ---------------------------------------------------------------------------------------------
# What the generator builds: static specs per event generation, priced per instant


@dataclasses.dataclass(frozen=True, slots=True)
class _Spec:
    ticker: str
    title: str
    yes_sub_title: str
    no_sub_title: str
    rules_primary: str
    rules_secondary: str
    created: int
    open: int
    close: int
    until: int  # listed, still "active", while open <= t < until
    expected_expiration: int
    expiration: int
    fair: Callable[[int], float]
    vtot: float
    horizon: int  # how long the volume takes to build up
    spread: int  # cents
    settlement_timer: int
    extra: tuple[tuple[str, Any], ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class _Event:
    event_ticker: str
    series_ticker: str
    title: str
    sub_title: str
    category: str
    mutually_exclusive: bool
    legacy: bool
    available_on_brokers: bool
    settlement_sources: tuple[tuple[str, str], ...]
    open: int
    until: int
    markets: tuple[_Spec, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class _Series:
    ticker: str
    kind: str
    category: str
    legacy: bool
    params: dict[str, Any]


def _family(logits: Callable[[int], list[float]]) -> Callable[[int], list[float]]:
    """Softmax of a family's logits at an instant, remembered for the last few instants asked."""
    memo: OrderedDict[int, list[float]] = OrderedDict()

    def probs(t: int) -> list[float]:
        got = memo.get(t)
        if got is None:
            xs = logits(t)
            hi = max(xs)
            ex = [math.exp(x - hi) for x in xs]
            tot = sum(ex)
            got = memo[t] = [e / tot for e in ex]
            while len(memo) > 8:
                memo.popitem(last=False)
        return got

    return probs


# ---------------------------------------------------------------------------------------------
# Series: when each generation is listed, and what it holds


def _quarter(ts: int) -> int:
    d = from_ts(ts)
    return (d.year - 1970) * 4 + (d.month - 1) // 3


def _quarter_end(q: int) -> int:
    """Midnight UTC of a quarter's last day."""
    y, k = 1970 + q // 4, q % 4
    month = 3 * k + 3
    return _ts(y, month, calendar.monthrange(y, month)[1])


def _deadline_close(q: int) -> int:
    # "by March 31" closes at the end of that day, Eastern time (04:59 UTC the next morning).
    return _quarter_end(q) + DAY + 4 * HOUR + 59 * MINUTE


class _Builder:
    """Builds one generation of one series; every draw is seeded by (seed, series, generation)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def rng(self, *parts: object) -> random.Random:
        return random.Random(":".join(map(str, (self.seed, "kalshi", *parts))))

    # windows -----------------------------------------------------------------------------------
    def generations(self, s: _Series, ts: int) -> list[int]:
        """The generations of ``s`` that might be listed at ``ts`` (the caller checks their windows)."""
        kind = s.kind
        if kind == "bydate":
            g = (_quarter(ts) - s.params["phase"]) // 4
            return [g - 1, g, g + 1]
        if kind == "field":
            period = s.params["period"]
            if period == 0:
                return [0]
            y = from_ts(ts).year
            return [x for x in range(y - period, y + period + 1) if x % period == 0]
        if kind in ("crypto", "weather"):
            d = ts // DAY
            return [d - 2, d - 1, d, d + 1, d + 2]
        if kind == "mentions":
            w = ts // (7 * DAY)
            return [w - 1, w, w + 1]
        if kind == "fed":
            k = _meeting_index(ts)
            return [k - 1, k, k + 1]
        # cpi and ai: months
        d = from_ts(ts)
        m = (d.year - 1970) * 12 + d.month - 1
        return [m - 2, m - 1, m, m + 1]

    def build(self, s: _Series, g: int) -> _Event:
        return getattr(self, f"_build_{s.kind}")(s, g)

    def _event(
        self,
        s: _Series,
        ticker: str,
        title: str,
        sub_title: str,
        markets: list[_Spec],
        *,
        exclusive: bool,
        sources: tuple[tuple[str, str], ...],
    ) -> _Event:
        return _Event(
            event_ticker=ticker,
            series_ticker=s.ticker,
            title=title,
            sub_title=sub_title,
            category=s.category,
            mutually_exclusive=exclusive,
            legacy=s.legacy,
            available_on_brokers=_h(self.seed, s.ticker) % 3 != 0,
            settlement_sources=sources,
            open=min(m.open for m in markets),
            until=max(m.until for m in markets),
            markets=tuple(markets),
        )

    @staticmethod
    def _times(rng: random.Random, open_at: int) -> tuple[int, int]:
        """(created, open): Kalshi creates a market a few minutes before it opens, on the minute."""
        opened = open_at - open_at % MINUTE + MINUTE
        return opened - rng.randint(90, 900), opened

    # by-date ladders -----------------------------------------------------------------------------
    def _build_bydate(self, s: _Series, g: int) -> _Event:
        p = s.params
        q0 = 4 * g + p["phase"]
        rng = self.rng(s.ticker, g)
        created, opened = self._times(rng, _deadline_close(q0 - 1))
        final = _quarter_end(q0 + 3)
        ticker = f"{s.ticker}-{_stamp(final, day=False)}"
        lam = math.exp(rng.gauss(math.log(p["hazard"]), 0.7))
        shared = _wob(rng, 0.35)
        markets = []
        for k in range(4):
            day = _quarter_end(q0 + k)
            close = _deadline_close(q0 + k)
            own = _wob(rng, 0.12)

            def fair(t: int, close: int = close, own: _Wob = own) -> float:
                base = 1 - math.exp(-lam * max(close - t, 0) / YEAR)
                return _sigmoid(_logit(min(max(base, 0.003), 0.97)) + shared(t) + own(t))

            deadline = _long_date(day)
            before = f"Before {_kdate(day + DAY)}"
            markets.append(
                _Spec(
                    ticker=f"{ticker}-{_stamp(day)}",
                    title=p["tpl"].format(date=deadline, **p["fmt"]),
                    yes_sub_title=before,
                    no_sub_title=before,
                    rules_primary=(
                        f"If {p['what'].format(**p['fmt'])} before {_kdate(day + DAY)}, "
                        "then the market resolves to Yes."
                    ),
                    rules_secondary=(
                        "An announcement of intent without a completed action will not count. The market "
                        "closes early if the event occurs before the deadline."
                    ),
                    created=created,
                    open=opened,
                    close=close,
                    until=close + DEADLINE_LAG,
                    expected_expiration=close + 10 * HOUR,
                    expiration=close + 7 * DAY,
                    fair=fair,
                    vtot=math.exp(rng.gauss(math.log(p["volume"]), 0.9)) * (1 + 0.3 * k),
                    horizon=close - opened,
                    spread=rng.choice((1, 1, 1, 2, 2, 3)),
                    settlement_timer=1800,
                    extra=(("early_close_condition", _EARLY_CLOSE),),
                )
            )
        title = p["tpl"].format(date="___", **p["fmt"]).replace("by ___?", "by...?")
        return self._event(
            s,
            ticker,
            title,
            f"Before {_kdate(final + DAY)}",
            markets,
            exclusive=False,
            sources=_BYDATE_SOURCES[s.category],
        )

    # mutually exclusive fields ---------------------------------------------------------------------
    def _build_field(self, s: _Series, g: int) -> _Event:
        p = s.params
        title_t, q_t = C.MARQUEE[p["index"]][:2]
        period, month, day = p["period"], p["month"], p["day"]
        rng = self.rng(s.ticker, g)
        if period == 0:
            close = _ts(2099, month, day, 15)
            start = _ts(2025, 6, 1) + _h(self.seed, s.ticker) % (60 * DAY)
            year, suffix, sub = 2099, "99", "Before 2099"
        else:
            close = _ts(g, month, day, 15)
            start = _ts(g - period, month, day, 15) + HOUR
            year, suffix, sub = g, f"{g % 100:02d}", f"In {g}"
        created, opened = self._times(rng, start)
        title = title_t.format(y=year).replace(" 2099", "")
        ticker = f"{s.ticker}-{suffix}"
        n = rng.randint(6, 8)
        names: list[tuple[str, str]] = []
        codes: set[str] = set()
        while len(names) < n:
            first, last = rng.choice(C.FIRST_NAMES), rng.choice(C.LAST_NAMES)
            code = (_ascii(first)[:1] + _ascii(last)[:3]).ljust(4, "X")
            if code not in codes:
                codes.add(code)
                names.append((f"{first} {last}", code))
        # The last two are long shots with fixed small shares, so every field lists some market
        # priced at 0.04 or less; the others share the rest by a wobbling softmax.
        regulars = n - 2
        base = [rng.gauss(0, 1.1) for _ in range(regulars)]
        wobs = [_wob(rng, 0.3, 3 * DAY, 40 * DAY) for _ in range(regulars)]
        shots = [rng.uniform(0.006, 0.014) for _ in range(2)]
        shot_wobs = [_wob(rng, 0.004, 3 * DAY, 40 * DAY) for _ in range(2)]
        family = _family(lambda t: [b + w(t) for b, w in zip(base, wobs, strict=True)])

        def fair(t: int, i: int) -> float:
            if i >= regulars:
                j = i - regulars
                return shots[j] + shot_wobs[j](t)
            rest = 1 - sum(x + w(t) for x, w in zip(shots, shot_wobs, strict=True))
            return family(t)[i] * rest

        markets = []
        for i, (name, code) in enumerate(names):
            markets.append(
                _Spec(
                    ticker=f"{ticker}-{code}",
                    title=q_t.format(y=year, n=name),
                    yes_sub_title=name,
                    no_sub_title=name,
                    rules_primary=f'If {name} is the winner of "{title}", then the market resolves to Yes.',
                    rules_secondary=(
                        "The market resolves on the official announcement or, failing one, a consensus of "
                        "credible reporting. If no listed person wins, every market resolves to No."
                    ),
                    created=created,
                    open=opened,
                    close=close,
                    until=close + FIELD_LAG,
                    expected_expiration=close,
                    expiration=close,
                    fair=lambda t, i=i: fair(t, i),
                    vtot=math.exp(rng.gauss(math.log(60000), 1.0)) * (0.2 if i >= regulars else 1.0),
                    horizon=min(close - opened, 3 * YEAR),
                    spread=rng.choice((1, 2)) if i >= regulars else rng.choice((1, 2, 2, 3, 4)),
                    settlement_timer=1800,
                    extra=(
                        ("custom_strike", {"Person": name}),
                        ("occurrence_datetime", iso_z(close - 7 * DAY)),
                        ("strike_type", "custom"),
                    ),
                )
            )
        return self._event(
            s,
            ticker,
            title,
            sub,
            markets,
            exclusive=True,
            sources=(("the Associated Press", "https://www.ap.org"), ("Reuters", "https://www.reuters.com")),
        )

    # daily crypto ladders ----------------------------------------------------------------------------
    def _build_crypto(self, s: _Series, d: int) -> _Event:
        p = s.params
        name, index = p["name"], p["index"]
        vol = p["vol"]
        close = d * DAY + 21 * HOUR  # 5 PM EDT
        rng = self.rng(s.ticker, d)
        # The next day's ladder opens as this one closes (``_times`` rounds up to the minute).
        created, opened = self._times(rng, close - DAY - MINUTE)
        slow = _wob(self.rng(s.ticker, "level"), 3.0 * vol, 20 * DAY, 90 * DAY)
        spot0 = p["price"] * math.exp(slow(opened))
        # Intraday moves stay within 1.2 daily sigmas of the opening spot, and the outermost strikes sit
        # 3.6 sigmas out (less at most 0.3 for rounding to the step), so at least 2.1 sigmas away: they
        # are always priced at 0.96 or above and 0.04 or below.
        fast = _wob(rng, 1.2 * vol, 2 * HOUR, 10 * HOUR)
        step = _nice_step(spot0 * vol * 0.3)
        strikes: list[float] = []
        for j in range(-4, 5):
            k = round(spot0 * math.exp(j * 0.9 * vol) / step) * step
            if not strikes or k > strikes[-1]:
                strikes.append(k)
        markets = []
        ticker = f"{s.ticker}-{_stamp(close)}17"
        for j, k in enumerate(strikes):
            floor = round(k - 0.01, 2)

            def fair(t: int, k: float = k) -> float:
                tau = max(close - t, 300) / DAY
                spot = spot0 * math.exp(fast(t))
                return 1 - _phi(math.log(k / spot) / (vol * math.sqrt(tau)))

            label = f"${k:,.0f} or above"
            markets.append(
                _Spec(
                    ticker=f"{ticker}-T{floor:.2f}",
                    title=f"{name} price on {_kdate(close)}?",
                    yes_sub_title=label,
                    no_sub_title=label,
                    rules_primary=(
                        f"If the simple average of the sixty seconds of CF Benchmarks' {index} before 5 PM "
                        f"EDT is above {floor:.2f} at 5 PM EDT on {_kdate(close)}, then the market resolves "
                        "to Yes."
                    ),
                    rules_secondary=(
                        "The price used is CF Benchmarks' Real Time Index, not any single exchange's price: "
                        "the sixty index values of the last minute before expiration are averaged."
                    ),
                    created=created,
                    open=opened,
                    close=close,
                    until=close,
                    expected_expiration=close + 5 * MINUTE,
                    expiration=close + 7 * DAY,
                    fair=fair,
                    vtot=math.exp(rng.gauss(math.log(p["volume"]), 0.5)) / (1 + abs(j - len(strikes) // 2)),
                    horizon=DAY,
                    spread=rng.choice((1, 1, 2, 3)),
                    settlement_timer=60,
                    extra=(
                        ("floor_strike", floor),
                        ("occurrence_datetime", iso_z(close + 5 * MINUTE)),
                        ("strike_type", "greater"),
                        ("subtitle", label),
                    ),
                )
            )
        return self._event(
            s,
            ticker,
            f"{name} price on {_kdate(close)}?",
            f"On {_kdate(close)} at 5pm EDT",
            markets,
            exclusive=False,
            sources=(("CF Benchmarks", "https://www.cfbenchmarks.com/"),),
        )

    # daily weather brackets ------------------------------------------------------------------------
    def _build_weather(self, s: _Series, d: int) -> _Event:
        p = s.params
        city, station, offset = p["city"], p["station"], p["offset"]
        day = d * DAY
        close = day + DAY + offset * HOUR - MINUTE  # 11:59 PM local
        rng = self.rng(s.ticker, d)
        created, opened = self._times(rng, day - 10 * HOUR)
        doy = from_ts(day).timetuple().tm_yday
        climate = p["mean"] + p["amp"] * math.cos(2 * math.pi * (doy - 201) / 365.25)
        truth = round(climate + rng.gauss(0, 5.0))
        err = rng.gauss(0, 3.0)
        wob = _wob(rng, 0.8, 3 * HOUR, 12 * HOUR)
        lowest = round(truth + err) - 4
        # (ticker suffix, label, probability of the integer high being in [lo, hi]), Kalshi's six buckets.
        buckets: list[tuple[str, str, int | None, int | None, tuple[tuple[str, Any], ...]]] = [
            (f"T{lowest}", f"{lowest - 1}° or below", None, lowest - 1, (("cap_strike", lowest),))
        ]
        for b in range(4):
            lo = lowest + 2 * b
            buckets.append(
                (
                    f"B{lo + 0.5}",
                    f"{lo}° to {lo + 1}°",
                    lo,
                    lo + 1,
                    (("cap_strike", lo + 1), ("floor_strike", lo)),
                )
            )
        top = lowest + 7
        buckets.append((f"T{top}", f"{top + 1}° or above", top + 1, None, (("floor_strike", top),)))
        kinds = ["less", "between", "between", "between", "between", "greater"]

        def fair(t: int, lo: int | None, hi: int | None) -> float:
            r = min(max((close - t) / (close - opened), 0.0), 1.0)
            mu = truth + (err + wob(t)) * r
            sd = 0.15 + 3.0 * math.sqrt(r)
            up = 1.0 if hi is None else _phi((hi + 0.5 - mu) / sd)
            down = 0.0 if lo is None else _phi((lo - 0.5 - mu) / sd)
            return min(max(up - down, 0.0005), 0.9995)

        when = _kdate(day)
        markets = []
        ticker = f"{s.ticker}-{_stamp(day)}"
        for (suffix, label, lo, hi, strikes), kind in zip(buckets, kinds, strict=True):
            markets.append(
                _Spec(
                    ticker=f"{ticker}-{suffix}",
                    title=f"Will the high temp in {city} be {label} on {when}?",
                    yes_sub_title=label,
                    no_sub_title=label,
                    rules_primary=(
                        f"If the highest temperature recorded at {station} for {when} as reported by the "
                        f"National Weather Service's Climatological Report (Daily), is {label}, then the "
                        "market resolves to Yes."
                    ),
                    rules_secondary=(
                        "The market settles on the final Climatological Report (Daily); a preliminary report "
                        "is not used. If no report is issued, the market waits for one."
                    ),
                    created=created,
                    open=opened,
                    close=close,
                    until=close + WEATHER_LAG,
                    expected_expiration=close + 10 * HOUR,
                    expiration=close + 7 * DAY,
                    fair=lambda t, lo=lo, hi=hi: fair(t, lo, hi),
                    vtot=math.exp(rng.gauss(math.log(9000), 0.7)),
                    horizon=close - opened,
                    spread=rng.choice((1, 1, 2, 2, 3)),
                    settlement_timer=3600,
                    extra=(*strikes, ("strike_type", kind)),
                )
            )
        return self._event(
            s,
            ticker,
            f"Highest temperature in {city} on {when}?",
            f"On {when}",
            markets,
            exclusive=True,
            sources=(("National Weather Service", "https://www.weather.gov/"),),
        )

    # weekly mentions ---------------------------------------------------------------------------------
    def _build_mentions(self, s: _Series, w: int) -> _Event:
        p = s.params
        speaker, venue = p["speaker"], p["venue"]
        # Weeks count from a Thursday (1970-01-01): the Friday of week w is its second day.
        close = (7 * w + 1) * DAY + 20 * HOUR
        rng = self.rng(s.ticker, w)
        created, opened = self._times(rng, close - 7 * DAY)
        words = rng.sample(C.MENTION_WORDS, 6)
        ticker = f"{s.ticker}-{_stamp(close)}"
        markets = []
        for word in words:
            says = rng.random() < 0.5
            p0 = rng.uniform(0.08, 0.95)
            wob = _wob(rng, 0.4, 6 * HOUR, 2 * DAY)

            def fair(t: int, says: bool = says, p0: float = p0, wob: _Wob = wob) -> float:
                g = _progress(t, opened, close, 3.0)
                target = 4.5 if says else -4.5
                return _sigmoid((1 - g) * _logit(p0) + g * target + (1 - g) * wob(t))

            markets.append(
                _Spec(
                    ticker=f"{ticker}-{_ascii(word)[:10]}",
                    title=f'Will {speaker} say "{word}" at the {venue} this week?',
                    yes_sub_title=word,
                    no_sub_title=word,
                    rules_primary=(
                        f'If {speaker} says "{word}" at the {venue} before {_kdate(close)}, then the market '
                        "resolves to Yes."
                    ),
                    rules_secondary="Plurals and possessives count; other forms of the word do not.",
                    created=created,
                    open=opened,
                    close=close,
                    until=close,
                    expected_expiration=close + HOUR,
                    expiration=close + 7 * DAY,
                    fair=fair,
                    vtot=math.exp(rng.gauss(math.log(4000), 0.8)),
                    horizon=close - opened,
                    spread=rng.choice((1, 2, 3, 4)),
                    settlement_timer=1800,
                    extra=(("early_close_condition", _EARLY_CLOSE),),
                )
            )
        return self._event(
            s,
            ticker,
            f"What will {speaker} say at the {venue}?",
            f"Week of {_kdate(close - 6 * DAY)}",
            markets,
            exclusive=False,
            sources=(("C-SPAN", "https://www.c-span.org/"),),
        )

    # Fed decisions -----------------------------------------------------------------------------------
    def _build_fed(self, s: _Series, k: int) -> _Event:
        close = _meeting(k)
        rng = self.rng(s.ticker, k)
        created, opened = self._times(rng, _meeting(k - 1))
        d = from_ts(close)
        month = C.MONTHS[d.month - 1]
        outcomes = (
            ("H25", "Hike 25bps", "raise rates by 25 basis points"),
            ("H0", "Hold", "leave rates unchanged"),
            ("C25", "Cut 25bps", "cut rates by 25 basis points"),
            ("C26", "Cut >25bps", "cut rates by more than 25 basis points"),
        )
        truth = rng.choices(range(4), weights=(0.1, 0.55, 0.3, 0.05))[0]
        base = [math.log(w) for w in (0.06, 0.55, 0.35, 0.04)]
        wobs = [_wob(rng, 0.5, 2 * DAY, 12 * DAY) for _ in outcomes]

        def logits(t: int) -> list[float]:
            g = _progress(t, opened, close, 2.5)
            return [
                (1 - g) * (b + w(t)) + g * (5.5 if i == truth else -5.5)
                for i, (b, w) in enumerate(zip(base, wobs, strict=True))
            ]

        family = _family(logits)
        ticker = f"{s.ticker}-{_stamp(close, day=False)}"
        markets = []
        for i, (code, label, verb) in enumerate(outcomes):
            markets.append(
                _Spec(
                    ticker=f"{ticker}-{code}",
                    title=f"Will the Fed {verb} at the {month} {d.year} meeting?",
                    yes_sub_title=label,
                    no_sub_title=label,
                    rules_primary=(
                        f"If the Federal Reserve's FOMC decides to {verb} at its meeting ending "
                        f"{_kdate(close)}, then the market resolves to Yes."
                    ),
                    rules_secondary="The upper bound of the target federal funds range is the rate used.",
                    created=created,
                    open=opened,
                    close=close,
                    until=close,
                    expected_expiration=close + HOUR,
                    expiration=close + 7 * DAY,
                    fair=lambda t, i=i: family(t)[i],
                    vtot=math.exp(rng.gauss(math.log(150000), 0.6)),
                    horizon=close - opened,
                    spread=rng.choice((1, 1, 2)),
                    settlement_timer=1800,
                )
            )
        return self._event(
            s,
            ticker,
            f"Fed decision in {month} {d.year}?",
            f"{_mon(d.month)} {d.year} meeting",
            markets,
            exclusive=True,
            sources=(("Federal Reserve", "https://www.federalreserve.gov/"),),
        )

    # CPI ladders -------------------------------------------------------------------------------------
    def _build_cpi(self, s: _Series, m: int) -> _Event:
        y, mo = 1970 + m // 12, m % 12 + 1
        ny, nmo = (y, mo + 1) if mo < 12 else (y + 1, 1)
        close = _ts(ny, nmo, 12, 12, 29)  # the release is at 8:30 AM ET on (about) the 12th
        rng = self.rng(s.ticker, m)
        # It opens when the previous month's figure is released, on the 12th of its own month.
        created, opened = self._times(rng, _ts(y, mo, 12, 12, 29))
        truth = round(rng.gauss(0.25, 0.15), 1)
        err = rng.gauss(0, 0.12)
        wob = _wob(rng, 0.05, 2 * DAY, 8 * DAY)
        ticker = f"{s.ticker}-{_stamp(_ts(y, mo, 1), day=False)}"
        month = f"{C.MONTHS[mo - 1]} {y}"
        markets = []
        for step in range(6):
            k = round(step / 10, 1)

            def fair(t: int, k: float = k) -> float:
                r = min(max((close - t) / (close - opened), 0.0), 1.0)
                mu = truth + (err + wob(t)) * r
                sd = 0.02 + 0.15 * math.sqrt(r)
                return min(max(1 - _phi((k + 0.05 - mu) / sd), 0.0005), 0.9995)

            label = f"Above {k:.1f}%"
            markets.append(
                _Spec(
                    ticker=f"{ticker}-T{k:.1f}",
                    title=f"Will CPI rise more than {k:.1f}% in {month}?",
                    yes_sub_title=label,
                    no_sub_title=label,
                    rules_primary=(
                        f"If the seasonally adjusted CPI-U change for {month}, as first released by the "
                        f"Bureau of Labor Statistics, is above {k:.1f}%, then the market resolves to Yes."
                    ),
                    rules_secondary="Revisions after the first release do not count.",
                    created=created,
                    open=opened,
                    close=close,
                    until=close + CPI_LAG,
                    expected_expiration=close + HOUR,
                    expiration=close + 7 * DAY,
                    fair=fair,
                    vtot=math.exp(rng.gauss(math.log(25000), 0.6)),
                    horizon=close - opened,
                    spread=rng.choice((1, 2, 2, 3)),
                    settlement_timer=1800,
                    extra=(("floor_strike", k), ("strike_type", "greater")),
                )
            )
        return self._event(
            s,
            ticker,
            f"CPI in {month}?",
            f"{_mon(mo)} {y} CPI",
            markets,
            exclusive=False,
            sources=(("Bureau of Labor Statistics", "https://www.bls.gov/cpi/"),),
        )

    # the best AI model ------------------------------------------------------------------------------
    def _build_ai(self, s: _Series, m: int) -> _Event:
        y, mo = 1970 + m // 12, m % 12 + 1
        ny, nmo = (y, mo + 1) if mo < 12 else (y + 1, 1)
        close = _ts(ny, nmo, 1, 14)
        rng = self.rng(s.ticker, m)
        created, opened = self._times(rng, _ts(y, mo, 1, 14))
        labs = s.params["labs"]
        # Each lab's standing drifts slowly across months (seeded per lab, not per month), so the
        # leader is mostly the same from one month to the next.
        standing = [
            _wob(self.rng(s.ticker, lab), 1.6, 60 * DAY, 400 * DAY)(opened) + (2.0 if i == 0 else 0.0)
            for i, lab in enumerate(labs)
        ]
        truth = max(range(len(labs)), key=lambda i: standing[i] + rng.gauss(0, 0.8))
        wobs = [_wob(rng, 0.4, 2 * DAY, 10 * DAY) for _ in labs]

        def logits(t: int) -> list[float]:
            g = _progress(t, opened, close, 3.0)
            return [
                (1 - g) * (b + w(t)) + g * (6.0 if i == truth else -6.0)
                for i, (b, w) in enumerate(zip(standing, wobs, strict=True))
            ]

        family = _family(logits)
        ticker = f"{s.ticker}-{_stamp(_ts(y, mo, 1), day=False)}"
        end = _kdate(close - DAY)
        markets = []
        for i, lab in enumerate(labs):
            markets.append(
                _Spec(
                    ticker=f"{ticker}-{_ascii(lab)[:8]}",
                    title=f"Will {lab} have the top AI model on {end}?",
                    yes_sub_title=lab,
                    no_sub_title=lab,
                    rules_primary=(
                        f"If {lab} has the top-ranked model on the LMArena text leaderboard at 10 AM ET on "
                        f"{_kdate(close)}, then the market resolves to Yes."
                    ),
                    rules_secondary="Ties are broken by the leaderboard's own order.",
                    created=created,
                    open=opened,
                    close=close,
                    until=close + AI_LAG,
                    expected_expiration=close + HOUR,
                    expiration=close + 7 * DAY,
                    fair=lambda t, i=i: family(t)[i],
                    vtot=math.exp(rng.gauss(math.log(30000), 0.9)),
                    horizon=close - opened,
                    spread=rng.choice((1, 2, 3)),
                    settlement_timer=1800,
                )
            )
        return self._event(
            s,
            ticker,
            f"Best AI model at the end of {C.MONTHS[mo - 1]} {y}?",
            f"{_mon(mo)} {y}",
            markets,
            exclusive=True,
            sources=(("LMArena", "https://lmarena.ai/"),),
        )


_FOMC_MONTHS: Final = (1, 3, 4, 6, 7, 9, 10, 12)


def _meeting(k: int) -> int:
    """The close of the ``k``-th FOMC decision since 1970: the third Wednesday of its month, 1:55 PM ET."""
    y, i = 1970 + k // 8, k % 8
    month = _FOMC_MONTHS[i]
    first = calendar.weekday(y, month, 1)
    wednesday = 1 + (2 - first) % 7 + 14
    return _ts(y, month, wednesday, 17, 55)


def _meeting_index(ts: int) -> int:
    y = from_ts(ts).year
    k = (y - 1970) * 8
    while _meeting(k) <= ts:
        k += 1
    while k > 0 and _meeting(k - 1) > ts:
        k -= 1
    return k  # the next meeting to close


def _series_for(seed: int) -> list[_Series]:
    """The seed's series: which companies, countries and people the recurring events are about."""
    rng = random.Random(f"{seed}:kalshi:series")
    out: list[_Series] = []
    picks: list[tuple[str, str, str, str, dict[str, str], float, float]] = []
    seen: set[str] = set()
    while len(picks) < 10:
        t = rng.randrange(len(C.COMPANY_EVENTS))
        c = rng.choice(C.COMPANIES)
        ticker = f"KX{_COMPANY_CODES[t]}{_ascii(c)[:9]}"
        if ticker not in seen:
            seen.add(ticker)
            tpl, what = C.COMPANY_EVENTS[t]
            picks.append((ticker, "Companies", tpl, what, {"c": c}, 0.3, 30000.0))
    while len(picks) < 16:
        t = rng.randrange(len(C.GEO_EVENTS))
        ia, ib = rng.sample(range(len(C.COUNTRIES)), 2)
        (a, nat), b = C.COUNTRIES[ia], C.COUNTRIES[ib][0]
        pair = _country_code(a) + (_country_code(b) if "{b}" in C.GEO_EVENTS[t][0] else "")
        ticker = f"KX{_GEO_CODES[t]}{pair}"
        if ticker not in seen:
            seen.add(ticker)
            tpl, what = C.GEO_EVENTS[t]
            picks.append((ticker, "World", tpl, what, {"a": a, "b": b, "nat": nat}, 0.2, 20000.0))
    for t in rng.sample(range(len(C.MACRO_EVENTS)), 4):
        tpl, what = C.MACRO_EVENTS[t]
        picks.append((f"KX{_MACRO_CODES[t]}", "Economics", tpl, what, {}, 0.5, 80000.0))
    for i, (ticker, category, tpl, what, fmt, hazard, volume) in enumerate(picks):
        params = {"phase": i % 4, "tpl": tpl, "what": what, "fmt": fmt, "hazard": hazard, "volume": volume}
        out.append(_Series(ticker, "bydate", category, i in _LEGACY_BYDATE, params))
    for i, (code, category, period, month, day) in enumerate(_FIELDS):
        params = {"index": i, "period": period, "month": month, "day": day}
        out.append(_Series(f"KX{code}", "field", category, i in _LEGACY_FIELD, params))
    crypto = {sym: (price, vol) for _name, sym, _slug, price, vol in C.CRYPTO}
    for name, sym, index in _LADDERS:
        price, vol = crypto[sym]
        params = {"name": name, "sym": sym, "index": index, "price": price, "vol": vol, "volume": 40000.0}
        out.append(_Series(f"KX{sym}D", "crypto", "Crypto", False, params))
    weather = {short: full for short, full, _station, _slug in C.CITIES_WEATHER}
    for i, (short, code, station, offset, mean, amp) in enumerate(_CITIES):
        params = {"city": weather[short], "station": station, "offset": offset, "mean": mean, "amp": amp}
        out.append(_Series(f"KXHIGH{code}", "weather", "Climate and Weather", i in _LEGACY_CITY, params))
    out.append(_Series("KXFEDDECISION", "fed", "Economics", False, {}))
    out.append(_Series("KXCPI", "cpi", "Economics", _LEGACY_CPI, {}))
    labs = tuple(rng.sample(C.AI_LABS, 6))
    out.append(_Series("KXTOPAI", "ai", "Science and Technology", False, {"labs": labs}))
    for short, full, venue in rng.sample(C.MENTION_SPEAKERS, 2):
        params = {"speaker": full, "venue": venue}
        out.append(_Series(f"KXMENTION{_ascii(short)}", "mentions", "Mentions", False, params))
    assert len({s.ticker for s in out}) == len(out), "series tickers must be unique"
    return out


# ---------------------------------------------------------------------------------------------
# Pricing and writing


def _book(p: float, spread: int) -> tuple[int, int, int]:
    """(yes bid, yes ask, mid) in cents for a fair probability: bids can be 0 and asks 100."""
    c = min(max(round(p * 100), 0), 100)
    bid = min(max(c - spread // 2, 0), 99)
    ask = min(bid + spread, 100)
    return bid, ask, min(max(c, 1), 99)


def _volume(m: _Spec, t: int) -> float:
    if t <= m.open or m.vtot <= 0:
        return 0.0
    u = min((min(t, m.close) - m.open) / max(m.horizon, 1), 1.0)
    return m.vtot * u**1.5


class KalshiBoard:
    """The simulated Kalshi listing: a pure function of ``(seed, instant)``."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.series = _series_for(seed)
        self._builder = _Builder(seed)
        self._specs: BoundedCache[tuple[str, int], _Event] = BoundedCache(_SPEC_CACHE)
        self._instants: BoundedCache[int, list[dict[str, Any]]] = BoundedCache(_INSTANT_CACHE)

    def _generation(self, s: _Series, g: int) -> _Event:
        return self._specs.get((s.ticker, g), lambda: self._builder.build(s, g))

    def events(self, ts: int) -> list[dict[str, Any]]:
        """Every event listed at ``ts`` with its nested markets, by ascending ``event_ticker``.

        The dicts are shared with the cache: treat them as read-only.
        """
        return self._instants.get(ts, lambda: self._listed(ts))

    def _listed(self, ts: int) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = []
        for s in self.series:
            for g in self._builder.generations(s, ts):
                ev = self._generation(s, g)
                if not ev.open <= ts < ev.until:
                    continue
                markets = [m for m in ev.markets if m.open <= ts < m.until]
                if markets:
                    listed.append(self._event_dict(ev, markets, ts))
        listed.sort(key=lambda e: e["event_ticker"])
        return listed

    # writing -----------------------------------------------------------------------------------
    def _event_dict(self, ev: _Event, markets: Sequence[_Spec], ts: int) -> dict[str, Any]:
        tb = ts - ts % BUCKET
        nested = [self._market_dict(m, ev, tb) for m in markets]
        d: dict[str, Any] = {
            "category": ev.category,
            "event_ticker": ev.event_ticker,
            "markets": nested,
            "mutually_exclusive": ev.mutually_exclusive,
            "series_ticker": ev.series_ticker,
            "strike_period": "",
            "sub_title": ev.sub_title,
            "title": ev.title,
        }
        if not ev.legacy:
            touched = max(ev.open, tb - _h(self.seed, ev.event_ticker, tb) % 900)
            d |= {
                "available_on_brokers": ev.available_on_brokers,
                "collateral_return_type": "MECNET" if ev.mutually_exclusive else "",
                "exchange_index": 0,
                "last_updated_ts": iso_z(touched, _h(self.seed, ev.event_ticker, tb, "us") % 1_000_000 or 1),
                "settlement_sources": [{"name": n, "url": u} for n, u in ev.settlement_sources],
            }
        return dict(sorted(d.items()))

    def _market_dict(self, m: _Spec, ev: _Event, tb: int) -> dict[str, Any]:
        quote_at = min(tb, m.close)  # nothing trades after the close: the book freezes
        bid, ask, mid = _book(m.fair(quote_at), m.spread)
        vol = _volume(m, tb)
        v24 = vol - _volume(m, tb - DAY)
        last = mid if vol > 0 else 0
        prev_at = min(tb - DAY, m.close)
        if prev_at > m.open:
            pbid, pask, pmid = _book(m.fair(prev_at), m.spread)
            plast = pmid if _volume(m, prev_at) > 0 else 0
        else:
            pbid = pask = plast = 0
        h = _h(self.seed, m.ticker, tb)
        oi = vol * (0.25 + (_h(self.seed, m.ticker) % 400) / 1000)
        touched = max(m.open, min(tb, m.close) - h % 280)
        d: dict[str, Any] = {
            "can_close_early": True,
            "close_time": iso_z(m.close),
            "event_ticker": ev.event_ticker,
            "expected_expiration_time": iso_z(m.expected_expiration),
            "expiration_time": iso_z(m.expiration),
            "expiration_value": "",
            "latest_expiration_time": iso_z(m.expiration),
            "market_type": "binary",
            "no_sub_title": m.no_sub_title,
            "open_time": iso_z(m.open),
            "result": "",
            "rules_primary": m.rules_primary,
            "rules_secondary": m.rules_secondary,
            "settlement_timer_seconds": m.settlement_timer,
            "status": "active",
            "ticker": m.ticker,
            "title": m.title,
            "yes_sub_title": m.yes_sub_title,
            **dict(m.extra),
        }
        if ev.legacy:
            d |= {
                "last_price": last,
                "liquidity": 0,
                "no_ask": 100 - bid,
                "no_bid": 100 - ask,
                "notional_value": 100,
                "open_interest": int(oi),
                "previous_price": plast,
                "previous_yes_ask": pask,
                "previous_yes_bid": pbid,
                "response_price_units": "usd_cent",
                "risk_limit_cents": 0,
                "tick_size": 1,
                "volume": int(vol),
                "volume_24h": int(v24),
                "yes_ask": ask,
                "yes_bid": bid,
            }
        else:
            d |= {
                "created_time": iso_z(m.created, _h(self.seed, m.ticker, "us") % 1_000_000 or 1),
                "exchange_index": 0,
                "last_price_dollars": _dollars(last),
                "liquidity_dollars": "0.0000",
                "no_ask_dollars": _dollars(100 - bid),
                "no_bid_dollars": _dollars(100 - ask),
                "notional_value_dollars": "1.0000",
                "open_interest_fp": _fp(oi),
                "previous_price_dollars": _dollars(plast),
                "previous_yes_ask_dollars": _dollars(pask),
                "previous_yes_bid_dollars": _dollars(pbid),
                "price_level_structure": "linear_cent",
                "price_ranges": [dict(r) for r in _PRICE_RANGES],
                "updated_time": iso_z(touched, h % 1_000_000 or 1),
                "volume_24h_fp": _fp(v24),
                "volume_fp": _fp(vol),
                "yes_ask_dollars": _dollars(ask),
                "yes_ask_size_fp": _fp((h >> 20) % 500_000 / 100) if ask < 100 else "0.00",
                "yes_bid_dollars": _dollars(bid),
                "yes_bid_size_fp": _fp((h >> 40) % 200_000 / 100) if bid > 0 else "0.00",
            }
        return dict(sorted(d.items()))


def after(keys: Sequence[str], last: str | None, limit: int) -> tuple[int, int, str | None]:
    """Keyset paging over sorted ``keys``: (start, end) of the page after ``last``, and the key to
    resume after (None on the last page)."""
    start = 0 if last is None else bisect_right(keys, last)
    end = min(start + limit, len(keys))
    return start, end, keys[end - 1] if end < len(keys) else None
