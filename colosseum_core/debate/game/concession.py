"""The concession (COMPELLE-GAME-1): a message whose first non-space character is Δ concedes.

The seed's mark is U+0394 GREEK CAPITAL LETTER DELTA; U+2206 INCREMENT looks the same and is what
some keyboards and models produce, so it also concedes and the record says which one it was. The
prompt asks a conceding debater to explain what convinced it in at least 50 characters; a shorter
explanation still concedes (the debater meant it) and is flagged, so a reader can find them.
"""

from __future__ import annotations

import dataclasses
from typing import Final

DELTA: Final = "\u0394"
INCREMENT: Final = "\u2206"
MARKS: Final = (DELTA, INCREMENT)
MIN_EXPLANATION_CHARS: Final = 50


@dataclasses.dataclass(frozen=True)
class Concession:
    mark: str  # the code point that conceded, as "U+0394"
    explanation_chars: int
    short: bool  # under MIN_EXPLANATION_CHARS of explanation


def read_concession(text: str | None) -> Concession | None:
    """The concession ``text`` makes, or None if it argues on."""
    if not text:
        return None
    stripped = text.lstrip()
    if not stripped or stripped[0] not in MARKS:
        return None
    explanation = stripped[1:].strip()
    return Concession(
        mark=f"U+{ord(stripped[0]):04X}",
        explanation_chars=len(explanation),
        short=len(explanation) < MIN_EXPLANATION_CHARS,
    )


def conceded_reason(side: str, turn: int, mark: str) -> str:
    """A conceded game's reason: ``Con conceded on turn 4 (U+0394) → Pro``."""
    winner = "Con" if side == "Pro" else "Pro"
    return f"{side} conceded on turn {turn} ({mark}) → {winner}"
