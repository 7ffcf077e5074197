"""``verify_record``: a record directory checked end to end, every arena through its audit."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from colosseum_core.record.layout import JOURNAL, ArenaRecord, Record
from colosseum_core.record.ledger import LEDGER_SUFFIX, check_file
from colosseum_core.record.storage import resolved_record_path
from colosseum_core.record.tables import PARQUET_NAME
from colosseum_core.trial.entries import TRIAL_FOLDER, TRIAL_NOUN
from colosseum_core.verify.audit import Audit, RecordScan
from colosseum_core.verify.causes import grouped, partitions_naming, receipt_ids_in
from colosseum_core.verify.journals import check_journals
from colosseum_core.verify.report import Cause, VerifyReport
from colosseum_core.verify.seals import check_seals
from colosseum_core.verify.workers import Task, batches, check_files, check_receipts, run_tasks

# What the runner itself counts; each arena's audit adds its own counts after these.
RECORD_COUNTS = ("tables", "files", "rows", "receipts", "seals", "missed", "journals", "journal_entries")
# What the runner counts per arena too.
PER_ARENA_COUNTS = ("seals", "missed", "journals", "journal_entries")
_TABLE = re.compile(r"^[a-z][a-z0-9_]*$")
_KEY = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_.-]*$")
RECEIPTS_PER_TASK = 64
SEALS_PER_TASK = 200
JOURNALS_PER_TASK = 32
FILES_PER_TASK = 32


def _layout(record: Record, arena: ArenaRecord) -> tuple[dict[str, frozenset[str]], list[str]]:
    """The arena's partitioned tables (table -> keys) and every other Parquet file of it (relative
    to the record's root)."""
    warehouse = record.tables(arena).root
    per_partition: dict[str, set[str]] = {}
    others: list[str] = []
    prefix = f"{arena.partition}="
    for path in sorted(warehouse.rglob("*.parquet")):
        parts = path.relative_to(warehouse).parts
        if (
            len(parts) == 3
            and _TABLE.match(parts[0])
            and parts[1].startswith(prefix)
            and _KEY.match(parts[1].removeprefix(prefix))
            and parts[2] == PARQUET_NAME
        ):
            per_partition.setdefault(parts[0], set()).add(parts[1].removeprefix(prefix))
        else:
            others.append(path.relative_to(record.root).as_posix())
    return {table: frozenset(keys) for table, keys in per_partition.items()}, others


def _decided(record: Record, arena: ArenaRecord) -> tuple[frozenset[str], list[str]]:
    """Partitions with a seal or a missed record, and the files of the arena's seals folder that are
    neither (relative to the record's root)."""
    folder = record.seals(arena).root
    pattern = re.compile(rf"^{re.escape(arena.partition)}=(.+?)(?:\.missed)?\.json$")
    keys: set[str] = set()
    strays: list[str] = []
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if path.name.endswith(LEDGER_SUFFIX):
            continue  # a sidecar: its file's check reads it, and an orphan is named as one
        found = pattern.match(path.name)
        if found and _KEY.match(found.group(1)) and path.is_file():
            keys.add(found.group(1))
        else:
            strays.append(path.relative_to(record.root).as_posix())
    return frozenset(keys), strays


def _seal_tasks(root: Path, arena: ArenaRecord, keys: frozenset[str], strays: list[str]) -> list[Task]:
    """Every partition with a seal, a missed record, or a table only a seal writes."""
    chunks = batches(sorted(keys), SEALS_PER_TASK) or ([[]] if strays else [])
    return [
        Task(
            "seals",
            len(chunk),
            check_seals,
            (str(root), arena.name, arena.partition, arena.sealing, chunk, strays if i == 0 else []),
        )
        for i, chunk in enumerate(chunks)
    ]


def _journal_tasks(record: Record, audit: Audit, check_receipts: bool) -> list[Task]:
    arena = audit.arena
    return _journal_folder_tasks(record, arena.name, arena.partition, dict(audit.journals), check_receipts)


def _journal_folder_tasks(
    record: Record, folder_name: str, noun: str, calls: dict[str, tuple[str, ...]], check_receipts: bool
) -> list[Task]:
    folder = record.root / JOURNAL / folder_name
    files = (
        sorted(p.relative_to(record.root).as_posix() for p in folder.rglob("*") if p.is_file())
        if folder.is_dir()
        else []
    )
    return [
        Task(
            "journals",
            len(chunk),
            check_journals,
            (str(record.root), folder_name, noun, chunk, calls, check_receipts),
        )
        for chunk in batches(files, JOURNALS_PER_TASK)
    ]


def _orphan_sidecars(root: Path, folders: list[Path]) -> list[str]:
    """Ledger entries whose file is gone (the file's own check cannot see them)."""
    problems = []
    for folder in folders:
        for side in sorted(folder.rglob(f"*{LEDGER_SUFFIX}")) if folder.is_dir() else []:
            target = side.with_name(side.name.removesuffix(LEDGER_SUFFIX))
            if not target.exists():
                check = check_file(target, target.relative_to(root).as_posix())
                if check.problem:
                    problems.append(check.problem)
    return problems


def counts_of(base: tuple[str, ...], audits: Sequence[Audit], which: str) -> tuple[str, ...]:
    """The runner's counts, then every audit's, each once, in order."""
    return tuple(dict.fromkeys([*base, *(c for a in audits for c in getattr(a, which))]))


def verify_record(
    root: Path,
    audits: Sequence[Audit],
    *,
    workers: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    only_these_arenas: bool = False,
) -> VerifyReport:
    """Recompute and check everything in the record at ``root``; see the package doc for the list.

    ``only_these_arenas``: check the arenas of ``audits`` (and every receipt) and leave the record's
    other arenas to their own checks, rather than naming them as unknown (an arena's board vouches for
    its own records)."""
    started = time.perf_counter()
    root = resolved_record_path(root)
    record = Record(root)
    if not record.warehouse.is_dir():
        raise ValueError(f"{root} is not a record: it has no warehouse/ directory")
    record.check_layout()
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    receipt_ids = list(record.receipts.ids())

    tasks: list[Task] = []
    orphans: list[str] = []
    tables: set[str] = set()
    others: list[str] = []
    for audit in audits:
        arena = audit.arena
        per_partition, arena_others = _layout(record, arena)
        others += arena_others
        tables |= {f"{arena.name}/{t}" for t in per_partition}
        tables |= {f"{arena.name}/{Path(f).parts[2]}" for f in arena_others if len(Path(f).parts) > 3}
        orphans += _orphan_sidecars(root, [record.tables(arena).root, record.seals(arena).root])
        decided, strays = _decided(record, arena)
        scan = RecordScan(root, per_partition, decided, bool(receipt_ids), workers)
        tasks += audit.record_tasks(scan)
        selected = {k for t in arena.sealing.selection_tables for k in per_partition.get(t, frozenset())}
        tasks += _seal_tasks(root, arena, decided | selected, strays)
        tasks += _journal_tasks(record, audit, bool(receipt_ids))
        if not audit.checks_partition_files:
            files = sorted(
                record.tables(arena).path(table, key).relative_to(root).as_posix()
                for table, keys in per_partition.items()
                for key in keys
            )
            tasks += [
                Task("files", len(c), check_files, (str(root), c)) for c in batches(files, FILES_PER_TASK)
            ]
    if not only_these_arenas:
        # The platform's own journal: the model trials' entries (``trial.entries``), every arena's.
        tasks += _journal_folder_tasks(record, TRIAL_FOLDER, TRIAL_NOUN, {}, bool(receipt_ids))
    known = {a.arena.name for a in audits}
    unknown = [] if only_these_arenas else [name for name in record.arenas() if name not in known]
    for start in range(0, len(receipt_ids), RECEIPTS_PER_TASK):
        chunk = receipt_ids[start : start + RECEIPTS_PER_TASK]
        tasks.append(Task("receipts", len(chunk), check_receipts, (str(root), chunk)))
    for file in others:
        tasks.append(Task("files", 1, check_files, (str(root), [file])))

    outcome, _ = run_tasks(tasks, workers=workers, root=str(root), progress=progress)
    outcome.problems += orphans
    outcome.problems += [
        f"warehouse/{name}/: an arena this verify does not know (it knows {', '.join(sorted(known))})"
        for name in unknown
    ]
    checked = dict.fromkeys(counts_of(RECORD_COUNTS, audits, "record_counts"), 0)
    checked.update(outcome.checked)
    checked["tables"] = len(tables)
    notes = sorted(set(outcome.notes))
    if not receipt_ids:
        notes.append("the record has no receipts: the receipts its rows name were not looked for")
    problems, causes = grouped(outcome.problems, _with_readers(root, audits, outcome.causes))
    per_arena = {a.arena.name: dict.fromkeys(PER_ARENA_COUNTS, 0) for a in audits}
    for (arena_name, what), n in outcome.by_arena.items():
        per_arena.setdefault(arena_name, dict.fromkeys(PER_ARENA_COUNTS, 0))[what] = n
    return VerifyReport(
        kind="record",
        checked=checked,
        problems=problems,
        seconds=time.perf_counter() - started,
        path=str(root),
        notes=notes,
        cpu_seconds=outcome.cpu_seconds,
        causes=causes,
        per_arena=per_arena,
    )


def _with_readers(root: Path, audits: Sequence[Audit], causes: list[Cause]) -> list[Cause]:
    """Causes, each broken receipt's with the partitions that name it (what was read from it)."""
    broken = {r for c in causes for r in receipt_ids_in(c)}
    if not broken:
        return causes
    readers = partitions_naming(root, [a.arena for a in audits], broken)
    return [
        Cause(
            c.problem, c.names, (*c.partitions, *(p for r in receipt_ids_in(c) for p in readers.get(r, [])))
        )
        for c in causes
    ]
