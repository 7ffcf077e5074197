"""The independent audit of a card's selection: a real selection passes it, and every tampering is named.

Each tampering changes the selection's verdicts (or the copy they were made from) in one way that
breaks one published rule, and the audit must name the market and that rule, and nothing else.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colosseum_core.exchanges.polymarket.markets import VERBATIM_SCHEMA
from colosseum_core.forecast.rules import ONE_OF_A_KIND_READING_1
from colosseum_core.forecast.selection import select_card
from colosseum_core.forecast.selection.audit import (
    audit_selection,
    doubt,
    seal_price,
    seal_price_readings,
    verdict_partition_violations,
)
from tests.support.verbatim_rows import SEAL, US, H, market


def at(p: float) -> dict[str, Any]:
    """Book fields pricing a market at ``p`` by the midpoint of a one-cent book."""
    return {"best_bid": round(p - 0.005, 4), "best_ask": round(p + 0.005, 4)}


def frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=VERBATIM_SCHEMA).with_columns(
        card=pl.lit("2026-11-29-1000"), id=pl.format("id-{}", pl.col("market_id"))
    )


LOW = at(0.9)  # doubt 0.469 bits: below every good market, so a promoted bad market ranks last
POWELL = "What will Powell say during the post-meeting press conference on December 1?"

# Six good markets, most doubtful first, read from each of the three price sources, with the edges
# of the rules they pass: an interest on the floor, ends 1 µs and exactly 96 h after the seal, a
# start exactly at the seal.
GOOD = [
    market(1, **at(0.5), event_title=POWELL),
    market(
        2,
        best_bid=0.45,
        best_ask=0.55,
        event_volume_24hr=2_500.0,
        event_liquidity=None,
        event_title="Herons vs. Lynx",
        game_start_time_ts=SEAL + 5 * H,
    ),
    market(3, **at(0.6), event_game_id="g-3"),
    market(4, best_bid=0.2, best_ask=0.9, last_trade_price=0.35, end_date_ts=SEAL + US),
    market(5, best_bid=None, best_ask=None, last_trade_price=None, outcome_prices=["0.3", "0.7"]),
    market(6, **at(0.75), end_date_ts=SEAL + 96 * H, event_start_time_ts=SEAL),
]
# Markets the selection excludes, one per rule, each priced below every good one.
BAD = {
    "101": ("gradeable", market(101, **LOW, outcomes=["Up", "Down"], outcome_prices=["0.9", "0.1"])),
    "102": ("tomorrow_only", market(102, **LOW, event_start_time_ts=SEAL - US)),
    "103": ("settles_soon", market(103, **LOW, end_date_ts=SEAL + 97 * H)),
    "104": ("real_money", market(104, **LOW, event_volume_24hr=2_000.0, event_liquidity=1_500.0)),
    "105": ("once_ever", market(105, **LOW)),
    "106": ("once_ever", market(106, **LOW, question="WILL the old question  resolve?!")),
    "107": ("one_per_family", market(107, **LOW, event_id="e1")),
    "108": ("one_of_a_kind", market(108, **LOW, question="will EVENT 2 happen")),
    "109": ("one_of_a_kind", market(109, **LOW, game_id="g-3")),
    # One real-world event under another event id: market 1's title on its day (SEAL + 48 h and
    # SEAL + 60 h are both December 1 in New York), market 2's fixture written the other way round.
    "113": ("one_of_a_kind", market(113, **LOW, event_title=POWELL.upper(), end_date_ts=SEAL + 60 * H)),
    "114": (
        "one_of_a_kind",
        market(114, **LOW, event_title="Lynx @ Herons - More Markets", event_start_time_ts=SEAL + 7 * H),
    ),
    "110": ("open", market(110, **LOW, closed=True)),
    "111": ("open", market(111, **LOW, accepting_orders=False)),
    "112": ("open", market(112, **LOW, active=False)),
}
HISTORY = pl.DataFrame(
    {
        "card": ["2026-11-28-1800", "2026-11-27-0500", "2026-11-29-1000", "2026-11-29-1800"],
        "market_id": ["105", "900", "1", "6"],
        "label": ["M07", "M01", "M01", "M02"],
        # The card itself and a later one are not "earlier": markets 1 and 6 stay on the card.
        "question": ["Old text?", "Will the old question resolve", "Will event 1 happen?", "x"],
    }
)
ROWS = [*GOOD, *(row for _, row in BAD.values())]
VERBATIM = frame(ROWS)


def select(rows: list[dict[str, Any]] | pl.DataFrame, cut: int = 25) -> pl.DataFrame:
    table = rows if isinstance(rows, pl.DataFrame) else frame(rows)
    return select_card(table, seal=SEAL, history=HISTORY, cut=cut).verdicts


def audit(verdicts: pl.DataFrame, verbatim: pl.DataFrame = VERBATIM, cut: int = 25) -> list[str]:
    return audit_selection(verbatim, verdicts, seal=SEAL, history=HISTORY, cut=cut)


_NAMED = re.compile(r"^market (\S+): (\w+): ")


def named(violations: list[str]) -> set[tuple[str, str]]:
    """(market id, rule) of every violation; each must have the published shape."""
    found = set()
    for text in violations:
        match = _NAMED.match(text)
        assert match, text
        found.add((match[1], match[2]))
    return found


def where(market_id: str) -> pl.Expr:
    return pl.col("market_id") == market_id


def tamper(verdicts: pl.DataFrame, market_id: str, **values: Any) -> pl.DataFrame:
    """``verdicts`` with ``values`` written onto the row of ``market_id``."""
    assert verdicts.filter(where(market_id)).height == 1
    return verdicts.with_columns(
        [
            pl.when(where(market_id))
            .then(pl.lit(value, dtype=verdicts.schema[name]))
            .otherwise(name)
            .alias(name)
            for name, value in values.items()
        ]
    )


def promote(verdicts: pl.DataFrame, market_id: str) -> pl.DataFrame:
    """The excluded ``market_id`` put on the card in the next place, as if no rule had excluded it."""
    selected = verdicts.filter(pl.col("verdict") == "selected")
    return tamper(
        verdicts,
        market_id,
        verdict="selected",
        rule=None,
        place=selected.height + 1,
        rank=int(verdicts["rank"].max() or 0) + 1,
    )


@pytest.fixture(scope="module")
def verdicts() -> pl.DataFrame:
    return select(ROWS)


def test_the_board_is_what_the_tests_assume(verdicts):
    by_id = {row["market_id"]: row for row in verdicts.to_dicts()}
    assert [
        row["market_id"] for row in verdicts.filter(pl.col("verdict") == "selected").sort("place").to_dicts()
    ] == [
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
    ]
    assert {by_id[m]["price_source"] for m in ("2", "4", "5")} == {"midpoint", "last_trade", "outcome_price"}
    for market_id, (rule, _) in BAD.items():
        assert by_id[market_id]["rule"] == rule, market_id


def test_a_real_selection_passes(verdicts):
    assert audit(verdicts) == []
    assert verdict_partition_violations(VERBATIM["market_id"], verdicts) == []


def test_a_real_selection_with_a_cut_passes():
    verdicts = select(ROWS, cut=4)
    assert verdicts.filter(pl.col("rule") == "the_cut")["market_id"].to_list() == ["5", "6"]
    assert audit(verdicts, cut=4) == []


def test_an_empty_sweep_passes():
    empty = frame([])
    assert audit(select(empty), empty) == []


@pytest.mark.parametrize("market_id", sorted(BAD))
def test_a_question_a_rule_excluded_is_named_when_put_on_the_card(verdicts, market_id):
    rule, _ = BAD[market_id]
    assert named(audit(promote(verdicts, market_id))) == {(market_id, rule)}


def test_the_named_numbers_are_exact(verdicts):
    [late] = audit(promote(verdicts, "103"))
    assert "97:00:00 after the seal" in late
    [started] = audit(promote(verdicts, "102"))
    assert "0:00:00.000001 before the seal" in started
    thin = audit(promote(verdicts, "104"))
    assert thin == ["market 104: real_money: event e104 interest 2000.0 is below the floor 2500.0"]
    [updown] = audit(promote(verdicts, "101"))
    assert "['Up', 'Down']" in updown
    [alike] = audit(promote(verdicts, "109"))
    assert "game id g-3 with selected market 3" in alike
    [title] = audit(promote(verdicts, "113"))
    assert (
        "event title 'what will powell say during the post meeting press conference on december 1' "
        "on 2026-12-01 with selected market 1" in title
    )
    [teams] = audit(promote(verdicts, "114"))
    assert "fixture teams 'herons' and 'lynx' on 2026-11-29 with selected market 2" in teams


def test_one_real_world_event_is_audited_under_the_reading_the_card_was_judged_under(verdicts):
    both = promote(promote(verdicts, "113"), "114")
    assert named(audit(both)) == {("113", "one_of_a_kind"), ("114", "one_of_a_kind")}
    # Under COLOSSEUM-ONE-OF-A-KIND-1 two listings of one event were two questions.
    old = audit_selection(VERBATIM, both, seal=SEAL, history=HISTORY, one_of_a_kind=ONE_OF_A_KIND_READING_1)
    assert old == []
    with pytest.raises(ValueError, match="unknown one_of_a_kind reading"):
        audit_selection(VERBATIM, both, seal=SEAL, one_of_a_kind="COLOSSEUM-ONE-OF-A-KIND-0")


@pytest.mark.parametrize(
    ("first", "second", "alike"),
    [
        (("Herons vs. Lynx", 5), ("lynx v. HERONS", 6), True),
        (("UFC Fight Night: Herons vs. Lynx", 5), ("Lynx @ Herons (rescheduled)", 6), True),
        (("Herons vs. Lynx", 5), ("Herons vs. Lynx", 29), False),  # the next New York day
        (("Herons vs. Lynx", 5), ("Herons vs. Ospreys", 6), False),
        (("Herons vs Lynx vs Ospreys", 5), ("Herons vs. Lynx", 6), False),
    ],
)
def test_two_selected_listings_of_one_fixture_are_named(first, second, alike):
    # Two fixtures on their own events and game ids, both selected: alike only when the titles name
    # the same two teams on one New York date of the game's start.
    rows = [
        market(301, **at(0.5), event_title=first[0], game_id="g1", game_start_time_ts=SEAL + first[1] * H),
        market(302, **at(0.6), event_title=second[0], game_id="g2", game_start_time_ts=SEAL + second[1] * H),
    ]
    table = frame(rows)
    verdicts = select(table)
    assert (verdicts.filter(where("302"))["rule"].to_list() == ["one_of_a_kind"]) is alike
    kept = promote(verdicts, "302") if alike else verdicts
    assert kept.filter(pl.col("verdict") == "selected").height == 2
    assert named(audit(kept, table)) == ({("302", "one_of_a_kind")} if alike else set())


@pytest.mark.parametrize(
    "column", ["event_start_time_ts", "market_event_start_time_ts", "game_start_time_ts"]
)
def test_every_start_stamp_before_the_seal_is_named(verdicts, column):
    started = frame([market(1, **at(0.5), **{column: SEAL - H}), *ROWS[1:]])
    assert named(audit(verdicts, started)) == {("1", "tomorrow_only")}
    at_seal = frame([market(1, **at(0.5), **{column: SEAL}), *ROWS[1:]])
    assert audit(verdicts, at_seal) == []


@pytest.mark.parametrize(
    ("fields", "rules"),
    [
        # A copied end that moved also disagrees with the end on the record.
        ({"end_date_ts": SEAL + 96 * H + US}, {"settles_soon", "verbatim"}),
        ({"end_date_ts": SEAL}, {"settles_soon", "verbatim"}),
        ({"end_date_ts": None}, {"settles_soon", "verbatim"}),
        ({"outcomes": ["No", "Yes"]}, {"gradeable"}),
        ({"accepting_orders": None}, set()),  # an absent gate is open
        ({"active": None}, {"open"}),
        ({"closed": None}, {"open"}),
        # A thinner copied event also disagrees with the interest on the record.
        ({"event_volume_24hr": 2_499.99}, {"real_money"}),
    ],
)
def test_a_selected_market_whose_copy_breaks_a_rule(verdicts, fields, rules):
    copy = frame([*ROWS[:1], {**ROWS[1], **fields}, *ROWS[2:]])
    assert named(audit(verdicts, copy)) == {("2", rule) for rule in rules}


def test_a_wrong_price_is_named(verdicts):
    assert named(audit(tamper(verdicts, "3", price=0.61))) == {("3", "priced")}
    [text] = audit(tamper(verdicts, "3", price=0.61))
    assert "recorded price 0.61 (midpoint)" in text and "gives 0.6 (midpoint" in text


@pytest.mark.parametrize(
    ("market_id", "source"), [("4", "midpoint"), ("2", "last_trade"), ("5", "last_trade")]
)
def test_a_wrong_price_source_is_named(verdicts, market_id, source):
    assert named(audit(tamper(verdicts, market_id, price_source=source))) == {(market_id, "priced")}


def test_a_wrong_doubt_is_named(verdicts):
    recorded = verdicts.filter(where("3"))["doubt_bits"].item()
    assert named(audit(tamper(verdicts, "3", doubt_bits=recorded + 1e-9))) == {("3", "ranking")}
    # Within 1e-12 is the same doubt.
    assert audit(tamper(verdicts, "3", doubt_bits=recorded + 1e-13)) == []


def test_a_wrong_interest_is_named(verdicts):
    assert named(audit(tamper(verdicts, "2", interest=2_600.0))) == {("2", "real_money")}


def test_a_question_on_an_earlier_card_is_named_by_id_and_by_stem(verdicts):
    [by_id] = audit(promote(verdicts, "105"))
    assert "on earlier card 2026-11-28-1800 as M07" in by_id
    [by_stem] = audit(promote(verdicts, "106"))
    assert "'will the old question resolve'" in by_stem and "2026-11-27-0500 as M01" in by_stem


def test_a_history_card_sealed_at_or_after_the_seal_does_not_count(verdicts):
    later = pl.DataFrame(
        {"card": ["2026-11-29-1800"], "market_id": ["1"], "label": ["M01"], "question": ["?"]}
    )
    assert audit_selection(VERBATIM, verdicts, seal=SEAL, history=later) == []
    earlier = later.with_columns(card=pl.lit("2026-11-29-0500"))
    assert named(audit_selection(VERBATIM, verdicts, seal=SEAL, history=earlier)) == {("1", "once_ever")}


def test_two_from_one_event_and_two_with_one_stem_name_the_other(verdicts):
    [family] = audit(promote(verdicts, "107"))
    assert "shares event e1 with selected market 1" in family
    [stem] = audit(promote(verdicts, "108"))
    assert "question stem 'will event 2 happen' with selected market 2" in stem


def test_a_swapped_place_order_is_named(verdicts):
    swapped = tamper(tamper(verdicts, "1", place=2), "2", place=1)
    found = audit(swapped)
    assert named(found) == {("1", "the_cut"), ("1", "ranking")}
    assert all("market 2 at place 1" in text for text in found)


def test_an_equal_doubt_ranks_more_money_first():
    # p and 1 − p carry one doubt exactly; market 21's event holds more money, so it ranks first.
    rows = [market(20, **at(0.4)), market(21, **at(0.6), event_volume_24hr=20_000.0)]
    verdicts = select(rows)
    assert verdicts.sort("place")["market_id"].to_list() == ["21", "20"]
    assert audit(verdicts, frame(rows)) == []
    swapped = tamper(tamper(verdicts, "21", place=2, rank=2), "20", place=1, rank=1)
    assert named(audit(swapped, frame(rows))) == {("21", "ranking")}


def test_a_question_missing_from_the_copy_is_named(verdicts):
    assert named(audit(verdicts, VERBATIM.filter(~where("4")))) == {("4", "verbatim")}


@pytest.fixture(scope="module")
def long_board() -> tuple[pl.DataFrame, pl.DataFrame]:
    """27 good markets of falling doubt on their own events: 25 on the card, 2 below the cut."""
    rows = [market(200 + i, **at(0.5 + i * 0.015)) for i in range(27)]
    table = frame(rows)
    return table, select(table)


def test_a_long_board_passes(long_board):
    table, verdicts = long_board
    assert verdicts.filter(pl.col("rule") == "the_cut").sort("place")["market_id"].to_list() == ["225", "226"]
    assert audit(verdicts, table) == []


def test_a_card_padded_past_the_cut_is_named(long_board):
    table, verdicts = long_board
    padded = tamper(verdicts, "225", verdict="selected", rule=None)
    assert named(audit(padded, table)) == {("225", "the_cut")}
    [text] = audit(padded, table)
    assert "holds 26 questions and the cut is 25" in text


def test_a_short_card_while_a_cut_question_waits_is_named(long_board):
    table, verdicts = long_board
    short = tamper(verdicts, "224", verdict="excluded", rule="the_cut")
    assert named(audit(short, table)) == {("224", "the_cut")}
    [text] = audit(short, table)
    assert "holds only 24 of 25 questions" in text


def test_a_short_card_with_nothing_below_the_cut_passes(verdicts):
    # Six questions for a card of 25: a short card, never padded, and nothing left to fill it.
    assert verdicts.filter(pl.col("verdict") == "selected").height == 6
    assert audit(verdicts) == []


def test_a_cut_question_placed_ahead_of_the_card_is_named(long_board):
    table, verdicts = long_board
    ahead = tamper(verdicts, "225", place=3)
    assert named(audit(ahead, table)) == {("225", "the_cut")}


def test_a_cut_question_with_more_doubt_than_the_card_is_named(long_board):
    table, verdicts = long_board
    # The copy says market 226 was the most doubtful of all, yet the selection left it below the cut.
    doubtful = table.with_columns(
        best_bid=pl.when(where("226")).then(0.495).otherwise("best_bid"),
        best_ask=pl.when(where("226")).then(0.505).otherwise("best_ask"),
    )
    assert named(audit(verdicts, doubtful)) == {("226", "ranking")}


def test_a_cut_question_ranked_ahead_of_the_card_is_named(long_board):
    table, verdicts = long_board
    assert named(audit(tamper(verdicts, "225", rank=3), table)) == {("225", "the_cut")}


def test_a_history_key_that_names_no_seal_counts_as_earlier(verdicts):
    # "Never again" errs toward excluding: a card key that is not a seal time can not be later.
    for key in ("2026-11-29-1400", "not a key"):
        odd = pl.DataFrame({"card": [key], "market_id": ["1"], "label": ["M01"], "question": ["?"]})
        assert named(audit_selection(VERBATIM, verdicts, seal=SEAL, history=odd)) == {("1", "once_ever")}


def test_a_selected_verdict_naming_a_rule_or_other_rules_is_named(verdicts):
    assert named(audit(tamper(verdicts, "3", rule="the_cut"))) == {("3", "verdict")}
    assert named(audit(tamper(verdicts, "3", rules="SLATE-LAWS-3.6"))) == {("3", "verdict")}
    assert named(audit(tamper(verdicts, "101", verdict="maybe"))) == {("101", "verdict")}


def test_a_selected_market_copied_twice_is_named(verdicts):
    twice = pl.concat([VERBATIM, VERBATIM.filter(where("2"))])
    assert named(audit(verdicts, twice)) == {("2", "verbatim")}


def test_places_must_run_from_one_without_gaps(verdicts):
    assert named(audit(tamper(verdicts, "6", place=7))) == {("6", "the_cut")}
    assert named(audit(tamper(verdicts, "6", place=5))) == {("6", "the_cut")}


def test_the_audit_refuses_a_naive_seal_or_a_bad_cut(verdicts):
    with pytest.raises(ValueError, match="timezone-aware"):
        audit_selection(VERBATIM, verdicts, seal=SEAL.replace(tzinfo=None))
    with pytest.raises(ValueError, match="cut"):
        audit_selection(VERBATIM, verdicts, seal=SEAL, cut=0)


# --------------------------------------------------------------------------------------------
# The partition


def test_a_missing_verdict_is_named(verdicts):
    found = verdict_partition_violations(VERBATIM["market_id"], verdicts.filter(~where("104")))
    assert named(found) == {("104", "partition")}


def test_a_duplicate_verdict_is_named(verdicts):
    found = verdict_partition_violations(
        VERBATIM["market_id"], pl.concat([verdicts, verdicts.filter(where("3"))])
    )
    assert found == ["market 3: partition: has 2 verdicts"]


def test_a_verdict_for_an_unknown_market_is_named(verdicts):
    stray = verdicts.filter(where("3")).with_columns(market_id=pl.lit("999"))
    found = verdict_partition_violations(VERBATIM["market_id"], pl.concat([verdicts, stray]))
    assert named(found) == {("999", "partition")}


# --------------------------------------------------------------------------------------------
# The price rule and doubt, re-derived


@pytest.mark.parametrize(
    ("fields", "price", "source"),
    [
        ({"best_bid": 0.45, "best_ask": 0.55}, 0.5, "midpoint"),  # $0.10 exactly, though not in floats
        ({"best_bid": 0.45, "best_ask": 0.551, "last_trade_price": 0.3}, 0.3, "last_trade"),
        (
            {"best_bid": 0.0, "best_ask": 1.0, "last_trade_price": 0.0, "outcome_prices": ["0.5", "0.5"]},
            0.5,
            "outcome_price",
        ),
        (
            {"best_bid": None, "best_ask": None, "last_trade_price": None, "outcome_prices": ["0", "1"]},
            0.0,
            "outcome_price",
        ),
        ({"best_bid": 0.0105, "best_ask": 0.0115}, 0.011, "midpoint"),
        (
            {"best_bid": None, "best_ask": None, "last_trade_price": None, "outcome_prices": ["n/a", "x"]},
            None,
            None,
        ),
    ],
)
def test_seal_price(fields, price, source):
    got = seal_price(market(1, **fields))
    assert (got and got.dollars, got and got.source) == (price, source)


def test_a_tie_on_a_half_micro_dollar_allows_either_neighbour():
    readings = seal_price_readings(market(1, best_bid=None, best_ask=None, last_trade_price=0.5206125))
    assert sorted(reading.dollars for reading in readings) == [0.520612, 0.520613]


def test_doubt():
    assert doubt(0.5) == 1.0
    assert doubt(0.0) == doubt(1.0) == 0.0
    assert doubt(0.3) == doubt(0.7)


# --------------------------------------------------------------------------------------------
# Generated sweeps: whatever the board, a real selection passes the audit.

_BOOKS = [
    (0.45, 0.55),
    (0.7, 0.8),
    (0.45, 0.551),
    (0.3, 0.31),
    (0.5, 0.5),
    (None, 0.55),
    (0.0, 1.0),
    (None, None),
]
_QUESTIONS = ["Will A win?", "will a win", "Will B win?", "Over 2.5 goals?", "Over 25 goals?"]


def _generated(seed: int) -> list[dict[str, Any]]:
    draw = random.Random(seed)
    rows = []
    for ident in draw.sample(range(1, 60), draw.randint(0, 35)):
        bid, ask = draw.choice(_BOOKS)
        start = draw.choice([None] * 8 + [-US, dt.timedelta(0), H])
        rows.append(
            market(
                ident,
                event_id=draw.choice(["e1", "e2", "e3", "e4", "e5", "e6"]),
                question=draw.choice([*_QUESTIONS, *[f"Question {ident}?"] * 6]),
                outcomes=draw.choice([["Yes", "No"]] * 12 + [["Up", "Down"]]),
                outcome_prices=draw.choice([["0.5", "0.5"], ["0.3", "0.7"], None]),
                best_bid=bid,
                best_ask=ask,
                last_trade_price=draw.choice([0.3, 0.5, 0.7, 0.01, None, 0.0]),
                event_volume_24hr=draw.choice([None, 2_499.99, 2_500.0, 10_000.0, 10_000.0]),
                event_liquidity=draw.choice([None, 0.0, 10_000.0]),
                end_date_ts=SEAL + draw.choice([US, 48 * H, 96 * H, 96 * H, 48 * H, 96 * H + US, -H]),
                accepting_orders=draw.choice([True, None, True, True, False]),
                game_id=draw.choice([None, None, None, "g1", "g2", ""]),
                event_game_id=draw.choice([None, None, None, "g1"]),
                sports_market_type=draw.choice([None, "moneyline"]),
                event_title=draw.choice(["A vs B", "a vs. b", "B @ A", "Cup: a v B (G2)", "Will A?", None]),
                event_end_date_ts=draw.choice([None, SEAL + 20 * H, SEAL + 44 * H]),
                game_start_time_ts=None if start is None else SEAL + start,
            )
        )
    return rows


@pytest.mark.parametrize("seed", range(24))
def test_a_real_selection_of_a_generated_sweep_passes(seed):
    rows = _generated(seed)
    table = frame(rows)
    cut = (1, 3, 25)[seed % 3]
    verdicts = select(table, cut=cut)
    assert audit(verdicts, table, cut=cut) == []
    assert verdict_partition_violations(table["market_id"], verdicts) == []


# Titles built from the pieces the title reading turns on, spaced in every way, so that the two
# readings of a fixture's title (the selection's expressions, the audit's plain Python) meet every edge.
_NAMES = ["Herons", "HERONS", "herons!", "Lynx", "lynx", "St. Lynx", "Ospreys", "", "v"]
_JOINS = ["vs", "VS.", "v", "v.", "Vs", "@", "versus", "vſ", "vs..", ":", "-"]
_PREFIXES = ["", "", "Cup: ", "Fight Night:", "Herons vs Lynx: ", "(Cup) ", "Cup - "]
_SUFFIXES = ["", "", " - More Markets", " (BO3)", " \u2013 Final", " | G1", ": Map 1", " vs Ospreys", "(x"]
_GAPS = [" ", " ", " ", "", "  ", "\u00a0", "\t", "\x1f", "\u2003", "\u200b"]
_PIECES = [*_NAMES, *_JOINS, *_PREFIXES, *_SUFFIXES]
_NOISE = st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_GAPS)), max_size=7).map(
    lambda parts: "".join(piece + gap for piece, gap in parts)
)


@st.composite
def _listings(draw: st.DrawFn) -> tuple[str, str]:
    """Two titles: mostly one pair of names dressed twice (either order, any join, spacing, prefix and
    suffix), sometimes any text at all."""
    a, b = draw(st.sampled_from(_NAMES)), draw(st.sampled_from(_NAMES))

    def dressed(first: str, second: str) -> str:
        gaps = draw(st.tuples(st.sampled_from(_GAPS), st.sampled_from(_GAPS)))
        join, prefix, suffix = (draw(st.sampled_from(pool)) for pool in (_JOINS, _PREFIXES, _SUFFIXES))
        return f"{prefix}{first}{gaps[0]}{join}{gaps[1]}{second}{suffix}"

    def or_noise(title: str) -> str:
        return draw(_NOISE) if draw(st.integers(0, 4)) == 0 else title

    return or_noise(dressed(a, b)), or_noise(dressed(*draw(st.permutations([a, b]))))


@settings(max_examples=150, deadline=None)
@given(titles=_listings(), hours=st.sampled_from([6, 6, 18, 30]))
def test_the_audit_reads_titles_as_the_selection_does(titles, hours):
    first, second = titles
    rows = [
        market(301, **at(0.5), event_title=first, game_id="g1", game_start_time_ts=SEAL + 5 * H),
        market(302, **at(0.6), event_title=second, game_id="g2", game_start_time_ts=SEAL + hours * H),
    ]
    table = frame(rows)
    verdicts = select(table)
    if verdicts.filter(where("302"))["rule"].to_list() == ["one_of_a_kind"]:
        assert named(audit(promote(verdicts, "302"), table)) == {("302", "one_of_a_kind")}
    else:
        assert audit(verdicts, table) == []
