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

The reader never raises: an empty reply (every label unbound, not bad formatting), bytes that are
not UTF-8 (decoded with replacement) and replies of megabytes (only the first ``MAX_SCAN`` bytes or
characters are read, up to the last whole line, so a cut "M25: YES 10" never binds as "M25: YES 1")
are all read, and what was done to them is recorded in ``notes``.
"""

from __future__ import annotations

import bisect
import codecs
import dataclasses
import itertools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, Literal

from colosseum_core.rules import COLOSSEUM_READING

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


TRIM_AND_CASE: Final = "trim_and_case"
LABEL_PADDING: Final = "label_padding"
SEPARATORS: Final = "separators"
CONFIDENCE_FORMS: Final = "confidence_forms"
TRAILING_NOTE: Final = "trailing_note"
PROSE_LINES: Final = "prose_lines"
MARKDOWN_TABLE: Final = "markdown_table"
JSON_ANSWERS: Final = "json"
REPEATED_IDENTICAL: Final = "repeated_identical"

RECOVERY_STEPS: Final[tuple[RecoveryStep, ...]] = (
    RecoveryStep(
        TRIM_AND_CASE,
        "Whitespace around a line or its parts (indentation, tabs, doubled or missing spaces around the"
        " colon, zero-width spaces) and the case of the label and call (m01, yes, No) are ignored.",
    ),
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
_STEP_ORDER: Final = {step.name: i for i, step in enumerate(RECOVERY_STEPS)}


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


# --- the grammar ---------------------------------------------------------------------------------

_STRICT: Final = re.compile(r"M\d{2}: (?:YES|NO) (?:[1-9]|10)")
# What every recovery must end in; the confidence is checked afterwards so that 0, 11 or 7.5 bind
# nothing with a reason instead of reading as "unreadable".
_FINAL: Final = re.compile(r"M(\d{2,3}): (YES|NO) (\d+(?:\.\d+)?)")
_DECORATION: Final = r"[\s\-*•+>#_`]*(?:\d{1,2}[.)]\s+[\s\-*•+>#_`]*)?"
_LEADING_LABEL: Final = re.compile(_DECORATION + r"[Mm](\d{1,3})(?![0-9A-Za-z])")
_ANY_LABEL: Final = re.compile(r"(?<![0-9A-Za-z])[Mm](\d{1,3})(?![0-9A-Za-z])")
_CALL_WORD: Final = re.compile(r"(?<![A-Za-z])(?:yes|no)(?![A-Za-z])", re.IGNORECASE)
_LABEL_CELL: Final = re.compile(r"[Mm](\d{1,3})")
_CALL_CELL: Final = re.compile(r"(?:yes|no)", re.IGNORECASE)
_CONF_CORE: Final = (
    r"\s*(?:(?:with\s+)?(?:a\s+)?(?:confidence|conf\.?|certainty|stake)(?:\s+(?:of|is|level))?\s*[:=]?\s*"
    r"|@\s*)?(?P<n{i}>\d+(?:\.\d+)?)(?:\s*(?:/|out\s+of)\s*10(?!\d))?\s*"
)
_CONF: Final = re.compile(
    r"\(" + _CONF_CORE.format(i=1) + r"\)|\[" + _CONF_CORE.format(i=2) + r"\]|" + _CONF_CORE.format(i=3),
    re.IGNORECASE,
)
_NOTE: Final = re.compile(r"(M\d{2,3}: (?:YES|NO) \d+(?:\.\d+)?)(?:\s*[-–—;:,.(\[]\s*|\s+(?=[A-Za-z]))(.+)")
_NOTE_FORBIDDEN: Final = re.compile(
    r"(?<![A-Za-z])(?:yes|no)(?![A-Za-z])|confiden|(?<![A-Za-z])conf(?![A-Za-z])|certainty|stake"
    r"|/\s*10|out\s+of\s+10",
    re.IGNORECASE,
)
_TABLE_RULE: Final = re.compile(r"\s*:?-{2,}:?\s*|\s*")


def _trim_and_case(s: str) -> str:
    s = s.replace("\ufeff", "").replace("\u200b", "")
    s = re.sub(r"\s+", " ", s)
    s = re.sub(r" ?: ?", ": ", s).strip()
    s = _CALL_WORD.sub(lambda m: m.group(0).upper(), s)
    return re.sub(r"(?<![0-9A-Za-z])m(?=\d)", "M", s)


def _label_padding(s: str) -> str:
    def pad(m: re.Match[str]) -> str:
        digits = m.group(1)
        return m.group(0) if len(digits) == 2 else f"M{int(digits):02d}"

    return re.sub(r"(?<![0-9A-Za-z])M(\d{1,3})(?![0-9A-Za-z])", pad, s, count=1)


def _separators(s: str) -> str:
    s = re.sub(r"[*_`]", "", s)
    s = re.sub(r"^[\s\-•+>#]*(?:\d{1,2}[.)]\s+[\s\-•+>#]*)?", "", s)
    s = re.sub(r"^(M\d{2,3})\s*(?::-|=>|->|[:\-–—).=|：])?\s*(?=(?:YES|NO)(?![A-Za-z]))", r"\1: ", s)
    s = re.sub(r"^(M\d{2,3}: (?:YES|NO))(?:\s*[,/:;|：]\s*|\s*[-–—]\s+|[-–—]|\s+)(?=\S)", r"\1 ", s, count=1)
    return re.sub(r"\s*[.,;!]+$", "", s)


def _confidence_forms(s: str) -> str:
    head = re.match(r"M\d{2,3}: (?:YES|NO) ", s)
    if head is None:
        return s
    tail = s[head.end() :]
    m = _CONF.match(tail)
    if m is None:
        return s
    number = _conf_number(m)
    return head.group(0) + number + (" " + tail[m.end() :] if m.end() < len(tail) else "")


def _conf_number(m: re.Match[str]) -> str:
    n = m.group("n1") or m.group("n2") or m.group("n3")
    # 08 means 8; a decimal keeps its form so it is reported, not rounded.
    return n if "." in n else (n.lstrip("0") or "0")


def _trailing_note(s: str) -> str:
    m = _NOTE.fullmatch(s)
    if m is None:
        return s
    note = m.group(2)
    if _NOTE_FORBIDDEN.search(note) or not re.search(r"[A-Za-z]", note):
        return s
    return m.group(1)


# Applied to a line in this order; a step counts as used when it changed the line.
_LINE_STEPS: Final = (
    (TRIM_AND_CASE, _trim_and_case),
    (LABEL_PADDING, _label_padding),
    (SEPARATORS, _separators),
    (CONFIDENCE_FORMS, _confidence_forms),
    (TRAILING_NOTE, _trailing_note),
)


@dataclasses.dataclass(frozen=True)
class _Candidate:
    number: int
    call: Literal["YES", "NO"]
    confidence: str
    steps: frozenset[str]
    source: str
    from_lines: bool = False


@dataclasses.dataclass(frozen=True)
class _Unreadable:
    source: str
    # The label the text leads with, and whether it reads as an answer attempt for it (the label and
    # then a call): an attempt is a rival answer for that label, prose that mentions a label is not.
    lead: int | None
    attempt: bool


_ATTEMPT: Final = re.compile(r"M\d{2,3}: (?:YES|NO)(?![A-Za-z])")
# "M03: maybe", "M03: N/A": short enough to be a non-answer rather than reasoning about M03.
_SHORT_REMAINDER_WORDS: Final = 3


def _parse_line(line: str) -> _Candidate | _Unreadable | None:
    """An answer, an answer-like line that cannot be read, or None for any other text."""
    if len(line) > MAX_LINE_CHARS:
        return None
    lead = _LEADING_LABEL.match(line)
    if lead is None:
        return None
    if _STRICT.fullmatch(line):
        return _candidate(_FINAL.fullmatch(line), frozenset(), line)
    text, used, after_separators = line, set(), line
    for name, step in _LINE_STEPS:
        changed = step(text)
        if changed != text:
            used.add(name)
            text = changed
        if name == SEPARATORS:
            after_separators = text
    final = _FINAL.fullmatch(text)
    if final is not None:
        return _candidate(final, frozenset(used), _clip(line))
    if _ATTEMPT.match(after_separators):
        return _Unreadable(_clip(line), int(lead.group(1)), True)
    if len(_ANY_LABEL.findall(line)) > 1 and _CALL_WORD.search(line):
        # "M01, M02: YES 6": one answer for two questions cannot be matched to exactly one of them.
        return _Unreadable(_clip(line), None, False)
    remainder = after_separators[lead.end() - lead.start() :].lstrip(" :")
    if len(remainder.split()) <= _SHORT_REMAINDER_WORDS:
        return _Unreadable(_clip(line), int(lead.group(1)), False)
    return None


def _candidate(m: re.Match[str] | None, steps: frozenset[str], source: str) -> _Candidate:
    assert m is not None
    return _Candidate(int(m.group(1)), _call(m.group(2)), m.group(3), steps, source)


def _call(text: str) -> Literal["YES", "NO"]:
    return "YES" if text.upper() == "YES" else "NO"


def _parse_row(line: str) -> _Candidate | _Unreadable | None:
    """A markdown table row; None for header and rule rows."""
    if len(line) > MAX_ROW_CHARS:
        return None
    raw_cells = line.strip().strip("|").split("|")
    cells = [re.sub(r"[*_`]", "", c).strip() for c in raw_cells]
    if all(_TABLE_RULE.fullmatch(c) for c in cells):
        return None
    labels = [(i, m) for i, c in enumerate(cells) if (m := _LABEL_CELL.fullmatch(c)) is not None]
    if not labels:
        return _Unreadable(_clip(line), None, False) if _ANY_LABEL.search(line) else None
    calls = [i for i, c in enumerate(cells) if _CALL_CELL.fullmatch(c)]
    lead = int(labels[0][1].group(1)) if len(labels) == 1 else None
    unreadable = _Unreadable(_clip(line), lead, lead is not None and len(calls) == 1)
    if lead is None or len(calls) != 1:
        return unreadable
    confs = [(i, m) for i, c in enumerate(cells) if i > calls[0] and (m := _CONF.fullmatch(c)) is not None]
    if len(confs) != 1:
        return unreadable
    (label_i, _), call_i, (conf_i, conf_m) = labels[0], calls[0], confs[0]
    number = _conf_number(conf_m)
    steps = {MARKDOWN_TABLE} | _label_steps(raw_cells[label_i].strip())
    if cells[call_i] not in ("YES", "NO"):
        steps.add(TRIM_AND_CASE)
    if cells[conf_i] != number:
        steps.add(CONFIDENCE_FORMS)
    if any(re.search(r"[*_`]", raw_cells[i]) for i in (call_i, conf_i)):
        steps.add(SEPARATORS)
    return _Candidate(lead, _call(cells[call_i]), number, frozenset(steps), _clip(line))


def _label_steps(raw: str) -> set[str]:
    """The steps it takes to read ``raw`` (a label as written in a cell or a JSON key) as a label."""
    steps: set[str] = set()
    bare = re.sub(r"[*_`]", "", raw)
    if bare != raw:
        steps.add(SEPARATORS)
    bare = bare.strip()
    if bare != raw.strip(" *_`") or bare[:1] != "M":
        steps.add(TRIM_AND_CASE)
    if len(bare) != 3:
        steps.add(LABEL_PADDING)
    return steps


# --- JSON ----------------------------------------------------------------------------------------


def _norm_key(key: str) -> str:
    return re.sub(r"[\s\-]+", "_", key.strip().lower())


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
_ATTEMPT_CALL: Final = re.compile(r"\s*[*_`]*(?:yes|no)(?![A-Za-z])", re.IGNORECASE)


def _dump(value: Any) -> str:
    try:
        return _clip(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError, RecursionError):
        return _clip(repr(value))


def _json_label(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    m = _LABEL_CELL.fullmatch(re.sub(r"[*_`]", "", value).strip())
    return int(m.group(1)) if m else None


def _first(obj: Mapping[str, Any], keys: Sequence[str]) -> tuple[bool, Any]:
    for key in keys:
        if key in obj:
            return True, obj[key]
    return False, None


def _json_entry(number: int, label_raw: str, obj: Mapping[str, Any], source: Any) -> _Candidate | _Unreadable:
    """One answer from JSON: its call and confidence, each in any accepted spelling."""
    has_call, call = _first(obj, _CALL_KEYS)
    has_conf, conf = _first(obj, _CONF_KEYS)
    steps = {JSON_ANSWERS} | _label_steps(label_raw)
    unreadable = _Unreadable(_dump(source), number, isinstance(call, str) and bool(_ATTEMPT_CALL.match(call)))
    if not has_call or not isinstance(call, str):
        return unreadable
    if not has_conf:
        # "M01": "YES (8/10)" and {"label": "M01", "answer": "YES 7"}: the call carries the confidence.
        parsed = _parse_line(f"M{number:02d}: {call}")
        if not isinstance(parsed, _Candidate):
            return unreadable
        return dataclasses.replace(parsed, steps=parsed.steps | steps, source=_dump(source))
    call_text = re.sub(r"[*_`]", "", call).strip()
    if not _CALL_CELL.fullmatch(call_text):
        return unreadable
    if call_text != call:
        steps.add(SEPARATORS if re.search(r"[*_`]", call) else TRIM_AND_CASE)
    if call_text not in ("YES", "NO"):
        steps.add(TRIM_AND_CASE)
    if isinstance(conf, bool):
        return unreadable
    if isinstance(conf, int):
        confidence = str(conf)
    elif isinstance(conf, float):
        confidence = repr(conf)
    elif isinstance(conf, str) and (m := _CONF.fullmatch(conf.strip())) is not None:
        confidence = _conf_number(m)
        if confidence != conf:
            steps.add(CONFIDENCE_FORMS)
    else:
        return unreadable
    return _Candidate(number, _call(call_text), confidence, frozenset(steps), _dump(source))


def _json_entries(value: Any, depth: int = 0) -> Iterator[_Candidate | _Unreadable]:
    if depth > MAX_JSON_DEPTH:
        return
    if isinstance(value, list):
        for item in value:
            if isinstance(item, str):
                parsed = _parse_line(item.strip())
                if isinstance(parsed, _Candidate):
                    yield dataclasses.replace(parsed, steps=parsed.steps | {JSON_ANSWERS})
                elif parsed is not None:
                    yield parsed
            else:
                yield from _json_entries(item, depth + 1)
        return
    if not isinstance(value, dict):
        return
    obj = {_norm_key(k): v for k, v in value.items() if isinstance(k, str)}
    named = {k: n for k in _LABEL_KEYS if k in obj and (n := _json_label(obj[k])) is not None}
    if len(set(named.values())) == 1:
        key = next(iter(named))
        yield _json_entry(named[key], str(obj[key]), obj, value)
        return
    if named:
        # {"id": "M01", "question": "M02", ...} names two questions: it cannot bind either.
        yield _Unreadable(_dump(value), None, False)
        return
    keyed = [(k, n, v) for k, v in value.items() if isinstance(k, str) and (n := _json_label(k)) is not None]
    for key, number, item in keyed:
        if isinstance(item, dict):
            inner = {_norm_key(k): v for k, v in item.items() if isinstance(k, str)}
        elif isinstance(item, list) and len(item) == 2:
            inner = {"call": item[0], "confidence": item[1]}
        else:
            inner = {"call": item}
        yield _json_entry(number, key, inner, {key: item})
    if keyed:
        return
    if _first(obj, _CALL_KEYS)[0] or _first(obj, _CONF_KEYS)[0]:
        # An answer that names no label binds nothing: the reader never assigns answers by position.
        yield _Unreadable(_dump(value), None, False)
        return
    for key in _CONTAINER_KEYS:
        if key in obj:
            yield from _json_entries(obj[key], depth + 1)


def _find_json(
    text: str, lines: Sequence[str], starts: Sequence[int]
) -> tuple[list[_Candidate | _Unreadable], set[int]]:
    """Answers from JSON values that start a line, and the lines those values cover."""
    decoder = json.JSONDecoder()
    found: list[_Candidate | _Unreadable] = []
    covered: set[int] = set()
    attempts, i = 0, 0
    while i < len(lines) and attempts < MAX_JSON_ATTEMPTS:
        stripped = lines[i].lstrip()
        if stripped[:1] not in ("{", "["):
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
        entries = list(itertools.islice(_json_entries(value), MAX_JSON_ENTRIES))
        # "[1] M01: YES 7" starts with valid JSON too: a value only counts if it ends its line and
        # holds answers.
        if entries and not rest_of_line.strip(" \t,;"):
            found.extend(entries)
            covered.update(range(i, last + 1))
            i = last + 1
        else:
            i += 1
    return found, covered


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


def _confidence_reason(confidence: str) -> str | None:
    if not re.fullmatch(r"-?\d+", confidence):
        return f"confidence {confidence} not a whole number"
    if not 1 <= int(confidence) <= 10:
        return f"confidence {int(confidence)} out of range"
    return None


def _last_step(steps: frozenset[str] | set[str]) -> str | None:
    return max(steps, key=_STEP_ORDER.__getitem__) if steps else None


_COUNT_WORDS: Final = {2: "two", 3: "three", 4: "four"}


def _bind(
    label: str, cands: list[_Candidate], rivals: list[_Unreadable], non_answers: list[_Unreadable]
) -> Answer:
    """The one answer ``label`` binds, or none. ``rivals`` are unreadable answer attempts for it
    ("M01: YES, maybe"); ``non_answers`` are other unreadable lines led by it ("M01: N/A")."""
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
    reason = _confidence_reason(first.confidence)
    if reason is not None:
        return Answer(label, UNBOUND, reason=reason, source_line=source)
    steps = set().union(*(c.steps for c in cands))
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


def read_reply(reply: str | bytes, labels: Sequence[str]) -> Reading:
    """Every label of the card read from one seat's reply: answered, recovered or unbound."""
    text, notes, truncated, not_utf8 = _decode(reply)
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    lines = text.split("\n") if text else []
    starts = [0, *itertools.accumulate(len(line) + 1 for line in lines)][: len(lines)]

    found, covered = _find_json(text, lines, starts)
    prose = blank = 0
    line_found: list[_Candidate | _Unreadable] = []
    for i, line in enumerate(lines):
        if i in covered:
            continue
        if not line.strip():
            blank += 1
            continue
        is_row = line.lstrip().startswith("|")
        parsed = _parse_row(line) if is_row else _parse_line(line)
        if parsed is None:
            # A table's header and rule rows are part of the table, not text around the answers.
            prose += not is_row
        elif isinstance(parsed, _Candidate) and MARKDOWN_TABLE not in parsed.steps:
            line_found.append(dataclasses.replace(parsed, from_lines=True))
        else:
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
        m = re.fullmatch(r"M(\d+)", label) if isinstance(label, str) else None
        if m:
            by_number.setdefault(int(m.group(1)), []).append(label)

    cands: dict[str, list[_Candidate]] = {label: [] for label in card}
    rivals: dict[str, list[_Unreadable]] = {label: [] for label in card}
    non_answers: dict[str, list[_Unreadable]] = {label: [] for label in card}
    unmatched: list[str] = []
    for item in found:
        number = item.number if isinstance(item, _Candidate) else item.lead
        targets = by_number.get(number, []) if number is not None else []
        if isinstance(item, _Candidate) and len(targets) == 1:
            cands[targets[0]].append(item)
            continue
        unmatched.append(item.source)
        if isinstance(item, _Unreadable) and len(targets) == 1:
            (rivals if item.attempt else non_answers)[targets[0]].append(item)

    answers = {label: _bind(label, cands[label], rivals[label], non_answers[label]) for label in card}
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
        notes=notes,
        truncated=truncated,
        not_utf8=not_utf8,
    )


def format_record(reading: Reading) -> dict[str, Any]:
    """The public format record of one reply: counts, the steps used and why labels bind nothing."""
    statuses = [a.status for a in reading.answers.values()]
    used: dict[str, int] = {}
    for answer in reading.answers.values():
        for name in answer.steps:
            used[name] = used.get(name, 0) + 1
    return {
        "rules": reading.rules,
        "answered": statuses.count(ANSWERED),
        "recovered": statuses.count(RECOVERED),
        "unbound": statuses.count(UNBOUND),
        "unmatched": reading.unmatched_count,
        "bad_formatting": reading.bad_formatting,
        "steps_used": {s.name: used[s.name] for s in RECOVERY_STEPS if s.name in used},
        "unbound_reasons": {a.label: a.reason for a in reading.answers.values() if a.status == UNBOUND},
        "truncated": reading.truncated,
        "not_utf8": reading.not_utf8,
        "notes": list(reading.notes),
    }
