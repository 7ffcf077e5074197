"""Checking an answer against a task, and running a task's reference program: each run recorded.

COLOSSEUM-PROGRAM-CHECKER-1, the protocol of a ``program`` checker: it is a Python program run in
the sandbox (``colosseum_core.sandbox``), with the canonical JSON ``{"answer": …, "statement": …}`` on
its standard input. It accepts by printing ``ACCEPT`` as its last non-blank line of output and
rejects with ``REJECT``, and must exit 0. Anything else (another last line, an exit code, a crash,
a limit reached) is an ``error``: the checker said nothing, and the answer is neither accepted
nor rejected by it.

A reference ``program`` prints the reference answer: its standard output is read as UTF-8, and the
answer type's own reading ignores white space around it. It gets nothing on its standard input.

The sandbox is handed in (``ProgramRunner``), so the rules run the same over the real one and over
a test's stand-in; what a run produced is recorded, never how long it took. A runner may also
``settle`` each program run it made (``replay.Replay``: ``verify`` holds a replayed run against the
recorded one); the rules then go on with the run it settles on.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from typing import Any, Final

from colosseum_core.events.tasks.answers import MalformedAnswer, exact_check
from colosseum_core.events.tasks.task import Task
from colosseum_core.record.identifiers import canonical_json
from colosseum_core.sandbox.bubblewrap import Limits, SandboxRun, run_python

PROGRAM_CHECKER: Final = "COLOSSEUM-PROGRAM-CHECKER-1"
PREDICATE: Final = "COLOSSEUM-PREDICATE-1"
ACCEPT: Final = "ACCEPT"
REJECT: Final = "REJECT"
SATISFIES: Final = "SATISFIES"
VIOLATES: Final = "VIOLATES"

# The checkers that run a program: only their runs can differ from one run to the next.
PROGRAM_RUNS: Final = ("program", "reference_program", "predicate")

ProgramRunner = Callable[[str, bytes], SandboxRun]


def sandbox_runner(limits: Limits | None = None) -> ProgramRunner:
    """The real runner: every program in its own bubblewrap sandbox under ``limits``."""
    chosen = limits or Limits()

    def run(source: str, stdin: bytes) -> SandboxRun:
        return run_python(source, stdin=stdin, limits=chosen)

    return run


def frozen_runner(sandbox: Mapping[str, Any] | None) -> ProgramRunner:
    """The real runner under the limits a manifest froze (its ``sandbox`` entry; None: today's)."""
    return sandbox_runner(Limits.from_record(sandbox) if sandbox else None)


@dataclasses.dataclass(frozen=True)
class CheckerRun:
    """One run of a checker on one answer, or of a reference program: a row of the record."""

    task_id: str
    step: str  # "reference", "reference_check" or "failure_case"
    case: int | None  # the failure case's index
    answer: str | None  # the answer checked, or the one the reference program printed
    checker: str  # "exact", "program", "reference_program" or "given" (a reference answer as written)
    verdict: str  # "accept", "reject" or "error"; a reference program: "produced" or "error"
    reason: str
    sandbox_outcome: str | None  # the sandbox's outcome when a program ran
    stdout_sha256: str | None
    repeat: int = 0  # 0 for a step's run; 1, 2, … for admission's runs of it again

    def row(self) -> dict[str, object]:
        return dataclasses.asdict(self)

    def same_as(self, other: CheckerRun) -> bool:
        """Whether two runs of one step produced the same thing (whatever their repeat)."""
        return dataclasses.replace(self, repeat=0) == dataclasses.replace(other, repeat=0)


def _settled(runner: ProgramRunner, run: CheckerRun) -> CheckerRun:
    settle = getattr(runner, "settle", None)
    return settle(run) if settle is not None and run.checker in PROGRAM_RUNS else run


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checker_input(task: Task, answer: str) -> bytes:
    return canonical_json({"answer": answer, "statement": task.statement})


def check_answer(
    task: Task,
    answer: str,
    *,
    reference: str,
    runner: ProgramRunner,
    step: str,
    case: int | None = None,
    repeat: int = 0,
) -> CheckerRun:
    """Whether ``task``'s checker accepts ``answer`` (``reference``: the task's reference answer)."""
    if task.checker_program is None:
        try:
            verdict = exact_check(task.answer_type, reference, answer)
        except MalformedAnswer as exc:
            return CheckerRun(
                task.task_id,
                step,
                case,
                answer,
                "exact",
                "error",
                f"the reference is malformed: {exc}",
                None,
                None,
            )
        return CheckerRun(
            task.task_id,
            step,
            case,
            answer,
            "exact",
            "accept" if verdict.accepted else "reject",
            verdict.reason,
            None,
            None,
        )
    run, verdict, reason = _said(runner, task.checker_program, task, answer, "checker", (ACCEPT, REJECT))
    checked = CheckerRun(
        task.task_id, step, case, answer, "program", verdict, reason, run.outcome, _digest(run.stdout), repeat
    )
    return _settled(runner, checked)


def reference_answer(task: Task, runner: ProgramRunner, *, repeat: int = 0) -> CheckerRun:
    """The task's reference answer: given, or printed by its reference program in the sandbox."""
    if task.reference_program is None:
        return CheckerRun(
            task.task_id, "reference", None, task.reference_answer, "given", "produced", "given", None, None
        )
    return _settled(runner, _reference_run(task, runner, repeat))


def _reference_run(task: Task, runner: ProgramRunner, repeat: int) -> CheckerRun:
    assert task.reference_program is not None
    run = runner(task.reference_program, b"")
    if not run.ok:
        return CheckerRun(
            task.task_id,
            "reference",
            None,
            None,
            "reference_program",
            "error",
            f"the reference program did not finish: {run.describe()}",
            run.outcome,
            _digest(run.stdout),
            repeat,
        )
    try:
        printed = run.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return CheckerRun(
            task.task_id, "reference", None, None, "reference_program", "error",
            "the reference program printed bytes that are not UTF-8", run.outcome, _digest(run.stdout),
            repeat,
        )  # fmt: skip
    return CheckerRun(
        task.task_id,
        "reference",
        None,
        printed,
        "reference_program",
        "produced",
        "printed by the reference program",
        run.outcome,
        _digest(run.stdout),
        repeat,
    )


def _said(
    runner: ProgramRunner, program: str, task: Task, answer: str, what: str, words: tuple[str, str]
) -> tuple[SandboxRun, str, str]:
    """``program`` (the task's checker or predicate) run on ``answer``, with its verdict (one of
    ``words`` as its last line, in lower case, else ``error``) and why."""
    run = runner(program, checker_input(task, answer))
    said = _last_line(run.stdout)
    if run.ok and said in words:
        return run, said.lower(), f"the {what} printed {said}"
    if run.ok:
        return run, "error", f"the {what}'s last line is {said!r}, not {words[0]} or {words[1]}"
    return run, "error", f"the {what} did not finish: {run.describe()}"


def _last_line(output: bytes) -> str:
    lines = [line.strip() for line in output.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def predicate_run(
    task: Task,
    answer: str,
    *,
    runner: ProgramRunner,
    step: str,
    case: int | None = None,
    repeat: int = 0,
) -> CheckerRun:
    """Whether ``answer`` satisfies ``task``'s statement, by its predicate program (COLOSSEUM-PREDICATE-1:
    the same input as a program checker; ``SATISFIES`` or ``VIOLATES`` as its last line, exit 0)."""
    assert task.predicate_program is not None
    run, verdict, reason = _said(
        runner, task.predicate_program, task, answer, "predicate", (SATISFIES, VIOLATES)
    )
    checked = CheckerRun(
        task.task_id, step, case, answer, "predicate", verdict, reason, run.outcome, _digest(run.stdout),
        repeat,
    )  # fmt: skip
    return _settled(runner, checked)
