"""The debate arena's part of ``colosseum verify`` (the audit protocol of ``colosseum_core.verify``).

Per epoch: every row of its ``entries`` and ``panel_calls`` has the identifier of its content; every
entry's status, rule, value and panel verdict is re-derived from the entry's own resolved fields
and panel counts by the entry checks (COMPELLE-ENTRY-1), and the panel counts from the epoch's
recorded votes; every panel call names receipts the record holds; a strategy's hash is the SHA-256
of its text.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl

from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.entry import ENTRY_SCHEMA, PANEL_COLUMNS, entries
from colosseum_core.debate.entry.intent import BAD
from colosseum_core.debate.strategy import strategy_hash
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.canonical import content_ids
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, guarded

DERIVED = ("verdict", "status", "rule", "value", "rules")


def _ids(out: Outcome, frame: pl.DataFrame, what: str) -> None:
    """Every row's id against its content, computed by verify's own canonicaliser (not the writer's)."""
    if ID_FIELD not in frame.columns:
        out.problems.append(f"{what}: the table has no {ID_FIELD} column")
        return
    ids, errors = content_ids(frame)
    for row, (stored, content) in enumerate(zip(frame[ID_FIELD], ids, strict=True)):
        if row in errors:
            out.problems.append(f"{what} row {row}: {errors[row]}")
        elif stored != content:
            out.problems.append(f"{what} row {row}: id {stored} does not match its content ({content})")


def _check_epoch(root: str, epoch: str) -> Outcome:
    out = Outcome()
    record = Record(Path(root))
    tables = record.tables(DEBATE)

    def run() -> None:
        stored = tables.read_checked("entries", epoch)
        _ids(out, stored, f"entries epoch {epoch}")
        calls = tables.read_checked("panel_calls", epoch) if tables.exists("panel_calls", epoch) else None
        if calls is not None:
            _ids(out, calls, f"panel_calls epoch {epoch}")
            votes = calls.group_by("strategy_hash").agg(
                valid=pl.col("vote").is_not_null().sum(), bad=(pl.col("vote") == BAD).sum()
            )
            receipts = record.receipts
            missing = [r for r in calls["receipt_ids"].explode().drop_nulls().to_list() if r not in receipts]
            out.problems += [
                f"panel_calls epoch {epoch}: names receipt {r}, which the record lacks" for r in missing
            ]
            out.count("panel_calls", calls.height)
        else:
            votes = pl.DataFrame(
                schema={"strategy_hash": pl.String(), "valid": pl.UInt32(), "bad": pl.UInt32()}
            )
        rederived = entries(stored.select(*ENTRY_SCHEMA, *PANEL_COLUMNS))
        for row, (mine, again) in enumerate(
            zip(
                stored.select(DERIVED).iter_rows(named=True),
                rederived.select(DERIVED).iter_rows(named=True),
                strict=True,
            )
        ):
            for field in DERIVED:
                if mine[field] != again[field]:
                    out.problems.append(
                        f"entries epoch {epoch} hotkey {stored['hotkey'][row]} field {field}: recorded "
                        f"{mine[field]!r}, the entry checks give {again[field]!r}"
                    )
        asked = stored.filter(pl.col("panel_valid").is_not_null()).join(votes, on="strategy_hash", how="left")
        for entry in asked.iter_rows(named=True):
            if (entry["panel_valid"], entry["panel_bad"]) != (entry["valid"], entry["bad"]):
                said = f"{entry['panel_valid']} valid, {entry['panel_bad']} BAD"
                found = f"{entry['valid']} valid, {entry['bad']} BAD"
                where = f"entries epoch {epoch} hotkey {entry['hotkey']}"
                out.problems.append(f"{where}: panel counts {said}, but its recorded votes give {found}")
        for entry in stored.filter(pl.col("strategy").is_not_null()).iter_rows(named=True):
            if strategy_hash(entry["strategy"]) != entry["strategy_hash"]:
                where = f"entries epoch {epoch} hotkey {entry['hotkey']}"
                out.problems.append(f"{where} field strategy_hash: not the SHA-256 of its strategy")
        out.count("epochs")
        out.count("entries", stored.height)
        out.count("files", 1 if calls is None else 2)
        out.count("rows", stored.height + (0 if calls is None else calls.height))

    guarded(out, f"epoch {epoch}", run)
    return out


@dataclasses.dataclass(frozen=True)
class DebateAudit:
    arena: ArenaRecord = DEBATE
    record_counts: tuple[str, ...] = ("epochs", "entries", "panel_calls")
    site_counts: tuple[str, ...] = ()
    site_downloads_checked_by_partition: tuple[str, ...] = ()

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        epochs = sorted(scan.partitions.get("entries", frozenset()))
        return [Task("epochs", 1, _check_epoch, (str(scan.root), epoch)) for epoch in epochs]

    def site_tasks(self, scan: SiteScan) -> list[Task]:
        return []


DEBATE_AUDIT = DebateAudit()
