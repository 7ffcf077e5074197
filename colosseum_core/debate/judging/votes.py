"""A judge's vote (COMPELLE-JUDGING-1): exactly two lines, PRO or CON, then the deciding argument.

Anything else is not a vote. A reply that tries to call it even (draw, tie, both, neither, even,
equal, a split) is a **hedge**; any other reply that is not two lines led by PRO or CON (prose, an
empty reply, another language) is **malformed**. Either is retried at a higher temperature; the
record names which it was.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Final

PRO, CON = "PRO", "CON"
VERDICTS: Final = (PRO, CON)
HEDGE, MALFORMED = "hedge", "malformed"
_HEDGE: Final = re.compile(
    r"\b(draw|tie|tied|both|neither|even|evenly|equal|equally|split|undecided|no winner)\b", re.IGNORECASE
)


@dataclasses.dataclass(frozen=True)
class JudgeVote:
    verdict: str | None  # PRO or CON; None: not a valid vote
    reason: str | None
    problem: str | None  # why it is not a vote
    invalid: str | None  # HEDGE or MALFORMED when it is not a vote


def _not_a_vote(text: str, problem: str) -> JudgeVote:
    first = text.strip().splitlines()[0] if text.strip() else ""
    kind = HEDGE if _HEDGE.search(first) else MALFORMED
    return JudgeVote(None, None, problem, kind)


def read_judge_vote(text: str | None) -> JudgeVote:
    if text is None:
        return JudgeVote(None, None, "no reply text", MALFORMED)
    lines = text.strip().splitlines()
    if len(lines) != 2:
        return _not_a_vote(text, f"{len(lines)} lines, not 2")
    first, reason = lines[0].strip(), lines[1].strip()
    if first.upper() not in VERDICTS:
        return _not_a_vote(text, f"line 1 is {first[:40]!r}, not PRO or CON")
    if not reason:
        return JudgeVote(None, None, "line 2 (the deciding argument) is empty", MALFORMED)
    return JudgeVote(first.upper(), reason, None, None)
