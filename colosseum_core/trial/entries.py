"""A trial's own entry in the record: which model it tried, which parts it asked and which unit each
part answered with, so its report can be rebuilt from the record alone (``colosseum trial report``, the
site's trial page) after the command that ran it is gone.

The entry is a journal of the platform's (``record.journal``: an append-only chain of lines, each
forced to disk before the next step, so a trial killed at any point leaves every line whole or the
torn last one ignored), at ``journal/trial/parts/trial=<trial id>.jsonl``. It holds no result: the
parts' own units, each sealed in its arena's record, are the results, and a part's ``read`` finds
them. A trial run again appends to the same journal.

Lines: ``started`` (the model as resolved, the parts asked, the rule), one ``part`` per part asked
(its unit, its state and, for a part that failed, why), and ``finished``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from colosseum_core.record.journal import Journal, read_journal
from colosseum_core.record.layout import JOURNAL
from colosseum_core.record.storage import RecordPath, record_path
from colosseum_core.trial.part import TRIAL, PartReport

# journal/<TRIAL_FOLDER>/<TRIAL_JOURNAL>/trial=<id>.jsonl: laid out as an arena's journal is, so the
# record's layout check reads it as one, though no arena owns it.
TRIAL_FOLDER: Final = "trial"
TRIAL_JOURNAL: Final = "parts"
TRIAL_NOUN: Final = "trial"
_ID = re.compile(r"^[0-9a-z][0-9a-z-]*$")


class TrialRecordError(ValueError):
    """A trial id or a trial entry that is not what a trial writes, named with its file and field."""


def check_trial_id(trial: str) -> str:
    if not isinstance(trial, str) or not _ID.match(trial) or len(trial) > 60:
        raise TrialRecordError(f"trial id {trial!r}: not a trial's id (e.g. acme-7b-1a2b3c4d)")
    return trial


def entry_path(root: Path | RecordPath, trial: str) -> RecordPath:
    name = f"{TRIAL_NOUN}={check_trial_id(trial)}.jsonl"
    return record_path(root) / JOURNAL / TRIAL_FOLDER / TRIAL_JOURNAL / name


def trials_in(root: Path | RecordPath) -> list[str]:
    """Every trial the record at ``root`` (a folder or an object store's) holds an entry of, in id order."""
    folder = record_path(root) / JOURNAL / TRIAL_FOLDER / TRIAL_JOURNAL
    if not folder.is_dir():
        return []
    found = (p.name.removeprefix("trial=").removesuffix(".jsonl") for p in folder.glob("trial=*.jsonl"))
    return sorted(t for t in found if _ID.match(t))


@dataclasses.dataclass(frozen=True)
class PartEntry:
    """What the trial's entry says of one part: its unit and state the last time it was asked."""

    arena: str
    part: str
    unit: str
    state: str
    note: str = ""
    seconds: float = 0.0


@dataclasses.dataclass(frozen=True)
class TrialEntry:
    """A trial's entry read back: its model, the parts it asked (in order), and how many runs."""

    trial: str
    model: dict[str, Any]
    parts: tuple[tuple[str, str], ...]
    outcomes: dict[tuple[str, str], PartEntry]
    runs: int
    finished: bool
    started_at: str


class TrialJournal:
    """The trial's entry, written as the command goes."""

    def __init__(self, root: Path, trial: str) -> None:
        self.trial = check_trial_id(trial)
        self.journal = Journal(entry_path(root, trial))

    def started(self, model: dict[str, Any], parts: Sequence[tuple[str, str]], at: str) -> None:
        self.journal.append(
            {
                "event": "started",
                "trial": self.trial,
                "rule": TRIAL,
                "model": model,
                "parts": [{"arena": a, "part": p} for a, p in parts],
                "at": at,
            }
        )

    def part(self, report: PartReport) -> None:
        self.journal.append(
            {
                "event": "part",
                "arena": report.arena,
                "part": report.part,
                "unit": report.unit,
                "state": report.state,
                "note": report.note,
                "seconds": round(report.seconds, 3),
            }
        )

    def finished(self, at: str, failed: int) -> None:
        self.journal.append({"event": "finished", "at": at, "failed": failed})


def read_entry(root: Path, trial: str) -> TrialEntry | None:
    """The trial's entry, or None when the record holds none; ``TrialRecordError`` naming the file,
    the line and the field when a line is not what a trial writes."""
    path = entry_path(root, trial)
    where = f"journal/{TRIAL_FOLDER}/{TRIAL_JOURNAL}/trial={trial}.jsonl"
    entries, _ = read_journal(path, where)
    if not entries:
        return None
    model: dict[str, Any] = {}
    parts: dict[tuple[str, str], None] = {}
    outcomes: dict[tuple[str, str], PartEntry] = {}
    runs, finished, started_at = 0, False, ""
    for number, entry in enumerate(entries, start=1):
        event = entry.get("event")
        try:
            if event == "started":
                if entry["trial"] != trial:
                    raise TrialRecordError(f"{where} line {number} field trial: {entry['trial']!r}")
                model = dict(entry["model"])
                parts |= {(str(p["arena"]), str(p["part"])): None for p in entry["parts"]}
                runs, finished = runs + 1, False
                started_at = started_at or str(entry["at"])
            elif event == "part":
                key = (str(entry["arena"]), str(entry["part"]))
                outcomes[key] = PartEntry(
                    *key,
                    str(entry["unit"]),
                    str(entry["state"]),
                    str(entry["note"]),
                    float(entry.get("seconds", 0.0)),
                )
            elif event == "finished":
                finished = True
            else:
                raise TrialRecordError(f"{where} line {number} field event: {event!r} is not a trial's")
        except (KeyError, TypeError, AttributeError) as exc:
            raise TrialRecordError(f"{where} line {number}: not a trial's {event} line ({exc!r})") from None
    return TrialEntry(trial, model, tuple(parts), outcomes, runs, finished, started_at)
