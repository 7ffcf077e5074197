"""Rule 2 of COMPELLE-TOPICS-1, ``past_end``: a market whose end date is at or before the rotation's
start is filtered out.

Gamma keeps a market open past its ``endDate`` until the oracle resolves it, and Kalshi's
``close_time`` can sit in the past while a market settles; either way the question has had its day.
The rotation's start (from its key, never a clock) is the instant: an end exactly at the start is
past, one a microsecond later is not. A candidate without an end date is never excluded by it.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

from colosseum_core.debate.topics.names import PAST_END
from colosseum_core.screens import Screen

# Fractions only where there are any, so an end a moment before the start never reads as the start.
_INSTANT_TEXT = "%Y-%m-%dT%H:%M:%S%.fZ"


def past_end_screen(start: dt.datetime) -> Screen:
    """Reads ``end_date`` (UTC)."""
    if start.tzinfo is None or start.utcoffset() is None:
        raise ValueError(f"naive datetime {start!r}: a rotation starts at an aware (UTC) instant")
    at = pl.lit(start.astimezone(dt.UTC), dtype=pl.Datetime("us", "UTC"))
    end = pl.col("end_date")
    return Screen(
        rule=PAST_END,
        excludes=(end <= at).fill_null(False),
        value=pl.format(
            "end_date {} at or before the rotation's start {}",
            end.dt.strftime(_INSTANT_TEXT),
            at.dt.strftime(_INSTANT_TEXT),
        ),
    )
