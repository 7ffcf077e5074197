"""Rule 1, ``malformed``: a question whose published fields contradict each other.

The copy already refuses values of the wrong JSON type; what reaches the selection is well typed
but can still be impossible: a price outside [0, 1], a bid above the ask, an end before its start,
outcome labels and prices that do not pair up. Such a question is excluded, naming the field and
the value, and the card goes on: a bad row never stops a card and never raises.

A question without its identity (market id, event id or question text) is malformed too: no later
rule can name it, and the copy never writes one, so its presence means the table was built wrong.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.forecast.selection.names import MALFORMED
from colosseum_core.forecast.selection.texts import instant_text, number_text, quoted_list_text
from colosseum_core.screens import Screen

_UNIT_INTERVAL: Final = "[0, 1]"
# The quoted prices on the market row, in the order a verdict names the first one out of range.
_QUOTES: Final = ("best_bid", "best_ask", "last_trade_price")


def _blank(column: str) -> pl.Expr:
    return pl.col(column).is_null() | (pl.col(column).str.len_bytes() == 0)


def _outside_unit_interval(value: pl.Expr) -> pl.Expr:
    # is_between is false for NaN (while NaN > 1 is true in polars), and null for null: absent passes.
    return value.is_not_null() & ~value.is_between(0.0, 1.0).fill_null(True)


def _checks() -> list[tuple[pl.Expr, pl.Expr]]:
    """(contradiction, value text) pairs, in the order a verdict names the first that holds."""
    outcomes, prices = pl.col("outcomes"), pl.col("outcome_prices")
    parsed = prices.list.eval(pl.element().cast(pl.Float64, strict=False))
    price_not_number = parsed.list.eval(pl.element().is_null()).list.any()
    price_outside = parsed.list.eval(
        pl.element().is_not_null() & ~pl.element().is_between(0.0, 1.0)
    ).list.any()
    length_mismatch = prices.is_not_null() & (outcomes.list.len() != prices.list.len())
    checks = [
        (_blank("market_id"), pl.lit("market_id missing")),
        (_blank("event_id"), pl.lit("event_id missing")),
        (pl.col("question").is_null(), pl.lit("question missing")),
        (outcomes.is_null(), pl.lit("outcomes not a list (absent)")),
        (
            length_mismatch,
            pl.format(
                "outcomes {} has {} items but outcome_prices {} has {}",
                quoted_list_text(outcomes),
                outcomes.list.len(),
                quoted_list_text(prices),
                prices.list.len(),
            ),
        ),
        (price_not_number, pl.format("outcome_prices {} not all numbers", quoted_list_text(prices))),
        (
            price_outside,
            pl.format("outcome_prices {} outside {}", quoted_list_text(prices), pl.lit(_UNIT_INTERVAL)),
        ),
    ]
    checks += [
        (
            _outside_unit_interval(pl.col(quote)),
            pl.format("{} {} outside {}", pl.lit(quote), number_text(pl.col(quote)), pl.lit(_UNIT_INTERVAL)),
        )
        for quote in _QUOTES
    ]
    checks += [
        (
            pl.col("best_bid") > pl.col("best_ask"),
            pl.format(
                "best_bid {} above best_ask {}",
                number_text(pl.col("best_bid")),
                number_text(pl.col("best_ask")),
            ),
        ),
        (
            pl.col("end_date_ts") < pl.col("start_date_ts"),
            pl.format(
                "end_date {} before start_date {}",
                instant_text(pl.col("end_date_ts")),
                instant_text(pl.col("start_date_ts")),
            ),
        ),
    ]
    return [(hit.fill_null(False), text) for hit, text in checks]


def malformed_screen() -> Screen:
    """Rule 1: the questions whose fields contradict each other, naming the first contradiction."""
    checks = _checks()
    chain = pl.when(checks[0][0]).then(checks[0][1])
    for hit, text in checks[1:]:
        chain = chain.when(hit).then(text)
    return Screen(
        rule=MALFORMED,
        excludes=pl.any_horizontal([hit for hit, _ in checks]),
        value=chain.otherwise(None).cast(pl.String),
    )
