"""Rule 2, ``open``: the question must be open for trading at the seal.

``active`` true, ``closed`` false, and ``acceptingOrders`` not false. ``acceptingOrders`` is absent
on some legacy and placeholder markets, so an absent gate passes; ``active`` and ``closed`` are
published on every market, so an absent one does not. This is a published precondition the method
implies (the sweep asks Gamma for open markets, and an undeployed placeholder, with an empty
``conditionId``, is ``active: false``), stated as a rule so the record says why such a question left.
"""

from __future__ import annotations

import polars as pl

from colosseum_core.forecast.selection.names import OPEN
from colosseum_core.screens import Screen


def _state(column: str) -> pl.Expr:
    return pl.col(column).cast(pl.String).fill_null("absent")


def open_screen() -> Screen:
    """Rule 2: the questions not open for trading, naming the first flag that says so."""
    inactive = pl.col("active").ne_missing(True)
    closed = pl.col("closed").ne_missing(False)
    gated = pl.col("accepting_orders").eq_missing(False)
    return Screen(
        rule=OPEN,
        excludes=inactive | closed | gated,
        value=pl.when(inactive)
        .then(pl.format("active {}", _state("active")))
        .when(closed)
        .then(pl.format("closed {}", _state("closed")))
        .otherwise(pl.lit("acceptingOrders false")),
    )
