"""The streak (COMPELLE-CROWN-1): how many consecutive epochs a challenger has led the king by 200.

At the end of every epoch each entered miner other than the king whose Elo is at least ``LEAD``
above the king's extends its streak by one; every other miner's streak is zero (one epoch under the
line, or an epoch not entered, resets it). A streak that reaches ``HOLD`` buys a title fight.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from colosseum_core.debate.ratings import START

LEAD: Final = 200.0
HOLD: Final = 20


def leads(rating: float, king_rating: float) -> bool:
    return rating - king_rating >= LEAD


def streaks_after(
    previous: Mapping[str, int],
    ratings: Mapping[str, float],
    king: str | None,
    entered: Iterable[str],
) -> dict[str, int]:
    """Each challenger's streak (rating key -> epochs) after an epoch; only non-zero streaks are kept.
    ``ratings``: every rating key's Elo after the epoch (a key not in it is at the start, 1000)."""
    if king is None:
        return {}
    king_rating = ratings.get(king, START)
    return {
        key: previous.get(key, 0) + 1
        for key in sorted(set(entered) - {king})
        if leads(ratings.get(key, START), king_rating)
    }


def challenger(streaks: Mapping[str, int], ratings: Mapping[str, float]) -> str | None:
    """Who fights for the title this epoch: the longest streak that has reached ``HOLD``, then the
    higher rating, then the rating key; None when no streak has."""
    due = [key for key, epochs in streaks.items() if epochs >= HOLD]
    if not due:
        return None
    return min(due, key=lambda key: (-streaks[key], -ratings.get(key, START), key))
