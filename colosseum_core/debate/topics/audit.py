"""The topic rotations' part of ``colosseum verify`` (the audit protocol of ``colosseum_core.verify``).

Per rotation: it is sealed (every table of a rotation is written by its seal), the rotation id its
seal vouches for is its motions' (``record.rotation_id``); every receipt a source names is held;
and the rotation is re-derived from its own candidates by the topic rules (COMPELLE-TOPICS-1) with
the evergreen list it names: the same verdicts, the same twelve motions in the same order with the
same contexts (a rotation naming an evergreen list the code does not hold is a problem: it can not
be re-derived). The tables' bytes and identifiers, and the seal against the tables it names, are
the runner's checks (``colosseum_core.verify``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from colosseum_core.debate.arena import DEBATE_TOPICS, ROTATION_TABLES, TOPIC_TABLES
from colosseum_core.debate.topics.candidates import CANDIDATE_SCHEMA
from colosseum_core.debate.topics.evergreen import load_evergreen
from colosseum_core.debate.topics.names import EVERGREEN
from colosseum_core.debate.topics.record import COLLECTED_JOURNAL, CollectedError, collected_from, rotation_id
from colosseum_core.debate.topics.rotation import build_rotation
from colosseum_core.record import with_ids
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.journal import Journal
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.reading import audit_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, guarded

TABLES = (*TOPIC_TABLES, *ROTATION_TABLES)


def _check_rotation(root: str, key: str) -> Outcome:
    out = Outcome()
    record = audit_record(root)
    tables = record.tables(DEBATE_TOPICS)

    def run() -> None:
        seal = record.seals(DEBATE_TOPICS).get(key)
        if seal is None:
            # A selection table without its seal is the runner's seal check's; these are the topics'.
            for table in TOPIC_TABLES:
                if tables.exists(table, key):
                    out.problems.append(
                        f"{table} rotation {key}: written, but the rotation has no seal (its seal writes it)"
                    )
            return
        frames = {table: tables.read_checked(table, key) for table in TABLES if tables.exists(table, key)}
        if set(frames) != set(TABLES):
            return  # a sealed table that is missing is named by the runner's seal check
        again_id = rotation_id(key, frames["motions"])
        if seal.content_id != again_id:
            out.problems.append(
                f"rotation {key} seal: vouches for {seal.content_id}, its motions give {again_id}"
            )
        receipts = record.receipts
        named = frames["topic_sources"]["receipt_ids"].explode().drop_nulls().unique().sort().to_list()
        out.problems += [
            f"topic_sources rotation {key}: names receipt {r}, which the record lacks"
            for r in named
            if r not in receipts
        ]
        out.problems += _collection_problems(record, key, frames)
        motions = frames["motions"]
        versions = set(motions["evergreen_version"].drop_nulls().to_list())
        evergreen = load_evergreen()
        if versions and versions != {evergreen.version}:
            # Only the current list ships with the code: an older rotation can not be re-derived
            # here, and one that names a list this code never had is a problem.
            out.problems.append(
                f"motions rotation {key} field evergreen_version: {sorted(versions)}, a list this code "
                f"does not hold (it holds {evergreen.version}); the rotation can not be re-derived"
            )
        else:
            raw = (
                frames["topic_candidates"]
                .filter(pl.col("source") != EVERGREEN)
                .select(list(CANDIDATE_SCHEMA))
            )
            again = build_rotation(key, raw, evergreen)
            mine = motions.drop(ID_FIELD)
            if not again.motions.equals(mine):
                out.problems.append(
                    f"motions rotation {key}: the topic rules give other motions from its candidates"
                )
            verdicts = frames["topic_candidates"].drop(ID_FIELD)
            if not again.candidates_with_verdicts.equals(verdicts):
                out.problems.append(f"topic_candidates rotation {key}: the topic rules give other verdicts")
        out.count("rotations")
        out.count("motions", motions.height)

    guarded(out, f"rotation {key}", run)
    return out


def _collection_problems(record: Record, key: str, frames: Mapping[str, pl.DataFrame]) -> list[str]:
    """A rotation with a collection journal (every rotation drawn since it was kept) has the sources and
    the candidates its journal recorded before the rotation sealed: what a re-run re-derives from."""
    entries = Journal(record.journal_path(DEBATE_TOPICS, COLLECTED_JOURNAL, key)).entries()
    if not entries:
        return []
    where = f"journal/{DEBATE_TOPICS.name}/{COLLECTED_JOURNAL} rotation {key}"
    try:
        collected, _ = collected_from(entries[0], key)
    except CollectedError as exc:
        return [f"{where}: {exc}"]
    problems = []
    if not with_ids(collected.sources).equals(frames["topic_sources"]):
        problems.append(f"topic_sources rotation {key}: not the sources its collection journal recorded")
    order = ["source", "source_rank", "source_id"]
    raw = frames["topic_candidates"].filter(pl.col("source") != EVERGREEN).select(list(CANDIDATE_SCHEMA))
    if not raw.sort(order, nulls_last=True).equals(collected.candidates.sort(order, nulls_last=True)):
        problems.append(
            f"topic_candidates rotation {key}: not the candidates its collection journal recorded"
        )
    return problems


@dataclasses.dataclass(frozen=True)
class TopicsAudit:
    arena: ArenaRecord = DEBATE_TOPICS
    record_counts: tuple[str, ...] = ("rotations", "motions")
    site_counts: tuple[str, ...] = ()
    site_downloads_checked_by_partition: tuple[str, ...] = ()
    checks_partition_files: bool = False
    journals: Mapping[str, tuple[str, ...]] = dataclasses.field(
        default_factory=lambda: {COLLECTED_JOURNAL: ()}
    )

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        keys = (
            sorted(set().union(*scan.partitions.values()) | scan.decided)
            if scan.partitions
            else sorted(scan.decided)
        )
        return [Task("rotations", 1, _check_rotation, (str(scan.root), key)) for key in keys]

    def site_tasks(self, scan: SiteScan) -> list[Task]:
        return []

    def published_arena_keys(self, root: Path) -> list[str]:
        return []


TOPICS_AUDIT = TopicsAudit()
