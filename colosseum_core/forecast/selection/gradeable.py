"""Rule 3, ``gradeable``: the outcomes must be exactly ``["Yes", "No"]``, in that order.

Order matters: the price rule reads the Yes price as ``outcome_prices[0]`` and the book as the Yes
token's, so ``["No", "Yes"]`` would price the wrong side. Team names, Up/Down and Over/Under are
two-way questions a Yes/No answer can not bind to, so they are not gradeable.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.forecast.selection.names import GRADEABLE
from colosseum_core.forecast.selection.texts import quoted_list_text
from colosseum_core.screens import Screen

GRADEABLE_OUTCOMES: Final = ("Yes", "No")


def gradeable_screen() -> Screen:
    """Rule 3: the questions whose outcomes are not Yes, No, naming the outcomes."""
    outcomes = pl.col("outcomes")
    exact = outcomes.list.len() == len(GRADEABLE_OUTCOMES)
    for index, label in enumerate(GRADEABLE_OUTCOMES):
        exact = exact & (outcomes.list.get(index, null_on_oob=True) == label)
    return Screen(
        rule=GRADEABLE,
        excludes=~exact.fill_null(False),
        value=pl.format("outcomes {}", quoted_list_text(outcomes)),
    )
