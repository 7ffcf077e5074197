"""COLOSSEUM-TASK-VERIFIED-2: a task is verified when its own reference and failure cases say so,
the same way every time its programs run.

In order, stopping at the first step that fails (each step's run is recorded):

1. ``reference``: the reference answer is given, or the reference program prints one in the
   sandbox; it must be a well-formed answer of the task's type.
2. ``reference_check``: the checker accepts the reference answer.
3. ``failure_case`` *i*, for every failure case in order: it is a well-formed answer of the type,
   it is not the reference's value, and the checker rejects it.

A COLOSSEUM-TASK-2 task with a predicate must also agree with it: the reference satisfies it
(``reference_predicate``) and every failure case violates it (``failure_predicate`` *i*), so that
the predicate and the checker tell the same answers apart before any solver relies on them.

Every step that runs a program (a reference program, a program checker, a predicate) and passes
is run ``REPEATS`` times in all on the same input, each run recorded with its ``repeat`` (0, 1, 2):
a program that produces anything else on a later run than on the first (another verdict, another
answer, other output, another outcome) fails the task at ``not_reproducible``, naming the step and
both runs. The sandbox already gives every run the same clock and the same entropy
(COLOSSEUM-SANDBOX-2); this catches a program that digs past them. The count is three: one run
again would catch a coin flip half the time, two catch it three times in four for each step a
task has, at a cost of two more runs a step (a step that fails is not run again: the task is refused
anyway, and a program that loops costs its limit once).

So a checker that accepts anything fails at its first failure case, one that rejects everything
fails at the reference, one that decides by the clock or by chance fails where two runs disagree,
and one that crashes, loops, floods its output or reaches for the network fails where it first ran,
contained by the sandbox. A task that is not verified is a failed submission: it is never shown to a
solver and its author scores as the event's rules say.

COLOSSEUM-TASK-VERIFIED-1 ran every step once; an event that froze it is derived again under it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

from colosseum_core.events.tasks.answers import MalformedAnswer, read_answer
from colosseum_core.events.tasks.checking import (
    PROGRAM_RUNS,
    CheckerRun,
    ProgramRunner,
    check_answer,
    predicate_run,
    reference_answer,
)
from colosseum_core.events.tasks.task import Task

TASK_VERIFIED: Final = "COLOSSEUM-TASK-VERIFIED-2"
# How many times in all each passing program step runs, by the version of this rule.
REPEATS: Final = {"COLOSSEUM-TASK-VERIFIED-1": 1, TASK_VERIFIED: 3}
VERIFIED: Final = "verified"
NOT_VERIFIED: Final = "not_verified"
NOT_REPRODUCIBLE: Final = "not_reproducible"


@dataclasses.dataclass(frozen=True)
class TaskVerification:
    task_id: str
    status: str  # VERIFIED or NOT_VERIFIED
    failed_step: str | None  # the step, or NOT_REPRODUCIBLE
    failed_case: int | None
    reason: str
    reference: str | None  # the reference answer, once there is one
    runs: tuple[CheckerRun, ...]
    rules: str = TASK_VERIFIED

    @property
    def verified(self) -> bool:
        return self.status == VERIFIED


def _describe(run: CheckerRun) -> str:
    if run.step == "reference" and run.verdict == "produced":
        return f"the answer {run.answer!r}"
    return f"{run.verdict} ({run.reason})"


def _difference(first: CheckerRun, other: CheckerRun) -> str:
    again = f"run {other.repeat + 1}"
    if (first.verdict, first.reason, first.answer) != (other.verdict, other.reason, other.answer):
        return f"run 1 gave {_describe(first)}, {again} {_describe(other)}"
    if first.sandbox_outcome != other.sandbox_outcome:
        return f"run 1 ended {first.sandbox_outcome}, {again} {other.sandbox_outcome}"
    return (
        f"run 1 and {again} both gave {_describe(first)} but printed different output (SHA-256 "
        f"{str(first.stdout_sha256)[:12]}… and {str(other.stdout_sha256)[:12]}…)"
    )


def _step_name(run: CheckerRun) -> str:
    return run.step.replace("_", " ") + (f" {run.case}" if run.case is not None else "")


def _useless_case(task: Task, case: str, reference: Any) -> str | None:
    """Why a failure case tests nothing (not an answer of the task's type, or the reference's value
    itself), or None."""
    try:
        wrong = read_answer(task.answer_type, case)
    except MalformedAnswer as exc:
        return f"is not a well-formed {task.answer_type} (it tests nothing): {exc}"
    return "is the reference answer itself" if wrong == reference else None


def verify_task(task: Task, runner: ProgramRunner, *, rule: str = TASK_VERIFIED) -> TaskVerification:
    """``rule``: the version an event froze (``REPEATS`` says how many runs each step has under it)."""
    if rule not in REPEATS:
        raise ValueError(f"admission rule {rule!r} is not one of {', '.join(REPEATS)}")
    repeats = REPEATS[rule]
    runs: list[CheckerRun] = []

    def failed(
        step: str, reason: str, *, case: int | None = None, reference: str | None = None
    ) -> TaskVerification:
        return TaskVerification(task.task_id, NOT_VERIFIED, step, case, reason, reference, tuple(runs), rule)

    def unstable(first: CheckerRun, again: Callable[[int], CheckerRun]) -> CheckerRun | None:
        """The first run again that differs from ``first`` (a passing program step), or None."""
        if first.checker not in PROGRAM_RUNS:
            return None
        for repeat in range(1, repeats):
            run = again(repeat)
            runs.append(run)
            if not run.same_as(first):
                return run
        return None

    def not_reproducible(first: CheckerRun, other: CheckerRun, reference: str | None) -> TaskVerification:
        return failed(
            NOT_REPRODUCIBLE,
            f"not reproducible: at {_step_name(first)} {_difference(first, other)}",
            case=first.case,
            reference=reference,
        )

    produced = reference_answer(task, runner)
    runs.append(produced)
    if produced.verdict != "produced" or produced.answer is None:
        return failed("reference", produced.reason)
    reference = produced.answer
    try:
        value = read_answer(task.answer_type, reference)
    except MalformedAnswer as exc:
        return failed("reference", f"the reference answer is not a well-formed {task.answer_type}: {exc}")
    other = unstable(produced, lambda repeat: reference_answer(task, runner, repeat=repeat))
    if other is not None:
        return not_reproducible(produced, other, reference)

    def check(answer: str, step: str, case: int | None = None) -> Callable[[int], CheckerRun]:
        return lambda repeat: check_answer(
            task, answer, reference=reference, runner=runner, step=step, case=case, repeat=repeat
        )

    def predicate(answer: str, step: str, case: int | None = None) -> Callable[[int], CheckerRun]:
        return lambda repeat: predicate_run(task, answer, runner=runner, step=step, case=case, repeat=repeat)

    # A program step: the program, the step's name, the verdict it must give and what it means if not.
    Step = tuple[Callable[[str, str, int | None], Callable[[int], CheckerRun]], str, str, str]
    Failure = TaskVerification | None

    def passes(answer: str, case: int | None, by_checker: Step, by_predicate: Step) -> Failure:
        """The checker's step on ``answer``, then the predicate's if the task has one: each must give
        its verdict and, as a passing program step, give it again. None, or the task's failure."""
        steps = (by_checker, by_predicate) if task.predicate_program is not None else (by_checker,)
        for program, step, verdict, why in steps:
            again = program(answer, step, case)
            first = again(0)
            runs.append(first)
            if first.verdict != verdict:
                return failed(step, f"{why}: {first.reason}", case=case, reference=reference)
            if (other := unstable(first, again)) is not None:
                return not_reproducible(first, other, reference)
        return None

    failure = passes(
        reference,
        None,
        (check, "reference_check", "accept", "the checker does not accept the reference"),
        (predicate, "reference_predicate", "satisfies", "the predicate does not accept the reference"),
    )
    if failure is not None:
        return failure
    for index, case in enumerate(task.failure_cases):
        if (useless := _useless_case(task, case, value)) is not None:
            return failed("failure_case", f"failure case {index} {useless}", case=index, reference=reference)
        what = f"failure case {index}"
        failure = passes(
            case,
            index,
            (check, "failure_case", "reject", f"the checker does not reject {what}"),
            (predicate, "failure_predicate", "violates", f"the predicate does not reject {what}"),
        )
        if failure is not None:
            return failure
    return TaskVerification(task.task_id, VERIFIED, None, None, "verified", reference, tuple(runs), rule)
