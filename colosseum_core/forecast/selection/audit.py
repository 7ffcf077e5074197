"""An independent audit of a sealed card's selection against SLATE-LAWS-3.7.

Written apart from the selection code on purpose, as plain Python over a card's few rows: it reads
the published rules (The Method §4–5 and docs/decisions.md), not the selection's expressions, so a
mistake in one is not silently repeated in the other. The only thing it shares with the selection
is the normalized question stem (``stems.question_stem``), because the stem is itself a published
definition rather than an implementation of a rule.

``audit_selection`` re-checks the *selected* set of one card: that each selected question passes
every screening rule on its own verbatim fields, that the price and doubt the record carries are
the ones the price rule gives, that no two selected questions are alike, that the order is the
ranking by doubt, and that the cut took the top of the list and nothing else. "Alike" is audited
under the reading of ``one_of_a_kind`` the card was judged under (COLOSSEUM-ONE-OF-A-KIND-2 unless
told otherwise): version 2's event title on its date and a fixture's two teams on the game's date
are re-read here, in plain Python, from their published wording. It does not re-derive why each
excluded question was excluded; ``verdict_partition_violations`` checks only that every swept
question has exactly one verdict.

Every violation is one line, ``market <id>: <rule>: <what and the numbers>``, where ``<rule>`` is the
published rule name (``open``, ``gradeable``, …, ``the_cut``), or ``ranking`` (the ranking by doubt
and the recorded doubt), ``verbatim`` (the record against the copied market), ``verdict`` (a
verdict row that contradicts itself) or ``partition``.

Two readings where the published text is silent: a quote whose 7th decimal is exactly 5 is half way
between two micro-dollars, and either neighbour keeps "rounded to the nearest micro-dollar"; and a
history card key that names no seal (``card_from_key`` refuses it) counts as earlier, because
"never again" errs toward excluding.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from decimal import ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from typing import Any, Final

import polars as pl

from colosseum_core.forecast.rules import ONE_OF_A_KIND_READING, ONE_OF_A_KIND_READING_1
from colosseum_core.forecast.schedule import CARD_TIMEZONE, card_from_key
from colosseum_core.stems import question_stem

# The published numbers, written here as the rules state them rather than imported from the code
# that applies them: a change to either side is then a disagreement the audit reports.
AUDITED_RULES: Final = "SLATE-LAWS-3.7"
AUDITED_READINGS: Final = (ONE_OF_A_KIND_READING_1, ONE_OF_A_KIND_READING)
SELECTION_WINDOW: Final = dt.timedelta(hours=96)
MONEY_FLOOR: Final = 2_500.0
MAX_MIDPOINT_SPREAD_MICROS: Final = 100_000
GRADEABLE_OUTCOMES: Final = ["Yes", "No"]
DOUBT_TOLERANCE: Final = 1e-12
CARD_SIZE: Final = 25

SELECTED: Final = "selected"
EXCLUDED: Final = "excluded"
THE_CUT: Final = "the_cut"

MIDPOINT: Final = "midpoint"
LAST_TRADE: Final = "last_trade"
OUTCOME_PRICE: Final = "outcome_price"

_MICROS: Final = 1_000_000
_HALF_MICROS: Final = 2 * _MICROS
# (column, the Gamma key a reader knows it by).
_START_STAMPS: Final = (
    ("event_start_time_ts", "startTime"),
    ("market_event_start_time_ts", "eventStartTime"),
    ("game_start_time_ts", "gameStartTime"),
)
_GAME_IDS: Final = ("event_game_id", "game_id")
_VERBATIM_READ: Final[dict[str, pl.DataType]] = {
    "market_id": pl.String(),
    "event_id": pl.String(),
    "question": pl.String(),
    "outcomes": pl.List(pl.String()),
    "outcome_prices": pl.List(pl.String()),
    "best_bid": pl.Float64(),
    "best_ask": pl.Float64(),
    "last_trade_price": pl.Float64(),
    "event_volume_24hr": pl.Float64(),
    "event_liquidity": pl.Float64(),
    "end_date_ts": pl.Datetime("us", "UTC"),
    "event_end_date_ts": pl.Datetime("us", "UTC"),
    "event_start_time_ts": pl.Datetime("us", "UTC"),
    "market_event_start_time_ts": pl.Datetime("us", "UTC"),
    "game_start_time_ts": pl.Datetime("us", "UTC"),
    "active": pl.Boolean(),
    "closed": pl.Boolean(),
    "accepting_orders": pl.Boolean(),
    "event_game_id": pl.String(),
    "game_id": pl.String(),
    "sports_market_type": pl.String(),
    "event_title": pl.String(),
}
# A decimal as Gamma spells one; anything else in ``outcomePrices`` is not a number.
_DECIMAL: Final = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
# How a fixture's title is read (ONE-OF-A-KIND-2): spacing is every control character and Unicode
# space; a title breaks at ": " and at a spaced dash or bar; notes in parentheses are dropped; the
# teams are joined by one word vs, vs., v, v. (either case) or @.
_SPACING: Final = re.compile(r"[\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_NOTE: Final = re.compile(r"\([^()]*\)")
_BREAK: Final = re.compile(r": +| +[-\u2013\u2014|] +")
_JOINING_WORDS: Final = frozenset(
    f"{v}{s}{dot}" for v in "vV" for s in ("", "s", "S") for dot in ("", ".")
) | {"@"}

Row = Mapping[str, Any]


def _violation(market_id: Any, rule: str, detail: str) -> str:
    return f"market {market_id}: {rule}: {detail}"


# ------------------------------------------------------------------------------------------------
# Reading values


def _utc(instant: dt.datetime | None) -> dt.datetime | None:
    if instant is None:
        return None
    # The copy writes UTC instants; a naive one in a hand-built frame means UTC too.
    return instant.replace(tzinfo=dt.UTC) if instant.tzinfo is None else instant.astimezone(dt.UTC)


def _iso(instant: dt.datetime | None) -> str:
    if instant is None:
        return "absent"
    return instant.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _clock(span: dt.timedelta) -> str:
    """A duration as exact ``H:MM:SS[.ffffff]``: 96 h + 1 µs must not read as 96 h."""
    micros = abs(span) // dt.timedelta(microseconds=1)
    seconds, fraction = divmod(micros, _MICROS)
    text = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    if fraction:
        text += f".{fraction:06d}".rstrip("0")
    return ("-" if span < dt.timedelta(0) else "") + text


def _number(value: Any) -> float | None:
    """A published float, or None for absent; NaN is no number (the copy never writes one)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def _inside_open_unit(value: float | None) -> bool:
    return value is not None and 0.0 < value < 1.0


def _micros_readings(value: float) -> tuple[int, ...]:
    """The nearest whole micro-dollar to a published number; both neighbours at an exact tie.

    The float's shortest repr is the decimal Gamma published, so this rounds the published number
    itself, with no binary product in between. "Rounded to the nearest micro-dollar" does not say
    which way a tie (a 7th decimal of exactly 5) goes, so either reading keeps the rule; the even
    neighbour is listed first.
    """
    exact = Decimal(repr(value)) * _MICROS
    low = int(exact.to_integral_value(rounding=ROUND_FLOOR))
    if exact - low == Decimal("0.5"):
        return (low, low + 1) if low % 2 == 0 else (low + 1, low)
    return (int(exact.to_integral_value(rounding=ROUND_HALF_EVEN)),)


def _listed_yes_price(outcome_prices: list[str] | None) -> float | None:
    if not outcome_prices:
        return None
    text = outcome_prices[0]
    if text is None or _DECIMAL.fullmatch(text) is None:
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _interest(row: Row) -> float:
    """One row's view of its event's interest: max(24 h volume, liquidity), an absent key as 0."""
    return max(_number(row.get("event_volume_24hr")) or 0.0, _number(row.get("event_liquidity")) or 0.0)


def _blank(value: Any) -> bool:
    return value is None or value == ""


# ------------------------------------------------------------------------------------------------
# The price at seal and its doubt, re-derived


@dataclasses.dataclass(frozen=True)
class SealPrice:
    """A price at seal as an exact integer of half micro-dollars, with where it was read from."""

    half_micros: int
    source: str
    basis: str  # the published numbers it came from, for a violation's text

    @property
    def exact(self) -> Decimal:
        return Decimal(self.half_micros) / Decimal(_HALF_MICROS)

    @property
    def dollars(self) -> float:
        # float(Decimal) is correctly rounded: the float nearest the exact price.
        return float(self.exact)

    @property
    def gap(self) -> int:
        """Distance from the nearer certainty, in half micro-dollars: doubt rises with it, exactly."""
        return min(self.half_micros, _HALF_MICROS - self.half_micros)


def seal_price_readings(row: Row) -> list[SealPrice]:
    """Every price the price rule allows for a market row, the all-even-ties reading first.

    The rule: the midpoint of a two-sided book at most $0.10 wide (compared in whole micro-dollars),
    else a last trade strictly inside (0, 1), else the listed Yes price in [0, 1]. There is one
    reading unless a quote sits on an exact half micro-dollar (see ``_micros_readings``); an empty
    list means no price.
    """
    bid, ask = _number(row.get("best_bid")), _number(row.get("best_ask"))
    last, listed = _number(row.get("last_trade_price")), _listed_yes_price(row.get("outcome_prices"))

    def options(value: float | None, exists: bool) -> tuple[int | None, ...]:
        return _micros_readings(value) if exists and value is not None else (None,)

    readings: dict[tuple[int, str], SealPrice] = {}
    for bid_micros, ask_micros, last_micros, listed_micros in itertools.product(
        options(bid, _inside_open_unit(bid)),
        options(ask, _inside_open_unit(ask)),
        options(last, _inside_open_unit(last)),
        options(listed, listed is not None and 0.0 <= listed <= 1.0),
    ):
        if (
            bid_micros is not None
            and ask_micros is not None
            and 0 <= ask_micros - bid_micros <= MAX_MIDPOINT_SPREAD_MICROS
        ):
            price = SealPrice(bid_micros + ask_micros, MIDPOINT, f"best_bid {bid!r}, best_ask {ask!r}")
        elif last_micros is not None:
            price = SealPrice(2 * last_micros, LAST_TRADE, f"last_trade_price {last!r}")
        elif listed_micros is not None:
            price = SealPrice(2 * listed_micros, OUTCOME_PRICE, f"outcome_prices[0] {listed!r}")
        else:
            continue
        readings.setdefault((price.half_micros, price.source), price)
    return list(readings.values())


def seal_price(row: Row) -> SealPrice | None:
    """The price at seal of a market row (ties to the even micro-dollar), or None when it has none."""
    readings = seal_price_readings(row)
    return readings[0] if readings else None


def doubt(price: Decimal | float) -> float:
    """doubt(p) = −p·log₂p − (1−p)·log₂(1−p) in bits, 0 at p ∈ {0, 1}."""
    p = Decimal(repr(price)) if isinstance(price, float) else price
    if not 0 <= p <= 1:
        raise ValueError(f"price {price!r} is outside [0, 1]")
    if p in (0, 1):
        return 0.0
    yes, no = float(p), float(1 - p)  # 1 − p taken exactly, before rounding to a float
    return -(yes * math.log2(yes) + no * math.log2(no))


# ------------------------------------------------------------------------------------------------
# Inputs


def _utc_seal(seal: dt.datetime) -> dt.datetime:
    if not isinstance(seal, dt.datetime) or seal.tzinfo is None or seal.utcoffset() is None:
        raise ValueError(f"seal must be a timezone-aware datetime, got {seal!r}")
    return seal.astimezone(dt.UTC)


def _verbatim_rows(verbatim: pl.DataFrame, market_ids: set[str]) -> list[dict[str, Any]]:
    """The copied rows of ``market_ids`` and of every sibling on their events (for the interest)."""
    present = verbatim.columns
    # An absent column reads as nulls, as an absent key does in the copy.
    frame = verbatim.select(
        [
            (pl.col(name) if name in present else pl.lit(None, dtype=dtype)).alias(name)
            for name, dtype in _VERBATIM_READ.items()
        ]
    ).with_columns(
        # Ids are compared as the text the record writes.
        [pl.col(name).cast(pl.String) for name in ("market_id", "event_id")]
    )
    wanted = list(market_ids)
    events = frame.filter(pl.col("market_id").is_in(wanted))["event_id"].drop_nulls().unique().to_list()
    rows = frame.filter(pl.col("market_id").is_in(wanted) | pl.col("event_id").is_in(events)).to_dicts()
    for row in rows:
        for name in ("end_date_ts", "event_end_date_ts", *(column for column, _ in _START_STAMPS)):
            row[name] = _utc(row[name])
    return rows


def _stems(texts: list[str | None]) -> list[str | None]:
    frame = pl.DataFrame({"question": texts}, schema={"question": pl.String()})
    return frame.select(question_stem(pl.col("question")).alias("stem"))["stem"].to_list()


@dataclasses.dataclass(frozen=True)
class _Earlier:
    card: str | None
    label: str | None

    def __str__(self) -> str:
        return f"on earlier card {self.card}" + (f" as {self.label}" if self.label else "")


def _card_sealed_before(key: Any, seal: dt.datetime) -> bool:
    try:
        return card_from_key(key).seal < seal
    except (TypeError, ValueError):
        # A key that names no seal can not be shown to be later; "never again" errs toward excluding.
        return True


def _earlier_cards(
    history: pl.DataFrame | None, seal: dt.datetime
) -> tuple[dict[str, _Earlier], dict[str, _Earlier]]:
    """(market id → earliest appearance, question stem → earliest appearance) on cards sealed before."""
    if history is None or history.is_empty():
        return {}, {}
    if "market_id" not in history.columns or "card" not in history.columns:
        raise ValueError("history needs the columns card and market_id")

    def texts(name: str) -> list[str | None]:
        if name not in history.columns:
            return [None] * history.height
        return history[name].cast(pl.String).to_list()

    cards, labels, ids = texts("card"), texts("label"), texts("market_id")
    stems = _stems(texts("question"))
    by_id: dict[str, _Earlier] = {}
    by_stem: dict[str, _Earlier] = {}
    # Keys sort in seal order, so the first seen after sorting is the earliest appearance.
    for card, label, market_id, stem in sorted(
        zip(cards, labels, ids, stems, strict=True), key=lambda item: (item[0] or "", item[1] or "")
    ):
        if not _card_sealed_before(card, seal):
            continue
        seen = _Earlier(card, label)
        if market_id is not None:
            by_id.setdefault(market_id, seen)
        if stem is not None:
            by_stem.setdefault(stem, seen)
    return by_id, by_stem


def _fixture_sides(title: str | None) -> tuple[str, str] | None:
    """The two names a fixture's title joins, as question stems; None when no piece of it is a fixture."""
    if title is None:
        return None
    text = _SPACING.sub(" ", _NOTE.sub(" ", title))
    for piece in _BREAK.split(text):
        words = [word for word in piece.split(" ") if word]
        joins = [index for index, word in enumerate(words) if word in _JOINING_WORDS]
        if len(joins) != 1:
            continue
        first, second = " ".join(words[: joins[0]]), " ".join(words[joins[0] + 1 :])
        [stem_a, stem_b] = _stems([first, second])
        if stem_a is not None and stem_b is not None:
            return stem_a, stem_b
    return None


def _new_york_day(instant: dt.datetime | None) -> str | None:
    return None if instant is None else instant.astimezone(CARD_TIMEZONE).date().isoformat()


# ------------------------------------------------------------------------------------------------
# The audit


@dataclasses.dataclass
class _Question:
    """One selected (or cut) question: its verdict row and, when copied, its verbatim row."""

    verdict: dict[str, Any]
    market: dict[str, Any] | None
    interest: float | None
    price: SealPrice | None
    stem: str | None

    @property
    def market_id(self) -> Any:
        return self.verdict.get("market_id")

    @property
    def place(self) -> Any:
        return self.verdict.get("place")

    def field(self, name: str) -> Any:
        """A market's own field, from the copy when present, else as the record repeats it."""
        return (self.market or self.verdict).get(name)

    def rank_key(self) -> tuple[int, float] | None:
        """(certainty gap, interest): larger is ranked higher; None when no price can be read."""
        gap = self.price.gap if self.price is not None else None
        if gap is None:
            recorded = _number(self.verdict.get("price"))
            if recorded is None or not 0.0 <= recorded <= 1.0:
                return None
            units = round(Decimal(repr(recorded)) * _HALF_MICROS)
            gap = min(units, _HALF_MICROS - units)
        interest = self.interest if self.interest is not None else _number(self.verdict.get("interest"))
        return gap, interest if interest is not None else 0.0


def _place_order(question: _Question) -> tuple[bool, int, str]:
    place = question.place
    return (place is None, place if isinstance(place, int) else 0, str(question.market_id))


def _reading_of(verdict: Row, market: Row) -> SealPrice | None:
    """The reading of the price rule the record agrees with, else the even-ties reading (or None)."""
    readings = seal_price_readings(market)
    recorded = (_number(verdict.get("price")), verdict.get("price_source"))
    agreeing = [reading for reading in readings if (reading.dollars, reading.source) == recorded]
    return (agreeing or readings or [None])[0]


def _questions(
    rows: list[dict[str, Any]], markets: dict[str, list[dict[str, Any]]], interest: dict[str, float]
) -> list[_Question]:
    found = []
    for verdict in rows:
        copies = markets.get(verdict.get("market_id"), [])
        market = copies[0] if copies else None
        found.append(
            _Question(
                verdict=verdict,
                market=market,
                interest=interest.get(market["event_id"]) if market is not None else None,
                price=_reading_of(verdict, market) if market is not None else None,
                stem=None,
            )
        )
    stems = _stems([question.field("question") for question in found])
    for question, stem in zip(found, stems, strict=True):
        question.stem = stem
    return sorted(found, key=_place_order)


def _check_count_and_places(selected: list[_Question], cut: int) -> list[str]:
    """At most ``cut`` selected; places 1..n; ranks strictly increasing with place."""
    found: list[str] = []
    n = len(selected)
    if n > cut:
        for question in selected[cut:]:
            found.append(
                _violation(
                    question.market_id,
                    THE_CUT,
                    f"selected at place {question.place}, but the card holds {n} questions "
                    f"and the cut is {cut}",
                )
            )
    places = Counter(question.place for question in selected)
    holders: dict[Any, Any] = {}
    for question in selected:
        place = question.place
        if not isinstance(place, int):
            found.append(_violation(question.market_id, THE_CUT, f"selected without a place ({place!r})"))
        elif not 1 <= place <= n:
            found.append(
                _violation(
                    question.market_id,
                    THE_CUT,
                    f"place {place} is outside 1..{n} for a card of {n} questions",
                )
            )
        elif places[place] > 1 and place in holders:
            found.append(
                _violation(
                    question.market_id, THE_CUT, f"place {place} is also held by market {holders[place]}"
                )
            )
        holders.setdefault(place, question.market_id)
    for better, worse in itertools.pairwise(selected):
        rank, worse_rank = better.verdict.get("rank"), worse.verdict.get("rank")
        if not isinstance(worse_rank, int):
            found.append(_violation(worse.market_id, THE_CUT, f"selected without a rank ({worse_rank!r})"))
        elif isinstance(rank, int) and worse_rank <= rank:
            found.append(
                _violation(
                    worse.market_id,
                    THE_CUT,
                    f"place {worse.place} holds rank {worse_rank}, not after rank {rank} "
                    f"of market {better.market_id} at place {better.place}",
                )
            )
    if selected and not isinstance(selected[0].verdict.get("rank"), int):
        first = selected[0]
        found.append(
            _violation(first.market_id, THE_CUT, f"selected without a rank ({first.verdict.get('rank')!r})")
        )
    return found


def _check_verdict_row(question: _Question) -> list[str]:
    verdict, market_id = question.verdict, question.market_id
    found = []
    if verdict.get("rule") is not None:
        found.append(_violation(market_id, "verdict", f"selected, yet names the rule {verdict['rule']!r}"))
    if "rules" in verdict and verdict["rules"] != AUDITED_RULES:
        found.append(
            _violation(market_id, "verdict", f"judged under {verdict['rules']!r}, audited as {AUDITED_RULES}")
        )
    return found


def _check_identity(question: _Question, copies: int) -> list[str]:
    """The record repeats the copied market: same event, question text and scheduled end."""
    market_id, market, verdict = question.market_id, question.market, question.verdict
    if market is None:
        return [_violation(market_id, "verbatim", "selected, but not in the verbatim table")]
    found = []
    if copies > 1:
        found.append(_violation(market_id, "verbatim", f"appears {copies} times in the verbatim table"))
    for name in ("event_id", "question", "end_date_ts"):
        if name not in verdict:
            continue
        recorded = _utc(verdict[name]) if name == "end_date_ts" else verdict[name]
        if recorded != market[name]:
            found.append(
                _violation(market_id, "verbatim", f"recorded {name} {recorded!r}, copied {market[name]!r}")
            )
    return found


def _check_screens(question: _Question, seal: dt.datetime) -> list[str]:
    """Rules 2, 3, 5, 6 and 7 on the selected question's own copied fields."""
    market_id, market = question.market_id, question.market
    assert market is not None
    found = []
    if market["active"] is not True:
        found.append(_violation(market_id, "open", f"active is {market['active']!r}, not true"))
    if market["closed"] is not False:
        found.append(_violation(market_id, "open", f"closed is {market['closed']!r}, not false"))
    if market["accepting_orders"] is False:
        found.append(_violation(market_id, "open", "accepting_orders is false"))

    if market["outcomes"] != GRADEABLE_OUTCOMES:
        found.append(
            _violation(
                market_id, "gradeable", f"outcomes {market['outcomes']!r} are not {GRADEABLE_OUTCOMES!r}"
            )
        )

    for column, key in _START_STAMPS:
        start = market[column]
        if start is not None and start < seal:
            found.append(
                _violation(
                    market_id,
                    "tomorrow_only",
                    f"{key} ({column}) {_iso(start)} is {_clock(seal - start)} before the seal {_iso(seal)}",
                )
            )

    end = market["end_date_ts"]
    if end is None:
        found.append(_violation(market_id, "settles_soon", "no scheduled end (end_date_ts absent)"))
    elif not seal < end <= seal + SELECTION_WINDOW:
        when = (
            "at"
            if end == seal
            else f"{_clock(end - seal)} after"
            if end > seal
            else f"{_clock(seal - end)} before"
        )
        found.append(
            _violation(
                market_id,
                "settles_soon",
                f"end {_iso(end)} is {when} the seal {_iso(seal)}, "
                f"outside (seal, seal + {_clock(SELECTION_WINDOW)}]",
            )
        )

    interest, recorded = question.interest, _number(question.verdict.get("interest"))
    assert interest is not None
    if interest < MONEY_FLOOR:
        found.append(
            _violation(
                market_id,
                "real_money",
                f"event {market['event_id']} interest {interest!r} is below the floor {MONEY_FLOOR!r}",
            )
        )
    if recorded != interest:
        found.append(
            _violation(
                market_id,
                "real_money",
                f"recorded interest {recorded!r}, but the copied rows of event {market['event_id']} "
                f"give {interest!r}",
            )
        )
    return found


def _check_price(question: _Question) -> list[str]:
    """Rule 4 and the ranking's measure: the recorded price, its source and its doubt."""
    market_id, verdict, price = question.market_id, question.verdict, question.price
    recorded_price, recorded_source = _number(verdict.get("price")), verdict.get("price_source")
    found = []
    if question.market is None:
        pass  # nothing to re-derive the price from; the missing copy is reported on its own
    elif price is None:
        found.append(
            _violation(
                market_id,
                "priced",
                f"no published price at seal, yet recorded {recorded_price!r} ({recorded_source})",
            )
        )
    elif recorded_price != price.dollars or recorded_source != price.source:
        found.append(
            _violation(
                market_id,
                "priced",
                f"recorded price {recorded_price!r} ({recorded_source}), but the price rule gives "
                f"{price.dollars!r} ({price.source}, from {price.basis})",
            )
        )
    # The doubt that ranks must be the doubt of the true price; without one, of the recorded price.
    basis: Decimal | float | None = price.exact if price is not None else recorded_price
    recorded_doubt = _number(verdict.get("doubt_bits"))
    if basis is None or not 0 <= basis <= 1:
        return found
    expected = doubt(basis)
    if recorded_doubt is None or abs(recorded_doubt - expected) > DOUBT_TOLERANCE:
        found.append(
            _violation(
                market_id,
                "ranking",
                f"recorded doubt_bits {recorded_doubt!r}, but doubt({basis}) = {expected!r} bits",
            )
        )
    return found


def _check_once_ever(
    question: _Question, by_id: dict[str, _Earlier], by_stem: dict[str, _Earlier]
) -> list[str]:
    found = []
    if question.market_id in by_id:
        found.append(_violation(question.market_id, "once_ever", f"market id {by_id[question.market_id]}"))
    if question.stem is not None and question.stem in by_stem:
        found.append(
            _violation(
                question.market_id,
                "once_ever",
                f"question stem {question.stem!r} {by_stem[question.stem]}",
            )
        )
    return found


def _kinship(question: _Question, reading: str) -> list[tuple[str, str, str]]:
    """(rule, key, how it reads) for every key two selected questions may not share."""
    keys = [("one_of_a_kind", f"market:{question.market_id}", "the same market id")]
    event_id = question.field("event_id")
    if not _blank(event_id):
        keys.append(("one_per_family", f"event:{event_id}", f"event {event_id}"))
    # The event's and the market's game ids are one namespace; an empty id is no id.
    market = question.market
    games = [market[name] for name in _GAME_IDS if market is not None and not _blank(market[name])]
    keys += [("one_of_a_kind", f"game:{game}", f"game id {game}") for game in dict.fromkeys(games)]
    if market is not None and not games and market["sports_market_type"] is not None:
        # A sports market without a game id: the same fixture is the same event title at the same start.
        start = next((market[c] for c, _ in _START_STAMPS if market[c] is not None), None)
        title = _stems([market["event_title"]])[0]
        if title is not None and start is not None:
            keys.append(
                ("one_of_a_kind", f"fixture:{title}@{_iso(start)}", f"fixture {title!r} at {_iso(start)}")
            )
    if question.stem is not None:
        keys.append(("one_of_a_kind", f"stem:{question.stem}", f"question stem {question.stem!r}"))
    if reading == ONE_OF_A_KIND_READING and market is not None:
        keys += _real_world_event(market)
    return keys


def _real_world_event(market: Row) -> list[tuple[str, str, str]]:
    """ONE-OF-A-KIND-2: the fixture's two teams on the game's New York date, and the event's title
    on the event's New York date (its stamped start's, else its end's, else the market's end's)."""
    keys = []
    start = next((market[c] for c, _ in _START_STAMPS if market[c] is not None), None)
    sides = _fixture_sides(market["event_title"])
    if sides is not None and start is not None:
        low, high = sorted(sides)
        day = _new_york_day(start)
        keys.append(
            ("one_of_a_kind", f"teams:{low}|{high}@{day}", f"fixture teams {low!r} and {high!r} on {day}")
        )
    title = _stems([market["event_title"]])[0]
    day = _new_york_day(start or market["event_end_date_ts"] or market["end_date_ts"])
    if title is not None and day is not None:
        keys.append(("one_of_a_kind", f"title:{title}@{day}", f"event title {title!r} on {day}"))
    return keys


def _check_alike(selected: list[_Question], reading: str) -> list[str]:
    """No two selected share a market, an event, a fixture, a question stem, or (version 2) one
    real-world event's title on its date or its teams on the game's date."""
    found = []
    holder: dict[str, _Question] = {}
    for question in selected:
        for rule, key, shown in _kinship(question, reading):
            first = holder.setdefault(key, question)
            if first is not question:
                found.append(
                    _violation(
                        question.market_id,
                        rule,
                        f"shares {shown} with selected market {first.market_id} "
                        f"(places {first.place} and {question.place})",
                    )
                )
    return found


def _key_text(key: tuple[int, float]) -> str:
    gap, interest = key
    bits = doubt(Decimal(gap) / _HALF_MICROS)
    return f"doubt {bits:.6f} bits (gap {gap}/{_HALF_MICROS}), interest {interest!r}"


def _check_ranking(selected: list[_Question]) -> list[str]:
    """Down the card, doubt never rises; on equal doubt, interest never rises."""
    found = []
    keyed = [(question, question.rank_key()) for question in selected]
    for index, (better, better_key) in enumerate(keyed):
        for worse, worse_key in keyed[index + 1 :]:
            if better_key is None or worse_key is None or better.place == worse.place:
                continue
            if worse_key > better_key:
                found.append(
                    _violation(
                        worse.market_id,
                        "ranking",
                        f"at place {worse.place} it carries {_key_text(worse_key)}, more than "
                        f"market {better.market_id} at place {better.place} with "
                        f"{_key_text(better_key)}",
                    )
                )
    return found


def _check_below_the_cut(selected: list[_Question], below: list[_Question], cut: int) -> list[str]:
    """The cut takes the top of the list: nothing below it is placed ahead of, or ranked above, the
    card, and a card is short only when nothing is left below the cut."""
    found = []
    n = len(selected)
    placed = [question for question in selected if isinstance(question.place, int)]
    last = max(placed, key=lambda question: question.place, default=None)
    for question in below:
        place = question.place
        if not isinstance(place, int):
            found.append(
                _violation(question.market_id, THE_CUT, f"excluded by the cut without a place ({place!r})")
            )
        elif last is not None and place <= last.place:
            found.append(
                _violation(
                    question.market_id,
                    THE_CUT,
                    f"excluded by the cut at place {place}, ahead of selected market {last.market_id} "
                    f"at place {last.place}",
                )
            )
    # Places follow the ranking, so everything below the cut was ranked after everything on the card.
    ranks = [question.verdict.get("rank") for question in selected]
    top = max((rank for rank in ranks if isinstance(rank, int)), default=None)
    for question in below:
        rank = question.verdict.get("rank")
        if top is not None and isinstance(rank, int) and rank <= top:
            found.append(
                _violation(
                    question.market_id,
                    THE_CUT,
                    f"excluded by the cut at rank {rank}, though the card reaches down to rank {top}",
                )
            )
    if n < cut:
        # The first (cut − n) questions below the cut are the ones that should have filled the card.
        for question in below[: cut - n]:
            found.append(
                _violation(
                    question.market_id,
                    THE_CUT,
                    f"excluded below the cut (place {question.place}, rank {question.verdict.get('rank')}) "
                    f"while the card holds only {n} of {cut} questions",
                )
            )
    keyed = [(question, question.rank_key()) for question in selected]
    keyed = [(question, key) for question, key in keyed if key is not None]
    if keyed:
        weakest, weakest_key = min(keyed, key=lambda item: item[1])
        for question in below:
            key = question.rank_key() if question.market is not None else None
            if key is not None and key > weakest_key:
                found.append(
                    _violation(
                        question.market_id,
                        "ranking",
                        f"excluded below the cut (place {question.place}) with {_key_text(key)}, "
                        f"more than selected market {weakest.market_id} at place {weakest.place} with "
                        f"{_key_text(weakest_key)}",
                    )
                )
    return found


def audit_selection(
    verbatim: pl.DataFrame,
    verdicts: pl.DataFrame,
    *,
    seal: dt.datetime,
    history: pl.DataFrame | None = None,
    cut: int = CARD_SIZE,
    one_of_a_kind: str = ONE_OF_A_KIND_READING,
) -> list[str]:
    """Every way the card's selected questions break SLATE-LAWS-3.7; an empty list when none does.

    ``verbatim`` is the card's copied markets (the verbatim columns; others are ignored),
    ``verdicts`` the selection's verdict rows, ``history`` the questions of earlier cards of the
    same kind (``card``, ``market_id``, ``label``, ``question``; only cards sealed strictly before
    ``seal`` count), ``cut`` the card size, ``one_of_a_kind`` the reading of that rule the card was
    judged under. A naive ``seal``, a ``cut`` below 1 or an unknown reading raises ``ValueError``.
    """
    seal = _utc_seal(seal)
    if isinstance(cut, bool) or not isinstance(cut, int) or cut < 1:
        raise ValueError(f"cut must be a positive integer, got {cut!r}")
    if one_of_a_kind not in AUDITED_READINGS:
        raise ValueError(f"unknown one_of_a_kind reading {one_of_a_kind!r}; audited: {AUDITED_READINGS}")

    # Only the card, the list below the cut and malformed verdicts are read: on a sweep of 50,000
    # questions, turning every verdict into a dict would cost more than the whole audit.
    verdict, rule = pl.col("verdict"), pl.col("rule")
    rows = verdicts.filter(
        ~verdict.is_in([SELECTED, EXCLUDED]).fill_null(False)
        | verdict.is_null()
        | (verdict == SELECTED)
        | ((verdict == EXCLUDED) & (rule == THE_CUT)).fill_null(False)
    ).to_dicts()
    found: list[str] = [
        _violation(
            row.get("market_id"),
            "verdict",
            f"verdict {row.get('verdict')!r} is neither selected nor excluded",
        )
        for row in rows
        if row.get("verdict") not in (SELECTED, EXCLUDED)
    ]
    chosen = [row for row in rows if row.get("verdict") == SELECTED]
    cut_rows = [row for row in rows if row.get("verdict") == EXCLUDED and row.get("rule") == THE_CUT]

    wanted = {str(row["market_id"]) for row in chosen + cut_rows if row.get("market_id") is not None}
    markets: dict[str, list[dict[str, Any]]] = defaultdict(list)
    interest: dict[str, float] = {}
    for market in _verbatim_rows(verbatim, wanted):
        if market["market_id"] in wanted:
            markets[market["market_id"]].append(market)
        # The event's interest is the largest any of its rows shows, so row order can not change it.
        interest[market["event_id"]] = max(interest.get(market["event_id"], 0.0), _interest(market))

    selected = _questions(chosen, markets, interest)
    below = _questions(cut_rows, markets, interest)
    by_id, by_stem = _earlier_cards(history, seal)

    found += _check_count_and_places(selected, cut)
    for question in selected:
        found += _check_verdict_row(question)
        found += _check_identity(question, len(markets.get(question.market_id, [])))
        if question.market is not None:
            found += _check_screens(question, seal)
        found += _check_price(question)
        found += _check_once_ever(question, by_id, by_stem)
    found += _check_alike(selected, one_of_a_kind)
    found += _check_ranking(selected)
    found += _check_below_the_cut(selected, below, cut)
    return found


def verdict_partition_violations(swept_market_ids: Iterable[str], verdicts: pl.DataFrame) -> list[str]:
    """Every swept market has exactly one verdict, and every verdict names a swept market."""
    swept = dict.fromkeys(swept_market_ids)
    counts = Counter(verdicts["market_id"].to_list())
    found = []
    for market_id in swept:
        count = counts.get(market_id, 0)
        if count != 1:
            found.append(
                _violation(
                    market_id,
                    "partition",
                    "swept but has no verdict" if count == 0 else f"has {count} verdicts",
                )
            )
    for market_id, count in counts.items():
        if market_id not in swept:
            found.append(
                _violation(market_id, "partition", f"{count} verdict(s) for a market the sweep did not see")
            )
    return found
