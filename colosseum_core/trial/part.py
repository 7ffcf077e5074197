"""What a trial asks of an arena (a :class:`TrialPart`) and what the arena answers (a
:class:`PartReport`): the contract between the platform's trial and each arena's part of it.

A part is resumable by construction: its unit's key derives from the trial's id (the model's name
and the house units it is tried on), so a trial run again finds its units, journals and receipts
where an interrupted run left them, and asks nothing twice; a sealed unit is read, never played again.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from colosseum_core.providers.models import ModelRef

TRIAL: Final = "COLOSSEUM-TRIAL-1"

PartState = Literal["sealed", "waiting", "skipped", "failed"]


class TrialError(RuntimeError):
    """A trial that cannot go on; the message names the arena, the unit and what stopped it."""


def trial_id(model: ModelRef) -> str:
    """A trial's id: the model's name made a partition key's word, and a digest of how it is reached
    (so the same name served elsewhere is another trial, and a rerun is the same one)."""
    reached = f"{model.protocol}\n{model.base_url}\n{model.model}".encode()
    word = "".join(c if c.isalnum() else "-" for c in model.name.lower()).strip("-")[:40].strip("-")
    return f"{word}-{hashlib.sha256(reached).hexdigest()[:8]}"


@dataclasses.dataclass(frozen=True)
class JobOutcome:
    """How a run of one of the Definitions' jobs ended: success, or why not (its steps' messages)."""

    success: bool
    failures: tuple[str, ...] = ()


class RunJob(Protocol):
    """Runs one job of the real Definitions for one partition, in this process, to its end: what a
    part whose unit is made by Dagster steps asks the wiring for (the rules never import Dagster).
    ``resources``: run config of the resources beyond the record's; ``key_variables``: the model's
    key variables the run may read (their names only enter the run's stored config)."""

    def __call__(
        self,
        job: str,
        partitions: str,
        key: str,
        *,
        ops: Mapping[str, Any] | None = None,
        resources: Mapping[str, Any] | None = None,
        key_variables: Sequence[str] = (),
    ) -> JobOutcome: ...


@dataclasses.dataclass(frozen=True)
class TrialRequest:
    """Everything a part needs, injected: the model, where the record is, the sparring server's URL
    for the house field, the keys' environment, the clock, a progress line printer, and the wiring's
    job runner for parts made by Dagster steps (the events'; None where the trial runs none)."""

    model: ModelRef
    trial: str
    data_dir: Path
    sparring_url: str
    environ: Mapping[str, str]
    clock: Callable[[], dt.datetime]
    progress: Callable[[str], None]
    run_job: RunJob | None = None


@dataclasses.dataclass(frozen=True)
class Standing:
    """The model's standing in one measure among the house field: its value with a 95 % interval,
    its rank (1 = best) and the field's size, and which way is better."""

    measure: str
    value: float | None
    low: float | None
    high: float | None
    rank: int | None
    field: int
    higher_is_better: bool


@dataclasses.dataclass(frozen=True)
class PartReport:
    """One arena's part of a trial: its unit (sealed, or waiting, e.g. for questions to settle), the
    model's standings, its format failures by class, its refusals, its cost, and the transcripts'
    paths relative to the record's root."""

    arena: str
    part: str
    unit: str
    state: PartState
    standings: tuple[Standing, ...] = ()
    format_failures: Mapping[str, int] = dataclasses.field(default_factory=dict)
    refusals: int = 0
    calls: int = 0
    tokens_in: int | None = None
    tokens_out: int | None = None
    seconds: float = 0.0
    transcripts: tuple[str, ...] = ()
    note: str = ""


class TrialPart(Protocol):
    """An arena's part of a trial. ``run`` plays (or resumes, or reads) the part's unit and reports;
    ``read`` reports from the record alone (None when the record holds no unit of that trial), which
    is what the site's trial page and a report asked for later show."""

    arena: str
    part: str

    def run(self, request: TrialRequest) -> PartReport: ...

    def read(self, data_dir: Path, trial: str) -> PartReport | None: ...
