"""``verify_record``: a record directory (``warehouse/``, ``receipts/``, ``seals/``) checked end to end."""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import LEDGER_SUFFIX, check_file
from colosseum_core.record.tables import PARQUET_NAME
from colosseum_core.verify.report import VerifyReport
from colosseum_core.verify.workers import (
    Task,
    batches,
    check_board,
    check_cards,
    check_files,
    check_receipts,
    run_tasks,
)

RECORD_COUNTS = (
    "tables",
    "files",
    "rows",
    "receipts",
    "signatures",
    "cards",
    "seals",
    "missed",
    "journal_entries",
    "replies_reread",
    "verdicts",
    "settlements",
    "scores",
    "board_rows",
    "receipt_references",
)
_TABLE = re.compile(r"^[a-z][a-z0-9_]*$")
_KEY = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_.-]*$")
_SEAL = re.compile(r"^card=(.+?)(?:\.missed)?\.json$")
# Cards per task: enough that per-task costs vanish, few enough that progress moves and work balances.
MAX_CARDS_PER_TASK = 400
# A card with a sweep re-derives its verdicts from hundreds of KB of receipts: ~1 s each.
MAX_SWEPT_CARDS_PER_TASK = 4
RECEIPTS_PER_TASK = 64


def _layout(warehouse: Path, root: Path, partition: str) -> tuple[dict[str, set[str]], list[str]]:
    """Per-card tables (table -> card keys) and every other Parquet file (relative to ``root``)."""
    per_card: dict[str, set[str]] = {}
    others: list[str] = []
    prefix = f"{partition}="
    for path in sorted(warehouse.rglob("*.parquet")):
        parts = path.relative_to(warehouse).parts
        if (
            len(parts) == 3
            and _TABLE.match(parts[0])
            and parts[1].startswith(prefix)
            and _KEY.match(parts[1].removeprefix(prefix))
            and parts[2] == PARQUET_NAME
        ):
            per_card.setdefault(parts[0], set()).add(parts[1].removeprefix(prefix))
        else:
            others.append(path.relative_to(root).as_posix())
    return per_card, others


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


def verify_record(
    root: Path, *, workers: int | None = None, progress: Callable[[str, int, int], None] | None = None
) -> VerifyReport:
    """Recompute and check everything in the record at ``root``; see the package doc for the list."""
    started = time.perf_counter()
    root = Path(root).resolve()
    record = Record(root)
    if not record.warehouse.is_dir():
        raise ValueError(f"{root} is not a record: it has no warehouse/ directory")
    record.check_layout()
    warehouse = record.tables(FORECAST).root
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    per_card, others = _layout(warehouse, root, FORECAST.partition)
    seals_dir = record.seals(FORECAST).root
    decided = {
        m.group(1)
        for p in seals_dir.glob("card=*.json")
        if (m := _SEAL.match(p.name)) and _KEY.match(m.group(1))
    }
    cards = sorted(set().union(*per_card.values(), decided)) if per_card or decided else []
    orphans = _orphan_sidecars(root, [warehouse, seals_dir])
    swept = per_card.get("raw_sweep", set())
    receipt_ids = list(record.receipts.ids())

    tasks: list[Task] = []
    if "scores" in per_card or (warehouse / "leaderboard" / PARQUET_NAME).exists():
        tasks.append(Task("board", 1, check_board, (str(root),)))
    size = max(1, min(MAX_CARDS_PER_TASK, math.ceil(len(cards) / (workers * 4)) if cards else 1))
    table_names = tuple(sorted(per_card))
    for batch in batches(cards, size, heavy=swept.__contains__, heavy_limit=MAX_SWEPT_CARDS_PER_TASK):
        tasks.append(
            Task("cards", len(batch), check_cards, (str(root), batch, table_names, bool(receipt_ids)))
        )
    for start in range(0, len(receipt_ids), RECEIPTS_PER_TASK):
        chunk = receipt_ids[start : start + RECEIPTS_PER_TASK]
        tasks.append(Task("receipts", len(chunk), check_receipts, (str(root), chunk)))
    for file in others:
        tasks.append(Task("files", 1, check_files, (str(root), [file])))

    outcome, _ = run_tasks(tasks, workers=workers, root=str(root), progress=progress)
    outcome.problems += orphans
    checked = dict.fromkeys(RECORD_COUNTS, 0)
    checked.update(outcome.checked)
    # "warehouse/forecast/<table>/…": the table is the third part of a file's path.
    checked["tables"] = len(set(per_card) | {Path(f).parts[2] for f in others if len(Path(f).parts) > 3})
    notes = sorted(set(outcome.notes))
    if not receipt_ids:
        notes.append("the record has no receipts: the receipts its rows name were not looked for")
    return VerifyReport(
        kind="record",
        checked=checked,
        problems=sorted(outcome.problems),
        seconds=time.perf_counter() - started,
        path=str(root),
        notes=notes,
        cpu_seconds=outcome.cpu_seconds,
    )
