"""Rule 5, ``tomorrow_only``: a question whose event has already started is excluded.

Polymarket stamps a start in three places: the event's ``startTime``, the market's
``eventStartTime`` and the market's ``gameStartTime``. Any of them strictly before the seal
excludes the question; a start exactly at the seal passes (nothing has happened yet that the
gladiators could not know). The verdict names the first stamp found before the seal, in that order.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

import polars as pl

from colosseum_core.forecast.selection.inputs import seal_literal
from colosseum_core.forecast.selection.names import TOMORROW_ONLY
from colosseum_core.forecast.selection.texts import hours_text, instant_text
from colosseum_core.screens import Screen

# (column, the Gamma key the verdict names), in the order they are checked.
START_STAMPS: Final = (
    ("event_start_time_ts", "startTime"),
    ("market_event_start_time_ts", "eventStartTime"),
    ("game_start_time_ts", "gameStartTime"),
)


def tomorrow_only_screen(seal: dt.datetime) -> Screen:
    """Rule 5: the questions with a stamped start before ``seal``, naming the stamp and how long before."""
    at = seal_literal(seal)
    hits = [(pl.col(column) < at).fill_null(False) for column, _ in START_STAMPS]
    chain: pl.When | pl.Then | None = None
    for (column, key), before in zip(START_STAMPS, hits, strict=True):
        start = pl.col(column)
        text = pl.format(
            "{} {} is {} before seal",
            pl.lit(key),
            instant_text(start),
            hours_text((at - start).dt.total_microseconds()),
        )
        chain = pl.when(before).then(text) if chain is None else chain.when(before).then(text)
    assert chain is not None
    return Screen(
        rule=TOMORROW_ONLY,
        excludes=pl.any_horizontal(hits),
        value=chain.otherwise(None).cast(pl.String),
    )
