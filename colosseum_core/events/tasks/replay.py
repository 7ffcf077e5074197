"""COLOSSEUM-REPLAY-1: programs run again against the record, each run settled on the recorded one.

``verify`` derives a task event's tables again from what was asked, running every program (a
reference program, a program checker, a predicate) again in the sandbox. A ``Replay`` is the
``ProgramRunner`` it hands the rules: it runs each program as the sandbox runner does, and holds
each program run against the run the record has for the same task, step, case, answer and repeat
(taken in the record's order when several share those):

- the same run (verdict, reason, outcome, output digest, answer): the derivation goes on with it;
- another run: a ``Disagreement``, kept, and the derivation goes on with the **recorded** run. The
  recorded verdict is what the event decided when the program ran; a program whose verdict depends
  on when or where it runs is its author's defect, named as a finding about that one task, and never
  a difference in every table derived after it;
- no recorded run: the derivation goes on with the replayed one, and the table comparison names
  the difference (a record that lacks a run the rules make is not a program's doing).

Only program runs are settled: the built-in exact checkers are pure functions of the record, so a
difference there is the record's and stays a problem.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, Final

from colosseum_core.events.tasks.checking import PROGRAM_RUNS, CheckerRun, ProgramRunner
from colosseum_core.sandbox.bubblewrap import SandboxRun

REPLAY: Final = "COLOSSEUM-REPLAY-1"
_FIELDS: Final = tuple(field.name for field in dataclasses.fields(CheckerRun))
# Runs whose answer is what the program printed, not what it was given: their key leaves it out.
_PRODUCING_STEPS: Final = ("reference",)

Key = tuple[str, str, int | None, int, str | None]


def _key(task_id: str, step: str, case: int | None, repeat: int, answer: str | None) -> Key:
    return (task_id, step, case, repeat, None if step in _PRODUCING_STEPS else answer)


@dataclasses.dataclass(frozen=True)
class Disagreement:
    """A program run whose replay differs from the record: the recorded row and the replayed run."""

    phase: str
    recorded: Mapping[str, Any]  # the record's row (with its solver, for a solving run)
    replayed: CheckerRun

    @property
    def task_id(self) -> str:
        return self.replayed.task_id

    def what(self) -> str:
        """The run, in words: the phase, the step and the answer it was given."""
        run = self.replayed
        step = run.step.replace("_", " ") + (f" {run.case}" if run.case is not None else "")
        solver = self.recorded.get("solver")
        given = "" if run.step in _PRODUCING_STEPS else f" on the answer {_shown(run.answer)}"
        return (
            f"{self.phase}{f' (solver {solver})' if solver else ''}, {step}"
            f"{f' run {run.repeat + 1}' if run.repeat else ''}{given}"
        )

    def verdicts(self) -> tuple[str, str]:
        """What the record says and what the replay says, each as a verdict and its reason."""
        return _said(self.recorded), _said(self.replayed.row())


def _shown(text: str | None) -> str:
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _said(run: Mapping[str, Any]) -> str:
    if run.get("step") in _PRODUCING_STEPS:
        return f"the answer {_shown(run.get('answer'))}"
    reason = run.get("reason")
    return f"{run.get('verdict')}" + (f" ({reason})" if reason else "")


class Replay:
    """A ``ProgramRunner`` that runs every program again and settles each run on the recorded one.

    ``recorded``: the phase's run rows (``CheckerRun`` fields, and any others); a row may hold only
    some of the fields (a reveal records only the answer its reference program printed again), and
    only those are compared.
    """

    def __init__(self, runner: ProgramRunner, phase: str, recorded: Iterable[Mapping[str, Any]]) -> None:
        self._runner = runner
        self.phase = phase
        self.disagreements: list[Disagreement] = []
        self._book: dict[Key, deque[Mapping[str, Any]]] = {}
        for row in recorded:
            key = _key(
                str(row["task_id"]),
                str(row["step"]),
                row.get("case"),
                int(row.get("repeat") or 0),  # a record written before repeats has none
                row.get("answer"),
            )
            self._book.setdefault(key, deque()).append(row)

    def __call__(self, source: str, stdin: bytes) -> SandboxRun:
        return self._runner(source, stdin)

    def settle(self, run: CheckerRun) -> CheckerRun:
        if run.checker not in PROGRAM_RUNS:
            return run
        waiting = self._book.get(_key(run.task_id, run.step, run.case, run.repeat, run.answer))
        if not waiting:
            return run
        recorded = waiting.popleft()
        fields = {name: recorded[name] for name in _FIELDS if name in recorded and name != "repeat"}
        settled = dataclasses.replace(run, **fields)
        if settled != run:
            self.disagreements.append(Disagreement(self.phase, recorded, run))
        return settled
