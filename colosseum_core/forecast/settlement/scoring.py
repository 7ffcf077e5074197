"""COLOSSEUM-SCORING-2.1: every answer of a card scored against Polymarket's settlement.

Per seat and question (method §10 and the readings in docs/decisions.md):

- p from the confidence: YES with confidence s → p = 0.5 + s/20; NO → p = 0.5 − s/20.
- Brier = (p − outcome)², outcome 1 when YES settled, else 0. SHARP on the board is (1 − Brier) × 100.
- The market's Brier is the same formula at the price sealed with the card (its source recorded).
- EDGE = market Brier − the seat's Brier: positive when the seat beat the price.
- RECORD: a correct call is a win, a wrong one a loss. CROWN: +s for a win, −s for a loss.
- A question without a binding answer is a forfeit, scored as the least confident wrong answer:
  confidence 1 on the losing side (a loss, Brier 0.3025, CROWN −1).
- A void (a 50-50 resolution) is not scored: its row says ``void`` and carries no numbers, so
  voids are counted publicly without touching any score.

Exactness: confidences are whole numbers and prices whole half-micro-dollars, so every Brier is an
integer in fixed units: the seat's ``brier_units`` = Brier × 400 = (20p − 20·outcome)², the
market's ``market_brier_units`` = Brier × 4·10¹² = (price units − 2·10⁶·outcome)², and
``edge_units`` in the market's units. Boards sum these integers and divide once, so every engine
(polars, DuckDB, pandas, a spreadsheet) derives the same numbers.

History is never re-scored: a card's rows, once written under a formula version, are kept as they
are; settlements that arrive later add rows, and a later formula adds rows under its own version.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.forecast.rules import COLOSSEUM_SCORING
from colosseum_core.forecast.selection.pricing import PRICE_SCALE
from colosseum_core.record import with_ids

WIN: Final = "win"
LOSS: Final = "loss"
VOID: Final = "void"
SETTLED: Final = "settled"
YES: Final = "YES"
NO: Final = "NO"
# Brier × BRIER_UNITS_SEAT is a whole number for every confidence; × BRIER_UNITS_MARKET for every price.
BRIER_UNITS_SEAT: Final = 400
BRIER_UNITS_MARKET: Final = PRICE_SCALE * PRICE_SCALE
SEAT_TO_MARKET_UNITS: Final = BRIER_UNITS_MARKET // BRIER_UNITS_SEAT
FORFEIT_CONFIDENCE: Final = 1

SCORES_SCHEMA: Final[dict[str, pl.DataType]] = {
    "card": pl.String(),
    "card_date": pl.String(),
    "kind": pl.String(),
    "seat": pl.String(),
    "gladiator": pl.String(),
    "house": pl.Boolean(),
    "label": pl.String(),
    "market_id": pl.String(),
    "result": pl.String(),
    "forfeit": pl.Boolean(),
    "bad_formatting": pl.Boolean(),
    "call": pl.String(),
    "confidence": pl.Int64(),
    "outcome": pl.Int64(),
    "p": pl.Float64(),
    "brier": pl.Float64(),
    "brier_units": pl.Int64(),
    "market_price": pl.Float64(),
    "market_price_source": pl.String(),
    "market_brier": pl.Float64(),
    "market_brier_units": pl.Int64(),
    "edge": pl.Float64(),
    "edge_units": pl.Int64(),
    "crown": pl.Int64(),
    "settlement_id": pl.String(),
    "answer_line_id": pl.String(),
    "formula": pl.String(),
}
# One score per answer and formula version.
SCORE_KEY: Final = ("card", "seat", "market_id", "formula")


def probability(call: str, confidence: int) -> float:
    """p = 0.5 + s/20 for YES, 0.5 − s/20 for NO."""
    _check_answer(call, confidence)
    return (10 + confidence if call == YES else 10 - confidence) / 20


def brier_units(call: str, confidence: int, outcome: int) -> int:
    """The seat's Brier × 400: (20p − 20·outcome)², exact."""
    _check_answer(call, confidence)
    if outcome not in (0, 1):
        raise ValueError(f"outcome must be 1 (YES settled) or 0 (NO settled), not {outcome!r}")
    twenty_p = 10 + confidence if call == YES else 10 - confidence
    return (twenty_p - 20 * outcome) ** 2


def market_brier_units(price: float, outcome: int) -> int:
    """The market's Brier × 4·10¹² at ``price`` (dollars, a whole number of half micro-dollars)."""
    units = round(price * PRICE_SCALE)
    if not 0 <= units <= PRICE_SCALE:
        raise ValueError(f"price {price!r} is not between $0 and $1")
    return (units - PRICE_SCALE * outcome) ** 2


def _check_answer(call: str, confidence: int) -> None:
    if call not in (YES, NO):
        raise ValueError(f"call must be {YES!r} or {NO!r}, not {call!r}")
    if not isinstance(confidence, int) or not 1 <= confidence <= 10:
        raise ValueError(f"confidence must be a whole number 1..10, not {confidence!r}")


def _scored_answers(lines: pl.LazyFrame) -> pl.LazyFrame:
    """The call and confidence each line is scored with: its binding answer, or the forfeit."""
    settled = pl.col("settlement_status") == SETTLED
    forfeit = ~pl.col("binding")
    losing_side = pl.when(pl.col("outcome") == 1).then(pl.lit(NO)).otherwise(pl.lit(YES))
    return lines.with_columns(
        forfeit=forfeit,
        bad_formatting=pl.col("binding") & pl.col("step").is_not_null(),
        call=pl.when(forfeit & settled).then(losing_side).otherwise(pl.col("call")),
        confidence=pl.when(forfeit & settled)
        .then(pl.lit(FORFEIT_CONFIDENCE, pl.Int64))
        .otherwise(pl.col("confidence")),
    )


def _score_expressions() -> list[pl.Expr]:
    settled = pl.col("settlement_status") == SETTLED
    s, o = pl.col("confidence"), pl.col("outcome")
    twenty_p = pl.when(pl.col("call") == YES).then(10 + s).otherwise(10 - s)
    price_units = (pl.col("market_price") * PRICE_SCALE).round(0).cast(pl.Int64)
    correct = (pl.col("call") == YES) == (o == 1)
    seat_units = (twenty_p - 20 * o).pow(2)
    market_units = (price_units - PRICE_SCALE * o).pow(2)

    def when_settled(expr: pl.Expr) -> pl.Expr:
        return pl.when(settled).then(expr)

    return [
        when_settled(pl.when(correct).then(pl.lit(WIN)).otherwise(pl.lit(LOSS)))
        .otherwise(pl.lit(VOID))
        .alias("result"),
        when_settled(twenty_p).alias("twenty_p"),
        when_settled(seat_units).alias("brier_units"),
        when_settled(market_units).alias("market_brier_units"),
        when_settled(market_units - seat_units * SEAT_TO_MARKET_UNITS).alias("edge_units"),
        when_settled(pl.when(correct).then(s).otherwise(-s)).alias("crown"),
    ]


def exact_quotient(units: pl.Series, divisor: int, name: str) -> pl.Series:
    """``units / divisor`` as one correctly rounded IEEE division per value (nulls stay null).

    Polars rewrites division by a literal as multiplication by its reciprocal (17/20 becomes
    0.8500000000000001); numpy divides, so every engine that divides gets the same float.
    """
    values = units.cast(pl.Float64).to_numpy() / divisor
    return pl.Series(name, values, dtype=pl.Float64).fill_nan(None)


def _with_quotients(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(
        exact_quotient(frame["twenty_p"], 20, "p"),
        exact_quotient(frame["brier_units"], BRIER_UNITS_SEAT, "brier"),
        exact_quotient(frame["market_brier_units"], BRIER_UNITS_MARKET, "market_brier"),
        exact_quotient(frame["edge_units"], BRIER_UNITS_MARKET, "edge"),
    )


def score_card(
    lines: pl.DataFrame,
    seats: pl.DataFrame,
    questions: pl.DataFrame,
    settlements: pl.DataFrame,
    *,
    formula: str = COLOSSEUM_SCORING,
) -> pl.DataFrame:
    """Score every answer of one card whose question has settled or voided so far.

    ``lines`` is the card's ``answer_lines`` (seat × question: call, confidence, binding, step),
    ``seats`` its ``answers`` (seat: model, house, kind, card date), ``questions`` its
    ``card_questions`` (the sealed price and its source), ``settlements`` its ``settlements``
    (market: status ``settled`` or ``void``, outcome). Questions still waiting get no row.
    """
    if formula != COLOSSEUM_SCORING:
        raise ValueError(f"this module computes {COLOSSEUM_SCORING}, not {formula!r}")
    seat_facts = seats.lazy().select("seat", "card_date", "kind", pl.col("model").alias("gladiator"), "house")
    prices = questions.lazy().select(
        "market_id",
        pl.col("price").alias("market_price"),
        pl.col("price_source").alias("market_price_source"),
    )
    outcomes = settlements.lazy().select(
        "market_id",
        pl.col("status").alias("settlement_status"),
        "outcome",
        pl.col("id").alias("settlement_id"),
    )
    scored = (
        lines.lazy()
        .select(
            "card",
            "seat",
            "label",
            "market_id",
            "call",
            "confidence",
            "binding",
            "step",
            pl.col("id").alias("answer_line_id"),
        )
        .join(outcomes, on="market_id", how="inner")
        .join(seat_facts, on="seat", how="left", validate="m:1")
        .join(prices, on="market_id", how="left", validate="m:1")
        .pipe(_scored_answers)
        .with_columns(_score_expressions())
        .with_columns(formula=pl.lit(formula))
        .sort("seat", "label")
        .collect()
        .pipe(_with_quotients)
        .select(list(SCORES_SCHEMA))
    )
    missing = scored.filter(pl.col("kind").is_null() | pl.col("market_price").is_null())
    if missing.height:
        row = missing.row(0, named=True)
        raise ValueError(
            f"card {row['card']}: answer line of seat {row['seat']} on {row['label']} (market "
            f"{row['market_id']}) has no seat record or no sealed price to score against"
        )
    return with_ids(scored.cast(SCORES_SCHEMA))  # type: ignore[arg-type]


def merge_scores(existing: pl.DataFrame | None, fresh: pl.DataFrame) -> pl.DataFrame:
    """The card's scores after new settlements: rows already written are kept exactly as they were.

    A fresh row whose key (card, seat, market, formula) is already scored is dropped, so a later
    run never re-scores history; rows for newly settled questions are added.
    """
    if existing is None or existing.is_empty():
        return fresh
    new = fresh.join(existing.select(SCORE_KEY), on=SCORE_KEY, how="anti")
    return pl.concat([existing, new.select(existing.columns)]).sort("formula", "seat", "label")


def rescoring_problems(
    scores: pl.DataFrame,
    lines: pl.DataFrame,
    seats: pl.DataFrame,
    questions: pl.DataFrame,
    settlements: pl.DataFrame,
) -> list[str]:
    """Every score of the current formula re-derived from its answer and settlement rows.

    Plain Python on purpose: a second derivation that shares no code with ``score_card``.
    """
    line_of = {row["id"]: row for row in lines.iter_rows(named=True)}
    seat_of = {row["seat"]: row for row in seats.iter_rows(named=True)}
    price_of = {row["market_id"]: row for row in questions.iter_rows(named=True)}
    settlement_of = {row["id"]: row for row in settlements.iter_rows(named=True)}
    problems: list[str] = []
    for score in scores.filter(pl.col("formula") == COLOSSEUM_SCORING).iter_rows(named=True):
        where = f"card {score['card']} score {score['id'][:12]}… (seat {score['seat']}, {score['label']})"
        line = line_of.get(score["answer_line_id"])
        settlement = settlement_of.get(score["settlement_id"])
        if line is None or settlement is None:
            problems.append(f"{where}: its answer line or settlement row is not in the record")
            continue
        expected = _derive_one(line, seat_of[line["seat"]], price_of[line["market_id"]], settlement)
        for field, value in expected.items():
            if score[field] != value:
                problems.append(f"{where}: {field} is {score[field]!r}, re-derived {value!r}")
    return problems


def _derive_one(
    line: dict[str, object],
    seat: dict[str, object],
    question: dict[str, object],
    settlement: dict[str, object],
) -> dict[str, object]:
    base: dict[str, object] = {
        "kind": seat["kind"],
        "gladiator": seat["model"],
        "market_id": line["market_id"],
        "forfeit": not line["binding"],
        "bad_formatting": bool(line["binding"]) and line["step"] is not None,
        "market_price": question["price"],
        "market_price_source": question["price_source"],
    }
    if settlement["status"] != SETTLED:
        return {**base, "result": VOID, "brier_units": None, "edge_units": None, "crown": None}
    outcome = int(settlement["outcome"])  # type: ignore[call-overload]
    if line["binding"]:
        call, confidence = str(line["call"]), int(line["confidence"])  # type: ignore[call-overload]
    else:
        call, confidence = (NO if outcome == 1 else YES), FORFEIT_CONFIDENCE
    seat_units = brier_units(call, confidence, outcome)
    market_units = market_brier_units(float(question["price"]), outcome)  # type: ignore[arg-type]
    correct = (call == YES) == (outcome == 1)
    return {
        **base,
        "call": call,
        "confidence": confidence,
        "outcome": outcome,
        "result": WIN if correct else LOSS,
        "p": probability(call, confidence),
        "brier": seat_units / BRIER_UNITS_SEAT,
        "brier_units": seat_units,
        "market_brier": market_units / BRIER_UNITS_MARKET,
        "market_brier_units": market_units,
        "edge": (market_units - seat_units * SEAT_TO_MARKET_UNITS) / BRIER_UNITS_MARKET,
        "edge_units": market_units - seat_units * SEAT_TO_MARKET_UNITS,
        "crown": confidence if correct else -confidence,
    }
