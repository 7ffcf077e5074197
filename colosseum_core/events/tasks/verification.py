"""COLOSSEUM-TASK-VERIFIED-1: a task is verified when its own reference and failure cases say so.

In order, stopping at the first step that fails (each step's run is recorded):

1. ``reference``: the reference answer is given, or the reference program prints one in the
   sandbox; it must be a well-formed answer of the task's type.
2. ``reference_check``: the checker accepts the reference answer.
3. ``failure_case`` *i*, for every failure case in order: it is a well-formed answer of the type,
   it is not the reference's value, and the checker rejects it.

A COLOSSEUM-TASK-2 task with a predicate must also agree with it: the reference satisfies it
(``reference_predicate``) and every failure case violates it (``failure_predicate`` *i*), so that
the predicate and the checker tell the same answers apart before any solver relies on them.

So a checker that accepts anything fails at its first failure case, one that rejects everything
fails at the reference, and one that crashes, loops, floods its output or reaches for the network
fails where it first ran, contained by the sandbox. A task that is not verified is a failed
submission: it is never shown to a solver and its author scores as the event's rules say.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from colosseum_core.events.tasks.answers import MalformedAnswer, read_answer
from colosseum_core.events.tasks.checking import (
    CheckerRun,
    ProgramRunner,
    check_answer,
    predicate_run,
    reference_answer,
)
from colosseum_core.events.tasks.task import Task

TASK_VERIFIED: Final = "COLOSSEUM-TASK-VERIFIED-1"
VERIFIED: Final = "verified"
NOT_VERIFIED: Final = "not_verified"


@dataclasses.dataclass(frozen=True)
class TaskVerification:
    task_id: str
    status: str  # VERIFIED or NOT_VERIFIED
    failed_step: str | None  # "reference", "reference_check" or "failure_case"
    failed_case: int | None
    reason: str
    reference: str | None  # the reference answer, once there is one
    runs: tuple[CheckerRun, ...]
    rules: str = TASK_VERIFIED

    @property
    def verified(self) -> bool:
        return self.status == VERIFIED


def verify_task(task: Task, runner: ProgramRunner) -> TaskVerification:
    runs: list[CheckerRun] = []

    def failed(
        step: str, reason: str, *, case: int | None = None, reference: str | None = None
    ) -> TaskVerification:
        return TaskVerification(task.task_id, NOT_VERIFIED, step, case, reason, reference, tuple(runs))

    produced = reference_answer(task, runner)
    runs.append(produced)
    if produced.verdict != "produced" or produced.answer is None:
        return failed("reference", produced.reason)
    reference = produced.answer
    try:
        value = read_answer(task.answer_type, reference)
    except MalformedAnswer as exc:
        return failed("reference", f"the reference answer is not a well-formed {task.answer_type}: {exc}")

    accepted = check_answer(task, reference, reference=reference, runner=runner, step="reference_check")
    runs.append(accepted)
    if accepted.verdict != "accept":
        return failed(
            "reference_check",
            f"the checker does not accept the reference: {accepted.reason}",
            reference=reference,
        )

    if task.predicate_program is not None:
        holds = predicate_run(task, reference, runner=runner, step="reference_predicate")
        runs.append(holds)
        if holds.verdict != "satisfies":
            return failed(
                "reference_predicate",
                f"the predicate does not accept the reference: {holds.reason}",
                reference=reference,
            )
    for index, case in enumerate(task.failure_cases):
        try:
            wrong = read_answer(task.answer_type, case)
        except MalformedAnswer as exc:
            return failed(
                "failure_case",
                f"failure case {index} is not a well-formed {task.answer_type} (it tests nothing): {exc}",
                case=index,
                reference=reference,
            )
        if wrong == value:
            return failed(
                "failure_case",
                f"failure case {index} is the reference answer itself",
                case=index,
                reference=reference,
            )
        rejected = check_answer(
            task, case, reference=reference, runner=runner, step="failure_case", case=index
        )
        runs.append(rejected)
        if rejected.verdict != "reject":
            return failed(
                "failure_case",
                f"the checker does not reject failure case {index}: {rejected.reason}",
                case=index,
                reference=reference,
            )
        if task.predicate_program is not None:
            violated = predicate_run(task, case, runner=runner, step="failure_predicate", case=index)
            runs.append(violated)
            if violated.verdict != "violates":
                return failed(
                    "failure_predicate",
                    f"the predicate does not reject failure case {index}: {violated.reason}",
                    case=index,
                    reference=reference,
                )
    return TaskVerification(task.task_id, VERIFIED, None, None, "verified", reference, tuple(runs))
