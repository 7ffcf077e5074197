"""COLOSSEUM-SOO-BANK-1: the project's own bank of sound problems and their defective twins.

The bank is one JSON file in the repository (``banks/COLOSSEUM-SOO-BANK-1.json``, written for this
project, CC0). Each pair holds a **sound** problem (a statement, an answer type, the answer, and a
reference program that computes it) and its **twin**: the same statement with one minimal edit
(``start``, ``end`` and ``replacement``, in the sound statement's characters) that makes it
defective, its defect class, a sentence on why, and where one exists a certificate: two
assignments that satisfy the twin and give different answers (``two_assignments``, with the
program that checks them), or a program that searches the twin's finite domain and finds nothing
(``unsatisfiable``).

``load_bank`` checks what can be checked without running anything: the twin is the edit applied,
the class is known, the sound answer is a well-formed answer of its type. ``bank_problems`` runs
the programs in the sandbox: the reference program prints the answer, and every certificate holds.
An event freezes the bank's SHA-256 and file name; the items it draws cite their pair.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from colosseum_core.events.documents import read_document
from colosseum_core.events.solve_or_object.rules import DEFECT_CLASSES, SOO_BANK, SOUND, TWIN
from colosseum_core.events.tasks.answers import ANSWER_TYPES, MalformedAnswer, read_answer
from colosseum_core.sandbox.bubblewrap import SandboxRun

DEFAULT_BANK: Final = Path(__file__).resolve().parent / "banks" / f"{SOO_BANK}.json"
VIOLATES: Final = "VIOLATES"


class BankError(ValueError):
    """A bank that breaks its format; the message names the file, the pair and the field."""


@dataclasses.dataclass(frozen=True)
class Item:
    """One problem as asked: a pair's sound statement or its twin."""

    item_id: str  # "<pair>/sound" or "<pair>/twin"
    pair_id: str
    role: str  # SOUND or TWIN
    statement: str
    answer_type: str
    answer: str | None  # the sound problem's answer; None for a twin
    defect_class: str | None  # the twin's
    edit_start: int | None  # the edit's place in the twin's own statement: [start, end)
    edit_end: int | None
    certificate: Mapping[str, Any] | None

    @property
    def defective(self) -> bool:
        return self.role == TWIN


@dataclasses.dataclass(frozen=True)
class Pair:
    pair_id: str
    topic: str
    sound: Item
    twin: Item
    reference_program: str
    explanation: str


@dataclasses.dataclass(frozen=True)
class Bank:
    name: str
    path: str  # relative to the repository, as the manifest records it
    sha256: str
    pairs: tuple[Pair, ...]

    def pair(self, pair_id: str) -> Pair:
        for pair in self.pairs:
            if pair.pair_id == pair_id:
                return pair
        raise BankError(f"bank {self.name}: no pair {pair_id!r}")

    def item(self, item_id: str) -> Item:
        pair_id, _, role = item_id.rpartition("/")
        pair = self.pair(pair_id)
        if role not in (SOUND, TWIN):
            raise BankError(f"bank {self.name}: item {item_id!r} is neither /{SOUND} nor /{TWIN}")
        return pair.sound if role == SOUND else pair.twin


def _field(where: str, raw: Mapping[str, Any], name: str, kind: type) -> Any:
    value = raw.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BankError(f"{where}: field {name} is {value!r}, not {kind.__name__}")
    return value


def _pair(where: str, raw: Any) -> Pair:
    if not isinstance(raw, Mapping):
        raise BankError(f"{where}: a pair is an object, not {type(raw).__name__}")
    pair_id = _field(where, raw, "pair_id", str)
    where = f"{where} pair {pair_id}"
    sound, twin = _field(where, raw, "sound", Mapping), _field(where, raw, "twin", Mapping)
    statement = _field(f"{where} sound", sound, "statement", str)
    answer_type = _field(f"{where} sound", sound, "answer_type", str)
    if answer_type not in ANSWER_TYPES:
        raise BankError(f"{where} sound: answer_type {answer_type!r} is not one of {', '.join(ANSWER_TYPES)}")
    answer = _field(f"{where} sound", sound, "answer", str)
    try:
        read_answer(answer_type, answer)
    except MalformedAnswer as exc:
        raise BankError(
            f"{where} sound: answer {answer!r} is not a well-formed {answer_type} ({exc})"
        ) from None
    edit = _field(f"{where} twin", twin, "edit", Mapping)
    start, end = (
        _field(f"{where} twin edit", edit, "start", int),
        _field(f"{where} twin edit", edit, "end", int),
    )
    replacement = _field(f"{where} twin edit", edit, "replacement", str)
    if not 0 <= start <= end <= len(statement):
        raise BankError(f"{where} twin edit: [{start}, {end}) is not within the sound statement")
    twin_statement = _field(f"{where} twin", twin, "statement", str)
    if statement[:start] + replacement + statement[end:] != twin_statement:
        raise BankError(f"{where} twin: its statement is not the sound statement with its edit applied")
    if twin_statement == statement:
        raise BankError(f"{where} twin: the edit changes nothing")
    defect = _field(f"{where} twin", twin, "defect_class", str)
    if defect not in DEFECT_CLASSES:
        raise BankError(f"{where} twin: defect_class {defect!r} is not one of {', '.join(DEFECT_CLASSES)}")
    certificate = twin.get("certificate")
    if certificate is not None and (
        not isinstance(certificate, Mapping)
        or certificate.get("kind") not in ("two_assignments", "unsatisfiable")
    ):
        raise BankError(f"{where} twin: certificate {certificate!r} is not two_assignments or unsatisfiable")
    return Pair(
        pair_id=pair_id,
        topic=_field(where, raw, "topic", str),
        sound=Item(
            f"{pair_id}/{SOUND}", pair_id, SOUND, statement, answer_type, answer, None, None, None, None
        ),
        twin=Item(
            f"{pair_id}/{TWIN}",
            pair_id,
            TWIN,
            twin_statement,
            answer_type,
            None,
            defect,
            start,
            start + len(replacement),
            certificate,
        ),
        reference_program=_field(f"{where} sound", sound, "reference_program", str),
        explanation=_field(f"{where} twin", twin, "explanation", str),
    )


def load_bank(path: Path | str = DEFAULT_BANK, *, root: Path | None = None) -> Bank:
    """The bank at ``path``, checked for its format (nothing is run)."""
    path = Path(path)
    data, _, raw_pairs = read_document(path, "bank", SOO_BANK, "pairs", BankError)
    pairs = tuple(_pair(f"bank {path}", raw) for raw in raw_pairs)
    ids = [pair.pair_id for pair in pairs]
    repeated = sorted({pair_id for pair_id in ids if ids.count(pair_id) > 1})
    if repeated:
        raise BankError(f"bank {path}: pair ids repeat: {', '.join(repeated)}")
    base = root or DEFAULT_BANK.parents[4]
    try:
        shown = str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        shown = str(path)
    return Bank(SOO_BANK, shown, hashlib.sha256(data).hexdigest(), pairs)


ProgramRunner = Callable[[str, bytes], SandboxRun]


def _printed(run: SandboxRun) -> str:
    return run.stdout.decode("utf-8", "replace").strip()


def bank_problems(bank: Bank, runner: ProgramRunner) -> list[str]:
    """Every program of the bank run in the sandbox: the reference programs print their answers, and
    every certificate holds for its twin. Nothing when all is well."""
    problems = []
    for pair in bank.pairs:
        where = f"bank {bank.name} pair {pair.pair_id}"
        run = runner(pair.reference_program, b"")
        if not run.ok or _printed(run) != pair.sound.answer:
            problems.append(
                f"{where}: the reference program printed {_printed(run)[:80]!r} ({run.describe()}), "
                f"not the answer {pair.sound.answer!r}"
            )
        certificate = pair.twin.certificate
        if certificate is None:
            continue
        if certificate["kind"] == "unsatisfiable":
            run = runner(str(certificate.get("program", "")), b"")
            if not run.ok or _printed(run) != "0":
                problems.append(
                    f"{where}: the unsatisfiable certificate counted {_printed(run)[:80]!r} "
                    f"({run.describe()}), not 0"
                )
            continue
        answers = witness_answers(str(certificate.get("program", "")), certificate.get("assignments"), runner)
        if isinstance(answers, str):
            problems.append(f"{where}: the two_assignments certificate does not hold: {answers}")
    return problems


def witness_answers(program: str, assignments: object, runner: ProgramRunner) -> tuple[str, str] | str:
    """The two different answers two assignments give under a twin's checking program, or why not.

    Used for the bank's own certificates and for a contender's witness alike."""
    if not isinstance(assignments, list) or len(assignments) != 2:
        return "a witness is a JSON array of exactly two assignments"
    answers = []
    for index, assignment in enumerate(assignments):
        if not isinstance(assignment, dict):
            return f"assignment {index} is not a JSON object"
        run = runner(program, json.dumps(assignment, sort_keys=True).encode("utf-8"))
        printed = _printed(run)
        if not run.ok:
            return f"assignment {index}: the checking program did not finish ({run.describe()})"
        if printed == VIOLATES or not printed:
            return f"assignment {index} does not satisfy the twin's conditions"
        answers.append(printed)
    if answers[0] == answers[1]:
        return f"both assignments give the same answer {answers[0]!r}"
    return answers[0], answers[1]
