"""SOO-SCORING-1: the points of one reply to one item, its evidence, and its Brier term.

| the item | the reply | outcome | points |
|---|---|---|---|
| sound | an answer the exact checker accepts | ``solved`` | +1 |
| sound | another answer (or a malformed one) | ``wrong_answer`` | −1 |
| sound | an objection | ``invented_objection`` | −1 |
| defective | an objection of the twin's class quoting words that overlap its edit | ``substantiated`` | +1 |
| defective | an objection whose witness checks (see below) | ``witness_checked`` | +1 |
| defective | any other objection | ``unsubstantiated`` | −1 |
| defective | an answer | ``missed_defect`` | −1 |
| either | an abstention | ``abstained`` | 0 |
| either | no reply, or one that cannot be read | ``no_response``, ``unreadable`` | −1 |

The quoted words must appear in the item's statement exactly (case and spacing count); they
overlap the edit when an occurrence shares a character with the edited text, or, for an edit that
only removed words, covers the place they were removed from. Every outcome is **Verified**: the
exact checker, the edit's recorded place or a sandboxed run of the twin's checking program decides
it, never a judge.

A witness (``WITNESS:``, a JSON array of two assignments) checks when the twin's own checking
program, run in the sandbox, finds that both satisfy the twin's conditions and give different
answers: it proves a problem with several answers without naming the edit.

Brier: with y = 1 for a defective item and P the stated percentage, the term is (P − 100·y)² in
units of 1/10,000 (an integer, so that sums and their bootstrap are exact); a reply without a
readable P scores 10,000, the worst.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Final

from colosseum_core.events.solve_or_object.bank import Item, ProgramRunner, witness_answers
from colosseum_core.events.tasks.answers import exact_check
from colosseum_core.events.tasks.reading import Reading

VERIFIED: Final = "verified"
BRIER_SCALE: Final = 10_000
POINTS: Final = {
    "solved": 1,
    "substantiated": 1,
    "witness_checked": 1,
    "abstained": 0,
    "wrong_answer": -1,
    "invented_objection": -1,
    "unsubstantiated": -1,
    "missed_defect": -1,
    "unreadable": -1,
    "no_response": -1,
}


@dataclasses.dataclass(frozen=True)
class ItemScore:
    outcome: str
    points: int
    evidence: str
    reason: str
    brier_units: int  # (P − 100·y)², or BRIER_SCALE without a readable P


def span_overlaps(statement: str, span: str, start: int, end: int) -> bool:
    """Whether some occurrence of ``span`` in ``statement`` overlaps the edited text [start, end)."""
    if not span:
        return False
    at = statement.find(span)
    while at >= 0:
        finish = at + len(span)
        if (end > start and at < end and start < finish) or (end == start and at <= start <= finish):
            return True
        at = statement.find(span, at + 1)
    return False


def brier_units(item: Item, reading: Reading) -> int:
    if reading.p_defective is None:
        return BRIER_SCALE
    return (reading.p_defective - (100 if item.defective else 0)) ** 2


def _score(outcome: str, reason: str, units: int) -> ItemScore:
    return ItemScore(outcome, POINTS[outcome], VERIFIED, reason, units)


def score_reply(item: Item, reading: Reading, *, answered: bool, runner: ProgramRunner | None) -> ItemScore:
    """The score of ``reading`` for ``item`` (``answered``: the contender replied at all)."""
    units = brier_units(item, reading)
    if not answered:
        return _score("no_response", "no reply", units)
    if not reading.readable:
        return _score("unreadable", f"{reading.failure}: {reading.detail}", units)
    if reading.verdict == "ABSTAIN":
        return _score("abstained", "abstained", units)
    if not item.defective:
        if reading.verdict == "OBJECT":
            return _score("invented_objection", "objected to a sound problem", units)
        assert item.answer is not None and reading.answer is not None
        verdict = exact_check(item.answer_type, item.answer, reading.answer)
        outcome = "solved" if verdict.accepted else "wrong_answer"
        return _score(outcome, f"the exact checker: {verdict.reason}", units)
    if reading.verdict == "ANSWER":
        return _score("missed_defect", "answered a defective problem", units)
    assert item.edit_start is not None and item.edit_end is not None and reading.span is not None
    if reading.defect == item.defect_class and span_overlaps(
        item.statement, reading.span, item.edit_start, item.edit_end
    ):
        return _score("substantiated", "the class matches and the quoted words overlap the edit", units)
    witnessed = _witness(item, reading, runner)
    if witnessed is None:
        return _score("witness_checked", "the witness's two assignments give different answers", units)
    why = [
        f"the class is {item.defect_class}, not {reading.defect}"
        if reading.defect != item.defect_class
        else "",
        "the quoted words are not in the problem"
        if reading.span not in item.statement
        else "the quoted words do not overlap the edit"
        if not span_overlaps(item.statement, reading.span, item.edit_start, item.edit_end)
        else "",
        witnessed,
    ]
    return _score("unsubstantiated", "; ".join(part for part in why if part), units)


def _witness(item: Item, reading: Reading, runner: ProgramRunner | None) -> str | None:
    """None when the reply's witness checks; otherwise why it does not (or that there is none)."""
    if reading.witness is None:
        return ""
    certificate = item.certificate
    if runner is None or certificate is None or certificate.get("kind") != "two_assignments":
        return "this problem's witnesses cannot be checked"
    try:
        assignments = json.loads(reading.witness)
    except ValueError:
        return "the witness is not JSON"
    checked = witness_answers(str(certificate.get("program", "")), assignments, runner)
    return f"the witness: {checked}" if isinstance(checked, str) else None
