"""The title fight (COMPELLE-TITLE-FIGHT-1): the challenger and the king head to head.

The motions are the 100 most recent unique motions of the sealed rotations up to the one the epoch
argued: rotations newest first, each in its published order, a motion text counted once (at its
most recent drawing, with that drawing's context). Each motion is argued twice, the challenger on
Pro first, then the king; game ``t`` is round ``t`` (both players are in every game: the pairing is
``pairing.fight_pairings``, with the other pairings, which the games import). The games are judged
by the epoch's panel, published in their own tables and never rated.

The decision counts decided games only (draws and voids are dropped): with fewer than
``MIN_DECIDED`` the fight is inconclusive; otherwise the challenger takes the crown iff its wins
clear the exact binomial bar at α = 1/100 (``colosseum_core.statistics.significance``). Either
way short of a new king, the king holds and the challenger's streak is zeroed.
"""

from __future__ import annotations

import dataclasses
from typing import Final

import polars as pl

from colosseum_core.debate.rules import COMPELLE_TITLE_FIGHT
from colosseum_core.statistics.significance import TitleFight, title_fight

MOTIONS: Final = 100
MIN_DECIDED: Final = 80
ALPHA_NUM: Final = 1
ALPHA_DEN: Final = 100
TAKES, HOLDS, INCONCLUSIVE = "challenger takes the crown", "king holds", "inconclusive: king holds"


def fight_motions(motions: pl.DataFrame, rotation: str, limit: int = MOTIONS) -> pl.DataFrame:
    """The fight's motions from ``motions`` (the sealed rotations' ``motions`` tables): the ``limit``
    most recent unique motion texts of the rotations up to ``rotation``, most recent first."""
    return (
        motions.filter(pl.col("rotation") <= rotation)
        .sort(["rotation", "position"], descending=[True, False])
        .unique("motion", keep="first", maintain_order=True)
        .head(limit)
    )


@dataclasses.dataclass(frozen=True)
class FightTally:
    games: int
    challenger_wins: int
    king_wins: int
    draws: int
    voids: int


def tally(games: pl.DataFrame, challenger_key: str) -> FightTally:
    """The fight's games (``games`` schema) counted from the challenger's side, by rating key."""
    decided = games.filter(pl.col("status") == "decided")
    won_by = pl.when(pl.col("winner") == "Pro").then("pro_rating_key").otherwise("con_rating_key")
    wins = int((decided.select(won_by)).to_series().eq(challenger_key).sum()) if decided.height else 0
    return FightTally(
        games=games.height,
        challenger_wins=wins,
        king_wins=decided.height - wins,
        draws=int((games["status"] == "draw").sum()),
        voids=int((games["status"] == "void").sum()),
    )


@dataclasses.dataclass(frozen=True)
class FightDecision:
    tally: FightTally
    test: TitleFight
    outcome: str  # TAKES, HOLDS or INCONCLUSIVE
    rules: str = COMPELLE_TITLE_FIGHT

    @property
    def challenger_takes_title(self) -> bool:
        return self.outcome == TAKES


def decide(counted: FightTally) -> FightDecision:
    test = title_fight(counted.challenger_wins, counted.king_wins, ALPHA_NUM, ALPHA_DEN)
    outcome = INCONCLUSIVE if test.decided < MIN_DECIDED else TAKES if test.challenger_takes_title else HOLDS
    return FightDecision(counted, test, outcome)
