"""CHALLENGE-SOLVING-1 and CHALLENGE-REVIEW-1: what a solver and a reviewing judge are shown, verbatim.

The solving prompt carries one task of the public package (its statement and answer type, never its
author, reference, checker or failure cases), fenced between two lines that carry a mark made from
the statement, so no statement can close its own fence; every solver gets the same bytes for a task.
The review prompt is blinded: the task (with its reference answer and how it is checked) and one
objection (class, quoted words, reason, witness), never who wrote either. A judge's vote is its
first line, ``SUBSTANTIATED`` or ``NOT_SUBSTANTIATED``; its second line is its reason.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Final

SOLVING_PROMPT: Final = """\
You are a solver in a challenge event. Another contender wrote the problem below. It should be \
sound (well posed, with exactly the answer it asks for), but it may be defective: its conditions \
contradict each other (contradiction), it lacks information or admits several answers \
(missing_or_non_unique), it rests on something false (false_premise), or it asks for a kind of answer \
that cannot describe the answer (ill_typed).

Solve it, object to it, or abstain. A correct answer scores +1; an objection upheld by review scores \
+1; abstaining scores 0; a wrong answer, an objection that is not upheld, an answer to a defective \
problem or a reply that cannot be read scores -1.

End your reply with these lines, exactly as shown, each on its own line:
VERDICT: ANSWER, OBJECT or ABSTAIN
ANSWER: your answer, on one line, in the form the problem asks for (only with VERDICT: ANSWER)
DEFECT: contradiction, missing_or_non_unique, false_premise or ill_typed (only with VERDICT: OBJECT)
SPAN: "the exact words of the problem that are at fault, quoted" (only with VERDICT: OBJECT)
REASON: one line saying what is wrong (only with VERDICT: OBJECT)

The problem (answer type: {answer_type}) is between the two lines that carry the mark {nonce}:
--- PROBLEM {nonce} ---
{statement}
--- END OF PROBLEM {nonce} ---
"""

REVIEW_PROMPT: Final = """\
You are a judge reviewing an objection to a problem in a challenge event. You are not told who wrote \
the problem or the objection. Decide whether the objection shows that the problem, as stated, is \
defective: contradictory (contradiction), missing information or admitting several answers \
(missing_or_non_unique), resting on something false (false_premise), or asking for a kind of answer \
that cannot describe it (ill_typed), or that its reference answer is wrong.

The author's reference answer: {reference}
How answers are checked: {checker}

The objection: {defect}, quoting "{span}".
Its reason: {reason}
Its witness: {witness}

Answer with two lines: first SUBSTANTIATED or NOT_SUBSTANTIATED, then one line saying why.

The problem (answer type: {answer_type}) is between the two lines that carry the mark {nonce}:
--- PROBLEM {nonce} ---
{statement}
--- END OF PROBLEM {nonce} ---
"""
VOTES: Final = ("SUBSTANTIATED", "NOT_SUBSTANTIATED")


def nonce(statement: str) -> str:
    return hashlib.sha256(statement.encode("utf-8")).hexdigest()[:12]


def solving_prompt(statement: str, answer_type: str) -> str:
    return SOLVING_PROMPT.format(answer_type=answer_type, nonce=nonce(statement), statement=statement)


def review_prompt(
    *,
    statement: str,
    answer_type: str,
    reference: str,
    checker: str,
    defect: str,
    span: str,
    reason: str | None,
    witness: str | None,
) -> str:
    return REVIEW_PROMPT.format(
        reference=reference,
        checker=checker,
        defect=defect,
        span=span,
        reason=reason or "(none given)",
        witness=witness or "(none given)",
        answer_type=answer_type,
        nonce=nonce(statement),
        statement=statement,
    )


@dataclasses.dataclass(frozen=True)
class Vote:
    vote: str | None  # SUBSTANTIATED, NOT_SUBSTANTIATED, or None: no valid vote
    reason: str


def read_vote(text: str | None) -> Vote:
    if not text:
        return Vote(None, "no reply")
    lines = [line.strip() for line in text.strip().splitlines()]
    first = lines[0] if lines else ""
    if first not in VOTES:
        return Vote(None, f"the first line {first[:40]!r} is not SUBSTANTIATED or NOT_SUBSTANTIATED")
    return Vote(first, lines[1] if len(lines) > 1 else "")
