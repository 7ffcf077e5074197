"""The transcript's fence: no turn can close it (COMPELLE-JUDGING-1).

The judge prompt encloses the transcript between ``=====BEGIN_DEBATE_TRANSCRIPT=====`` and
``=====END_DEBATE_TRANSCRIPT=====``. A debater who writes either marker, or anything that reads as
one, is trying to end the transcript early and speak to the judge from outside it. Before a turn is
fenced, every such passage is replaced by ``[transcript marker removed]``, and the record keeps what
was removed.

What reads as a marker is found on a skeleton of the turn, one character for each of the turn's, so
the spans found are the turn's own: each character's compatibility form (NFKC: full-width letters,
``＝``) when that is one character, Cyrillic and Greek capitals that look like Latin ones read as
those, box-drawing and other equals signs read as ``=``, all upper-cased. A passage is a marker
when it says BEGIN or END, then optionally DEBATE, then TRANSCRIPT, separated by nothing,
spaces, underscores or hyphens, with any run of equals signs around it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

BEGIN_MARKER: Final = "=====BEGIN_DEBATE_TRANSCRIPT====="
END_MARKER: Final = "=====END_DEBATE_TRANSCRIPT====="
REMOVED: Final = "[transcript marker removed]"

_LOOKALIKES: Final = str.maketrans(
    {
        # Cyrillic capitals and small letters that render as Latin ones.
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
        "Т": "T", "Х": "X", "Ѕ": "S", "І": "I", "а": "a", "е": "e", "о": "o", "р": "p", "с": "c",
        "х": "x", "ѕ": "s", "і": "i",
        # Greek capitals that render as Latin ones.
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
        "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        # Equals signs NFKC leaves alone.
        "═": "=", "꞊": "=", "⩵": "=", "≡": "=",
    }
)  # fmt: skip
_MARKER: Final = re.compile(r"=*[ \t]*(?:BEGIN|END)[\s_\-]*(?:DEBATE[\s_\-]*)?TRANSCRIPT[ \t]*=*")


def _skeleton(text: str) -> str:
    chars = []
    for char in text:
        folded = unicodedata.normalize("NFKC", char)
        chars.append(folded if len(folded) == 1 else char)
    return "".join(chars).translate(_LOOKALIKES).upper()


def neutralise(text: str) -> tuple[str, list[str]]:
    """``text`` with every passage that reads as a transcript marker replaced, and those passages."""
    skeleton = _skeleton(text)
    # Upper-casing can change a string's length (ß → SS); then spans would not be the turn's own.
    if len(skeleton) != len(text):
        skeleton = "".join(_skeleton(c)[:1] or c for c in text)
    found: list[str] = []
    pieces: list[str] = []
    last = 0
    for match in _MARKER.finditer(skeleton):
        pieces += [text[last : match.start()], REMOVED]
        found.append(text[match.start() : match.end()])
        last = match.end()
    pieces.append(text[last:])
    return "".join(pieces), found


def fenced_transcript(turns: list[tuple[int, str, str]]) -> str:
    """The transcript the judges read: each turn (number, side, neutralised text) labelled."""
    return "\n\n".join(f"Turn {number} ({side}):\n{text}" for number, side, text in turns)
