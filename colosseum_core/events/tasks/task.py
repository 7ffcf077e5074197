"""COLOSSEUM-TASK-1: a machine-checkable task as canonical JSON, identified by its SHA-256.

A task is a JSON object with exactly these fields:

    {
      "format": "COLOSSEUM-TASK-1",
      "statement": "…",                                  1 to 8,000 characters
      "answer_type": "integer" | "fraction" | "string" | "json",
      "reference": {"answer": "…"} | {"program": "…"},   the reference solution: an answer, or a
                                                          Python program that prints it
      "checker": {"kind": "exact"} | {"kind": "program", "source": "…"},
      "failure_cases": ["…", …]                          1 to 16 wrong answers the checker must reject
    }

COLOSSEUM-TASK-2 is the same object with an optional seventh field, ``"predicate": {"source": "…"}``:
a Python program that says whether an answer satisfies the statement (COLOSSEUM-PREDICATE-1: it
reads ``{"answer": …, "statement": …}`` and prints ``SATISFIES`` or ``VIOLATES`` as its last line).
It lets a solver's witness be checked by machine: an answer the predicate accepts and the checker
rejects shows the task defective. A TASK-1 task is never read as TASK-2, so its id never changes.

The ``exact`` checker is the built-in one for the answer type (``answers.exact_check`` against the
reference). A ``program`` checker is Python run in the sandbox (``checking``). Its id is the
SHA-256 of the task's RFC 8785 canonical JSON: anyone can recompute it, and a change of any byte
of any field is a different task. What solvers see is the public item: the id, the statement and
the answer type, never the reference, the checker or the failure cases.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from typing import Any, Final

from colosseum_core.events.tasks.answers import ANSWER_TYPES, MAX_ANSWER_CHARS
from colosseum_core.record.identifiers import canonical_json

TASK_FORMAT: Final = "COLOSSEUM-TASK-1"
# COLOSSEUM-TASK-2: TASK-1 with an optional "predicate" (see the module docstring).
TASK_FORMAT_WITH_PREDICATE: Final = "COLOSSEUM-TASK-2"
MAX_STATEMENT_CHARS: Final = 8_000
MAX_PROGRAM_CHARS: Final = 64_000
MAX_FAILURE_CASES: Final = 16
FIELDS: Final = ("format", "statement", "answer_type", "reference", "checker", "failure_cases")


class TaskError(ValueError):
    """A task that does not follow COLOSSEUM-TASK-1; the message names the field and the value."""


@dataclasses.dataclass(frozen=True)
class Task:
    statement: str
    answer_type: str
    reference_answer: str | None  # exactly one of these two
    reference_program: str | None
    checker_program: str | None  # None: the built-in exact checker
    failure_cases: tuple[str, ...]
    # COLOSSEUM-TASK-2 only: a program saying whether an answer satisfies the statement.
    predicate_program: str | None = None
    format: str = TASK_FORMAT

    def document(self) -> dict[str, Any]:
        reference = (
            {"answer": self.reference_answer}
            if self.reference_program is None
            else {"program": self.reference_program}
        )
        checker = (
            {"kind": "exact"}
            if self.checker_program is None
            else {"kind": "program", "source": self.checker_program}
        )
        document = {
            "format": self.format,
            "statement": self.statement,
            "answer_type": self.answer_type,
            "reference": reference,
            "checker": checker,
            "failure_cases": list(self.failure_cases),
        }
        if self.predicate_program is not None:
            document["predicate"] = {"source": self.predicate_program}
        return document

    def canonical(self) -> bytes:
        return canonical_json(self.document())

    @property
    def task_id(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()

    def public_item(self) -> dict[str, str]:
        """What every solver receives: nothing that gives the answer away."""
        return {"task_id": self.task_id, "statement": self.statement, "answer_type": self.answer_type}


def _text(value: object, field: str, limit: int, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise TaskError(f"task field {field}: expected text, not {type(value).__name__} {_shown(value)}")
    if not empty and not value.strip():
        raise TaskError(f"task field {field}: must not be empty")
    if len(value) > limit:
        raise TaskError(f"task field {field}: {len(value):,} characters, over the limit of {limit:,}")
    if "\x00" in value:
        raise TaskError(f"task field {field}: holds a NUL character")
    return value


def _object(value: object, field: str, keys: tuple[tuple[str, ...], ...]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TaskError(f"task field {field}: expected an object, not {type(value).__name__} {_shown(value)}")
    if tuple(sorted(value)) not in {tuple(sorted(option)) for option in keys}:
        allowed = " or ".join("{" + ", ".join(option) + "}" for option in keys)
        raise TaskError(f"task field {field}: has keys {sorted(value)}, expected {allowed}")
    return value


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def parse_task(value: object) -> Task:
    """The task ``value`` describes (a parsed JSON object), or ``TaskError`` naming what is wrong."""
    if not isinstance(value, Mapping):
        raise TaskError(f"a task is a JSON object, not {type(value).__name__} {_shown(value)}")
    fields = (*FIELDS, "predicate") if value.get("format") == TASK_FORMAT_WITH_PREDICATE else FIELDS
    unknown = sorted(set(value) - set(fields))
    if unknown:
        raise TaskError(
            f"task field {unknown[0]}: not a field of {value.get('format')} (fields: {', '.join(fields)})"
        )
    missing = [field for field in FIELDS if field not in value]
    if missing:
        raise TaskError(f"task field {missing[0]}: missing")
    if value["format"] not in (TASK_FORMAT, TASK_FORMAT_WITH_PREDICATE):
        raise TaskError(
            f"task field format: {_shown(value['format'])}, expected {TASK_FORMAT!r} "
            f"or {TASK_FORMAT_WITH_PREDICATE!r}"
        )
    statement = _text(value["statement"], "statement", MAX_STATEMENT_CHARS)
    answer_type = value["answer_type"]
    if answer_type not in ANSWER_TYPES:
        raise TaskError(
            f"task field answer_type: {_shown(answer_type)} is not one of {', '.join(ANSWER_TYPES)}"
        )
    reference = _object(value["reference"], "reference", (("answer",), ("program",)))
    if "answer" in reference:
        reference_answer = _text(reference["answer"], "reference.answer", MAX_ANSWER_CHARS)
        reference_program = None
    else:
        reference_answer = None
        reference_program = _text(reference["program"], "reference.program", MAX_PROGRAM_CHARS)
    checker = _object(value["checker"], "checker", (("kind",), ("kind", "source")))
    if checker["kind"] == "exact" and "source" not in checker:
        checker_program = None
    elif checker["kind"] == "program" and "source" in checker:
        checker_program = _text(checker["source"], "checker.source", MAX_PROGRAM_CHARS)
    else:
        raise TaskError(
            f"task field checker.kind: {_shown(checker['kind'])}, expected 'exact' (no source) or 'program' "
            "(with its source)"
        )
    cases = value["failure_cases"]
    if not isinstance(cases, list) or not 1 <= len(cases) <= MAX_FAILURE_CASES:
        size = len(cases) if isinstance(cases, list) else type(cases).__name__
        raise TaskError(
            f"task field failure_cases: a list of 1 to {MAX_FAILURE_CASES} wrong answers, not {size} "
            "(without one, a checker that accepts anything would pass)"
        )
    failure_cases = tuple(
        _text(case, f"failure_cases[{index}]", MAX_ANSWER_CHARS, empty=True)
        for index, case in enumerate(cases)
    )
    if len(set(failure_cases)) != len(failure_cases):
        raise TaskError("task field failure_cases: lists the same wrong answer twice")
    predicate_program = None
    if "predicate" in value:
        predicate = _object(value["predicate"], "predicate", (("source",),))
        predicate_program = _text(predicate["source"], "predicate.source", MAX_PROGRAM_CHARS)
    return Task(
        statement,
        answer_type,
        reference_answer,
        reference_program,
        checker_program,
        failure_cases,
        predicate_program,
        str(value["format"]),
    )
