"""COLOSSEUM-SCORING-2.1 by hand: every confidence, both calls, both outcomes, a void, a forfeit."""

from __future__ import annotations

import polars as pl
import pytest

from colosseum_core.forecast.rules import COLOSSEUM_SCORING
from colosseum_core.forecast.settlement.scoring import (
    brier_units,
    market_brier_units,
    merge_scores,
    probability,
    rescoring_problems,
    score_card,
)
from colosseum_core.record import row_id, with_ids

CARD = "2026-11-20-1000"
# Brier of a correct call at confidence s is (0.5 − s/20)², of a wrong one (0.5 + s/20)², by hand.
CORRECT = {1: 0.2025, 2: 0.16, 3: 0.1225, 4: 0.09, 5: 0.0625, 6: 0.04, 7: 0.0225, 8: 0.01, 9: 0.0025, 10: 0.0}
WRONG = {1: 0.3025, 2: 0.36, 3: 0.4225, 4: 0.49, 5: 0.5625, 6: 0.64, 7: 0.7225, 8: 0.81, 9: 0.9025, 10: 1.0}


@pytest.mark.parametrize("s", range(1, 11))
@pytest.mark.parametrize(("call", "outcome"), [("YES", 1), ("YES", 0), ("NO", 0), ("NO", 1)])
def test_brier_at_every_confidence_both_calls_both_outcomes(s: int, call: str, outcome: int) -> None:
    correct = (call == "YES") == (outcome == 1)
    expected = CORRECT[s] if correct else WRONG[s]
    assert brier_units(call, s, outcome) == round(expected * 400)
    # p is (10 ± s)/20: one correctly rounded division, not 0.5 − s/20's two roundings.
    assert probability(call, s) == ((10 + s) if call == "YES" else (10 - s)) / 20
    assert probability(call, s) == pytest.approx(0.5 + s / 20 if call == "YES" else 0.5 - s / 20, abs=1e-15)
    assert (probability(call, s) - outcome) ** 2 == pytest.approx(expected, abs=1e-15)


def test_market_brier_is_exact_in_half_micro_dollars() -> None:
    assert market_brier_units(0.62, 1) == round(0.1444 * 4e12)
    assert market_brier_units(0.62, 0) == round(0.3844 * 4e12)
    assert market_brier_units(0.1234565, 1) == (246913 - 2_000_000) ** 2
    with pytest.raises(ValueError, match="price"):
        market_brier_units(1.5, 1)


@pytest.mark.parametrize(("call", "confidence"), [("MAYBE", 5), ("YES", 0), ("NO", 11), ("YES", 2.5)])
def test_bad_answers_are_refused_naming_the_value(call: str, confidence: object) -> None:
    with pytest.raises(ValueError, match="must be"):
        brier_units(call, confidence, 1)  # type: ignore[arg-type]


def _card_tables() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    def line(seat: str, label: str, call: str | None, s: int | None, step: str | None = None) -> dict:
        return {
            "card": CARD,
            "seat": seat,
            "label": label,
            "market_id": {"M01": "101", "M02": "102", "M03": "103"}[label],
            "call": call,
            "confidence": s,
            "status": "answered" if call else "unbound",
            "binding": call is not None,
            "step": step,
            "reason": None,
            "rules": "COLOSSEUM-READING-1",
        }

    lines = with_ids(
        pl.DataFrame(
            [
                line("alpha", "M01", "YES", 7),
                line("alpha", "M02", "NO", 3, step="trim_and_case"),
                line("alpha", "M03", "YES", 5),
                line("beta", "M01", None, None),
                line("beta", "M02", "YES", 10),
                line("beta", "M03", None, None),
            ]
        )
    )
    seats = pl.DataFrame(
        {
            "seat": ["alpha", "beta"],
            "card_date": ["2026-11-20", "2026-11-20"],
            "kind": ["CALIBRATION", "CALIBRATION"],
            "model": ["house-hash", "house-coin"],
            "house": [True, True],
        }
    )
    questions = pl.DataFrame(
        {
            "label": ["M01", "M02", "M03"],
            "market_id": ["101", "102", "103"],
            "price": [0.62, 0.30, 0.5],
            "price_source": ["midpoint", "last_trade", "outcome_price"],
        }
    )
    settlements = with_ids(
        pl.DataFrame(
            {
                "card": [CARD] * 3,
                "label": ["M01", "M02", "M03"],
                "market_id": ["101", "102", "103"],
                "status": ["settled", "settled", "void"],
                "outcome": [1, 0, None],
            }
        )
    )
    return lines, seats, questions, settlements


def test_a_card_scored_by_hand() -> None:
    lines, seats, questions, settlements = _card_tables()
    scores = score_card(lines, seats, questions, settlements)
    got = {(r["seat"], r["label"]): r for r in scores.iter_rows(named=True)}
    a1, a2, a3 = got["alpha", "M01"], got["alpha", "M02"], got["alpha", "M03"]
    b1, b2, b3 = got["beta", "M01"], got["beta", "M02"], got["beta", "M03"]

    assert (a1["result"], a1["p"], a1["brier"], a1["crown"]) == ("win", 0.85, 0.0225, 7)
    assert a1["market_brier"] == pytest.approx(0.1444, abs=1e-15)
    assert a1["edge_units"] == round(0.1444 * 4e12) - 9 * 10**10
    assert a1["edge"] == pytest.approx(0.1219, abs=1e-15)
    assert a1["market_price_source"] == "midpoint" and not a1["bad_formatting"]

    assert (a2["result"], a2["brier"], a2["crown"], a2["bad_formatting"]) == ("win", 0.1225, 3, True)
    assert a2["edge"] == pytest.approx(0.09 - 0.1225, abs=1e-15)

    # A void is counted, never scored.
    assert a3["result"] == "void" and a3["call"] == "YES" and a3["confidence"] == 5
    assert a3["brier"] is None and a3["edge"] is None and a3["crown"] is None

    # The forfeit is the least confident wrong answer: NO 1 against a YES settlement.
    assert (b1["forfeit"], b1["call"], b1["confidence"], b1["result"]) == (True, "NO", 1, "loss")
    assert (b1["brier"], b1["brier_units"], b1["crown"]) == (0.3025, 121, -1)

    assert (b2["result"], b2["brier"], b2["crown"], b2["edge"]) == ("loss", 1.0, -10, pytest.approx(-0.91))
    assert b3["result"] == "void" and b3["forfeit"] and b3["call"] is None

    assert set(scores["formula"]) == {COLOSSEUM_SCORING}
    assert set(scores["gladiator"]) == {"house-hash", "house-coin"}
    assert all(row_id(r) == r["id"] for r in scores.iter_rows(named=True))
    assert rescoring_problems(scores, lines, seats, questions, settlements) == []


def test_waiting_questions_get_no_row_and_later_settlements_add_rows_without_rescoring() -> None:
    lines, seats, questions, settlements = _card_tables()
    first = score_card(lines, seats, questions, settlements.filter(pl.col("label") == "M01"))
    assert first.height == 2
    later = score_card(lines, seats, questions, settlements)
    merged = merge_scores(first, later)
    assert merged.height == 6
    kept = merged.filter(pl.col("label") == "M01").sort("seat")
    assert kept.equals(first.sort("seat"))

    # A row already written is never replaced, even if a recomputation would differ.
    doctored = later.with_columns(
        pl.when(pl.col("label") == "M01").then(0).otherwise(pl.col("crown")).alias("crown")
    )
    assert merge_scores(first, doctored).filter(pl.col("label") == "M01")["crown"].sort().to_list() == [-1, 7]


def test_a_tampered_score_fails_to_rederive_naming_card_seat_and_field() -> None:
    lines, seats, questions, settlements = _card_tables()
    scores = score_card(lines, seats, questions, settlements)
    tampered = scores.with_columns(
        pl.when((pl.col("seat") == "beta") & (pl.col("label") == "M02"))
        .then(10)
        .otherwise(pl.col("crown"))
        .alias("crown")
    )
    [problem] = rescoring_problems(tampered, lines, seats, questions, settlements)
    assert CARD in problem and "seat beta" in problem and "crown is 10, re-derived -10" in problem
    flipped = settlements.with_columns(
        pl.when(pl.col("label") == "M01").then(0).otherwise(pl.col("outcome")).alias("outcome")
    )
    assert rescoring_problems(scores, lines, seats, questions, flipped)


def test_a_line_without_its_seat_record_is_a_clear_error() -> None:
    lines, seats, questions, settlements = _card_tables()
    with pytest.raises(ValueError, match=r"seat beta on M0\d .*no seat record"):
        score_card(lines, seats.filter(pl.col("seat") == "alpha"), questions, settlements)
