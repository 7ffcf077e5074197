"""The multi-event arena's part of ``colosseum verify`` (the audit protocol of ``colosseum_core.verify``).

Per event: its manifest's bytes are canonical, hash to the identifier it is cited by, and carry the
arena key's signature; every row of every table has the identifier of its content and cites that
manifest. A chess event's games are replayed from the recorded replies and its standings re-fitted
(``events.chess.audit``; python-chess, the chess event's optional extra, is imported only there); a
Solve-or-Object event's replies are re-read and re-scored and its standings computed again
(``events.solve_or_object.audit``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

import polars as pl

from colosseum_core.events.arena import (
    CHALLENGE_CLOSING_TABLES,
    CHALLENGE_WRITTEN_TABLES,
    CHESS_GAME_TABLES,
    CHESS_STANDING_TABLES,
    EVENTS,
    SOO_REPLY_TABLES,
    SOO_STANDING_TABLES,
)
from colosseum_core.events.bundle import BUNDLE_TABLE, bundle_problems
from colosseum_core.events.manifest import FrozenManifest, read_frozen
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.record.storage import record_path
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.canonical import row_id_problems
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, check_downloads, guarded


def _check_event(root: str, event: str) -> Outcome:
    out = Outcome()
    record = Record(record_path(root))
    tables = record.tables(EVENTS)

    def run() -> None:
        frame = tables.read_checked("event_manifests", event)
        out.problems += row_id_problems(frame, f"event_manifests event {event}")
        frozen, problems = read_frozen(frame, event)
        out.problems += problems
        out.count("events")
        present = {
            t: tables.read_checked(t, event)
            for t in (
                *CHESS_GAME_TABLES,
                *CHESS_STANDING_TABLES,
                *SOO_REPLY_TABLES,
                *SOO_STANDING_TABLES,
                *CHALLENGE_WRITTEN_TABLES,
                *CHALLENGE_CLOSING_TABLES,
            )
            if tables.exists(t, event)
        }
        for table, stored in present.items():
            out.problems += row_id_problems(stored, f"{table} event {event}")
            cited = stored.filter(pl.col("manifest_sha256") != frozen.sha256)
            if cited.height:
                out.problems.append(
                    f"{table} event {event}: {cited.height} rows cite manifest "
                    f"{cited['manifest_sha256'][0]}, not the event's {frozen.sha256}"
                )
        seal = record.seals(EVENTS).get(event)
        if seal is not None and seal.content_id != frozen.sha256:
            out.problems.append(
                f"event {event} seal: vouches for manifest {seal.content_id}, not {frozen.sha256}"
            )
        if seal is not None and tables.exists(BUNDLE_TABLE, event):
            bundle = tables.read_checked(BUNDLE_TABLE, event)
            out.problems += row_id_problems(bundle, f"{BUNDLE_TABLE} event {event}")
            out.problems += bundle_problems(
                bundle, frozen.public_key, frozen.sha256, seal.sealed_at, seal.tables
            )
            on_disk = {t: hashlib.sha256(tables.read_bytes(t, event)).hexdigest() for t in seal.tables}
            out.problems += [
                f"{BUNDLE_TABLE} event {event} artifact {t}: the record's file hashes to {on_disk[t][:12]}…, "
                f"not the sealed {seal.tables[t][:12]}…"
                for t in sorted(seal.tables)
                if on_disk[t] != seal.tables[t]
            ]
            out.count("bundles")
        if frozen.kind == "challenge":
            from colosseum_core.events.challenges.audit import check_event

            check_event(out, frozen, present, record.receipts, sealed=seal is not None)
            return
        if frozen.kind == "solve-or-object":
            _check_solve_or_object(out, frozen, present, sealed=seal is not None, receipts=record.receipts)
            return
        if frozen.kind != "chess" or not all(t in present for t in CHESS_GAME_TABLES):
            return
        try:
            from colosseum_core.events.chess.audit import check_games, check_standings
        except ImportError:
            out.notes.append(
                f"event {event}: its games were not replayed: python-chess (the [chess] extra) is not "
                "installed"
            )
            return
        check_games(out, frozen, present["chess_games"], present["chess_moves"], record.receipts)
        if seal is not None:
            missing = [t for t in CHESS_STANDING_TABLES if t not in present]
            if missing:
                out.problems.append(f"event {event}: sealed, but the record has no {', '.join(missing)}")
                return
            check_standings(out, frozen, present["chess_games"], present["chess_moves"], present)

    guarded(out, f"event {event}", run)
    return out


def _check_solve_or_object(
    out: Outcome,
    frozen: FrozenManifest,
    present: dict[str, pl.DataFrame],
    *,
    sealed: bool,
    receipts: ReceiptStore,
) -> None:
    from colosseum_core.events.solve_or_object.audit import check_event

    event = frozen.event
    if "soo_replies" not in present:
        if sealed:
            out.problems.append(f"event {event}: sealed, but the record has no soo_replies")
        return
    standings = present.get("soo_standings")
    if sealed and standings is None:
        out.problems.append(f"event {event}: sealed, but the record has no soo_standings")
    check_event(out, frozen, present["soo_replies"], standings if sealed else None, receipts)


# An event's table as the events board publishes it (``site.build.download_name``), wherever the
# board lives in the site.
_DOWNLOAD = re.compile(r"(?:^|/)events/[0-9a-z][0-9a-z._-]*/downloads/[a-z][a-z0-9_]*\.parquet$")


@dataclasses.dataclass(frozen=True)
class EventsAudit:
    arena: ArenaRecord = EVENTS
    record_counts: tuple[str, ...] = (
        "events",
        "chess_games",
        "chess_attempts",
        "soo_replies",
        "challenge_calls",
        "standings",
        "bundles",
    )
    site_counts: tuple[str, ...] = ("events_downloads",)
    site_downloads_checked_by_partition: tuple[str, ...] = ()

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        events = sorted(scan.partitions.get("event_manifests", frozenset()))
        return [Task("events", 1, _check_event, (str(scan.root), event)) for event in events]

    def site_tasks(self, scan: SiteScan) -> list[Task]:
        files = [f for f in scan.verified if _DOWNLOAD.search(f)]
        return (
            [
                Task(
                    "events downloads",
                    len(files),
                    check_downloads,
                    (str(scan.site), files, "events_downloads"),
                )
            ]
            if files
            else []
        )


EVENTS_AUDIT = EventsAudit()
