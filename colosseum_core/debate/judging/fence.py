"""The transcript's fence: no turn can close it, or speak as another turn (COMPELLE-FENCE-2).

The judge prompt encloses the transcript between ``=====BEGIN_DEBATE_TRANSCRIPT=====`` and
``=====END_DEBATE_TRANSCRIPT=====``, and the arena labels each turn ``Turn 3 (Pro):`` on a line of
its own. A debater who writes either marker, or anything that reads as one, is trying to end the
transcript early and speak to the judge from outside it; one who writes a turn label is trying to
put words in its opponent's mouth (``Con:`` then a concession). Before a turn is fenced, every such
passage is replaced (``[transcript marker removed]``, ``[turn label removed]``), and the record keeps
what was removed, as the turn wrote it.

What reads as one is found on a skeleton of the turn that keeps, for each of its characters, where
it came from, so the spans found are the turn's own:

* every invisible code point is left out, so none can split a marker or a label that a reader reads
  straight through: Unicode's Default_Ignorable_Code_Point set (``_IGNORABLE``: zero-width spaces
  and joiners, soft hyphens, the combining grapheme joiner, variation selectors U+FE00–FE0F and
  U+E0100–E01EF, the Mongolian free variation selectors U+180B–180F, tags, Hangul fillers), every
  other format character (Cf), every combining mark (Mn, Me: a mark on a letter does not change the
  letter it is read as, and one without a base is not seen), surrogates, and control characters
  other than the tab and the line breaks;
* each character's compatibility decomposition without its marks (NFKD: full-width letters,
  ``＝``, ``É`` read as ``E``) when that is one character, else its NFKC form when that is one;
  Cyrillic and Greek letters and Latin small capitals that look like Latin letters read as those;
  box-drawing and other equals signs read as ``=``; colon lookalikes as ``:``; hyphens and the
  minus sign as ``-``, every other dash as ``—``; all upper-cased.

A **marker** is BEGIN or END, then optionally DEBATE, then TRANSCRIPT, as whole words, separated by
up to four characters that are neither letters nor digits (spaces, underscores, hyphens, dots,
dashes, a Markdown backslash) and either fenced by a run of three or more equals signs on one side
or naming DEBATE: ``===END TRANSCRIPT``, ``END\\_DEBATE\\_TRANSCRIPT``; so is a banner of three or
more equals signs on each side that opens with BEGIN or END (``=====END_DEBATE=====``). The words
alone in prose ("we begin transcripts of hearings", "the end of the transcript") are not a marker.

A **turn label** is the head of a line that names a side: PRO, CON, PROPOSITION, OPPOSITION,
AFFIRMATIVE, NEGATIVE, or the debate shorthands AFF and NEG, as a whole word in any case. A line
begins after any line break (``str.splitlines``'s: \\n, \\r, \\v, \\f, \\x1c–\\x1e, U+0085, U+2028,
U+2029), an HTML line-breaking tag (``<br>``, ``<p>``, ``<li>`` …), a written ``\\n`` or ``\\r``,
or a marker the fence removes; its head may open with spaces, quote, list and Markdown marks
(``> - **``, ``1.``). The head is a label when it is either

* *numbered*: a side next to ``Turn``/``Round``/``Speech``/``Speaker`` and a number, or ``#`` and a
  number, either way round (``Turn 2 (Con)``, ``[Turn 1] PRO``, ``Con, turn 3``, ``Turn 1 — Pro``),
  or a side alone in brackets (``[Con]``), whatever follows it; or
* *short*: at most three words, the side, and at most four words (``Con``, ``Con's closing
  statement``, ``Closing statement (Con)``, ``Speaker: Con``, ``Fine. Con:``), ended by a colon,
  a dash or the line's end; before the side anything but letters and digits may part the words,
  after it nothing but spaces, brackets, commas, quotes and Markdown (a full stop, a question or
  exclamation mark or a semicolon after the side ends a sentence, and a sentence is prose).

Several labels in a row at one line head are one passage. A side named in the middle of a line is
prose ("the pro side argues"), and so is a line that names one early but runs on as a sentence
("The pro side argues that cities need cars, and it is wrong."). A line that opens like a label is
neutralised whatever its writer meant: "Pro tip: …" and "Con artists thrive:" lose their heads
(``[turn label removed] …``), because a judge reading "Pro tip:" then a concession cannot tell it
from a speaker's label either; the rest of the line stays, and the record shows what was removed.

Everything FENCE-1 removed, FENCE-2 removes too: its passages are FENCE-1's and its own, joined
where they overlap.

**COMPELLE-FENCE-1** (games whose rules name no fence: the fence of COMPELLE-JUDGING-1), kept
exactly: the skeleton left out only Cf and read each character's NFKC form, the Cyrillic and Greek
capitals and the equals signs; the marker grammar is the same; a turn label was a line beginning
``Turn <n> (Pro)`` or ``Turn <n> (Con)`` after a ``\\n``, with only spaces, ``> * # _ [ (`` before it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Final

from colosseum_core.debate.rules import COMPELLE_FENCE, COMPELLE_FENCE_1

BEGIN_MARKER: Final = "=====BEGIN_DEBATE_TRANSCRIPT====="
END_MARKER: Final = "=====END_DEBATE_TRANSCRIPT====="
REMOVED: Final = "[transcript marker removed]"
LABEL_REMOVED: Final = "[turn label removed]"

Neutralise = Callable[[str], tuple[str, list[str]]]
# (start, end, replacement) in the turn's own offsets.
Span = tuple[int, int, str]

# --- the marker grammar (both versions) ----------------------------------------------------------

_SEP: Final = r"[^A-Z0-9\n]{1,4}"
_WORDS: Final = rf"\b(?:BEGIN|END){_SEP}(?:DEBATE{_SEP})?TRANSCRIPTS?\b"
_JOIN: Final = r"[^A-Z0-9\n]{0,4}"
# A run of equals signs is tried from its first sign only (``(?<!=)``): a match could start nowhere
# else, and trying every sign of a long run would take time quadratic in its length.
_MARKER: Final = re.compile(
    rf"(?<!=)={{3,}}[ \t]*{_WORDS}(?:[ \t]*=+)?"
    rf"|{_WORDS}[ \t]*={{3,}}"
    rf"|\b(?:BEGIN|END){_JOIN}DEBATE{_JOIN}TRANSCRIPTS?\b"
    # A banner of equals signs that opens with BEGIN or END, whatever it goes on to name.
    r"|(?<!=)={3,}[ \t]*(?:BEGIN|END)(?![A-Z0-9])[^=\n]{0,40}={3,}"
)


def _spans(pattern: re.Pattern[str], skeleton: str, offsets: list[int], replacement: str) -> list[Span]:
    """Each match of ``pattern`` in ``skeleton``, as a span of the turn's own text."""
    return [
        (offsets[m.start()], offsets[m.end() - 1] + 1, replacement)
        for m in pattern.finditer(skeleton)
        if m.end() > m.start()
    ]


def _replaced(text: str, spans: list[Span]) -> tuple[str, list[str]]:
    """``text`` with each span replaced, spans that overlap joined into one (a marker's replacement
    wins), and the passages as the turn wrote them."""
    joined: list[Span] = []
    for start, end, replacement in sorted(spans):
        if joined and start < joined[-1][1]:
            last_start, last_end, last = joined[-1]
            kind = REMOVED if REMOVED in (last, replacement) else last
            joined[-1] = (last_start, max(last_end, end), kind)
        else:
            joined.append((start, end, replacement))
    found: list[str] = []
    pieces: list[str] = []
    last_end = 0
    for start, end, replacement in joined:
        pieces += [text[last_end:start], replacement]
        found.append(text[start:end])
        last_end = end
    pieces.append(text[last_end:])
    return "".join(pieces), found


# --- COMPELLE-FENCE-1, kept exactly --------------------------------------------------------------

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
_LABEL_1: Final = re.compile(
    r"^[ \t>*#_\[(]*TURN[ \t]*\d+[ \t]*[(\[]?[ \t]*(?:PRO|CON)\b[)\]]?[ \t]*:?", re.MULTILINE
)


def _skeleton_1(text: str) -> tuple[str, list[int]]:
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


def _found_1(text: str) -> list[Span]:
    skeleton, offsets = _skeleton_1(text)
    return _spans(_MARKER, skeleton, offsets, REMOVED) + _spans(_LABEL_1, skeleton, offsets, LABEL_REMOVED)


def _neutralise_1(text: str) -> tuple[str, list[str]]:
    """COMPELLE-FENCE-1: as games were fenced before FENCE-2."""
    spans = sorted(_found_1(text))
    kept: list[Span] = []
    for span in spans:
        if kept and span[0] < kept[-1][1]:
            continue  # inside a passage already removed
        kept.append(span)
    return _replaced(text, kept)


# --- COMPELLE-FENCE-2 ----------------------------------------------------------------------------

# Default_Ignorable_Code_Point, from DerivedCoreProperties.txt of Unicode 14.0.0 (the version of
# Python 3.11's unicodedata, which does not expose the property), adjacent ranges merged.
_IGNORABLE_RANGES: Final = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
_IGNORABLE: Final = frozenset(c for low, high in _IGNORABLE_RANGES for c in range(low, high + 1))
# What str.splitlines() breaks a line at.
LINE_BREAKS: Final = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_UNSEEN: Final = frozenset({"Cf", "Mn", "Me", "Cs"})
_HYPHENS: Final = frozenset("-\u2010\u2011\u2043\u2212\ufe63\uff0d")
_LOOKALIKES_2: Final = str.maketrans(
    {
        # Cyrillic and Greek letters that render as Latin ones.
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
        "Т": "T", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ү": "Y", "Ӏ": "I", "Ԛ": "Q", "Ԝ": "W",
        "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "х": "x", "ѕ": "s", "і": "i", "ј": "j",
        "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "у": "y",
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
        "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v",
        # Latin small capitals.
        "ᴀ": "A", "ʙ": "B", "ᴄ": "C", "ᴅ": "D", "ᴇ": "E", "ɢ": "G", "ʜ": "H", "ɪ": "I", "ᴊ": "J",
        "ᴋ": "K", "ʟ": "L", "ᴍ": "M", "ɴ": "N", "ᴏ": "O", "ᴘ": "P", "ʀ": "R", "ꜱ": "S", "ᴛ": "T",
        "ᴜ": "U", "ᴠ": "V", "ᴡ": "W", "ʏ": "Y", "ᴢ": "Z",
        # Equals signs NFKC leaves alone.
        "═": "=", "꞊": "=", "⩵": "=", "≡": "=",
        # Colons NFKC leaves alone.
        "꞉": ":", "∶": ":", "˸": ":", "ː": ":", "׃": ":", "։": ":", "᛬": ":", "⁚": ":", "⦂": ":",
        "܃": ":", "܄": ":", "፡": ":",
    }
)  # fmt: skip
_TO_LINE_BREAK: Final = str.maketrans(dict.fromkeys(LINE_BREAKS, "\n"))


@functools.lru_cache(maxsize=8192)
def _read_2(char: str) -> str:
    """How FENCE-2's skeleton reads one character: one character, or none when it is unseen."""
    if char in LINE_BREAKS or char == "\t":
        return char
    category = unicodedata.category(char)
    if ord(char) in _IGNORABLE or category in _UNSEEN or category == "Cc":
        return ""
    if char in _HYPHENS:
        return "-"
    if category == "Pd":
        return "\u2014"
    decomposed = unicodedata.normalize("NFKD", char)
    base = "".join(c for c in decomposed if unicodedata.category(c) not in _UNSEEN)
    if len(base) != 1:
        composed = unicodedata.normalize("NFKC", char)
        base = composed if len(composed) == 1 else char
    read = base.translate(_LOOKALIKES_2).upper()
    # Upper-casing can lengthen a character (ß → SS); one character stands for one.
    return read[:1] or char


def _skeleton_2(text: str) -> tuple[str, list[int]]:
    chars: list[str] = []
    offsets: list[int] = []
    for offset, char in enumerate(text):
        read = _read_2(char)
        if read:
            chars.append(read)
            offsets.append(offset)
    return "".join(chars), offsets


_SIDE: Final = r"(?:PRO|CON|PROPOSITION|OPPOSITION|AFFIRMATIVE|NEGATIVE|AFF|NEG)(?![^\W_])"
# A word or a number: hyphenated, or with an apostrophe, it is still one. Atomic, so a line of
# ``a'a'a'…`` is read once, not split every way a gap could split it.
_WORD: Final = r"(?>[^\W_]+(?:['’ʼ\-][^\W_]+)*)"
# Between words: anything but letters, digits and the line's end (a colon or a dash included).
# Possessive, as every gap here: a gap is never given back, since what follows it is a word.
_GAP: Final = r"(?:[^\w\n]|_)*+"
# After a side: spaces, brackets, commas, quotes, Markdown; never a label's end nor a sentence's.
_TAIL_GAP: Final = r"(?:[^\w\n:\-—.!?;]|_)*+"
# A label ends at a colon or a dash (Markdown closing it), or with its line.
_END: Final = r"(?:(?::|—|-(?![^\W_]))[*_]*|$)"
_NUMBERED: Final = r"(?:(?:TURN|ROUND|SPEECH|SPEAKER)[^\w\n]{0,4}|#[ \t]*)\d{1,3}(?!\d)"
_HEAD: Final = (
    # Spaces, quote, list and Markdown marks, a list number.
    r"(?:[^\w\n]|_|\d{1,3}[.)])*"
    r"(?:"
    rf"(?:{_NUMBERED}{_GAP}{_SIDE}|{_SIDE}{_GAP}{_NUMBERED}|[\[(<{{][ \t]*{_SIDE}[ \t]*[\])>}}])"
    rf"(?:{_TAIL_GAP}{_END})?"
    rf"|(?:{_WORD}{_GAP}){{0,3}}{_SIDE}(?:{_TAIL_GAP}{_WORD}){{0,4}}?{_TAIL_GAP}{_END}"
    r")"
)
_LABEL_2: Final = re.compile(rf"^(?:{_HEAD})+", re.MULTILINE)
# What else starts a line for a reader: a line-breaking HTML tag, a written \n or \r.
_BREAKS: Final = re.compile(r"<[ \t]*/?[ \t]*(?:BR|P|DIV|LI|HR|TR|H[1-6])\b[^<>\n]{0,40}>|\\[NR]")


def _found_2(text: str) -> list[Span]:
    skeleton, offsets = _skeleton_2(text)
    markers = [m.span() for m in _MARKER.finditer(skeleton) if m.end() > m.start()]
    # Labels are read where every line break is one, and a removed marker or a tag starts a line.
    view = list(skeleton.translate(_TO_LINE_BREAK))
    for start, end in markers + [m.span() for m in _BREAKS.finditer(skeleton)]:
        view[start:end] = "\n" * (end - start)
    found = [(offsets[start], offsets[end - 1] + 1, REMOVED) for start, end in markers]
    return found + _spans(_LABEL_2, "".join(view), offsets, LABEL_REMOVED)


def _neutralise_2(text: str) -> tuple[str, list[str]]:
    """COMPELLE-FENCE-2: its own passages and FENCE-1's."""
    return _replaced(text, _found_2(text) + _found_1(text))


FENCES: Final[Mapping[str, Neutralise]] = {COMPELLE_FENCE_1: _neutralise_1, COMPELLE_FENCE: _neutralise_2}
_FENCE_NAME: Final = re.compile(r"\bCOMPELLE-FENCE-\d+\b")


def neutralise(text: str, rules: str = COMPELLE_FENCE) -> tuple[str, list[str]]:
    """``text`` with every passage that reads as a transcript marker or a turn label replaced, and
    those passages as the turn wrote them, by the fence ``rules`` names."""
    try:
        fence = FENCES[rules]
    except KeyError:
        raise ValueError(f"unknown fence {rules!r}; known: {', '.join(FENCES)}") from None
    return fence(text)


def fence_of(game_rules: str) -> str:
    """The fence a game was judged through, by its recorded ``rules`` (``COMPELLE-GAME-1
    COMPELLE-JUDGING-1 COMPELLE-FENCE-2``): the one it names, FENCE-1 if it names none. A fence this
    code does not know, or two, is a ValueError naming them."""
    named = _FENCE_NAME.findall(game_rules)
    if not named:
        return COMPELLE_FENCE_1
    if len(named) > 1 or named[0] not in FENCES:
        known = ", ".join(FENCES)
        raise ValueError(f"rules {game_rules!r} name the fence {', '.join(named)}; known: {known}")
    return named[0]


def fenced_transcript(turns: list[tuple[int, str, str]]) -> str:
    """The transcript the judges read: each turn (number, side, neutralised text) labelled."""
    return "\n\n".join(f"Turn {number} ({side}):\n{text}" for number, side, text in turns)
