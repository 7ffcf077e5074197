"""What an arena hands the exporters: plain data, no library's types, so an arena's part needs no
optional dependency and the writers know no arena."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Literal

Role = Literal["system", "user", "assistant"]

# Inspect parses a log's file name as {timestamp}_{task}_{id}: a task holds no "_". A sample id
# becomes a file name inside the .eval zip: a "/" there would be a folder.
_TASK = re.compile(r"^[a-z][a-z0-9-]*$")
_SAMPLE_ID = re.compile(r"^[^/\\\x00]{1,200}$")


class ExportError(ValueError):
    """A unit that cannot be exported as it stands: the message names the unit, the field and the value."""


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One score of a sample: ``value`` a number; ``failure`` the project's format-failure class
    (an unreadable reply), kept beside Inspect's own reason."""

    value: float
    answer: str | None = None
    explanation: str | None = None
    failure: str | None = None
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Turn:
    role: Role
    text: str
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Sample:
    """One thing a contender was asked and (when settled) scored on. ``turns``: the exchange as it
    went, when more than the input and the output (a game's moves, a debate's turns); ``stop`` the
    provider's own reason the last reply ended (``length``, ``max_tokens``, ``MAX_TOKENS`` …)."""

    id: str
    input: str
    output: str
    target: str = ""
    scores: Mapping[str, Verdict] = dataclasses.field(default_factory=dict)
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    turns: tuple[Turn, ...] = ()
    stop: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    error: str | None = None


@dataclasses.dataclass(frozen=True)
class Standing:
    """A contender's sealed standing on one metric, with its interval: what an Every Eval Ever
    record carries. ``bounds``: the metric's range (None: unbounded, as a rating)."""

    metric: str
    value: float
    low: float | None
    high: float | None
    n: int
    method: str
    lower_is_better: bool = False
    bounds: tuple[float, float] | None = None


@dataclasses.dataclass(frozen=True)
class UnitLog:
    """One seat or contender in one unit of play (a card, an epoch, an event).

    ``model``: the field's name for it (``model_names.field_name``); ``metrics``: ``{score name:
    {metric: number}}`` from the sealed standings; ``standings``: the same with intervals, for Every
    Eval Ever (empty for what is no model: an engine, a strategy's share); ``settings``: what the
    record says was sent, refused ones as ``"OMITTED"``.
    """

    arena: str
    task: str
    unit: str
    contender: str
    model: str
    created: str
    completed: str
    samples: tuple[Sample, ...]
    scorer: str
    rules: tuple[str, ...]
    metrics: Mapping[str, Mapping[str, float]] = dataclasses.field(default_factory=dict)
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    base_url: str | None = None
    standings: tuple[Standing, ...] = ()

    def __post_init__(self) -> None:
        where = f"{self.arena} {self.unit} {self.contender}"
        if not _TASK.match(self.task):
            raise ExportError(f"{where}: task {self.task!r} must be lower-case words joined by '-'")
        seen: set[str] = set()
        for sample in self.samples:
            if not _SAMPLE_ID.match(sample.id):
                raise ExportError(f"{where}: sample id {sample.id!r} must be 1-200 characters without '/'")
            if sample.id in seen:
                raise ExportError(f"{where}: sample id {sample.id!r} appears twice")
            seen.add(sample.id)
        for score, metrics in self.metrics.items():
            for name, value in metrics.items():
                if not isinstance(value, int | float) or isinstance(value, bool):
                    raise ExportError(f"{where}: metric {score}.{name} is {value!r}, not a number")

    @property
    def key(self) -> str:
        """A stable id of the log: the same record gives the same id on every export."""
        return stable_id(self.task, self.unit, self.contender)


def stable_id(*parts: str, length: int = 22) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:length]


def sample_id(*parts: Any) -> str:
    """A flat sample id from its parts: '.'-joined, each part's '/' replaced (a folder in the zip)."""
    return ".".join(str(p).replace("/", "-").replace("\\", "-") for p in parts if p is not None and p != "")


def recorded_settings(text: str | None) -> dict[str, Any]:
    """A row's recorded call settings (a JSON object), or none where the column holds no object."""
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
