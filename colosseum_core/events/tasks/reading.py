"""COLOSSEUM-TASK-REPLY-1: a reply to a task becomes a verdict (an answer, an objection or an
abstention), and P(defective) where the event asks for it. The Solve-or-Object and challenge events
read their solvers' replies by this one rule.

The reply's answer block is read from its **last** line that begins ``VERDICT:`` to the end (so a
reply that first quotes the format, or thinks aloud in the format, is read by its final block):

1. ``VERDICT:`` is ``ANSWER``, ``OBJECT`` or ``ABSTAIN``.
2. The block's other lines that begin with a key (``ANSWER:``, ``DEFECT:``, ``SPAN:``, ``REASON:``,
   ``WITNESS:``, ``P_DEFECTIVE:``) give that key's value, the rest of the line with white space around it
   removed; a key given twice is a failure. Other lines are ignored.
3. ``ANSWER`` needs an ``ANSWER:`` line; ``OBJECT`` needs ``DEFECT:`` (one of the four classes) and
   ``SPAN:`` (text between two straight double quotes, not empty); ``WITNESS:`` is optional (a JSON
   array of two assignments, for a problem that admits several answers).
4. ``P_DEFECTIVE:`` is a whole number from 0 to 100 in ASCII digits; without a readable one the
   reply's Brier term is the worst, 1, so that leaving it out never pays.

Keys are upper-case ASCII at the start of a line (white space before them is allowed); ``**`` or
backticks around a key or a value are not read generously. A reply that fails 1–3 is
``unreadable``, with its failure class; over ``MAX_REPLY_CHARS`` it is not read at all.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Final

TASK_REPLY: Final = "COLOSSEUM-TASK-REPLY-1"
DEFECT_CLASSES: Final = ("contradiction", "missing_or_non_unique", "false_premise", "ill_typed")
MAX_REPLY_CHARS: Final = 32_768
VERDICTS: Final = ("ANSWER", "OBJECT", "ABSTAIN")
KEYS: Final = ("ANSWER", "DEFECT", "SPAN", "REASON", "WITNESS", "P_DEFECTIVE")
_LINE = re.compile(r"^[ \t]*(VERDICT|ANSWER|DEFECT|SPAN|REASON|WITNESS|P_DEFECTIVE):(.*)$")
_PERCENT = re.compile(r"(?:100|[1-9]?[0-9])")
_SPAN = re.compile(r'"(.+)"', re.DOTALL)
FAILURES: Final = (
    "too_long",
    "no_verdict",
    "bad_verdict",
    "repeated_key",
    "no_answer",
    "no_defect",
    "bad_defect",
    "no_span",
)


@dataclasses.dataclass(frozen=True)
class Reading:
    verdict: str | None  # ANSWER, OBJECT or ABSTAIN; None when unreadable
    answer: str | None
    defect: str | None
    span: str | None
    reason: str | None
    witness: str | None
    p_defective: int | None  # percent, 0..100
    failure: str | None  # one of FAILURES when unreadable
    detail: str

    @property
    def readable(self) -> bool:
        return self.failure is None


def _unreadable(failure: str, detail: str, p_defective: int | None = None) -> Reading:
    return Reading(None, None, None, None, None, None, p_defective, failure, detail)


def read_reply(text: str | None) -> Reading:
    if text is None:
        return _unreadable("no_verdict", "no reply")
    if len(text) > MAX_REPLY_CHARS:
        return _unreadable("too_long", f"{len(text):,} characters, over {MAX_REPLY_CHARS:,}: not read")
    lines = text.splitlines()
    starts = [
        index
        for index, line in enumerate(lines)
        if (found := _LINE.match(line)) and found.group(1) == "VERDICT"
    ]
    if not starts:
        return _unreadable("no_verdict", "no line begins VERDICT:")
    values: dict[str, str] = {}
    for line in lines[starts[-1] :]:
        found = _LINE.match(line)
        if found is None:
            continue
        key, value = found.group(1), found.group(2).strip(" \t")
        if key in values:
            return _unreadable("repeated_key", f"{key}: is given twice after the last VERDICT:")
        values[key] = value
    p_text = values.get("P_DEFECTIVE")
    p_defective = int(p_text) if p_text is not None and _PERCENT.fullmatch(p_text) else None
    verdict = values["VERDICT"]
    if verdict not in VERDICTS:
        return _unreadable(
            "bad_verdict", f"VERDICT: {verdict[:40]!r} is not ANSWER, OBJECT or ABSTAIN", p_defective
        )
    if verdict == "ANSWER":
        if not values.get("ANSWER"):
            return _unreadable("no_answer", "VERDICT: ANSWER without an ANSWER: line", p_defective)
        return Reading("ANSWER", values["ANSWER"], None, None, None, None, p_defective, None, "answered")
    if verdict == "ABSTAIN":
        return Reading("ABSTAIN", None, None, None, None, None, p_defective, None, "abstained")
    defect = values.get("DEFECT")
    if not defect:
        return _unreadable("no_defect", "VERDICT: OBJECT without a DEFECT: line", p_defective)
    if defect not in DEFECT_CLASSES:
        return _unreadable(
            "bad_defect", f"DEFECT: {defect[:40]!r} is not one of {', '.join(DEFECT_CLASSES)}", p_defective
        )
    span = _SPAN.fullmatch(values.get("SPAN", ""))
    if span is None:
        return _unreadable(
            "no_span", 'VERDICT: OBJECT without a SPAN: "…" line quoting the words at fault', p_defective
        )
    return Reading(
        "OBJECT",
        None,
        defect,
        span.group(1),
        values.get("REASON"),
        values.get("WITNESS"),
        p_defective,
        None,
        "objected",
    )
