"""The daily rotation of a card's order, and its labels M01, M02, …

Method §5: "Question order rotates daily by formula (offset = day number mod 25), so no question
sits first repeatedly." The offset is applied to the ranked list of selected questions: the
question at place ``offset + 1`` is labeled M01, the places after it follow, and the places before
it wrap to the end. A short card of n < 25 questions rotates by ``offset mod n``, the same formula
on the list it has, so every question of a short card still takes its turn first and no offset is
wasted on places that do not exist. The day number is the card's (``schedule.Card.day_number``:
days from 1970-01-01 to its New York date).
"""

from __future__ import annotations

from typing import Final

import polars as pl

LABEL_PREFIX: Final = "M"
# The method's formula names 25, the card size, as the period of the rotation.
ROTATION_PERIOD: Final = 25


def rotation_offset(day_number: int, size: int, period: int = ROTATION_PERIOD) -> int:
    """How many places a card of ``size`` questions is rotated on ``day_number``."""
    if size <= 0:
        return 0
    return (day_number % period) % size


def label(position: int) -> str:
    """The label of the question at 1-based ``position``: M01 … M25 (wider if a card ever is)."""
    return f"{LABEL_PREFIX}{position:02d}"


def rotate(card: pl.DataFrame, day_number: int) -> pl.DataFrame:
    """``card`` in its rotated order for ``day_number``, with ``position`` (1..n) and ``label`` (M01…).

    ``card`` is read in ``place`` order when it has that column (as ``select_card`` returns it),
    else in the order given.
    """
    if isinstance(day_number, bool) or not isinstance(day_number, int):
        raise ValueError(f"day_number must be an integer, got {day_number!r}")
    ranked = card.sort("place") if "place" in card.columns else card
    size = ranked.height
    offset = rotation_offset(day_number, size)
    index = pl.int_range(0, size, dtype=pl.Int64)
    position = (index - offset) % max(size, 1) + 1
    rotated = ranked.with_columns(position=position).sort("position")
    return rotated.with_columns(
        label=pl.lit(LABEL_PREFIX) + pl.col("position").cast(pl.String).str.zfill(2)
    ).select("label", "position", pl.exclude("label", "position"))
