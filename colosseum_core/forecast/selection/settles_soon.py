"""Rule 6, ``settles_soon``: the scheduled end must fall in (seal, seal + 96 h].

An end exactly 96 h after the seal passes; an end at or before the seal does not (the question is
already past its schedule). The market's own ``endDate`` is read, never its event's, which can be
earlier than a child market's.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

import polars as pl

from colosseum_core.forecast.schedule import SELECTION_WINDOW
from colosseum_core.forecast.selection.inputs import seal_literal
from colosseum_core.forecast.selection.names import SETTLES_SOON
from colosseum_core.forecast.selection.texts import hours_text
from colosseum_core.screens import Screen

NO_END: Final = "no scheduled end (endDate absent)"


def settles_soon_screen(seal: dt.datetime, window: dt.timedelta = SELECTION_WINDOW) -> Screen:
    """Rule 6: the questions whose end is not in (seal, seal + window], naming how far off it is."""
    at = seal_literal(seal)
    end = pl.col("end_date_ts")
    after = (end - at).dt.total_microseconds()
    inside = ((end > at) & (end <= seal_literal(seal + window))).fill_null(False)
    return Screen(
        rule=SETTLES_SOON,
        excludes=~inside,
        value=pl.when(after.is_null())
        .then(pl.lit(NO_END))
        .when(after == 0)
        .then(pl.lit("ends at the seal"))
        .when(after < 0)
        .then(pl.format("ended {} before seal", hours_text(-after)))
        .otherwise(pl.format("ends {} after seal", hours_text(after))),
    )
