"""CHALLENGE-SCORING-1: solving and authoring points, each with its evidence category.

A task is **defective** when an objection's witness holds (Verified, CHALLENGE-WITNESS-1: the
task's predicate accepts the witness and its checker rejects it), when its reference program, run
again at the reveal, no longer prints the answer it was admitted with (Verified: a run shows the
reference fails), or when review upholds an objection to it (Reviewed). The Verified standings
count only what a checker or a sandboxed run decided; the standings with Reviewed outcomes add
what the judges decided; Unresolved outcomes (the judges split, or a checker failed on an answer)
are in neither, and are counted publicly.

Solving, per solver and task (tasks it did not author):

| the reply | sound task | defective task |
|---|---|---|
| an answer the task's checker accepts | +1 solved (Verified) | −1 missed defect |
| an answer it rejects | −1 wrong answer (Verified) | −1 missed defect |
| an objection whose witness holds | — | +1 upheld (Verified) |
| an objection review upholds | — | +1 upheld (Reviewed) |
| an objection review rejects | −1 invented objection (Reviewed) | −1 not upheld (Reviewed) |
| an objection the judges split on | unresolved | unresolved |
| an abstention | 0 | 0 |
| no reply, or one that cannot be read | −1 | −1 |

"Missed defect" takes the evidence of the task's defect. Authoring, per author and registered slot:
a failed submission (no task, or one not verified) 0; a defective task −1; a sound task
0.25 + 0.75 × the share of its opponents (every other contender) who did not submit a correct
solution. In integer units of 1/(4m) for m opponents: 0, −4m, or m + 3k for k opponents who failed it,
so that sums and their bootstrap are exact.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Final

VERIFIED: Final = "verified"
REVIEWED: Final = "reviewed"
UNRESOLVED: Final = "unresolved"


@dataclasses.dataclass(frozen=True)
class Score:
    ranking: str  # "solving" or "authoring"
    contender: str
    task_id: str | None
    slot: int | None
    outcome: str
    units: int
    scale: int
    evidence: str
    reason: str


@dataclasses.dataclass(frozen=True)
class TaskVerdict:
    task_id: str
    defective: bool
    evidence: str  # of the defect when defective (VERIFIED or REVIEWED), else VERIFIED
    reason: str


def task_verdicts(
    task_ids: Sequence[str],
    reference_stable: Mapping[str, bool],
    upheld: Mapping[str, int],
    witnessed: Collection[str] = (),
) -> dict[str, TaskVerdict]:
    verdicts = {}
    for task_id in task_ids:
        if task_id in witnessed:
            verdicts[task_id] = TaskVerdict(
                task_id, True, VERIFIED, "a witness satisfies the statement and the task's checker rejects it"
            )
        elif not reference_stable.get(task_id, True):
            verdicts[task_id] = TaskVerdict(
                task_id, True, VERIFIED, "the reference program, run again, printed another answer"
            )
        elif upheld.get(task_id, 0):
            verdicts[task_id] = TaskVerdict(
                task_id, True, REVIEWED, f"{upheld[task_id]} objection(s) upheld by review"
            )
        else:
            verdicts[task_id] = TaskVerdict(task_id, False, VERIFIED, "no defect shown")
    return verdicts


def solving_score(solver: str, task_id: str, reply: Mapping[str, object], verdict: TaskVerdict) -> Score:
    """``reply``: a ``challenge_replies`` row (status, verdict, check, review)."""

    def score(outcome: str, units: int, evidence: str, reason: str) -> Score:
        return Score("solving", solver, task_id, None, outcome, units, 1, evidence, reason)

    if reply["status"] != "answered":
        return score("no_response", -1, VERIFIED, "no reply")
    if reply["verdict"] is None:
        return score("unreadable", -1, VERIFIED, f"unreadable: {reply['failure']}")
    if reply["verdict"] == "ABSTAIN":
        return score("abstained", 0, VERIFIED, "abstained")
    if reply["verdict"] == "ANSWER":
        if verdict.defective:
            return score(
                "missed_defect", -1, verdict.evidence, f"answered a defective task ({verdict.reason})"
            )
        if reply["check"] == "accept":
            return score("solved", 1, VERIFIED, "the task's checker accepts the answer")
        if reply["check"] == "reject":
            return score("wrong_answer", -1, VERIFIED, "the task's checker rejects the answer")
        return score(
            "checker_failed",
            0,
            UNRESOLVED,
            f"the task's checker failed on the answer: {reply['check_reason']}",
        )
    if reply.get("witness_check") == "holds":
        return score("upheld", 1, VERIFIED, "the objection's witness holds (CHALLENGE-WITNESS-1)")
    review = reply["review"]
    if review == "upheld":
        return score("upheld", 1, REVIEWED, "review upheld the objection")
    if review == "rejected":
        outcome = "not_upheld" if verdict.defective else "invented_objection"
        return score(outcome, -1, REVIEWED, "review did not uphold the objection")
    return score("unresolved", 0, UNRESOLVED, "the judges did not agree")


def authoring_score(
    author: str,
    slot: int,
    submission: Mapping[str, object],
    verdict: TaskVerdict | None,
    failed_by: int,
    opponents: int,
) -> Score:
    """``failed_by``: the opponents who did not submit a correct solution to the task."""
    scale = 4 * opponents

    def score(outcome: str, units: int, evidence: str, reason: str) -> Score:
        task_id = submission["task_id"] if isinstance(submission["task_id"], str) else None
        return Score("authoring", author, task_id, slot, outcome, units, scale, evidence, reason)

    if submission["status"] != "verified" or verdict is None:
        return score("failed_submission", 0, VERIFIED, f"{submission['status']}: {submission['detail']}")
    if verdict.defective:
        return score("defective", -scale, verdict.evidence, verdict.reason)
    return score(
        "sound",
        opponents + 3 * failed_by,
        VERIFIED,
        f"{failed_by} of {opponents} opponents did not solve it: 0.25 + 0.75 × {failed_by}/{opponents}",
    )
