"""Rule 7, ``real_money``: an event needs at least $2,500 of trading interest for its prices to count.

Interest is an event's, not a market's: the larger of the event's 24-hour volume and its order-book
liquidity, Polymarket's own numbers, with an absent key counted as 0. The floor is inclusive. Every
question of a thin event is excluded with the event's interest.

Each market row carries its event's numbers as published on that market's page. Should two rows of
one event carry different numbers (pages fetched moments apart), the event's interest is the largest
of them, so one event is never both thin and not, and no row order can change the verdict.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.forecast.selection.names import REAL_MONEY
from colosseum_core.forecast.selection.texts import dollars_text
from colosseum_core.screens import Screen

MONEY_FLOOR_CENTS: Final = 250_000  # $2,500.00, inclusive
_EVENT_NUMBERS: Final = ("event_volume_24hr", "event_liquidity")


def event_interest() -> pl.Expr:
    """Each question's event interest in dollars (Float64), the same on every row of the event."""
    per_row = pl.max_horizontal([pl.col(name).fill_nan(None).fill_null(0.0) for name in _EVENT_NUMBERS])
    return per_row.max().over("event_id").cast(pl.Float64)


def real_money_screen() -> Screen:
    """Rule 7: the questions of events under the floor, naming the event's interest.

    Reads the ``interest`` column written from ``event_interest``.
    """
    interest = pl.col("interest")
    # The comparison is on the published float itself; only the text is in cents, rounded (a floor
    # would turn 2499.99 × 100 = 249998.99999999997 into $2,499.98). An interest a hair under the
    # floor (2,499.996) is capped at $2,499.99 so it never reads as the floor it missed.
    cents = pl.min_horizontal(
        (interest * 100).round(0).cast(pl.Int64, strict=False), pl.lit(MONEY_FLOOR_CENTS - 1)
    )
    return Screen(
        rule=REAL_MONEY,
        excludes=(interest < MONEY_FLOOR_CENTS / 100).fill_null(True),
        value=pl.format("event interest {}", dollars_text(cents)),
    )
