"""SLATE-LAWS-3.7: each selection rule with its edges, the price at seal, the ranking and the rotation."""

from __future__ import annotations

import datetime as dt
import itertools
import math
from typing import Any

import polars as pl
import pytest

from colosseum_core.exchanges.polymarket.markets import VERBATIM_SCHEMA
from colosseum_core.forecast.rules import ONE_OF_A_KIND_READING, ONE_OF_A_KIND_READING_1, SLATE_LAWS
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.selection import (
    ONE_OF_A_KIND_READINGS,
    RULE_ORDER,
    RULES_VERSION,
    VERDICT_SCHEMA,
    Selection,
    question_stem,
    reading_of,
    select_card,
)
from colosseum_core.forecast.selection.one_of_a_kind import event_date, fixture_teams
from colosseum_core.forecast.selection.pricing import doubt_bits, with_seal_price
from colosseum_core.forecast.selection.rotation import label, rotate, rotation_offset
from colosseum_core.forecast.sweep.copy import copy_markets
from colosseum_core.record import ReceiptStore, RequestTrace
from tests.support import FIXTURES
from tests.support.verbatim_rows import CARD, SEAL, US, H, market

POLYMARKET = FIXTURES / "polymarket"


def frame(*rows: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=VERBATIM_SCHEMA)


def verdict_of(selection: Selection, market_id: str | int) -> dict[str, Any]:
    [row] = selection.verdicts.filter(pl.col("market_id") == str(market_id)).to_dicts()
    return row


def judge(*rows: dict[str, Any], **options: Any) -> Selection:
    return select_card(frame(*rows), seal=options.pop("seal", SEAL), **options)


def priced(p: float, **fields: Any) -> dict[str, Any]:
    """Book fields that price a market at ``p`` by the midpoint of a one-cent book around it."""
    return {"best_bid": round(p - 0.005, 4), "best_ask": round(p + 0.005, 4), **fields}


# --------------------------------------------------------------------------------------------
# Price at seal


@pytest.mark.parametrize(
    ("bid", "ask", "last", "outcome_prices", "price", "source"),
    [
        # $0.10 spreads that floats get wrong (0.55 − 0.45 = 0.10000000000000003, …) pass exactly.
        (0.45, 0.55, 0.30, ["0.6", "0.4"], 0.5, "midpoint"),
        (0.70, 0.80, 0.30, ["0.6", "0.4"], 0.75, "midpoint"),
        (0.33, 0.43, 0.30, ["0.6", "0.4"], 0.38, "midpoint"),
        (0.56, 0.66, 0.30, ["0.6", "0.4"], 0.61, "midpoint"),
        (0.41, 0.44, 0.43, ["0.425", "0.575"], 0.425, "midpoint"),
        (0.5, 0.5, 0.30, ["0.5", "0.5"], 0.5, "midpoint"),  # a locked book: spread 0
        (0.0105, 0.0115, 0.30, ["0.011", "0.989"], 0.011, "midpoint"),
        # $0.101 is over the limit: the last trade decides.
        (0.45, 0.551, 0.30, ["0.5005", "0.4995"], 0.30, "last_trade"),
        (0.06, 0.99, 0.51, ["0.525", "0.475"], 0.51, "last_trade"),
        # One-sided books: no midpoint.
        (None, 0.55, 0.52, ["0.5", "0.5"], 0.52, "last_trade"),
        (0.45, None, 0.52, ["0.5", "0.5"], 0.52, "last_trade"),
        # Gamma's "none": bid 0, ask 1, last trade 0.
        (0.0, 0.04, 0.03, ["0.02", "0.98"], 0.03, "last_trade"),
        (0.96, 1.0, 0.97, ["0.98", "0.02"], 0.97, "last_trade"),
        (0.0, 1.0, 0.0, ["0.5", "0.5"], 0.5, "outcome_price"),
        # No book and no trade: the listed Yes price.
        (None, None, None, ["0.3", "0.7"], 0.3, "outcome_price"),
        (None, 0.07, None, ["0.04", "0.96"], 0.04, "outcome_price"),
        (None, None, None, ["0", "1"], 0.0, "outcome_price"),
        # Nothing at all.
        (None, None, None, None, None, None),
        (None, None, None, [], None, None),
        (None, None, None, ["n/a", "n/a"], None, None),
    ],
)
def test_price_at_seal(bid, ask, last, outcome_prices, price, source):
    row = market(1, best_bid=bid, best_ask=ask, last_trade_price=last, outcome_prices=outcome_prices)
    got = with_seal_price(frame(row)).row(0, named=True)
    assert got["price_source"] == source
    assert got["price"] == price  # exact: the price is an integer of half micro-dollars over 2,000,000


def test_prices_and_doubts_are_the_same_floats_whatever_the_row_order():
    # A constant divisor can go through a reciprocal on some polars paths (21000 / 2e6 read as
    # 0.010499999999999999): the published price is the float nearest its decimal, always.
    listed = {"best_bid": None, "best_ask": None, "last_trade_price": None}
    rows = [
        market(1, **priced(0.5)),
        market(2, **listed, outcome_prices=["0.0105", "0.9895"]),
        market(3, **priced(0.7), last_trade_price=0.3),
    ]
    seen = set()
    for order in itertools.permutations(rows):
        got = with_seal_price(frame(*order)).sort("market_id")
        seen.add((tuple(got["price"]), tuple(got["doubt_bits"])))
    [(prices, doubts)] = seen
    assert prices == (0.5, 0.0105, 0.7)
    assert doubts[2] == doubt_bits(0.3)


def test_the_published_spread_field_is_not_what_decides_the_midpoint():
    # Gamma's spread field says 0.2, the two quotes are $0.10 apart: the quotes decide.
    row = market(1, best_bid=0.45, best_ask=0.55, spread=0.2, last_trade_price=0.3)
    assert with_seal_price(frame(row))["price_source"].to_list() == ["midpoint"]


def test_no_price_excludes_the_question_as_priced():
    row = market(1, best_bid=None, best_ask=None, last_trade_price=None, outcome_prices=None)
    got = verdict_of(judge(row), 1)
    assert (got["rule"], got["value"]) == (
        "priced",
        "no published price (no two-sided book, last trade or outcome price)",
    )
    assert got["price"] is None and got["price_source"] is None and got["rank"] is None


# --------------------------------------------------------------------------------------------
# Doubt


@pytest.mark.parametrize(
    ("p", "bits"),
    [
        (0.5, 1.0),
        (0.0, 0.0),
        (1.0, 0.0),
        (0.25, 0.8112781244591328),
        (0.1, 0.4689955935892812),
        (0.9, 0.4689955935892812),
    ],
)
def test_doubt_formula(p, bits):
    assert doubt_bits(p) == pytest.approx(bits, abs=1e-10)


def test_doubt_is_exactly_one_bit_at_a_half_and_exactly_symmetric():
    assert doubt_bits(0.5) == 1.0
    for p in (0.01, 0.1, 0.3, 0.37, 0.45, 0.499, 0.0105):
        assert doubt_bits(p) == doubt_bits(1 - p)
        assert 0.0 < doubt_bits(p) < 1.0


def test_doubt_rises_toward_a_half():
    values = [doubt_bits(p / 100) for p in range(51)]
    assert values == sorted(values) and len(set(values)) == len(values)


def test_vectorized_doubt_matches_the_formula_and_is_symmetric():
    rows = [market(i, **priced(p)) for i, p in enumerate((0.3, 0.7, 0.5, 0.105, 0.895), start=1)]
    got = dict(with_seal_price(frame(*rows)).select("market_id", "doubt_bits").iter_rows())
    assert got["3"] == 1.0
    assert got["1"] == got["2"] and got["4"] == got["5"]  # bit for bit
    for market_id, p in (("1", 0.3), ("4", 0.105)):
        assert got[market_id] == pytest.approx(-p * math.log2(p) - (1 - p) * math.log2(1 - p), rel=1e-12)


def test_doubt_at_the_bounds_is_zero_not_nan():
    rows = [market(1, best_bid=None, best_ask=None, last_trade_price=None, outcome_prices=["0", "1"])]
    assert with_seal_price(frame(*rows))["doubt_bits"].to_list() == [0.0]


# --------------------------------------------------------------------------------------------
# 1. malformed


@pytest.mark.parametrize(
    ("fields", "value"),
    [
        ({"best_ask": 1.7}, "best_ask 1.7 outside [0, 1]"),
        ({"best_bid": -0.2}, "best_bid -0.2 outside [0, 1]"),
        ({"best_bid": float("nan")}, "best_bid NaN outside [0, 1]"),
        ({"last_trade_price": 1.5}, "last_trade_price 1.5 outside [0, 1]"),
        ({"outcome_prices": ["1.2", "-0.2"]}, 'outcome_prices ["1.2", "-0.2"] outside [0, 1]'),
        ({"outcome_prices": ["0.5", "abc"]}, 'outcome_prices ["0.5", "abc"] not all numbers'),
        ({"best_bid": 0.6, "best_ask": 0.5}, "best_bid 0.6 above best_ask 0.5"),
        (
            {"end_date_ts": SEAL - 24 * H, "start_date_ts": SEAL},
            "end_date 2026-11-28T15:00:00Z before start_date 2026-11-29T15:00:00Z",
        ),
        (
            {"outcome_prices": ["0.5"]},
            'outcomes ["Yes", "No"] has 2 items but outcome_prices ["0.5"] has 1',
        ),
        (
            {"outcomes": ["Yes", "No", "Maybe"]},
            'outcomes ["Yes", "No", "Maybe"] has 3 items but outcome_prices ["0.5", "0.5"] has 2',
        ),
        ({"outcomes": None}, "outcomes not a list (absent)"),
        ({"market_id": ""}, "market_id missing"),
        ({"event_id": None}, "event_id missing"),
        ({"question": None}, "question missing"),
    ],
)
def test_malformed_names_the_field_and_the_value(fields, value):
    selection = judge(market(1, **fields), market(2))
    got = selection.verdicts.filter(pl.col("market_id") != "2").row(0, named=True)
    assert (got["verdict"], got["rule"], got["value"]) == ("excluded", "malformed", value)
    assert got["price"] is None and got["doubt_bits"] is None and got["rank"] is None
    assert verdict_of(selection, 2)["verdict"] == "selected"  # the card goes on


def test_consistent_edges_are_not_malformed():
    rows = [
        market(1, best_bid=0.0, best_ask=1.0, last_trade_price=0.0),  # Gamma's empty book
        market(2, end_date_ts=SEAL + 24 * H, start_date_ts=SEAL + 24 * H),  # end == start
        market(3, outcome_prices=None),  # absent on placeholders
        market(4, start_date_ts=None),
        market(5, outcome_prices=["1", "0"], best_bid=None, best_ask=None, last_trade_price=None),
    ]
    rules = dict(judge(*rows).verdicts.select("market_id", "rule").iter_rows())
    assert "malformed" not in rules.values()


# --------------------------------------------------------------------------------------------
# 2. open, 3. gradeable


@pytest.mark.parametrize(
    ("fields", "value"),
    [
        ({"active": False}, "active false"),
        ({"active": None}, "active absent"),
        ({"closed": True}, "closed true"),
        ({"closed": None}, "closed absent"),
        ({"accepting_orders": False}, "acceptingOrders false"),
        ({"active": False, "closed": True, "accepting_orders": False}, "active false"),
        ({"closed": True, "accepting_orders": False}, "closed true"),
    ],
)
def test_open(fields, value):
    got = verdict_of(judge(market(1, **fields)), 1)
    assert (got["rule"], got["value"]) == ("open", value)


def test_an_absent_accepting_orders_gate_passes():
    assert verdict_of(judge(market(1, accepting_orders=None)), 1)["verdict"] == "selected"


@pytest.mark.parametrize(
    ("outcomes", "value"),
    [
        (["Up", "Down"], 'outcomes ["Up", "Down"]'),
        (["No", "Yes"], 'outcomes ["No", "Yes"]'),
        (["yes", "no"], 'outcomes ["yes", "no"]'),
        (["Harbor City Herons", "Lakeside Lynx"], 'outcomes ["Harbor City Herons", "Lakeside Lynx"]'),
        (['Say "Yes"', "No"], 'outcomes ["Say \\"Yes\\"", "No"]'),
    ],
)
def test_gradeable(outcomes, value):
    got = verdict_of(judge(market(1, outcomes=outcomes)), 1)
    assert (got["rule"], got["value"]) == ("gradeable", value)


def test_three_outcomes_paired_with_three_prices_are_not_gradeable():
    got = verdict_of(
        judge(market(1, outcomes=["Yes", "No", "Void"], outcome_prices=["0.4", "0.5", "0.1"])), 1
    )
    assert (got["rule"], got["value"]) == ("gradeable", 'outcomes ["Yes", "No", "Void"]')


# --------------------------------------------------------------------------------------------
# 5. tomorrow_only


@pytest.mark.parametrize(
    ("column", "start", "value"),
    [
        ("game_start_time_ts", SEAL, None),
        ("game_start_time_ts", SEAL + US, None),
        (
            "game_start_time_ts",
            SEAL - US,
            "gameStartTime 2026-11-29T14:59:59.999999Z is 0.0 h (0:00:00.000001) before seal",
        ),
        ("game_start_time_ts", SEAL - H, "gameStartTime 2026-11-29T14:00:00Z is 1.0 h before seal"),
        ("event_start_time_ts", SEAL - 26.5 * H, "startTime 2026-11-28T12:30:00Z is 26.5 h before seal"),
        (
            "market_event_start_time_ts",
            SEAL - 0.1 * H,
            "eventStartTime 2026-11-29T14:54:00Z is 0.1 h before seal",
        ),
        (
            "market_event_start_time_ts",
            SEAL - dt.timedelta(minutes=5),
            "eventStartTime 2026-11-29T14:55:00Z is 0.0 h (0:05:00) before seal",
        ),
    ],
)
def test_tomorrow_only(column, start, value):
    got = verdict_of(judge(market(1, **{column: start})), 1)
    if value is None:
        assert got["verdict"] == "selected"
    else:
        assert (got["rule"], got["value"]) == ("tomorrow_only", value)


def test_tomorrow_only_names_the_event_start_first():
    row = market(1, event_start_time_ts=SEAL - 2 * H, game_start_time_ts=SEAL - H)
    assert verdict_of(judge(row), 1)["value"].startswith("startTime 2026-11-29T13:00:00Z")


# --------------------------------------------------------------------------------------------
# 6. settles_soon


@pytest.mark.parametrize(
    ("end", "value"),
    [
        (SEAL + 96 * H, None),
        (SEAL + US, None),
        (SEAL + 96 * H + dt.timedelta(seconds=1), "ends 96.0 h (96:00:01) after seal"),
        (SEAL + 96 * H + US, "ends 96.0 h (96:00:00.000001) after seal"),
        (SEAL + 101.5 * H, "ends 101.5 h after seal"),
        (SEAL - 3 * H, "ended 3.0 h before seal"),
        (SEAL, "ends at the seal"),
        (None, "no scheduled end (endDate absent)"),
    ],
)
def test_settles_soon(end, value):
    got = verdict_of(judge(market(1, end_date_ts=end, start_date_ts=None)), 1)
    if value is None:
        assert got["verdict"] == "selected"
    else:
        assert (got["rule"], got["value"]) == ("settles_soon", value)


# --------------------------------------------------------------------------------------------
# 7. real_money


@pytest.mark.parametrize(
    ("volume", "liquidity", "value"),
    [
        (2_500.0, None, None),
        (None, 2_500.0, None),
        (100.0, 3_000.0, None),  # the larger of the two counts
        (None, 2_499.99, "event interest $2,499.99"),
        (2_499.99, 12.0, "event interest $2,499.99"),
        (2_499.996, None, "event interest $2,499.99"),  # never shown as the floor it missed
        (1_840.0, 300.0, "event interest $1,840.00"),
        (None, None, "event interest $0.00"),  # absent keys count 0
        (0.5, None, "event interest $0.50"),
    ],
)
def test_real_money(volume, liquidity, value):
    got = verdict_of(judge(market(1, event_volume_24hr=volume, event_liquidity=liquidity)), 1)
    if value is None:
        assert got["verdict"] == "selected"
    else:
        assert (got["rule"], got["value"]) == ("real_money", value)
    expected = max(volume or 0.0, liquidity or 0.0)
    assert got["interest"] == expected


def test_real_money_excludes_every_question_of_a_thin_event():
    rows = [market(i, event_id="thin", event_volume_24hr=1_840.0, event_liquidity=None) for i in (1, 2, 3)]
    selection = judge(*rows, market(4))
    thin = selection.verdicts.filter(pl.col("event_id") == "thin")
    assert thin["rule"].to_list() == ["real_money"] * 3
    assert set(thin["value"]) == {"event interest $1,840.00"}


def test_an_event_is_thin_or_not_as_a_whole():
    # Two pages of one event published moments apart: the event's largest number counts for both.
    rows = [
        market(1, event_id="e", event_volume_24hr=None, event_liquidity=2_000.0),
        market(2, event_id="e", event_volume_24hr=2_600.0, event_liquidity=None),
    ]
    selection = judge(*rows)
    assert selection.verdicts["interest"].to_list() == [2_600.0, 2_600.0]
    assert "real_money" not in selection.verdicts["rule"].to_list()


# --------------------------------------------------------------------------------------------
# 8. once_ever

HISTORY = pl.DataFrame(
    {
        "card": ["2026-11-28-1800", "2026-11-28-1800", "2026-11-27-0500"],
        "market_id": ["501", "502", "503"],
        "label": ["M07", "M08", "M01"],
        "question": ["Will the central bank hold rates?", "Will it snow in Oslo?", "Will X happen?"],
    }
)


def test_a_question_carded_the_day_before_never_appears_again():
    selection = judge(market(501), market(900), history=HISTORY)
    got = verdict_of(selection, 501)
    assert (got["rule"], got["value"]) == ("once_ever", "on card 2026-11-28-1800 as M07")
    assert verdict_of(selection, 900)["verdict"] == "selected"


def test_once_ever_matches_the_question_stem_under_a_new_market_id():
    row = market(777, question="  will the Central Bank hold rates??  ")
    got = verdict_of(judge(row, history=HISTORY), 777)
    assert (got["rule"], got["value"]) == ("once_ever", "on card 2026-11-28-1800 as M07")


def test_once_ever_names_the_earliest_card():
    row = market(503, question="Will it snow in Oslo?")  # id on 11-27, stem on 11-28
    assert verdict_of(judge(row, history=HISTORY), 503)["value"] == "on card 2026-11-27-0500 as M01"


def test_once_ever_reads_only_cards_sealed_before_this_one():
    # The whole record, this card and a later one included: re-selecting a sealed card reproduces it.
    record = pl.DataFrame(
        {
            "card": [CARD.key, "2026-11-29-1800", "2026-11-29-0500", "not a key"],
            "market_id": ["1", "2", "3", "4"],
            "label": ["M01", "M02", "M03", "M04"],
            "question": ["a?", "b?", "c?", "d?"],
        }
    )
    selection = judge(market(1), market(2), market(3), market(4), history=record)
    assert verdict_of(selection, 1)["verdict"] == "selected"
    assert verdict_of(selection, 2)["verdict"] == "selected"
    assert verdict_of(selection, 3)["value"] == "on card 2026-11-29-0500 as M03"
    assert verdict_of(selection, 4)["value"] == "on card not a key as M04"


def test_once_ever_keeps_keys_that_are_not_seals_as_history():
    # 14:00 is no seal hour: such a key cannot be placed after this card, so "never again" holds.
    odd = pl.DataFrame({"card": ["2026-11-29-1400", "2026-3-8-0500"], "market_id": ["1", "2"]})
    selection = judge(market(1), market(2), history=odd)
    assert verdict_of(selection, 1)["value"] == "on card 2026-11-29-1400"
    assert verdict_of(selection, 2)["value"] == "on card 2026-3-8-0500"


def test_once_ever_with_an_empty_or_minimal_history():
    empty = HISTORY.clear()
    assert verdict_of(judge(market(501), history=empty), 501)["verdict"] == "selected"
    bare = pl.DataFrame({"card": ["2026-11-28-1800"], "market_id": ["501"]})
    assert verdict_of(judge(market(501), history=bare), 501)["value"] == "on card 2026-11-28-1800"
    with pytest.raises(ValueError, match="history needs"):
        judge(market(501), history=pl.DataFrame({"market_id": ["501"]}))


# --------------------------------------------------------------------------------------------
# Ranking


def test_ranked_by_doubt_descending():
    rows = [market(i, **priced(p)) for i, p in ((1, 0.9), (2, 0.5), (3, 0.3), (4, 0.05))]
    selection = judge(*rows)
    assert selection.card["market_id"].to_list() == ["2", "3", "1", "4"]
    assert selection.card["rank"].to_list() == [1, 2, 3, 4]


def test_equal_doubt_is_broken_by_interest_then_numeric_id():
    rows = [
        market(100, **priced(0.3), event_volume_24hr=5_000.0, event_liquidity=None),
        market(99, **priced(0.7), event_volume_24hr=5_000.0, event_liquidity=None),
        market(7, **priced(0.3), event_volume_24hr=4_000.0, event_liquidity=None),
        market(12, **priced(0.7), event_volume_24hr=9_000.0, event_liquidity=None),
    ]
    # 0.3 and 0.7 carry the same doubt exactly; more money ranks first; then 99 before 100.
    assert judge(*rows).card["market_id"].to_list() == ["12", "99", "100", "7"]


def test_ids_that_are_not_digits_rank_after_digit_ids():
    rows = [market(i, **priced(0.4)) for i in ("b2", "10", "a1", "9")]
    assert judge(*rows).card["market_id"].to_list() == ["9", "10", "a1", "b2"]


# --------------------------------------------------------------------------------------------
# 9. one_per_family


def test_a_negrisk_family_of_fifty_sends_one_question():
    # Candidate k is priced further from a half the larger k is; candidate 17 is the most doubtful.
    rows = [
        market(
            559_600 + k,
            event_id="30829",
            neg_risk=True,
            question=f"Will candidate {k} win the nomination?",
            **priced(0.45 if k == 17 else 0.02 + k * 0.001),
        )
        for k in range(50)
    ]
    selection = judge(*rows)
    family = selection.verdicts.filter(pl.col("event_id") == "30829")
    assert family.height == 50
    [leader] = family.filter(pl.col("verdict") == "selected")["market_id"].to_list()
    assert leader == "559617"
    others = family.filter(pl.col("verdict") == "excluded")
    assert others.height == 49
    assert set(others["rule"]) == {"one_per_family"}
    assert set(others["value"]) == {"event 30829 already represented by market 559617"}
    assert others["rank"].null_count() == 0  # they reached the ranking


# --------------------------------------------------------------------------------------------
# 10. one_of_a_kind


def test_the_same_question_in_two_events_is_carded_once():
    rows = [
        market(559657, event_id="1", question="Will the Fed cut rates in December?", **priced(0.45)),
        market(600001, event_id="2", question="Will the FED cut rates in December", **priced(0.40)),
    ]
    selection = judge(*rows)
    got = verdict_of(selection, 600001)
    assert (got["rule"], got["value"]) == ("one_of_a_kind", "same question stem as market 559657")
    assert verdict_of(selection, 559657)["verdict"] == "selected"


def test_the_same_fixture_in_two_events_is_carded_once():
    rows = [
        market(559657, event_id="1", event_game_id="1427074", question="Herons to win?", **priced(0.5)),
        market(600001, event_id="2", game_id="1427074", question="Over 210.5 points?", **priced(0.45)),
        market(600002, event_id="3", game_id="9", question="Under 3.5 goals?", **priced(0.45)),
    ]
    selection = judge(*rows)
    got = verdict_of(selection, 600001)
    assert (got["rule"], got["value"]) == ("one_of_a_kind", "same fixture (game 1427074) as market 559657")
    assert verdict_of(selection, 600002)["verdict"] == "selected"


def test_a_sports_fixture_without_a_game_id_is_its_title_and_start():
    fixture = {"sports_market_type": "moneyline", "event_start_time_ts": SEAL + 5 * H}
    rows = [
        market(1, event_title="Herons vs. Lynx", question="Herons win?", **fixture, **priced(0.5)),
        market(2, event_title="HERONS vs Lynx", question="Lynx win?", **fixture, **priced(0.4)),
        market(3, event_title="Herons vs. Lynx", question="Lynx win by 5?", **priced(0.4)),  # not sports
    ]
    selection = judge(*rows)
    got = verdict_of(selection, 2)
    assert got["rule"] == "one_of_a_kind"
    assert got["value"] == "same fixture (HERONS vs Lynx at 2026-11-29T20:00:00Z) as market 1"
    assert verdict_of(selection, 3)["verdict"] == "selected"


def test_a_question_alike_only_to_an_excluded_one_stays():
    # 2 repeats 1's question; 3 shares a fixture with 2 only. 2 leaves, so 3 is alike to nothing carded.
    rows = [
        market(1, question="Will it rain in Lisbon?", **priced(0.5)),
        market(2, question="Will it rain in Lisbon", game_id="55", **priced(0.45)),
        market(3, question="Over 2.5 goals?", game_id="55", **priced(0.40)),
        market(4, question="Under 2.5 goals?", game_id="55", **priced(0.35)),
    ]
    selection = judge(*rows)
    assert verdict_of(selection, 2)["value"] == "same question stem as market 1"
    assert verdict_of(selection, 3)["verdict"] == "selected"
    assert verdict_of(selection, 4)["value"] == "same fixture (game 55) as market 3"
    assert selection.card["market_id"].to_list() == ["1", "3"]


def test_a_long_chain_of_look_alikes_is_walked_in_rank_order():
    # 1 ~ 2 by stem, 2 ~ 3 by fixture, 3 ~ 4 by stem, …: the walk keeps 1, 3, 5, … and each even
    # question names the one just above it. Forty links outlast the columnar rounds on purpose.
    rows = [
        market(
            i,
            question=f"Chain question {(i - 1) // 2}?",
            game_id=f"g{i // 2}",
            **priced(0.5 - i * 0.001),
        )
        for i in range(1, 41)
    ]
    selection = judge(*rows, cut=40)
    for i in range(2, 41, 2):
        got = verdict_of(selection, i)
        assert (got["rule"], got["value"]) == ("one_of_a_kind", f"same question stem as market {i - 1}")
    assert selection.card["market_id"].to_list() == [str(i) for i in range(1, 41, 2)]


def test_one_market_id_twice_is_carded_once():
    rows = [market(5, event_id="a", **priced(0.5)), market(5, event_id="b", **priced(0.5))]
    selection = judge(*rows)
    assert selection.verdicts.height == 2
    assert selection.verdicts["verdict"].to_list() == ["selected", "excluded"]
    assert selection.verdicts["value"].to_list()[1] == "same market id as market 5"


# One real-world event under two event ids (COLOSSEUM-ONE-OF-A-KIND-2). The seal is 10:00 New York
# time on 2026-11-29; a New York day runs 05:00Z to 05:00Z the next day in late November.
DEC_1 = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
POWELL = "What will Powell say during the post-meeting press conference on December 1?"
V2 = ONE_OF_A_KIND_READING


def powell(ident: int, word: str, end: dt.datetime, **fields: Any) -> dict[str, Any]:
    """One question of a Powell "mentions" event of its own id, ending (as the event does) at ``end``."""
    return market(
        ident,
        event_title=POWELL,
        question=f'Will Powell say "{word}" during the post-meeting press conference on December 1?',
        end_date_ts=end,
        event_end_date_ts=end,
        **fields,
    )


def test_the_same_event_title_on_the_same_date_under_two_event_ids_is_carded_once():
    # The real case: two listings of one press conference, ending at different times of its day.
    rows = [
        powell(1, "inflation", DEC_1 + 23 * H, **priced(0.5)),
        powell(2, "tariff", DEC_1 + dt.timedelta(hours=23, minutes=14, seconds=7), **priced(0.45)),
        market(3, event_title="What will Musk say during the livestream on December 1?", **priced(0.4)),
    ]
    selection = judge(*rows)
    got = verdict_of(selection, 2)
    assert got["rule"] == "one_of_a_kind" and got["rank"] == 2
    assert got["value"] == (
        'same event (title "what will powell say during the post meeting press conference on december 1"'
        f" on 2026-12-01, {V2}) as market 1"
    )
    assert selection.card["market_id"].to_list() == ["1", "3"]
    assert reading_of(selection.verdicts["value"]) == V2


def test_the_same_event_title_on_two_dates_is_two_events():
    rows = [
        powell(1, "inflation", DEC_1 + 20 * H, **priced(0.5)),
        powell(2, "tariff", DEC_1 + 24 * H + 20 * H, **priced(0.45)),
    ]
    assert judge(*rows).card["market_id"].to_list() == ["1", "2"]


def test_the_event_date_is_the_new_york_date():
    first = powell(1, "inflation", DEC_1 + 20 * H, **priced(0.5))
    # 02:30Z on December 2 is 21:30 on December 1 in New York: the same day as 20:00Z on December 1.
    same_day = powell(2, "tariff", DEC_1 + 26.5 * H, **priced(0.45))
    # 05:30Z on December 2 is 00:30 on December 2 there: another day.
    next_day = powell(2, "tariff", DEC_1 + 29.5 * H, **priced(0.45))
    assert verdict_of(judge(first, same_day), 2)["rule"] == "one_of_a_kind"
    assert judge(first, next_day).card.height == 2


def test_the_event_date_is_its_stamped_start_else_its_end_else_the_markets_end():
    frame_ = pl.DataFrame(
        [
            {"event_start_time_ts": DEC_1 + 2 * H, "event_end_date_ts": DEC_1 + 40 * H, "end_date_ts": None},
            {"game_start_time_ts": DEC_1 + 30 * H, "event_end_date_ts": DEC_1 + 80 * H, "end_date_ts": None},
            {"event_end_date_ts": DEC_1 + 40 * H, "end_date_ts": DEC_1 + 80 * H},
            {"end_date_ts": DEC_1 + 80 * H},
            {},
        ],
        schema={
            name: VERBATIM_SCHEMA[name]
            for name in (
                "event_start_time_ts",
                "market_event_start_time_ts",
                "game_start_time_ts",
                "event_end_date_ts",
                "end_date_ts",
            )
        },
    )
    assert frame_.select(day=event_date())["day"].to_list() == [
        "2026-11-30",  # 02:00Z is the evening before in New York
        "2026-12-02",
        "2026-12-02",
        "2026-12-04",
        None,
    ]


@pytest.mark.parametrize(
    ("title", "teams"),
    [
        ("Arsenal vs. Tottenham Hotspur", '"arsenal" and "tottenham hotspur"'),
        ("tottenham hotspur VS arsenal", '"arsenal" and "tottenham hotspur"'),
        ("Tottenham Hotspur v. Arsenal", '"arsenal" and "tottenham hotspur"'),
        ("Tottenham Hotspur v Arsenal", '"arsenal" and "tottenham hotspur"'),
        ("Tottenham Hotspur @ Arsenal", '"arsenal" and "tottenham hotspur"'),
        ("Arsenal\u00a0vs.\tTottenham  Hotspur", '"arsenal" and "tottenham hotspur"'),
        ("Arsenal vs. Tottenham Hotspur - More Markets", '"arsenal" and "tottenham hotspur"'),
        ("UFC Fight Night: Zoe Yamamoto vs. Isabel Kim", '"isabel kim" and "zoe yamamoto"'),
        ("Counter-Strike: FaZe vs G2 (BO3) - Masters", '"faze" and "g2"'),
        ("MLP: Herons vs Lynx (Match 2)", '"herons" and "lynx"'),
        ("FaZe vs G2: Map 1 Winner", '"faze" and "g2"'),
        ("Paris Saint-Germain vs. St. Louis City SC", '"paris saint germain" and "st louis city sc"'),
        # Not one fixture: no joining word, two of them, a side with no name, a word that only looks like one.
        ("What will Powell say during the post-meeting press conference on December 1?", None),
        ("A vs B vs C", None),
        ("Team V vs Liquid", None),
        ("vs Arsenal", None),
        ("Arsenal vs. !!!", None),
        ("Herons versus Lynx", None),
        ("Herons vs.Lynx", None),
        ("", None),
        (None, None),
    ],
)
def test_the_teams_a_fixture_title_names(title, teams):
    got = pl.DataFrame({"t": [title]}, schema={"t": pl.String}).select(fixture_teams(pl.col("t")))["t"]
    assert got.to_list() == [teams]


def fixture(ident: int, title: str, start: dt.datetime | None, **fields: Any) -> dict[str, Any]:
    """A Yes/No question on a game of its own event and game id, titled ``title``, starting at ``start``."""
    game = {
        "event_title": title,
        "question": f"Will the home side win game {ident}?",
        "event_game_id": f"g{ident}",
        "game_id": f"g{ident}",
        "sports_market_type": "moneyline",
        "game_start_time_ts": start,
    }
    return market(ident, **{**game, **fields})


@pytest.mark.parametrize(
    "other",
    [
        "Lynx @ Herons",
        "LYNX vs herons",
        "Herons v. Lynx",
        "herons vs lynx - More Markets",
        "Cup: Lynx v Herons",
    ],
)
def test_the_same_fixture_written_another_way_under_another_game_id_is_carded_once(other):
    start = DEC_1 + 23 * H  # 18:00 in New York
    rows = [
        fixture(1, "Herons vs. Lynx", start, **priced(0.5)),
        # Listed again an hour later in the day, under another event and another game id.
        fixture(2, other, start + H, **priced(0.45)),
    ]
    got = verdict_of(judge(*rows), 2)
    assert (got["rule"], got["value"]) == (
        "one_of_a_kind",
        f'same fixture (teams "herons" and "lynx" on 2026-12-01, {V2}) as market 1',
    )


def test_the_same_teams_on_another_day_is_another_game():
    # A series: the same two teams on consecutive New York days are two fixtures.
    rows = [
        fixture(1, "Herons vs. Lynx", DEC_1 + 23 * H, **priced(0.5)),
        fixture(2, "Lynx vs. Herons", DEC_1 + 47 * H, **priced(0.45)),
    ]
    assert judge(*rows).card["market_id"].to_list() == ["1", "2"]


def test_a_fixture_is_read_from_the_title_only_with_a_stamped_start():
    # No start: the title can not say which day's game it is (and the titles differ, so no title key).
    rows = [
        fixture(1, "Herons vs. Lynx", None, **priced(0.5)),
        fixture(2, "Lynx @ Herons", None, **priced(0.45)),
    ]
    assert judge(*rows).card.height == 2


def test_a_shared_game_id_is_one_fixture_whatever_the_titles_say():
    rows = [
        fixture(1, "Herons vs. Lynx", DEC_1 + 23 * H, **priced(0.5)),
        fixture(2, "Ospreys vs. Wolves", DEC_1 + 47 * H, **priced(0.45), game_id="g1", event_game_id=None),
    ]
    assert verdict_of(judge(*rows), 2)["value"] == "same fixture (game g1) as market 1"


def test_a_question_alike_by_an_older_key_keeps_the_older_wording():
    # Same stem and same title on the same day: version 1 already excludes it, in version 1's words.
    rows = [
        powell(1, "inflation", DEC_1 + 20 * H, **priced(0.5)),
        powell(2, "inflation", DEC_1 + 21 * H, **priced(0.45)),
    ]
    assert verdict_of(judge(*rows), 2)["value"] == "same question stem as market 1"


def test_the_best_ranked_listing_stays_and_every_other_names_it():
    rows = [
        powell(3, "inflation", DEC_1 + 20 * H, **priced(0.40)),
        powell(1, "tariff", DEC_1 + 21 * H, **priced(0.50)),
        powell(2, "crypto", DEC_1 + 22 * H, **priced(0.45)),
    ]
    selection = judge(*rows)
    assert selection.card["market_id"].to_list() == ["1"]
    assert {verdict_of(selection, i)["value"].rsplit(" ", 1)[1] for i in (2, 3)} == {"1"}


def test_reading_one_stays_available_for_cards_judged_under_it():
    rows = [
        powell(1, "inflation", DEC_1 + 23 * H, **priced(0.5)),
        powell(2, "tariff", DEC_1 + 20 * H, **priced(0.45)),
        fixture(3, "Herons vs. Lynx", DEC_1 + 23 * H, **priced(0.4)),
        fixture(4, "Lynx @ Herons", DEC_1 + 23 * H, **priced(0.35)),
    ]
    old = judge(*rows, one_of_a_kind=ONE_OF_A_KIND_READING_1)
    assert old.card["market_id"].to_list() == ["1", "2", "3", "4"]
    assert old.one_of_a_kind == ONE_OF_A_KIND_READING_1
    assert reading_of(old.verdicts["value"]) == ONE_OF_A_KIND_READING_1
    new = judge(*rows)
    assert new.card["market_id"].to_list() == ["1", "3"] and new.one_of_a_kind == V2
    assert set(ONE_OF_A_KIND_READINGS) == {ONE_OF_A_KIND_READING_1, V2}
    with pytest.raises(ValueError, match="unknown one_of_a_kind reading"):
        judge(*rows, one_of_a_kind="COLOSSEUM-ONE-OF-A-KIND-9")


def test_without_a_version_two_exclusion_both_readings_give_the_same_verdicts():
    rows = [
        market(1, question="Will it rain in Lisbon?", event_title="Lisbon weather", **priced(0.5)),
        market(2, question="Will it rain in Lisbon", game_id="55", **priced(0.45)),
        fixture(3, "Herons vs. Lynx", DEC_1 + 23 * H, **priced(0.4)),
        fixture(4, "Herons vs. Lynx", DEC_1 + 23 * H, game_id="g3", **priced(0.3)),
    ]
    new, old = judge(*rows), judge(*rows, one_of_a_kind=ONE_OF_A_KIND_READING_1)
    assert new.verdicts.equals(old.verdicts)
    assert reading_of(new.verdicts["value"]) == ONE_OF_A_KIND_READING_1


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("Will X win?", "will x win", True),
        ("Will   X\twin?!", "Will X win", True),
        ("Ｗｉｌｌ Ｘ ｗｉｎ？", "Will X win?", True),  # full-width forms, NFKC
        ("Will X\u200b win?", "Will X win?", True),  # zero-width space
        ("Over 2.5 goals?", "Over 25 goals?", False),
        ("Team A +1.5?", "Team A 1.5?", False),
        ("Will BTC hit $100k?", "Will BTC hit 100k?", False),
        ("???", "!!!", False),
    ],
)
def test_question_stem(a, b, same):
    stems = pl.DataFrame({"q": [a, b]}).select(question_stem(pl.col("q")))["q"].to_list()
    assert (stems[0] is not None and stems[0] == stems[1]) is same


# --------------------------------------------------------------------------------------------
# First rule wins


@pytest.mark.parametrize(
    ("fields", "rule"),
    [
        ({"best_ask": 1.7, "active": False, "outcomes": ["Up", "Down"], "outcome_prices": None}, "malformed"),
        ({"closed": True, "outcomes": ["Up", "Down"]}, "open"),
        ({"outcomes": ["Up", "Down"], "end_date_ts": SEAL + 200 * H}, "gradeable"),
        (
            {
                "best_bid": None,
                "best_ask": None,
                "last_trade_price": None,
                "outcome_prices": None,
                "game_start_time_ts": SEAL - H,
            },
            "priced",
        ),
        (
            {"game_start_time_ts": SEAL - H, "end_date_ts": SEAL - 0.5 * H, "event_liquidity": 1.0},
            "tomorrow_only",
        ),
        ({"end_date_ts": SEAL + 200 * H, "event_volume_24hr": 1.0, "event_liquidity": 1.0}, "settles_soon"),
        ({"event_volume_24hr": 1.0, "event_liquidity": 1.0, "market_id": "501"}, "real_money"),
        ({"market_id": "501"}, "once_ever"),
    ],
)
def test_the_first_rule_that_excludes_is_the_one_recorded(fields, rule):
    row = market(1, **fields)
    selection = judge(row, history=HISTORY)
    got = selection.verdicts.row(0, named=True)
    assert got["rule"] == rule
    assert RULE_ORDER.index(rule) < RULE_ORDER.index("one_per_family")


def test_screening_rules_come_before_the_ranking_rules():
    # The family's most doubtful member is closed: the open sibling represents the family.
    rows = [
        market(1, event_id="f", closed=True, **priced(0.5)),
        market(2, event_id="f", **priced(0.3)),
        market(3, event_id="f", **priced(0.2)),
    ]
    selection = judge(*rows)
    assert verdict_of(selection, 1)["rule"] == "open"
    assert verdict_of(selection, 2)["verdict"] == "selected"
    assert verdict_of(selection, 3)["value"] == "event f already represented by market 2"


# --------------------------------------------------------------------------------------------
# 11. the_cut


def test_the_cut_keeps_twenty_five_and_publishes_the_rest_ranked():
    rows = [market(i, **priced(0.5 - i * 0.01)) for i in range(1, 31)]
    selection = judge(*rows)
    assert selection.card.height == 25
    assert selection.card["place"].to_list() == list(range(1, 26))
    assert selection.card["market_id"].to_list() == [str(i) for i in range(1, 26)]
    twenty_sixth = verdict_of(selection, 26)
    assert (twenty_sixth["verdict"], twenty_sixth["rule"]) == ("excluded", "the_cut")
    assert (twenty_sixth["rank"], twenty_sixth["place"]) == (26, 26)
    assert twenty_sixth["value"] == "place 26 (rank 26); the cut is 25"
    below = selection.verdicts.filter(pl.col("rule") == "the_cut")
    assert below["place"].to_list() == [26, 27, 28, 29, 30]
    assert selection.counts_by_rule["the_cut"] == 5


def test_the_cut_counts_places_after_families_and_kinds_leave():
    rows = [market(i, **priced(0.5 - i * 0.01)) for i in range(1, 31)]
    rows[1]["event_id"] = rows[0]["event_id"]  # 2 yields to 1
    rows[2]["question"] = rows[0]["question"]  # 3 is 1 again
    selection = judge(*rows)
    assert selection.card.height == 25
    assert selection.card["rank"].to_list()[:3] == [1, 4, 5]
    assert verdict_of(selection, 27)["place"] == 25
    assert verdict_of(selection, 28)["value"] == "place 26 (rank 28); the cut is 25"


def test_a_short_card_is_never_padded():
    rows = [market(i, **priced(0.4)) for i in range(1, 4)] + [market(9, closed=True)]
    selection = judge(*rows)
    assert selection.card.height == 3
    assert selection.counts_by_rule["the_cut"] == 0
    assert selection.verdicts.filter(pl.col("verdict") == "selected").height == 3


def test_a_smaller_cut():
    rows = [market(i, **priced(0.4 + i * 0.01)) for i in range(1, 6)]
    selection = judge(*rows, cut=2)
    assert selection.card["market_id"].to_list() == ["5", "4"]
    assert selection.counts_by_rule["the_cut"] == 3
    with pytest.raises(ValueError, match="cut"):
        judge(*rows, cut=0)


# --------------------------------------------------------------------------------------------
# The record: shape and totals


def test_one_verdict_per_market_with_the_published_columns():
    rows = [market(i, **priced(0.1 + i * 0.02)) for i in range(1, 8)] + [
        market(20, closed=True),
        market(21, best_ask=3.0),
        market(22, event_id="e1"),
    ]
    selection = judge(*rows)
    verdicts = selection.verdicts
    assert dict(verdicts.schema) == VERDICT_SCHEMA
    assert sorted(verdicts["market_id"].to_list()) == sorted(r["market_id"] for r in rows)
    assert set(verdicts["rules"]) == {RULES_VERSION} == {SLATE_LAWS}
    assert verdicts.filter(pl.col("verdict") == "selected")["rule"].null_count() == selection.card.height
    assert verdicts.filter(pl.col("verdict") == "excluded")["rule"].null_count() == 0
    # Sorted by rank, the unranked after, by numeric id.
    assert verdicts["rank"].to_list()[:8] == list(range(1, 9))
    assert verdicts["market_id"].to_list()[8:] == ["20", "21"]
    assert sum(selection.counts_by_rule.values()) == verdicts.height - selection.card.height
    assert list(selection.counts_by_rule) == list(RULE_ORDER)
    assert selection.total_doubt_bits == pytest.approx(sum(selection.card["doubt_bits"]))
    selected = verdicts.filter(pl.col("verdict") == "selected")
    assert all(v.startswith("doubt ") and v.endswith(" bits") for v in selected["value"])


def test_selected_value_states_the_doubt():
    got = verdict_of(judge(market(1, **priced(0.455))), 1)
    assert got["value"] == "doubt 0.994 bits"
    assert verdict_of(judge(market(1)), 1)["value"] == "doubt 1.000 bits"


def test_the_card_carries_the_verbatim_columns_it_needs_to_render():
    selection = judge(market(1, description="Resolves Yes if …", end_date="2026-12-01T15:00:00Z"))
    row = selection.card.row(0, named=True)
    assert row["description"] == "Resolves Yes if …" and row["end_date"] == "2026-12-01T15:00:00Z"
    assert list(selection.card.columns[:5]) == ["place", "rank", "market_id", "event_id", "question"]


def test_an_empty_sweep_makes_an_empty_card():
    selection = select_card(pl.DataFrame(schema=VERBATIM_SCHEMA), seal=SEAL)
    assert selection.verdicts.is_empty() and selection.card.is_empty()
    assert selection.total_doubt_bits == 0.0
    assert set(selection.counts_by_rule.values()) == {0}
    assert rotate(selection.card, CARD.day_number).is_empty()


def test_a_frame_with_only_some_columns_is_read_with_nulls_for_the_rest():
    minimal = pl.DataFrame(
        {
            "market_id": ["1", "2"],
            "event_id": ["a", "b"],
            "question": ["Q1?", "Q2?"],
            "outcomes": [["Yes", "No"], ["Yes", "No"]],
            "outcome_prices": [["0.4", "0.6"], ["0.5", "0.5"]],
            "end_date_ts": [dt.datetime(2026, 11, 30, 15), dt.datetime(2026, 11, 30, 15)],  # naive: UTC
            "active": [True, True],
            "closed": [False, False],
            "event_liquidity": [3_000.0, 100.0],
        }
    )
    selection = select_card(minimal, seal=SEAL)
    assert selection.card["market_id"].to_list() == ["1"]
    assert verdict_of(selection, 2)["rule"] == "real_money"


def test_the_seal_must_be_an_aware_instant_and_any_zone_is_the_same_instant():
    with pytest.raises(ValueError, match="timezone-aware"):
        select_card(frame(market(1)), seal=dt.datetime(2026, 11, 29, 15))
    new_york = SEAL.astimezone(card_from_key("2026-11-29-1000").seal.tzinfo)
    rows = frame(market(1), market(2, game_start_time_ts=SEAL - US))
    assert select_card(rows, seal=new_york).verdicts.equals(select_card(rows, seal=SEAL).verdicts)


def test_the_card_key_column_is_carried_when_present():
    rows = frame(market(1)).with_columns(card=pl.lit(CARD.key), id=pl.lit("abc"))
    selection = select_card(rows, seal=SEAL)
    assert selection.verdicts.columns[0] == "card" and selection.verdicts["card"].to_list() == [CARD.key]
    assert "id" not in selection.card.columns and selection.card["card"].to_list() == [CARD.key]


def _store_fixture(store: ReceiptStore, name: str) -> str:
    trace = RequestTrace(
        "GET", "http://127.0.0.1:1/markets/keyset", [("closed", "false")], "2026-12-01T15:00:00Z"
    )
    body = (POLYMARKET / name).read_bytes()
    return store.put(trace.receipt(ended_at="2026-12-01T15:00:01Z", status=200, body=body))


def test_a_copied_sweep_from_recorded_pages(tmp_path):
    card = card_from_key("2026-12-01-1000")
    store = ReceiptStore(tmp_path / "receipts")
    ids = [
        _store_fixture(store, "markets_keyset_page.json"),
        _store_fixture(store, "events_keyset_page.json"),
    ]
    copied = copy_markets(card.key, ids, store)
    selection = select_card(copied.markets, seal=card.seal)
    rules = dict(selection.verdicts.select("market_id", "rule").iter_rows())
    assert rules == {
        "7300001": "gradeable",  # team names
        "7300002": "real_money",  # its event publishes no volume or liquidity
        "7300003": None,
        "7400001": "settles_soon",  # 98 h after the seal
        "7400002": "open",  # an undeployed placeholder
    }
    assert verdict_of(selection, "7400001")["value"] == "ends 98.0 h after seal"
    assert verdict_of(selection, "7300002")["price_source"] == "last_trade"
    [selected] = selection.card.to_dicts()
    assert selected["market_id"] == "7300003" and selected["price"] == 0.8125
    assert selected["price_source"] == "midpoint" and selected["card"] == card.key


# --------------------------------------------------------------------------------------------
# Rotation


def _card_of(size: int) -> pl.DataFrame:
    rows = [market(i, **priced(0.5 - i * 0.005)) for i in range(1, size + 1)]
    return judge(*rows).card


@pytest.mark.parametrize("size", [25, 7, 1])
def test_rotation_across_a_month(size):
    card = _card_of(size)
    first_of_month = card_from_key("2026-11-01-0500").day_number
    seen_first = []
    for day in range(first_of_month, first_of_month + 30):
        rotated = rotate(card, day)
        offset = (day % 25) % size
        assert rotation_offset(day, size) == offset
        assert rotated["label"].to_list() == [label(i) for i in range(1, size + 1)]
        assert rotated["position"].to_list() == list(range(1, size + 1))
        expected = [*range(offset + 1, size + 1), *range(1, offset + 1)]
        assert rotated["place"].to_list() == expected
        assert sorted(rotated["market_id"].to_list()) == sorted(card["market_id"].to_list())
        seen_first.append(rotated["place"][0])
    # Over a month every place of a full card leads once (25 days of a 25-day period).
    assert set(seen_first) == set(range(1, size + 1))


def test_rotation_offset_is_day_number_mod_25():
    card = _card_of(25)
    day = card_from_key("2026-11-29-1000").day_number  # 20,786 days after 1970-01-01
    assert day % 25 == 11
    rotated = rotate(card, day)
    assert rotated.row(0, named=True)["place"] == 12 and rotated.row(0, named=True)["label"] == "M01"
    assert rotated.filter(pl.col("place") == 1)["label"].to_list() == ["M15"]
    # The three cards of one New York day share the day number, so the same offset.
    for key in ("2026-11-29-0500", "2026-11-29-1800"):
        assert rotate(card, card_from_key(key).day_number).equals(rotated)


def test_rotation_of_a_short_card_is_offset_mod_its_length():
    card = _card_of(7)
    rotated = rotate(card, 11)  # 11 mod 25 = 11, 11 mod 7 = 4
    assert rotated["place"].to_list() == [5, 6, 7, 1, 2, 3, 4]
    assert rotate(card, 25)["place"].to_list() == list(range(1, 8))


def test_rotation_reads_place_order_not_row_order():
    card = _card_of(5)
    assert rotate(card.reverse(), 2).equals(rotate(card, 2))
