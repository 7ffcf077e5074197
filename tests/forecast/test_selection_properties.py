"""Properties of the selection over generated sweeps, and a plain-Python re-derivation of every verdict.

The generated markets draw their fields from small pools on purpose: shared events, repeated
question stems and game ids, prices on the $0.10 spread edge, interest on the floor, starts and ends
on the seal and the window's edge, and now and then an impossible value. That makes the rules
collide as often as they can.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
import unicodedata
from typing import Any
from zoneinfo import ZoneInfo

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from colosseum_core.exchanges.polymarket.markets import VERBATIM_SCHEMA
from colosseum_core.forecast.rules import ONE_OF_A_KIND_READING, ONE_OF_A_KIND_READING_1
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.selection import RULE_ORDER, RULES_VERSION, Selection, reading_of, select_card
from colosseum_core.forecast.selection.rotation import rotate

SEAL = card_from_key("2026-11-29-1000").seal
H = dt.timedelta(hours=1)
US = dt.timedelta(microseconds=1)
WINDOW = 96 * H
FLOOR = 2_500.0
MICROS = 1_000_000
SCALE = 2 * MICROS

QUESTIONS = [
    "Will A win?",
    "will a win",
    "Will B win?",
    "Over 2.5 goals?",
    "Over 25 goals?",
    "Will C happen?",
]
# Pools of (value, weight): mostly values a rule passes, often values on a rule's edge, now and
# then an impossible one, so that cards are usually non-empty and every rule gets its turn.
# (best bid, best ask): tight books, $0.10 and $0.101 spreads, one-sided and empty books.
BOOKS = [
    (0.45, 0.55),
    (0.70, 0.80),
    (0.33, 0.43),
    (0.45, 0.551),
    (0.30, 0.31),
    (0.50, 0.50),
    (0.01, 0.02),
    (0.98, 0.99),
    (None, 0.55),
    (0.45, None),
    (0.0, 1.0),
    (None, None),
]
BAD_BOOKS = [(0.6, 0.5), (0.45, 1.7), (-0.1, 0.2), (float("nan"), 0.5)]
LAST_TRADES = [0.3, 0.5, 0.7, 0.01, 0.99, None, 0.0]
BAD_LAST_TRADES = [1.5, float("nan")]
PRICES = [["0.5", "0.5"], ["0.3", "0.7"], ["0.0105", "0.9895"], None]
BAD_PRICES = [["1.2", "-0.2"], ["0.5"], ["x", "y"]]
INTEREST = [None, 0.0, 1_840.0, 2_499.99, 2_500.0, 10_000.0]
IN_WINDOW = [US, 48 * H, WINDOW]
OUT_OF_WINDOW = [None, -3 * H, dt.timedelta(0), WINDOW + US, 101.5 * H]
STARTS = [-H, -US, dt.timedelta(0), 2 * H]
HISTORY = pl.DataFrame(
    {
        "card": ["2026-11-28-1800", "2026-11-27-0500"],
        "market_id": ["7", "11"],
        "label": ["M07", "M01"],
        "question": ["Will B win?", "Never asked before?"],
    }
)


def weighted(*pools: tuple[list[Any], int]) -> st.SearchStrategy[Any]:
    """One value from ``pools``, each pool's values drawn ``weight`` times as often as a weight of 1."""
    return st.sampled_from([value for values, weight in pools for value in values for _ in range(weight)])


@st.composite
def markets(draw: st.DrawFn) -> dict[str, Any]:
    offset = draw(weighted((IN_WINDOW, 8), (OUT_OF_WINDOW, 1)))
    row: dict[str, Any] = dict.fromkeys(VERBATIM_SCHEMA)
    row.update(
        event_id=draw(st.sampled_from(["e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"])),
        question=draw(weighted((QUESTIONS, 1), ([None], 4))),  # None: a question of its own
        outcomes=draw(weighted(([["Yes", "No"]], 30), ([["Up", "Down"], ["No", "Yes"], None], 1))),
        outcome_prices=draw(weighted((PRICES, 12), (BAD_PRICES, 1))),
        last_trade_price=draw(weighted((LAST_TRADES, 20), (BAD_LAST_TRADES, 1))),
        event_volume_24hr=draw(weighted((INTEREST, 1), ([10_000.0], 4))),
        event_liquidity=draw(weighted((INTEREST, 1), ([10_000.0], 2))),
        end_date_ts=None if offset is None else SEAL + offset,
        start_date_ts=draw(weighted(([None, SEAL - 240 * H], 10), ([SEAL + 200 * H], 1))),
        active=draw(weighted(([True], 30), ([False, None], 1))),
        closed=draw(weighted(([False], 30), ([True, None], 1))),
        accepting_orders=draw(weighted(([True, None], 15), ([False], 1))),
        game_id=draw(weighted(([None], 4), (["g1", "g2", ""], 1))),
        event_game_id=draw(weighted(([None], 4), (["g1", "g3"], 1))),
        sports_market_type=draw(st.sampled_from([None, "moneyline"])),
        event_title=draw(st.sampled_from(["A vs B", "a vs. b", "C vs D", "B @ A", "Cup: A v. B (G1)", None])),
        event_end_date_ts=draw(st.sampled_from([None, None, SEAL + 10 * H, SEAL + 30 * H])),
    )
    row["best_bid"], row["best_ask"] = draw(weighted((BOOKS, 12), (BAD_BOOKS, 1)))
    for column in ("game_start_time_ts", "market_event_start_time_ts", "event_start_time_ts"):
        start = draw(weighted(([None], 20), (STARTS, 1)))
        row[column] = None if start is None else SEAL + start
    return row


@st.composite
def sweeps(draw: st.DrawFn) -> list[dict[str, Any]]:
    rows = draw(st.lists(markets(), max_size=40))
    ids = draw(
        st.lists(st.integers(1, 60), min_size=len(rows), max_size=len(rows), unique=True).map(
            lambda xs: [str(x) for x in xs]
        )
    )
    for row, market_id in zip(rows, ids, strict=True):
        row["market_id"] = market_id
        if row["question"] is None:
            row["question"] = f"Question number {market_id}?"
    return rows


def _frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=VERBATIM_SCHEMA)


# --------------------------------------------------------------------------------------------
# A plain-Python re-derivation of SLATE-LAWS-3.7, one row at a time (the rules' meaning, not their code)


def _stem(text: str | None) -> str | None:
    if text is None:
        return None
    folded = "".join(
        c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf"
    ).lower()
    words = "".join(" " if unicodedata.category(c)[0] in "PZC" or c.isspace() else c for c in folded).split(
        " "
    )
    stem = " ".join(w for w in words if w)
    return stem or None


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _in(value: float | None, low: float, high: float) -> bool:
    return value is not None and not math.isnan(value) and low <= value <= high


def _malformed(row: dict[str, Any]) -> bool:
    if not row["market_id"] or not row["event_id"] or row["question"] is None or row["outcomes"] is None:
        return True
    prices = row["outcome_prices"]
    if prices is not None:
        numbers = [_number(p) for p in prices]
        if len(prices) != len(row["outcomes"]) or any(not _in(n, 0, 1) for n in numbers):
            return True
    for quote in ("best_bid", "best_ask", "last_trade_price"):
        if row[quote] is not None and not _in(row[quote], 0, 1):
            return True
    if row["best_bid"] is not None and row["best_ask"] is not None and row["best_bid"] > row["best_ask"]:
        return True
    return (
        row["start_date_ts"] is not None
        and row["end_date_ts"] is not None
        and (row["end_date_ts"] < row["start_date_ts"])
    )


def _micros(value: float) -> int:
    return round(value * MICROS)


def _price_units(row: dict[str, Any]) -> int | None:
    bid, ask, last = row["best_bid"], row["best_ask"], row["last_trade_price"]
    two_sided = _in(bid, 1e-12, 1 - 1e-12) and _in(ask, 1e-12, 1 - 1e-12)
    if two_sided and _micros(bid) <= _micros(ask) and _micros(ask) - _micros(bid) <= 100_000:
        return _micros(bid) + _micros(ask)
    if _in(last, 1e-12, 1 - 1e-12):
        return 2 * _micros(last)
    prices = row["outcome_prices"] or []
    listed = _number(prices[0]) if prices else None
    return 2 * _micros(listed) if _in(listed, 0, 1) else None


NEW_YORK = ZoneInfo("America/New_York")


def _teams(title: str | None) -> tuple[str, ...] | None:
    """The fixture's two teams, in either order: the one piece of the title with one joining word."""
    if title is None:
        return None
    text = re.sub(r"\([^()]*\)", " ", title)
    for piece in re.split(r":\s+|\s+[-|]\s+", text):
        words = piece.split()
        joins = [i for i, word in enumerate(words) if word.lower().rstrip(".") in ("v", "vs") or word == "@"]
        if len(joins) == 1:
            sides = (_stem(" ".join(words[: joins[0]])), _stem(" ".join(words[joins[0] + 1 :])))
            if None not in sides:
                return tuple(sorted(sides))  # type: ignore[arg-type]
    return None


def _keys(row: dict[str, Any]) -> set[str]:
    keys = {"m:" + row["market_id"], "e:" + row["event_id"]}
    games = [g for g in (row["event_game_id"], row["game_id"]) if g]
    keys |= {"g:" + g for g in games}
    if not games and row["sports_market_type"] is not None:
        start = row["event_start_time_ts"] or row["market_event_start_time_ts"] or row["game_start_time_ts"]
        title = _stem(row["event_title"])
        if title is not None and start is not None:
            keys.add(f"sports:{title}@{start.isoformat()}")
    if _stem(row["question"]) is not None:
        keys.add("s:" + _stem(row["question"]))
    # COLOSSEUM-ONE-OF-A-KIND-2: one real-world event under two event ids.
    start = row["event_start_time_ts"] or row["market_event_start_time_ts"] or row["game_start_time_ts"]
    teams = _teams(row["event_title"])
    if teams is not None and start is not None:
        keys.add(f"t:{teams}@{start.astimezone(NEW_YORK).date()}")
    when = start or row["event_end_date_ts"] or row["end_date_ts"]
    if _stem(row["event_title"]) is not None and when is not None:
        keys.add(f"title:{_stem(row['event_title'])}@{when.astimezone(NEW_YORK).date()}")
    return keys


def _id_key(market_id: str) -> tuple[Any, ...]:
    digits = market_id.isascii() and market_id.isdigit()
    significant = market_id.lstrip("0")
    return (not digits, len(significant) if digits else 0, significant if digits else market_id, market_id)


def rederive(rows: list[dict[str, Any]], history: pl.DataFrame, cut: int) -> dict[str, tuple[Any, ...]]:
    """market id → (rule, rank, place), derived row by row."""
    interest: dict[str, float] = {}
    for row in rows:
        own = max(row["event_volume_24hr"] or 0.0, row["event_liquidity"] or 0.0)
        interest[row["event_id"]] = max(interest.get(row["event_id"], own), own)
    seen_ids = set(history["market_id"].to_list())
    seen_stems = {_stem(q) for q in history["question"].to_list()} - {None}

    verdict: dict[str, tuple[Any, ...]] = {}
    standing = []
    for row in rows:
        units = _price_units(row)
        starts = [row[c] for c in ("event_start_time_ts", "market_event_start_time_ts", "game_start_time_ts")]
        end = row["end_date_ts"]
        checks = [
            ("malformed", _malformed(row)),
            (
                "open",
                row["active"] is not True or row["closed"] is not False or row["accepting_orders"] is False,
            ),
            ("gradeable", row["outcomes"] != ["Yes", "No"]),
            ("priced", units is None),
            ("tomorrow_only", any(s is not None and s < SEAL for s in starts)),
            ("settles_soon", end is None or not SEAL < end <= SEAL + WINDOW),
            ("real_money", interest[row["event_id"]] < FLOOR),
            ("once_ever", row["market_id"] in seen_ids or _stem(row["question"]) in seen_stems),
        ]
        failed = [rule for rule, hit in checks if hit]
        if failed:
            verdict[row["market_id"]] = (failed[0], None, None)
        else:
            assert units is not None
            gap = min(units, SCALE - units)
            order = (
                -gap,
                -interest[row["event_id"]],
                _id_key(row["market_id"]),
                row["event_id"],
                row["question"],
            )
            standing.append((order, row))

    standing.sort(key=lambda item: item[0])
    families: set[str] = set()
    taken: set[str] = set()
    place = 0
    for rank, (_, row) in enumerate(standing, start=1):
        market_id = row["market_id"]
        if row["event_id"] in families:
            verdict[market_id] = ("one_per_family", rank, None)
            continue
        families.add(row["event_id"])
        keys = _keys(row)
        if keys & taken:
            verdict[market_id] = ("one_of_a_kind", rank, None)
            continue
        taken |= keys
        place += 1
        verdict[market_id] = (None if place <= cut else "the_cut", rank, place)
    return verdict


# --------------------------------------------------------------------------------------------

# One generated sweep is judged once and every property is checked on that one selection: the
# selection's fixed cost per call, not the size of a sweep, is what bounds how many examples run.
PROPERTIES = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(PROPERTIES, max_examples=60)


def _select(rows: list[dict[str, Any]], cut: int, history: pl.DataFrame | None = HISTORY) -> Selection:
    return select_card(_frame(rows), seal=SEAL, history=history, cut=cut)


def check_partition(rows: list[dict[str, Any]], selection: Selection) -> None:
    """Every swept question has exactly one verdict, and every verdict is well formed."""
    verdicts = selection.verdicts
    assert verdicts.height == len(rows)
    assert sorted(verdicts["market_id"].to_list()) == sorted(row["market_id"] for row in rows)
    assert verdicts["market_id"].is_unique().all()
    assert set(verdicts["verdict"]) <= {"selected", "excluded"}
    assert set(verdicts["rule"].drop_nulls()) <= set(RULE_ORDER)
    assert (verdicts["rule"].is_null() == (verdicts["verdict"] == "selected")).all()
    assert verdicts["value"].null_count() == 0
    assert set(verdicts["rules"]) <= {RULES_VERSION}
    assert sum(selection.counts_by_rule.values()) == len(rows) - selection.card.height


def check_card(selection: Selection, cut: int) -> None:
    """The card holds at most ``cut`` questions, and each of them passes every rule."""
    card = selection.card
    assert card.height <= cut
    assert card["place"].to_list() == list(range(1, card.height + 1))
    assert card["rank"].is_sorted() and card["market_id"].is_unique().all()
    assert card["event_id"].is_unique().all()
    questions = [_stem(q) for q in card["question"].to_list()]
    assert len(set(questions)) == len(questions)
    keys = [_keys(row) for row in card.to_dicts()]
    assert all(not (a & b) for i, a in enumerate(keys) for b in keys[i + 1 :])
    for row in card.to_dicts():
        assert row["active"] is True and row["closed"] is False and row["accepting_orders"] is not False
        assert row["outcomes"] == ["Yes", "No"]
        assert row["price"] is not None and 0.0 <= row["price"] <= 1.0
        assert row["interest"] >= FLOOR
        assert SEAL < row["end_date_ts"] <= SEAL + WINDOW
        for column in ("game_start_time_ts", "market_event_start_time_ts", "event_start_time_ts"):
            assert row[column] is None or row[column] >= SEAL
        assert row["market_id"] not in HISTORY["market_id"].to_list()
    assert selection.total_doubt_bits == math.fsum(card["doubt_bits"].to_list())


def check_ranking(selection: Selection, cut: int) -> None:
    """Ranks run 1..n by falling doubt; places run 1..m in rank order; the cut reads places."""
    verdicts = selection.verdicts
    ranked = verdicts.filter(pl.col("rank").is_not_null()).sort("rank")
    assert ranked["rank"].to_list() == list(range(1, ranked.height + 1))
    doubts = ranked["doubt_bits"].to_list()
    assert all(a >= b for a, b in itertools.pairwise(doubts))
    placed = verdicts.filter(pl.col("place").is_not_null()).sort("place")
    assert placed["place"].to_list() == list(range(1, placed.height + 1))
    assert placed["rank"].is_sorted()
    assert ((placed["place"] <= cut) == (placed["verdict"] == "selected")).all()
    # A question set aside as alike names a question on the list the cut reads.
    listed = set(placed["market_id"])
    for value in verdicts.filter(pl.col("rule") == "one_of_a_kind")["value"]:
        assert value.rsplit(" ", 1)[1] in listed


@PROPERTIES
@given(rows=sweeps(), cut=st.sampled_from([1, 3, 25]))
def test_every_verdict_is_the_rules_and_partitions_the_sweep(rows, cut):
    selection = _select(rows, cut)
    got = {
        market_id: (rule, rank, place)
        for market_id, rule, rank, place in selection.verdicts.select(
            "market_id", "rule", "rank", "place"
        ).iter_rows()
    }
    assert got == rederive(rows, HISTORY, cut)
    check_partition(rows, selection)
    check_card(selection, cut)
    check_ranking(selection, cut)


@FEWER
@given(rows=sweeps(), cut=st.sampled_from([1, 3, 25]))
def test_a_card_re_derives_under_the_reading_its_own_verdicts_name(rows, cut):
    # Judged under either reading of one_of_a_kind, a card's recorded values name the reading that
    # re-derives it exactly: version 2 only where it excluded what version 1 would not have.
    for reading in (ONE_OF_A_KIND_READING_1, ONE_OF_A_KIND_READING):
        recorded = select_card(_frame(rows), seal=SEAL, history=HISTORY, cut=cut, one_of_a_kind=reading)
        again = reading_of(recorded.verdicts["value"])
        assert again == reading or (again, reading) == (ONE_OF_A_KIND_READING_1, ONE_OF_A_KIND_READING)
        rederived = select_card(_frame(rows), seal=SEAL, history=HISTORY, cut=cut, one_of_a_kind=again)
        assert_frame_equal(rederived.verdicts, recorded.verdicts, check_exact=True)


@FEWER
@given(rows=sweeps(), cut=st.sampled_from([1, 3, 25]), data=st.data())
def test_the_input_order_changes_nothing(rows, cut, data):
    shuffled = data.draw(st.permutations(rows))
    first, second = _select(rows, cut), _select(shuffled, cut)
    # Exactly: a published price or doubt may not move by one ulp with the order rows arrived in.
    assert_frame_equal(first.verdicts, second.verdicts, check_exact=True)
    assert_frame_equal(first.card, second.card, check_exact=True)
    assert first.total_doubt_bits == second.total_doubt_bits


@FEWER
@given(rows=sweeps(), day=st.integers(-40_000, 40_000))
def test_rotation_is_a_relabelled_cyclic_shift(rows, day):
    card = _select(rows, 25).card
    rotated = rotate(card, day)
    n = card.height
    assert rotated.height == n
    assert rotated["label"].to_list() == [f"M{i:02d}" for i in range(1, n + 1)]
    if n:
        start = (day % 25) % n
        assert rotated["place"].to_list() == [(start + i) % n + 1 for i in range(n)]


_ANY_FLOAT = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True))
_ANY_TEXT = st.one_of(st.none(), st.text(max_size=12))
_ANY_INSTANT = st.one_of(
    st.none(),
    st.datetimes(
        min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2200, 1, 1), timezones=st.just(dt.UTC)
    ),
)


@st.composite
def garbage(draw: st.DrawFn) -> dict[str, Any]:
    """A row of the verbatim schema with any value of each column's type in any field."""
    row: dict[str, Any] = dict.fromkeys(VERBATIM_SCHEMA)
    for name in ("market_id", "event_id", "question", "game_id", "event_game_id", "event_title"):
        row[name] = draw(_ANY_TEXT)
    for name in ("outcomes", "outcome_prices"):
        row[name] = draw(st.one_of(st.none(), st.lists(_ANY_TEXT, max_size=3)))
    for name in ("best_bid", "best_ask", "last_trade_price", "event_volume_24hr", "event_liquidity"):
        row[name] = draw(_ANY_FLOAT)
    for name in ("active", "closed", "accepting_orders"):
        row[name] = draw(st.one_of(st.none(), st.booleans()))
    for name in ("end_date_ts", "start_date_ts", "game_start_time_ts", "market_event_start_time_ts"):
        row[name] = draw(_ANY_INSTANT)
    row["sports_market_type"] = draw(st.sampled_from([None, "moneyline"]))
    return row


@FEWER
@given(rows=st.lists(garbage(), max_size=12))
def test_no_value_of_the_right_type_makes_the_selection_raise(rows):
    selection = _select(rows, 25)
    assert selection.verdicts.height == len(rows)
    assert selection.verdicts["value"].null_count() == 0
    assert selection.card.height <= 25
