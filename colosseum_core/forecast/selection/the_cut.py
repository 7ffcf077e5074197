"""Rule 11, ``the_cut``: the top of the remaining ranked list makes the card.

The list the cut reads is the ranking with ``one_per_family`` and ``one_of_a_kind`` taken out; a
question's ``place`` is its position on that list (its ``rank`` stays its position in the full
ranking by doubt). Places 1..cut are selected; every place below is excluded and published with its
place and rank, so the full ranked list below the cut is on the record. A list shorter than the cut
makes a shorter card: nothing is ever padded in.
"""

from __future__ import annotations

from typing import Final

import polars as pl

CARD_SIZE: Final = 25


def with_places(remaining: pl.DataFrame) -> pl.DataFrame:
    """``remaining`` in rank order with ``place`` 1..n (Int64)."""
    ordered = remaining.sort("rank")
    return ordered.with_columns(place=pl.int_range(1, ordered.height + 1, dtype=pl.Int64))


def the_cut_reason(cut: int = CARD_SIZE) -> pl.Expr:
    """Why each placed question is below the cut (String), or null when it makes the card.

    Reads ``place`` and ``rank``.
    """
    return (
        pl.when(pl.col("place") > cut)
        .then(pl.format("place {} (rank {}); the cut is {}", pl.col("place"), pl.col("rank"), pl.lit(cut)))
        .otherwise(None)
        .cast(pl.String)
    )
