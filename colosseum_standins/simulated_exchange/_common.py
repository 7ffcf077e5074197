"""Constants and small pure helpers shared by the simulated exchange's modules."""

from __future__ import annotations

import hashlib
import json
import math
import re
from functools import cache, lru_cache
from typing import Final

from colosseum_standins.simulated_exchange import catalog as C
from colosseum_standins.simulated_exchange._time import HOUR, from_ts

SCHEMA_URL: Final = "https://gamma-api.polymarket.com/schemas/Market.json"
EPOCH_DAY: Final = 18262  # 2020-01-01: nothing exists before it
PERIOD_DAYS: Final = 180  # marquee families are planned per half-year
BUCKET: Final = 300  # prices and volumes move in 5-minute steps
MARKET_ID_BASE: Final = 400_000
EVENT_ID_BASE: Final = 10_000
SHORT_TAIL_DAYS: Final = 8  # the latest a short-dated market can settle after its cohort day
LONG_TAIL_DAYS: Final = 62  # disputes and stuck proposals on long-dated markets
LONG_MAX_LIFE: Final = 500
MARQUEE_MAX_LIFE: Final = 300

STREAMS: Final = ("sports", "daily", "weekly", "crypto", "long", "marquee")
# A team plays on at most one day in any ROTATION_DAYS consecutive UTC days, so any two of its
# fixtures start more than 72 hours apart: "at most one fixture in any three days", on any clock.
ROTATION_DAYS: Final = 4
# Which day of the rotation a team plays on is drawn afresh every season, so opponents change.
SEASON_DAYS: Final = 28

# Outcome of a market, as the final price of its first outcome.
YES, NO, VOID = 1.0, 0.0, 0.5

RESOLVER: Final = "0x65070BE91477460D8A7AeEb94ef92fe056C2f2A7"
NEGRISK_RESOLVER: Final = "0x2F5e3684cb1F318ec51b00Edba38d79Ac2c0aA9d"
SUBMITTER: Final = "0x91430CaD2d3975766499717fA0D66A78D814E5c5"
USDC: Final = "0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174"

_JSON_SEP = ", "  # Gamma's JSON-in-a-string fields use ", " between items
_enc = json.encoder.encode_basestring  # type: ignore[attr-defined]
_NON_SLUG = re.compile(r"[^a-z0-9]+")


def _jlist(items: list[str] | tuple[str, ...]) -> str:
    return "[" + _JSON_SEP.join(map(_enc, items)) + "]"


def _hex64(*parts: object) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()


@lru_cache(maxsize=4096)
def _name_hash(name: str) -> str:
    return _hex64(name)


def _slugify(text: str) -> str:
    return _NON_SLUG.sub("-", text.lower()).strip("-")[:96].rstrip("-")


def _price_str(n: int, d: int) -> str:
    """Exact decimal of n/d (d is 200 or 2000), as Gamma prints prices: "0.525", "1", "0"."""
    s = f"{n / d:.4f}".rstrip("0").rstrip(".")
    return s or "0"


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _progress(t: int, a: int, b: int, k: float) -> float:
    if t <= a:
        return 0.0
    if t >= b:
        return 1.0
    return ((t - a) / (b - a)) ** k


def _month_day(sec: int) -> str:
    d = from_ts(sec)
    return f"{C.MONTHS[d.month - 1]} {d.day}"


def _et_clock(sec: int) -> str:
    # Question texts quote Eastern Time; a fixed UTC-4 keeps the text stable and is what most of
    # the year shows (the board never depends on this text for timing).
    d = from_ts(sec - 4 * HOUR)
    h12 = d.hour % 12 or 12
    return f"{h12}:{d.minute:02d}{'AM' if d.hour < 12 else 'PM'}"


def _nice_step(x: float) -> float:
    if x <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(x))
    for m in (1, 2, 2.5, 5, 10):
        if m * mag >= x:
            return m * mag
    return 10 * mag


def _abbr(name: str) -> str:
    parts = [p for p in name.replace(".", "").split() if p[:1].isalpha()]
    if len(parts) == 1:
        return _slugify(parts[0])[:3]
    return "".join(p[0] for p in parts[:3]).lower()


def _money(x: float | None) -> str:
    assert x is not None
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 1:
        return f"{x:,.2f}".rstrip("0").rstrip(".")
    return f"{x:.4f}".rstrip("0")


def _micro(x: int) -> int:
    return (x * 7919 + 104729) % 1_000_000


# How a league's teams beyond its curated ones are named, per style: (how many first-side names, a
# stride coprime to that). A style's names are dealt out to its leagues in turn, so no two leagues
# share a name, and the stride walks them so that neighbours differ in every part.
_STYLES: Final = {
    "us": (len(C.PLACES) * len(C.NICKNAMES), 5077),
    "soccer": (len(C.SOCCER_FORMS) * len(C.PLACES), 1237),
    "esports": (len(C.ESPORTS_FORMS) * len(C.NICKNAMES), 385),
    "people": (len(C.FIRST_NAMES) * len(C.LAST_NAMES), 1009),
}


def _style(league: int) -> str:
    slug = C.LEAGUES[league][0]
    if slug in C.SOCCER:
        return "soccer"
    if slug in C.ESPORTS:
        return "esports"
    return "people" if slug in C.INDIVIDUAL else "us"


@cache
def _dealing(league: int) -> tuple[int, int]:
    """(this league's turn, how many leagues share its style)."""
    style = _style(league)
    peers = [index for index in range(len(C.LEAGUES)) if _style(index) == style]
    return peers.index(league), len(peers)


def team_capacity(league: int) -> int:
    """How many teams a league can field: its curated teams and its share of its style's names, first
    sides and then the second sides (``C.SIDES``)."""
    turn, share = _dealing(league)
    style = _style(league)
    size = _STYLES[style][0] * len(C.SIDES[style])
    return len(C.TEAMS.get(C.LEAGUES[league][0], ())) + (size - turn + share - 1) // share


@lru_cache(maxsize=65536)
def team_name(league: int, team: int) -> str:
    """The name of a league's ``team``-th team: a curated one first, then made-up clubs or players."""
    curated = C.TEAMS.get(C.LEAGUES[league][0], ())
    if team < len(curated):
        return curated[team]
    turn, share = _dealing(league)
    style = _style(league)
    size, stride = _STYLES[style]
    side, dealt = divmod(turn + share * (team - len(curated)), size)
    n = dealt * stride % size
    suffix = C.SIDES[style][side]
    if style == "us":
        return f"{C.PLACES[n // len(C.NICKNAMES)]} {C.NICKNAMES[n % len(C.NICKNAMES)]}{suffix}"
    if style == "soccer":
        return C.SOCCER_FORMS[n % len(C.SOCCER_FORMS)].format(C.PLACES[n // len(C.SOCCER_FORMS)]) + suffix
    if style == "esports":
        return (
            C.ESPORTS_FORMS[n % len(C.ESPORTS_FORMS)].format(C.NICKNAMES[n // len(C.ESPORTS_FORMS)]) + suffix
        )
    first, block = n % len(C.FIRST_NAMES), n // len(C.FIRST_NAMES)
    return f"{C.FIRST_NAMES[first]} {C.LAST_NAMES[(first + block) % len(C.LAST_NAMES)]}"
