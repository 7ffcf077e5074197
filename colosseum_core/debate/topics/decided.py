"""Rule 1 of COMPELLE-TOPICS-1, ``decided``: a market priced above 95 % on either side is filtered out.

A market whose Yes price is above ``DECIDED_ABOVE`` (Yes above 95 %) or below ``DECIDED_BELOW`` (No
above 95 %) is all but settled: there is little left to argue. The edges themselves stay (a Yes price
of exactly 0.95 or 0.05 is not above 95 % on either side). A candidate without a price (a market
with no book and no trade, a search or evergreen item) is never excluded by this rule.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.debate.topics.names import DECIDED
from colosseum_core.screens import Screen

DECIDED_ABOVE: Final = 0.95
DECIDED_BELOW: Final = 0.05


def decided_screen() -> Screen:
    """Reads ``price_yes``."""
    price = pl.col("price_yes")
    above, below = price > DECIDED_ABOVE, price < DECIDED_BELOW
    return Screen(
        rule=DECIDED,
        excludes=(above | below).fill_null(False),
        value=pl.when(above)
        .then(pl.format("price_yes {} above {}", price, pl.lit(DECIDED_ABOVE)))
        .otherwise(pl.format("price_yes {} below {}", price, pl.lit(DECIDED_BELOW))),
    )
