"""The answer reader: a seat's reply turned into one binding answer, or none, per label of the card.

Method §7: "The judge recovers before it rejects. If an answer is wrapped in extra text but clearly
means one thing, it is recovered, scored at full value, and marked BAD FORMATTING on the public
format record. Each recovery step is published. An answer that cannot be matched to exactly one
question binds nothing."

The packet states the format: one line per question, ``M01: YES 7``, confidence a whole number from
1 to 10. A reply that is exactly such lines (surrounding whitespace aside) is read strictly: every
answer is ``answered`` and the reply is not bad formatting. Anything else goes through the
published ``RECOVERY_STEPS``, a fixed list of named tolerances in order of leniency. Each answer
records every step it needed (``steps``) and, as ``step``, the last of them in published order: the
most lenient tolerance it took to read it.

Binding is conservative on purpose. The reader never guesses a label (no positional answers), never
clamps a confidence, and never picks between two different answers for one label: the label then
binds nothing, which scoring turns into a forfeit. A line that looks like an answer but cannot be
read is published in ``unmatched``; when it names a label that has another, readable answer, that
label binds nothing either, because the reply no longer clearly means one thing.

Line breaks may be \n, \r\n or \r, and a leading byte-order mark is dropped: both are how text is
stored, not how the answer is written. Blank lines inside a reply are not strict; they are noted
and make the reply bad formatting without recovering the answers around them.

The reader never raises on a reply: an empty reply (every label unbound, not bad formatting), bytes
that are not UTF-8 (decoded with replacement) and replies of megabytes (only the first ``MAX_SCAN``
bytes or characters are read, up to the last whole line, so a cut "M25: YES 10" never binds as
"M25: YES 1") are all read, and what was done to them is recorded in ``notes``. Only an unknown
rules version is refused (ValueError): that is a caller's mistake, not a seat's.

Versions (``READINGS``; ``read_reply(..., rules=...)``, recorded as ``Reading.rules``):

- COLOSSEUM-READING-2 (current). Strict means ASCII: the grammar and every recovery step read the
  ASCII digits 0-9 and the ASCII letters only. A decimal digit of another script (fullwidth ７,
  Arabic-Indic ٧, Devanagari ७, ...) is read as the ASCII digit of the same value by the
  ``digit_forms`` step, and so is never strict; superscripts, circled numbers and Roman numerals are
  no digits at all; letters are ASCII's too (Unicode's case folding read ``ſ`` as ``s``). Given the
  card's packet (COLOSSEUM-PACKET-2), the reader tells quotations of the card's texts from answers
  (the ``quotations`` step): a reply line that repeats a line of any question's text, scheduled end
  or rules is an answer only for a label that has no line of its own, and the lines a reply echoes
  inside the packet's fenced sections are never answers. What was set aside is counted
  (``Reading.quotations``, ``quotations`` in the format record) and noted, and makes the reply bad
  formatting. A packet that is not PACKET-2, or not readable, is noted (a note on the packet, not
  on the reply: it is no bad formatting) and quotations are then not told apart. Without a packet
  they are not told apart either, and nothing is noted.
- COLOSSEUM-READING-1 (cards read before READING-2): the same steps without ``digit_forms`` and
  ``quotations``, with Python's Unicode ``\\d``, ``\\s`` and case-insensitive matching, so ``M０１: YES ７``
  was strict; the packet is not used. Kept exactly, so an auditor re-reads old records bit for bit.
"""

from __future__ import annotations

import bisect
import codecs
import dataclasses
import itertools
import json
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final, Literal

from colosseum_core.forecast.rules import COLOSSEUM_READING, COLOSSEUM_READING_1
from colosseum_core.forecast.sealing.packet import parse_packet

READING_RULES = COLOSSEUM_READING

ANSWERED: Final = "answered"
RECOVERED: Final = "recovered"
UNBOUND: Final = "unbound"
Status = Literal["answered", "recovered", "unbound"]

# Only this much of a reply is scanned; a real answer sheet for 25 questions is a few hundred bytes.
MAX_SCAN: Final = 1_048_576
# No answer line is this long; the cap also bounds the regex work on pathological lines.
MAX_LINE_CHARS: Final = 400
# A table row may also carry the question's text.
MAX_ROW_CHARS: Final = 4_000
# Each attempt may scan to the end of the text, so they are capped to keep the reader linear.
MAX_JSON_ATTEMPTS: Final = 32
MAX_JSON_ENTRIES: Final = 10_000
MAX_JSON_DEPTH: Final = 6
# The count is always exact; only the published list of unmatched lines is capped.
MAX_UNMATCHED_LISTED: Final = 200
SOURCE_CHARS: Final = 160


@dataclasses.dataclass(frozen=True)
class RecoveryStep:
    name: str
    description: str


DIGIT_FORMS: Final = "digit_forms"
TRIM_AND_CASE: Final = "trim_and_case"
LABEL_PADDING: Final = "label_padding"
SEPARATORS: Final = "separators"
CONFIDENCE_FORMS: Final = "confidence_forms"
TRAILING_NOTE: Final = "trailing_note"
PROSE_LINES: Final = "prose_lines"
QUOTATIONS: Final = "quotations"
MARKDOWN_TABLE: Final = "markdown_table"
JSON_ANSWERS: Final = "json"
REPEATED_IDENTICAL: Final = "repeated_identical"

_TRIM_AND_CASE_STEP: Final = RecoveryStep(
    TRIM_AND_CASE,
    "Whitespace around a line or its parts (indentation, tabs, doubled or missing spaces around the"
    " colon, zero-width spaces) and the case of the label and call (m01, yes, No) are ignored.",
)
_LINE_TO_PROSE: Final = (
    RecoveryStep(
        LABEL_PADDING,
        "A label written with another number of digits (M1, M001) is read as the card's label with the"
        " same number (M01).",
    ),
    RecoveryStep(
        SEPARATORS,
        "Markdown emphasis (** _ `), a leading bullet, number or heading mark, another separator after"
        " the label (- – — ) . = | :- -> or none) or between call and confidence (, / : ; | or a spaced"
        " dash) and trailing . , ; ! are ignored. A dash touching only the number (YES -3) is not.",
    ),
    RecoveryStep(
        CONFIDENCE_FORMS,
        "The confidence written as 8/10, 8 out of 10, (8), [8], @ 8, confidence 8, conf: 8, stake=8, or"
        " with leading zeros (08), alone or in parentheses, is read as the whole number 8.",
    ),
    RecoveryStep(
        TRAILING_NOTE,
        "A note after a complete answer, set off by a dash, colon, semicolon, comma, full stop,"
        " parenthesis or a space before a word, is ignored if it holds letters and no yes/no, no"
        " confidence wording and no x/10.",
    ),
    RecoveryStep(
        PROSE_LINES,
        "Answer lines among other text (an introduction, reasoning, headings, code fences) are read;"
        " the other text is ignored. A line only counts as an answer if it starts with its label.",
    ),
)
_TABLE_TO_REPEATED: Final = (
    RecoveryStep(
        MARKDOWN_TABLE,
        "A markdown table row is read when exactly one cell is a label, exactly one cell is YES or NO"
        " and exactly one cell after it is a confidence; header and rule rows are ignored.",
    ),
    RecoveryStep(
        JSON_ANSWERS,
        "A JSON object or array starting a line (also inside a ```json fence) is read: objects keyed by"
        " label, or entries with a label key (label, id, question, question_id, q, market, key), a call"
        " key (call, answer, prediction, forecast, outcome, decision, vote, pick, choice, position,"
        " response) and a confidence key (confidence, conf, stake, certainty), also under answers,"
        " forecasts, predictions, responses, results, questions, items, data, calls or picks.",
    ),
    RecoveryStep(
        REPEATED_IDENTICAL,
        "A label answered more than once with the same call and confidence binds once.",
    ),
)

RECOVERY_STEPS_1: Final[tuple[RecoveryStep, ...]] = (
    _TRIM_AND_CASE_STEP,
    *_LINE_TO_PROSE,
    *_TABLE_TO_REPEATED,
)
RECOVERY_STEPS: Final[tuple[RecoveryStep, ...]] = (
    # First: it rewrites the characters every later step and the grammar read (the digits of labels
    # and confidences), and it is no more lenient than trim_and_case: the same number in another
    # script, as case is the same letter.
    RecoveryStep(
        DIGIT_FORMS,
        "A decimal digit of another script (fullwidth ０-９, Arabic-Indic ٠-٩, Devanagari ०-९ and every"
        " other Unicode decimal digit) is read as the ASCII digit of the same value. Nothing else is a"
        " digit: superscripts (²), circled numbers (⑦) and Roman numerals (Ⅶ) are not read.",
    ),
    _TRIM_AND_CASE_STEP,
    *_LINE_TO_PROSE,
    # After prose_lines: lines that quote the packet are other text around the answers too, only
    # they look like answers, so telling them apart is the more lenient reading.
    RecoveryStep(
        QUOTATIONS,
        "Given the card's packet: a line that repeats a line of the card's quoted texts (any question's"
        " text, scheduled end or resolution rules; compared without surrounding whitespace and leading"
        " > quote marks) is a quotation. It is read as an answer only for a label that has no line of"
        " its own (the two cannot be told apart then); otherwise, or if it names no single question, it"
        " is ignored, and an answer bound beside it needed this step. The lines after"
        " a fence line of the card that opens a section, up to the next fence line (the packet's sections"
        " repeated), are never answers. A reply with lines set aside so is bad formatting.",
    ),
    *_TABLE_TO_REPEATED,
)
_STEP_ORDER: Final = {step.name: i for i, step in enumerate(RECOVERY_STEPS)}
# One order serves both versions: READING-1's steps are READING-2's, in the same relative order.
assert [s.name for s in RECOVERY_STEPS if s in RECOVERY_STEPS_1] == [s.name for s in RECOVERY_STEPS_1]


@dataclasses.dataclass(frozen=True)
class ReadingRules:
    """One published version of the reading."""

    version: str
    steps: tuple[RecoveryStep, ...]
    # The grammar reads ASCII digits and letters only; other scripts' digits need digit_forms.
    ascii_only: bool
    # Lines repeating the card's quoted texts are told apart from answers, given a PACKET-2 packet.
    quotations: bool


READINGS: Final[Mapping[str, ReadingRules]] = {
    COLOSSEUM_READING_1: ReadingRules(
        COLOSSEUM_READING_1, RECOVERY_STEPS_1, ascii_only=False, quotations=False
    ),
    COLOSSEUM_READING: ReadingRules(COLOSSEUM_READING, RECOVERY_STEPS, ascii_only=True, quotations=True),
}


def reading_rules(version: str) -> ReadingRules:
    try:
        return READINGS[version]
    except KeyError:
        raise ValueError(f"unknown reading rules {version!r}; known: {', '.join(READINGS)}") from None


@dataclasses.dataclass(frozen=True)
class Answer:
    label: str
    status: Status
    call: Literal["YES", "NO"] | None = None
    confidence: int | None = None
    # The last step (in published order) the answer needed; None for a strict answer and if unbound.
    step: str | None = None
    steps: tuple[str, ...] = ()
    reason: str | None = None
    source_line: str | None = None


@dataclasses.dataclass(frozen=True)
class Reading:
    answers: dict[str, Answer]
    bad_formatting: bool
    unmatched: list[str]
    unmatched_count: int = 0
    notes: list[str] = dataclasses.field(default_factory=list)
    truncated: bool = False
    not_utf8: bool = False
    rules: str = READING_RULES
    # READING-2: the reply's lines echoed between the packet's fence lines, and its answer-like
    # quotations of the card's texts (lines, table rows, JSON entries), that were not read as answers.
    quotations: int = 0


# --- the grammar ---------------------------------------------------------------------------------

# Unicode's whitespace as re's \s reads it (str.isspace; none lies above U+3000). READING-2 keeps
# whitespace as lenient as READING-1 while digits and letters become ASCII.
_UNICODE_SPACE: Final = "".join(f"\\u{c:04x}" for c in range(0x3001) if chr(c).isspace())


_PATTERN_TOKEN: Final = re.compile(r"\\.|\[|\]")


def _ascii_pattern(pattern: str) -> str:
    """``pattern`` with \\d as the ASCII digits and \\s, \\S spelled out, to be compiled with re.ASCII."""
    in_class = False

    def spell(m: re.Match[str]) -> str:
        nonlocal in_class
        token = m.group(0)
        if token in ("[", "]"):
            # "[" inside a class is literal and keeps it open; "]" ends it (no class here starts with "]").
            in_class = token == "["
            return token
        if token == r"\d":
            return "0-9" if in_class else "[0-9]"
        if token == r"\s":
            return _UNICODE_SPACE if in_class else f"[{_UNICODE_SPACE}]"
        if token == r"\S" and not in_class:
            return f"[^{_UNICODE_SPACE}]"
        if token[1] in "DSwWbB":
            raise ValueError(f"no ASCII spelling for {token} in {pattern!r}")
        return token

    return _PATTERN_TOKEN.sub(spell, pattern)


_OTHER_DIGIT: Final = re.compile(r"(?![0-9])\d")
_ASCII_LOWER: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _ascii_digits(text: str) -> str:
    """Every decimal digit of another script as the ASCII digit of its value (digit_forms)."""
    if text.isascii():
        return text
    return _OTHER_DIGIT.sub(lambda m: str(unicodedata.decimal(m.group(0))), text)


@dataclasses.dataclass(frozen=True)
class _Candidate:
    number: int
    call: Literal["YES", "NO"]
    confidence: str
    steps: frozenset[str]
    source: str
    from_lines: bool = False
    # The line repeats the card's quoted text (READING-2 with a packet).
    quoted: bool = False


@dataclasses.dataclass(frozen=True)
class _Unreadable:
    source: str
    # The label the text leads with, and whether it reads as an answer attempt for it (the label and
    # then a call): an attempt is a rival answer for that label, prose that mentions a label is not.
    lead: int | None
    attempt: bool
    quoted: bool = False


# "M03: maybe", "M03: N/A": short enough to be a non-answer rather than reasoning about M03.
_SHORT_REMAINDER_WORDS: Final = 3

_LABEL_KEYS: Final = (
    "label",
    "id",
    "question",
    "question_id",
    "questionid",
    "question_label",
    "q",
    "market",
    "key",
)
_CALL_KEYS: Final = (
    "call",
    "answer",
    "prediction",
    "forecast",
    "outcome",
    "decision",
    "vote",
    "pick",
    "choice",
    "position",
    "response",
)
_CONF_KEYS: Final = ("confidence", "conf", "stake", "certainty", "confidence_score", "confidence_level")
_CONTAINER_KEYS: Final = (
    "answers",
    "forecasts",
    "predictions",
    "responses",
    "results",
    "questions",
    "items",
    "data",
    "calls",
    "picks",
)


class _Grammar:
    """The grammar and the line steps of one version: Unicode's digits and letters, or ASCII's only.

    Both are compiled from the same pattern text, so READING-2 differs from READING-1 in what a digit
    and a letter are and in nothing else.
    """

    def __init__(self, *, ascii_only: bool) -> None:
        def c(pattern: str, flags: int = 0) -> re.Pattern[str]:
            return (
                re.compile(_ascii_pattern(pattern), flags | re.ASCII)
                if ascii_only
                else re.compile(pattern, flags)
            )

        self.digits: Callable[[str], str] = _ascii_digits if ascii_only else _same
        self.lower: Callable[[str], str] = (lambda s: s.translate(_ASCII_LOWER)) if ascii_only else str.lower
        self.strict = c(r"M\d{2}: (?:YES|NO) (?:[1-9]|10)")
        # What every recovery must end in; the confidence is checked afterwards so that 0, 11 or 7.5
        # bind nothing with a reason instead of reading as "unreadable".
        self.final = c(r"M(\d{2,3}): (YES|NO) (\d+(?:\.\d+)?)")
        decoration = r"[\s\-*•+>#_`]*(?:\d{1,2}[.)]\s+[\s\-*•+>#_`]*)?"
        self.leading_label = c(decoration + r"[Mm](\d{1,3})(?![0-9A-Za-z])")
        self.any_label = c(r"(?<![0-9A-Za-z])[Mm](\d{1,3})(?![0-9A-Za-z])")
        self.call_word = c(r"(?<![A-Za-z])(?:yes|no)(?![A-Za-z])", re.IGNORECASE)
        self.label_cell = c(r"[Mm](\d{1,3})")
        self.call_cell = c(r"(?:yes|no)", re.IGNORECASE)
        conf_core = (
            r"\s*(?:(?:with\s+)?(?:a\s+)?(?:confidence|conf\.?|certainty|stake)(?:\s+(?:of|is|level))?\s*[:=]?\s*"
            r"|@\s*)?(?P<n{i}>\d+(?:\.\d+)?)(?:\s*(?:/|out\s+of)\s*10(?!\d))?\s*"
        )
        self.conf = c(
            r"\(" + conf_core.format(i=1) + r"\)|\[" + conf_core.format(i=2) + r"\]|" + conf_core.format(i=3),
            re.IGNORECASE,
        )
        self.note = c(r"(M\d{2,3}: (?:YES|NO) \d+(?:\.\d+)?)(?:\s*[-–—;:,.(\[]\s*|\s+(?=[A-Za-z]))(.+)")
        self.note_forbidden = c(
            r"(?<![A-Za-z])(?:yes|no)(?![A-Za-z])|confiden|(?<![A-Za-z])conf(?![A-Za-z])|certainty|stake"
            r"|/\s*10|out\s+of\s+10",
            re.IGNORECASE,
        )
        self.table_rule = c(r"\s*:?-{2,}:?\s*|\s*")
        self.attempt = c(r"M\d{2,3}: (?:YES|NO)(?![A-Za-z])")
        self.attempt_call = c(r"\s*[*_`]*(?:yes|no)(?![A-Za-z])", re.IGNORECASE)
        self.card_label = c(r"M(\d+)")
        self._space_run = c(r"\s+")
        self._colon = c(r" ?: ?")
        self._lower_m = c(r"(?<![0-9A-Za-z])m(?=\d)")
        self._padding = c(r"(?<![0-9A-Za-z])M(\d{1,3})(?![0-9A-Za-z])")
        self._emphasis = c(r"[*_`]")
        self._bullet = c(r"^[\s\-•+>#]*(?:\d{1,2}[.)]\s+[\s\-•+>#]*)?")
        self._label_separator = c(r"^(M\d{2,3})\s*(?::-|=>|->|[:\-–—).=|：])?\s*(?=(?:YES|NO)(?![A-Za-z]))")
        self._call_separator = c(r"^(M\d{2,3}: (?:YES|NO))(?:\s*[,/:;|：]\s*|\s*[-–—]\s+|[-–—]|\s+)(?=\S)")
        self._trailing_marks = c(r"\s*[.,;!]+$")
        self._head = c(r"M\d{2,3}: (?:YES|NO) ")
        self._letter = c(r"[A-Za-z]")
        self._whole = c(r"-?\d+")
        self._key_separators = c(r"[\s\-]+")
        # Applied to a line in this order; a step counts as used when it changed the line.
        self.line_steps: tuple[tuple[str, Callable[[str], str]], ...] = (
            (TRIM_AND_CASE, self._trim_and_case),
            (LABEL_PADDING, self._label_padding),
            (SEPARATORS, self._separators),
            (CONFIDENCE_FORMS, self._confidence_forms),
            (TRAILING_NOTE, self._trailing_note),
        )

    # --- the line steps ---

    def _trim_and_case(self, s: str) -> str:
        s = s.replace("\ufeff", "").replace("\u200b", "")
        s = self._space_run.sub(" ", s)
        s = self._colon.sub(": ", s).strip()
        s = self.call_word.sub(lambda m: m.group(0).upper(), s)
        return self._lower_m.sub("M", s)

    def _label_padding(self, s: str) -> str:
        def pad(m: re.Match[str]) -> str:
            digits = m.group(1)
            return m.group(0) if len(digits) == 2 else f"M{int(digits):02d}"

        return self._padding.sub(pad, s, count=1)

    def _separators(self, s: str) -> str:
        s = self._emphasis.sub("", s)
        s = self._bullet.sub("", s)
        s = self._label_separator.sub(r"\1: ", s)
        s = self._call_separator.sub(r"\1 ", s, count=1)
        return self._trailing_marks.sub("", s)

    def _confidence_forms(self, s: str) -> str:
        head = self._head.match(s)
        if head is None:
            return s
        tail = s[head.end() :]
        m = self.conf.match(tail)
        if m is None:
            return s
        number = _conf_number(m)
        return head.group(0) + number + (" " + tail[m.end() :] if m.end() < len(tail) else "")

    def _trailing_note(self, s: str) -> str:
        m = self.note.fullmatch(s)
        if m is None:
            return s
        note = m.group(2)
        if self.note_forbidden.search(note) or not self._letter.search(note):
            return s
        return m.group(1)

    # --- lines and rows ---

    def parse_line(self, line: str) -> _Candidate | _Unreadable | None:
        """An answer, an answer-like line that cannot be read, or None for any other text."""
        if len(line) > MAX_LINE_CHARS:
            return None
        # One character for one: positions in ``converted`` are positions in ``line``.
        converted = self.digits(line)
        lead = self.leading_label.match(converted)
        if lead is None:
            return None
        if self.strict.fullmatch(line):
            return self._candidate(self.final.fullmatch(line), frozenset(), line)
        text, used, after_separators = converted, set(), converted
        if converted != line:
            used.add(DIGIT_FORMS)
        for name, step in self.line_steps:
            changed = step(text)
            if changed != text:
                used.add(name)
                text = changed
            if name == SEPARATORS:
                after_separators = text
        final = self.final.fullmatch(text)
        if final is not None:
            return self._candidate(final, frozenset(used), _clip(line))
        if self.attempt.match(after_separators):
            return _Unreadable(_clip(line), int(lead.group(1)), True)
        if len(self.any_label.findall(converted)) > 1 and self.call_word.search(converted):
            # "M01, M02: YES 6": one answer for two questions cannot be matched to exactly one of them.
            return _Unreadable(_clip(line), None, False)
        remainder = after_separators[lead.end() - lead.start() :].lstrip(" :")
        if len(remainder.split()) <= _SHORT_REMAINDER_WORDS:
            return _Unreadable(_clip(line), int(lead.group(1)), False)
        return None

    @staticmethod
    def _candidate(m: re.Match[str] | None, steps: frozenset[str], source: str) -> _Candidate:
        assert m is not None
        return _Candidate(int(m.group(1)), _call(m.group(2)), m.group(3), steps, source)

    def parse_row(self, line: str) -> _Candidate | _Unreadable | None:
        """A markdown table row; None for header and rule rows."""
        if len(line) > MAX_ROW_CHARS:
            return None
        written = line.strip().strip("|").split("|")
        # One character for one, and no digit is a bar or whitespace: the cells line up with ``written``.
        raw_cells = self.digits(line).strip().strip("|").split("|")
        cells = [self._emphasis.sub("", c).strip() for c in raw_cells]
        if all(self.table_rule.fullmatch(c) for c in cells):
            return None
        labels = [(i, m) for i, c in enumerate(cells) if (m := self.label_cell.fullmatch(c)) is not None]
        if not labels:
            return _Unreadable(_clip(line), None, False) if self.any_label.search(line) else None
        calls = [i for i, c in enumerate(cells) if self.call_cell.fullmatch(c)]
        lead = int(labels[0][1].group(1)) if len(labels) == 1 else None
        unreadable = _Unreadable(_clip(line), lead, lead is not None and len(calls) == 1)
        if lead is None or len(calls) != 1:
            return unreadable
        confs = [
            (i, m) for i, c in enumerate(cells) if i > calls[0] and (m := self.conf.fullmatch(c)) is not None
        ]
        if len(confs) != 1:
            return unreadable
        (label_i, _), call_i, (conf_i, conf_m) = labels[0], calls[0], confs[0]
        number = _conf_number(conf_m)
        steps = {MARKDOWN_TABLE} | self.label_steps(written[label_i].strip())
        if cells[call_i] not in ("YES", "NO"):
            steps.add(TRIM_AND_CASE)
        if cells[conf_i] != number:
            steps.add(CONFIDENCE_FORMS)
        if raw_cells[conf_i] != written[conf_i]:
            steps.add(DIGIT_FORMS)
        if any(self._emphasis.search(raw_cells[i]) for i in (call_i, conf_i)):
            steps.add(SEPARATORS)
        return _Candidate(lead, _call(cells[call_i]), number, frozenset(steps), _clip(line))

    def label_steps(self, raw: str) -> set[str]:
        """The steps it takes to read ``raw`` (a label as written in a cell or a JSON key) as a label."""
        steps: set[str] = set()
        converted = self.digits(raw)
        if converted != raw:
            steps.add(DIGIT_FORMS)
            raw = converted
        bare = self._emphasis.sub("", raw)
        if bare != raw:
            steps.add(SEPARATORS)
        bare = bare.strip()
        if bare != raw.strip(" *_`") or bare[:1] != "M":
            steps.add(TRIM_AND_CASE)
        if len(bare) != 3:
            steps.add(LABEL_PADDING)
        return steps

    def confidence_reason(self, confidence: str) -> str | None:
        if not self._whole.fullmatch(confidence):
            return f"confidence {confidence} not a whole number"
        if not 1 <= int(confidence) <= 10:
            return f"confidence {int(confidence)} out of range"
        return None

    # --- JSON ---

    def _norm_key(self, key: str) -> str:
        return self._key_separators.sub("_", self.lower(key.strip()))

    def _json_label(self, value: Any) -> int | None:
        if not isinstance(value, str):
            return None
        m = self.label_cell.fullmatch(self._emphasis.sub("", self.digits(value)).strip())
        return int(m.group(1)) if m else None

    def _json_entry(
        self, number: int, label_raw: str, obj: Mapping[str, Any], source: Any
    ) -> _Candidate | _Unreadable:
        """One answer from JSON: its call and confidence, each in any accepted spelling."""
        has_call, call = _first(obj, _CALL_KEYS)
        has_conf, conf = _first(obj, _CONF_KEYS)
        steps = {JSON_ANSWERS} | self.label_steps(label_raw)
        unreadable = _Unreadable(
            _dump(source), number, isinstance(call, str) and bool(self.attempt_call.match(call))
        )
        if not has_call or not isinstance(call, str):
            return unreadable
        if not has_conf:
            # "M01": "YES (8/10)" and {"label": "M01", "answer": "YES 7"}: the call carries the confidence.
            parsed = self.parse_line(f"M{number:02d}: {call}")
            if not isinstance(parsed, _Candidate):
                return unreadable
            return dataclasses.replace(parsed, steps=parsed.steps | steps, source=_dump(source))
        call_text = self._emphasis.sub("", call).strip()
        if not self.call_cell.fullmatch(call_text):
            return unreadable
        if call_text != call:
            steps.add(SEPARATORS if self._emphasis.search(call) else TRIM_AND_CASE)
        if call_text not in ("YES", "NO"):
            steps.add(TRIM_AND_CASE)
        if isinstance(conf, bool):
            return unreadable
        if isinstance(conf, int):
            confidence = str(conf)
        elif isinstance(conf, float):
            confidence = repr(conf)
        elif isinstance(conf, str) and (m := self.conf.fullmatch(self.digits(conf.strip()))) is not None:
            confidence = _conf_number(m)
            written = self.digits(conf)
            if written != conf:
                steps.add(DIGIT_FORMS)
            if confidence != written:
                steps.add(CONFIDENCE_FORMS)
        else:
            return unreadable
        return _Candidate(number, _call(call_text), confidence, frozenset(steps), _dump(source))

    def json_entries(self, value: Any, depth: int = 0) -> Iterator[_Candidate | _Unreadable]:
        if depth > MAX_JSON_DEPTH:
            return
        if isinstance(value, list):
            for item in value:
                if isinstance(item, str):
                    parsed = self.parse_line(item.strip())
                    if isinstance(parsed, _Candidate):
                        yield dataclasses.replace(parsed, steps=parsed.steps | {JSON_ANSWERS})
                    elif parsed is not None:
                        yield parsed
                else:
                    yield from self.json_entries(item, depth + 1)
            return
        if not isinstance(value, dict):
            return
        obj = {self._norm_key(k): v for k, v in value.items() if isinstance(k, str)}
        named = {k: n for k in _LABEL_KEYS if k in obj and (n := self._json_label(obj[k])) is not None}
        if len(set(named.values())) == 1:
            key = next(iter(named))
            yield self._json_entry(named[key], str(obj[key]), obj, value)
            return
        if named:
            # {"id": "M01", "question": "M02", ...} names two questions: it cannot bind either.
            yield _Unreadable(_dump(value), None, False)
            return
        keyed = [
            (k, n, v)
            for k, v in value.items()
            if isinstance(k, str) and (n := self._json_label(k)) is not None
        ]
        for key, number, item in keyed:
            if isinstance(item, dict):
                inner = {self._norm_key(k): v for k, v in item.items() if isinstance(k, str)}
            elif isinstance(item, list) and len(item) == 2:
                inner = {"call": item[0], "confidence": item[1]}
            else:
                inner = {"call": item}
            yield self._json_entry(number, key, inner, {key: item})
        if keyed:
            return
        if _first(obj, _CALL_KEYS)[0] or _first(obj, _CONF_KEYS)[0]:
            # An answer that names no label binds nothing: the reader never assigns answers by position.
            yield _Unreadable(_dump(value), None, False)
            return
        for key in _CONTAINER_KEYS:
            if key in obj:
                yield from self.json_entries(obj[key], depth + 1)

    def find_json(
        self, text: str, lines: Sequence[str], starts: Sequence[int], quotes: _Quotes
    ) -> tuple[list[_Candidate | _Unreadable], set[int]]:
        """Answers from JSON values that start a line, and the lines those values cover."""
        decoder = json.JSONDecoder()
        found: list[_Candidate | _Unreadable] = []
        covered: set[int] = set()
        attempts, i = 0, 0
        while i < len(lines) and attempts < MAX_JSON_ATTEMPTS:
            stripped = lines[i].lstrip()
            if stripped[:1] not in ("{", "[") or i in quotes.echo:
                i += 1
                continue
            attempts += 1
            begin = starts[i] + len(lines[i]) - len(stripped)
            try:
                value, end = decoder.raw_decode(text, begin)
            except (ValueError, RecursionError):
                i += 1
                continue
            last = bisect.bisect_right(starts, end - 1) - 1
            rest_of_line = text[end : starts[last] + len(lines[last])]
            entries = list(itertools.islice(self.json_entries(value), MAX_JSON_ENTRIES))
            # "[1] M01: YES 7" starts with valid JSON too: a value only counts if it ends its line and
            # holds answers.
            if entries and not rest_of_line.strip(" \t,;"):
                if quotes.keys and all(
                    quotes.quoted(lines[j]) for j in range(i, last + 1) if lines[j].strip()
                ):
                    entries = [dataclasses.replace(e, quoted=True) for e in entries]
                found.extend(entries)
                covered.update(range(i, last + 1))
                i = last + 1
            else:
                i += 1
        return found, covered


def _same(text: str) -> str:
    return text


def _conf_number(m: re.Match[str]) -> str:
    n = m.group("n1") or m.group("n2") or m.group("n3")
    # 08 means 8; a decimal keeps its form so it is reported, not rounded.
    return n if "." in n else (n.lstrip("0") or "0")


def _call(text: str) -> Literal["YES", "NO"]:
    return "YES" if text.upper() == "YES" else "NO"


def _dump(value: Any) -> str:
    try:
        return _clip(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError, RecursionError):
        return _clip(repr(value))


def _first(obj: Mapping[str, Any], keys: Sequence[str]) -> tuple[bool, Any]:
    for key in keys:
        if key in obj:
            return True, obj[key]
    return False, None


_GRAMMARS: Final = {ascii_only: _Grammar(ascii_only=ascii_only) for ascii_only in (False, True)}


# --- quotations ----------------------------------------------------------------------------------

_QUOTE_MARKS: Final = re.compile(r"^\s*(?:>\s*)*")
# Fence lines after which the packet quotes nothing: a question's END and the card's END OF CARD.
_CLOSING_FENCE_LINE: Final = re.compile(r" (?:M[0-9]{2,3} END|END OF CARD .*)")


def _quote_key(line: str) -> str:
    """A line as it is compared with the packet's quoted lines: no surrounding space, no > marks."""
    return _QUOTE_MARKS.sub("", line, count=1).strip()


@dataclasses.dataclass(frozen=True)
class _Quotes:
    """What of the card a reply may quote: the quoted lines' keys, and the reply lines it echoes."""

    keys: frozenset[str] = frozenset()
    echo: frozenset[int] = frozenset()

    def quoted(self, line: str) -> bool:
        return _quote_key(line) in self.keys


def _quotes(packet: bytes, lines: Sequence[str]) -> tuple[_Quotes, str | None]:
    try:
        parsed = parse_packet(bytes(packet))
    except ValueError as error:
        return _Quotes(), f"quotations not told apart from answers: {error}"
    keys = frozenset(key for line in parsed.quoted_lines() if (key := _quote_key(line)))
    fence_lines = [i for i, line in enumerate(lines) if _quote_key(line).startswith(parsed.fence)]
    echo: set[int] = set()
    for opening, closing in itertools.pairwise(fence_lines):
        if not _CLOSING_FENCE_LINE.fullmatch(_quote_key(lines[opening])[len(parsed.fence) :]):
            echo.update(range(opening + 1, closing))
    return _Quotes(keys, frozenset(echo)), None


# --- decoding ------------------------------------------------------------------------------------


def _decode(reply: object) -> tuple[str, list[str], bool, bool]:
    notes: list[str] = []
    truncated = not_utf8 = False
    if isinstance(reply, (bytes, bytearray, memoryview)):
        data = bytes(reply)
        if len(data) > MAX_SCAN:
            truncated = True
            notes.append(f"truncated: read the first {MAX_SCAN} of {len(data)} bytes")
            data = data[:MAX_SCAN]
        try:
            # Not final when truncated: a character cut in two at the cap is not a decoding error.
            text = codecs.getincrementaldecoder("utf-8")("strict").decode(data, final=not truncated)
        except UnicodeDecodeError as error:
            not_utf8 = True
            notes.append(f"not UTF-8: first invalid byte at offset {error.start}; decoded with replacement")
            text = data.decode("utf-8", errors="replace")
    elif isinstance(reply, str):
        text = reply
        if len(text) > MAX_SCAN:
            truncated = True
            notes.append(f"truncated: read the first {MAX_SCAN} of {len(text)} characters")
            text = text[:MAX_SCAN]
    elif reply is None:
        text = ""
    else:
        text = ""
        notes.append(f"not text: a reply of type {type(reply).__name__} was read as empty")
    if truncated:
        # The cut may fall inside an answer ("M25: YES 10" -> "M25: YES 1"): the partial line is dropped.
        text = text[: max(text.rfind("\n"), 0)]
    return text.removeprefix("\ufeff"), notes, truncated, not_utf8


def _clip(text: str) -> str:
    return text if len(text) <= SOURCE_CHARS else text[: SOURCE_CHARS - 1] + "…"


# --- binding -------------------------------------------------------------------------------------


def _last_step(steps: frozenset[str] | set[str]) -> str | None:
    return max(steps, key=_STEP_ORDER.__getitem__) if steps else None


_COUNT_WORDS: Final = {2: "two", 3: "three", 4: "four"}


def _bind(
    grammar: _Grammar,
    label: str,
    cands: list[_Candidate],
    rivals: list[_Unreadable],
    non_answers: list[_Unreadable],
    extra_steps: frozenset[str] = frozenset(),
) -> Answer:
    """The one answer ``label`` binds, or none. ``rivals`` are unreadable answer attempts for it
    ("M01: YES, maybe"); ``non_answers`` are other unreadable lines led by it ("M01: N/A");
    ``extra_steps`` are steps the label needed beyond those of its lines (quotations set aside)."""
    source = _clip(" | ".join(dict.fromkeys(c.source for c in cands))) if cands else None
    if not cands:
        if rivals or non_answers:
            first = (rivals or non_answers)[0]
            return Answer(label, UNBOUND, reason="unreadable answer", source_line=first.source)
        return Answer(label, UNBOUND, reason="no answer")
    distinct = {(c.call, c.confidence) for c in cands}
    if len(distinct) > 1:
        count = _COUNT_WORDS.get(len(distinct), str(len(distinct)))
        return Answer(label, UNBOUND, reason=f"ambiguous: {count} different answers", source_line=source)
    if rivals:
        return Answer(
            label, UNBOUND, reason="ambiguous: another answer could not be read", source_line=source
        )
    first = cands[0]
    reason = grammar.confidence_reason(first.confidence)
    if reason is not None:
        return Answer(label, UNBOUND, reason=reason, source_line=source)
    steps = set().union(*(c.steps for c in cands), extra_steps)
    if len(cands) > 1:
        steps.add(REPEATED_IDENTICAL)
    ordered = tuple(sorted(steps, key=_STEP_ORDER.__getitem__))
    return Answer(
        label,
        RECOVERED if ordered else ANSWERED,
        call=first.call,
        confidence=int(first.confidence),
        step=_last_step(steps),
        steps=ordered,
        source_line=first.source if len(cands) == 1 else source,
    )


def _rivals(item: _Candidate | _Unreadable) -> bool:
    """Whether ``item`` would be a rival answer for its label: an answer, or an attempt at one."""
    return isinstance(item, _Candidate) or item.attempt


def read_reply(
    reply: str | bytes, labels: Sequence[str], *, packet: bytes | None = None, rules: str = COLOSSEUM_READING
) -> Reading:
    """Every label of the card read from one seat's reply: answered, recovered or unbound.

    ``packet``: the card's packet bytes, for telling quotations from answers (READING-2 and a
    COLOSSEUM-PACKET-2 packet; READING-1 never uses it). ``rules``: the version to read by.
    """
    ruleset = reading_rules(rules)
    grammar = _GRAMMARS[ruleset.ascii_only]
    text, notes, truncated, not_utf8 = _decode(reply)
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    lines = text.split("\n") if text else []
    starts = [0, *itertools.accumulate(len(line) + 1 for line in lines)][: len(lines)]
    # Notes on what the reader was given rather than on the reply: they do not make it bad formatting.
    context: list[str] = []
    quotes = _Quotes()
    if ruleset.quotations and packet is not None:
        quotes, problem = _quotes(packet, lines)
        if problem is not None:
            context.append(problem)

    found, covered = grammar.find_json(text, lines, starts, quotes)
    prose = blank = 0
    line_found: list[_Candidate | _Unreadable] = []
    echoed: list[_Candidate | _Unreadable] = []
    for i, line in enumerate(lines):
        if i in covered:
            continue
        if not line.strip():
            blank += i not in quotes.echo
            continue
        is_row = line.lstrip().startswith("|")
        parsed = grammar.parse_row(line) if is_row else grammar.parse_line(line)
        if i in quotes.echo:
            if parsed is not None:
                echoed.append(parsed)
        elif parsed is None:
            # A table's header and rule rows are part of the table, not text around the answers.
            prose += not is_row
        else:
            if quotes.keys and quotes.quoted(line):
                parsed = dataclasses.replace(parsed, quoted=True)
            if isinstance(parsed, _Candidate) and MARKDOWN_TABLE not in parsed.steps:
                parsed = dataclasses.replace(parsed, from_lines=True)
            line_found.append(parsed)
    if prose:
        line_found = [
            dataclasses.replace(p, steps=p.steps | {PROSE_LINES})
            if isinstance(p, _Candidate) and p.from_lines
            else p
            for p in line_found
        ]
        notes.append(f"ignored {prose} line(s) of other text")
    if blank:
        notes.append(f"{blank} blank line(s) inside the reply")
    found = line_found + found

    card: dict[str, None] = dict.fromkeys(labels)
    by_number: dict[int, list[str]] = {}
    for label in card:
        m = grammar.card_label.fullmatch(label) if isinstance(label, str) else None
        if m:
            by_number.setdefault(int(m.group(1)), []).append(label)

    def targets_of(item: _Candidate | _Unreadable) -> list[str]:
        number = item.number if isinstance(item, _Candidate) else item.lead
        return by_number.get(number, []) if number is not None else []

    # A quotation is an answer only for a label that has no line of its own. A label whose answer
    # would have had a rival but for the quotations set aside needed the quotations step.
    own = {targets[0] for item in found if not item.quoted and len(targets := targets_of(item)) == 1}
    set_aside = {targets[0] for item in echoed if _rivals(item) and len(targets := targets_of(item)) == 1}
    cands: dict[str, list[_Candidate]] = {label: [] for label in card}
    rivals: dict[str, list[_Unreadable]] = {label: [] for label in card}
    non_answers: dict[str, list[_Unreadable]] = {label: [] for label in card}
    unmatched: list[str] = []
    ignored = 0
    for item in found:
        targets = targets_of(item)
        if item.quoted and (len(targets) != 1 or targets[0] in own):
            ignored += 1
            if _rivals(item) and len(targets) == 1:
                set_aside.add(targets[0])
            continue
        if isinstance(item, _Candidate) and len(targets) == 1:
            cands[targets[0]].append(item)
            continue
        unmatched.append(item.source)
        if isinstance(item, _Unreadable) and len(targets) == 1:
            (rivals if item.attempt else non_answers)[targets[0]].append(item)
    echo_lines = sum(1 for i in quotes.echo if lines[i].strip())
    if echo_lines:
        notes.append(f"ignored {echo_lines} line(s) quoting the packet between its fence lines")
    if ignored:
        notes.append(f"ignored {ignored} answer-like quotation(s) of the packet's quoted text")

    answers = {
        label: _bind(
            grammar,
            label,
            cands[label],
            rivals[label],
            non_answers[label],
            frozenset({QUOTATIONS}) if label in set_aside else frozenset(),
        )
        for label in card
    }
    strict = (
        not notes
        and not unmatched
        and all(a.status == ANSWERED or a.reason == "no answer" for a in answers.values())
    )
    return Reading(
        answers=answers,
        # An empty reply is a forfeit on every question, not a formatting fault.
        bad_formatting=bool(text or truncated or not_utf8) and not strict,
        unmatched=unmatched[:MAX_UNMATCHED_LISTED],
        unmatched_count=len(unmatched),
        notes=notes + context,
        truncated=truncated,
        not_utf8=not_utf8,
        rules=ruleset.version,
        quotations=echo_lines + ignored,
    )


def format_record(reading: Reading) -> dict[str, Any]:
    """The public format record of one reply: counts, the steps used and why labels bind nothing."""
    ruleset = reading_rules(reading.rules)
    statuses = [a.status for a in reading.answers.values()]
    used: dict[str, int] = {}
    for answer in reading.answers.values():
        for name in answer.steps:
            used[name] = used.get(name, 0) + 1
    record: dict[str, Any] = {
        "rules": reading.rules,
        "answered": statuses.count(ANSWERED),
        "recovered": statuses.count(RECOVERED),
        "unbound": statuses.count(UNBOUND),
        "unmatched": reading.unmatched_count,
    }
    if ruleset.quotations:
        record["quotations"] = reading.quotations
    return record | {
        "bad_formatting": reading.bad_formatting,
        "steps_used": {s.name: used[s.name] for s in ruleset.steps if s.name in used},
        "unbound_reasons": {a.label: a.reason for a in reading.answers.values() if a.status == UNBOUND},
        "truncated": reading.truncated,
        "not_utf8": reading.not_utf8,
        "notes": list(reading.notes),
    }
