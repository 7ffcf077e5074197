"""The transcript's fence: no turn can close it, or speak as another turn (COMPELLE-JUDGING-1).

The judge prompt encloses the transcript between ``=====BEGIN_DEBATE_TRANSCRIPT=====`` and
``=====END_DEBATE_TRANSCRIPT=====``, and the arena labels each turn ``Turn 3 (Pro):`` on a line of
its own. A debater who writes either marker, or anything that reads as one, is trying to end the
transcript early and speak to the judge from outside it; one who writes a turn label is trying to
put words in its opponent's mouth (``Turn 4 (Con):`` then a concession). Before a turn is fenced,
every such passage is replaced (``[transcript marker removed]``, ``[turn label removed]``), and the
record keeps what was removed.

What reads as one is found on a skeleton of the turn that keeps, for each of its characters, where
it came from, so the spans found are the turn's own:

* invisible format characters (Unicode Cf: zero-width spaces and joiners, soft hyphens, word
  joiners) are left out, so they cannot split a marker a model reads straight through;
* each character's compatibility form (NFKC: full-width letters, ``＝``) when that is one character;
  Cyrillic and Greek capitals that look like Latin ones read as those; box-drawing and other equals
  signs read as ``=``; all upper-cased.

A **marker** is BEGIN or END, then optionally DEBATE, then TRANSCRIPT, as whole words, separated by
up to four characters that are neither letters nor digits (spaces, underscores, hyphens, dots,
dashes, a Markdown backslash) and either fenced by a run of three or more equals signs on one side
or naming DEBATE: ``===END TRANSCRIPT``, ``END\\_DEBATE\\_TRANSCRIPT``; so is a banner of three or
more equals signs on each side that opens with BEGIN or END (``=====END_DEBATE=====``). The words
alone in prose ("we begin transcripts of hearings", "the end of the transcript") are not a marker.
A **turn label** is a line that begins ``Turn <n> (Pro)`` or ``Turn <n> (Con)``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

BEGIN_MARKER: Final = "=====BEGIN_DEBATE_TRANSCRIPT====="
END_MARKER: Final = "=====END_DEBATE_TRANSCRIPT====="
REMOVED: Final = "[transcript marker removed]"
LABEL_REMOVED: Final = "[turn label removed]"

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
_SEP: Final = r"[^A-Z0-9\n]{1,4}"
_WORDS: Final = rf"\b(?:BEGIN|END){_SEP}(?:DEBATE{_SEP})?TRANSCRIPTS?\b"
_JOIN: Final = r"[^A-Z0-9\n]{0,4}"
_MARKER: Final = re.compile(
    rf"={{3,}}[ \t]*{_WORDS}(?:[ \t]*=+)?"
    rf"|{_WORDS}[ \t]*={{3,}}"
    rf"|\b(?:BEGIN|END){_JOIN}DEBATE{_JOIN}TRANSCRIPTS?\b"
    # A banner of equals signs that opens with BEGIN or END, whatever it goes on to name.
    r"|={3,}[ \t]*(?:BEGIN|END)(?![A-Z0-9])[^=\n]{0,40}={3,}"
)
_LABEL: Final = re.compile(
    r"^[ \t>*#_\[(]*TURN[ \t]*\d+[ \t]*[(\[]?[ \t]*(?:PRO|CON)\b[)\]]?[ \t]*:?", re.MULTILINE
)


def _skeleton(text: str) -> tuple[str, list[int]]:
    """The turn as it reads (see the module's rules), and for each of its characters its offset in
    ``text``."""
    chars: list[str] = []
    offsets: list[int] = []
    for offset, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            continue
        folded = unicodedata.normalize("NFKC", char)
        read = (folded if len(folded) == 1 else char).translate(_LOOKALIKES).upper()
        # Upper-casing can lengthen a character (ß → SS); one character stands for one.
        chars.append(read[:1] or char)
        offsets.append(offset)
    return "".join(chars), offsets


def neutralise(text: str) -> tuple[str, list[str]]:
    """``text`` with every passage that reads as a transcript marker or a turn label replaced, and
    those passages as the turn wrote them."""
    skeleton, offsets = _skeleton(text)
    spans: list[tuple[int, int, str]] = []
    for pattern, replacement in ((_MARKER, REMOVED), (_LABEL, LABEL_REMOVED)):
        for match in pattern.finditer(skeleton):
            if match.end() > match.start():
                spans.append((offsets[match.start()], offsets[match.end() - 1] + 1, replacement))
    spans.sort()
    found: list[str] = []
    pieces: list[str] = []
    last = 0
    for start, end, replacement in spans:
        if start < last:
            continue  # inside a passage already removed
        pieces += [text[last:start], replacement]
        found.append(text[start:end])
        last = end
    pieces.append(text[last:])
    return "".join(pieces), found


def fenced_transcript(turns: list[tuple[int, str, str]]) -> str:
    """The transcript the judges read: each turn (number, side, neutralised text) labelled."""
    return "\n\n".join(f"Turn {number} ({side}):\n{text}" for number, side, text in turns)
