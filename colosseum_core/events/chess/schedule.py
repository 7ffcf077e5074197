"""CHESS-SCHEDULE-1: the colour-balanced round robin over the suite's lines.

Every pair of contenders (i < j in the manifest's order) plays every line twice, colours swapped:
leg ``a`` with i as White, leg ``b`` with j as White. Those two games are one cluster of the
game-pair bootstrap. A round is one line: round k plays the manifest's k-th line, every pair, both
legs, so each contender plays (n − 1) × 2 games a round, as many with White as with Black.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence


@dataclasses.dataclass(frozen=True)
class ScheduledGame:
    round: int
    game_id: str  # "L03-02v05-a": the line, the pair (manifest indices, from 1), the leg
    cluster: str  # "L03-02v05": the game pair
    line_id: str
    white: str
    black: str


def round_robin(contenders: Sequence[str], lines: Sequence[str]) -> list[ScheduledGame]:
    """Every game of the event, round by round, pair by pair, leg a before leg b."""
    if len(set(contenders)) != len(contenders):
        raise ValueError(f"contenders must be distinct: {list(contenders)}")
    if len(set(lines)) != len(lines):
        raise ValueError(f"lines must be distinct: {list(lines)}")
    if len(contenders) < 2 or not lines:
        raise ValueError(
            f"a round robin needs two contenders and a line, not {len(contenders)} and {len(lines)}"
        )
    width = max(2, len(str(len(contenders))))
    games = []
    for number, line in enumerate(lines, start=1):
        for (i, first), (j, second) in itertools.combinations(enumerate(contenders, start=1), 2):
            cluster = f"{line}-{i:0{width}d}v{j:0{width}d}"
            games.append(ScheduledGame(number, f"{cluster}-a", cluster, line, first, second))
            games.append(ScheduledGame(number, f"{cluster}-b", cluster, line, second, first))
    return games
