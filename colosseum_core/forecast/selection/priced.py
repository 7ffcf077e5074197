"""Rule 4, ``priced``: a question needs a published price at the seal to carry any doubt.

The price rule itself (midpoint, else last trade, else listed outcome price) lives in
``colosseum_core.forecast.selection.pricing``; this rule only excludes the questions it finds no price for.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.forecast.selection.names import PRICED
from colosseum_core.screens import Screen

NO_PRICE: Final = "no published price (no two-sided book, last trade or outcome price)"


def priced_screen() -> Screen:
    """Rule 4: the questions without a price at seal.

    Reads the ``price_units`` column written by ``pricing.with_seal_price``.
    """
    return Screen(rule=PRICED, excludes=pl.col("price_units").is_null(), value=pl.lit(NO_PRICE))
