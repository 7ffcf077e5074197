"""From the judges' votes to a game's result and its reason (COMPELLE-JUDGING-1).

Both votes valid and equal: that side wins, ``Panel verdict 2-0 → Pro``. Split: each judge
deliberates with the other's verdict and reason in front of it; agreement then decides,
``Panel split 1-1 → deliberation 2-0 → Con``; a split that survives is a draw,
``Panel split 1-1 → deliberation 1-1 → draw``. A judge whose deliberation does not return a vote
keeps its first one. Fewer than two valid votes: the game is void, ``Panel void: 1 valid vote of 2``,
rather than decided by whichever judge answered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Final

from colosseum_core.debate.judging.votes import CON, PRO
from colosseum_core.debate.models import JUDGES

DECIDED, DRAW, VOID = "decided", "draw", "void"
SIDE_WORD: Final = {PRO: "Pro", CON: "Con"}


@dataclasses.dataclass(frozen=True)
class PanelResult:
    status: str  # DECIDED, DRAW or VOID
    winner: str | None  # "Pro" or "Con" when decided
    reason: str


def _tally(votes: Sequence[str]) -> str:
    pro = sum(1 for v in votes if v == PRO)
    return f"{max(pro, len(votes) - pro)}-{min(pro, len(votes) - pro)}"


def first_reading(votes: Sequence[str | None]) -> PanelResult | None:
    """The result of the first votes, or None when they split and deliberation must follow."""
    valid = [v for v in votes if v is not None]
    if len(valid) < JUDGES:
        return PanelResult(VOID, None, f"Panel void: {len(valid)} valid vote{'s' * (len(valid) != 1)} of 2")
    if len(set(valid)) == 1:
        return PanelResult(DECIDED, SIDE_WORD[valid[0]], f"Panel verdict 2-0 → {SIDE_WORD[valid[0]]}")
    return None


def after_deliberation(first: Sequence[str], second: Sequence[str | None]) -> PanelResult:
    """The result of a split after each judge deliberated (``second[i]`` None: judge i kept its vote)."""
    final = [s if s is not None else f for f, s in zip(first, second, strict=True)]
    head = f"Panel split 1-1 → deliberation {_tally(final)}"
    if len(set(final)) == 1:
        return PanelResult(DECIDED, SIDE_WORD[final[0]], f"{head} → {SIDE_WORD[final[0]]}")
    return PanelResult(DRAW, None, f"{head} → draw")
