"""Rule 9, ``one_per_family``: one event, one question on the card.

A Gamma event is a family: a negRisk "who will win" event of fifty candidates, or one game's
moneyline, spreads and totals. Only its best-ranked question stays; every sibling is excluded,
naming the question that represents the family. The rule reads the ranking over every question
still standing, so the representative is the most doubtful sibling (ties as the ranking breaks them).
"""

from __future__ import annotations

import polars as pl


def one_per_family_reason() -> pl.Expr:
    """Why each ranked question yields to a better-ranked sibling (String), or null when it leads.

    Reads ``rank``, ``event_id`` and ``market_id`` of the ranked questions.
    """
    leader = pl.col("market_id").sort_by("rank").first().over("event_id")
    return (
        pl.when(pl.col("rank") == pl.col("rank").min().over("event_id"))
        .then(None)
        .otherwise(pl.format("event {} already represented by market {}", pl.col("event_id"), leader))
        .cast(pl.String)
    )
