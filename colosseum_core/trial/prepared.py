"""A part with a prerequisite only the wiring can meet: run; if it says ``skipped`` (its arena has no
unit to be tried on yet: the forecast no answered card, the debate no sealed rotation), ``prepare``
makes one (a job of the Definitions, which the rules cannot run) and the part runs again, once.

What is prepared is an ordinary unit of the arena, made as its own command makes it, so the trial's
report and ``colosseum verify`` see nothing new. ``read`` is the part's own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from colosseum_core.trial.part import PartReport, TrialPart, TrialRequest


@dataclasses.dataclass(frozen=True)
class Prepared:
    """``part``, with ``prepare`` run before a second try when the first is ``skipped``."""

    inner: TrialPart
    prepare: Callable[[TrialRequest], None]
    what: str  # the prerequisite in words, for the progress line

    @property
    def arena(self) -> str:
        return self.inner.arena

    @property
    def part(self) -> str:
        return self.inner.part

    def run(self, request: TrialRequest) -> PartReport:
        first = self.inner.run(request)
        if first.state != "skipped":
            return first
        request.progress(f"{self.arena}/{self.part}: {first.note or 'skipped'}; making {self.what} first")
        self.prepare(request)
        return self.inner.run(request)

    def read(self, data_dir: Path, trial: str) -> PartReport | None:
        return self.inner.read(data_dir, trial)
