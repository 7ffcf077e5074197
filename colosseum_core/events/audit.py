"""The multi-event arena's part of ``colosseum verify`` (the audit protocol of ``colosseum_core.verify``).

Per event: its manifest's bytes are canonical, hash to the identifier it is cited by, and carry the
arena key's signature; every row of every table cites that manifest; its seal vouches for that
manifest and its results bundle for the sealed tables; every receipt its tables name is a reply its
journal recorded (every call is journalled before it is sent and its reply once stored:
``events.asking``). A chess event's games are replayed from the recorded replies and its standings re-fitted
(``events.chess.audit``; python-chess, the chess event's optional extra, is imported only there); a
Solve-or-Object event's replies are re-read and re-scored and its standings computed again
(``events.solve_or_object.audit``). The tables' bytes and row identifiers, the seal against the
tables it names, and the journals' chains, receipts and asking order are the runner's checks
(``colosseum_core.verify``); tables are read through an ``AuditRecord``, so a check that needs a
file that cannot be read says so, naming it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path

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
from colosseum_core.events.site.downloads_check import check_event_downloads, event_folders
from colosseum_core.record.journal import JournalError, read_journal
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.record.storage import record_path
from colosseum_core.trust.keys import b64url_decode, key_id_of
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.reading import DECODE_ERRORS, audit_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, check_downloads, guarded

# The events' journals of calls (``journal/events/<journal>/event=<key>.jsonl``), each with the fields
# that key one call: the chess event's moves (``chess.players.MoveJournal``), a Solve-or-Object
# event's replies and a challenge event's asks of every phase (``asking.AskJournal`` with the kind's
# ``JOURNAL_FIELDS``).
JOURNALS: Mapping[str, tuple[str, ...]] = {
    "chess_moves": ("game", "ply", "attempt"),
    "soo_replies": ("contender", "item"),
    "challenges": ("phase", "who", "subject"),
}


def _check_event(root: str, event: str) -> Outcome:
    out = Outcome()
    record = audit_record(root)
    tables = record.tables(EVENTS)

    def run() -> None:
        frame = tables.read_checked("event_manifests", event)
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
            # The sealed files against the seal are the runner's seal check's; the bundle against the
            # seal is the event's.
            bundle = tables.read_checked(BUNDLE_TABLE, event)
            out.problems += bundle_problems(
                bundle, frozen.public_key, frozen.sha256, seal.sealed_at, seal.tables
            )
            out.count("bundles")
        _journalled_replies(out, record, event, present)
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


def _journalled_replies(
    out: Outcome, record: Record, event: str, present: Mapping[str, pl.DataFrame]
) -> None:
    """Every receipt the event's tables name is a reply one of its journals recorded: a reply read
    into a table was asked and stored through the journal, never around it."""
    named: dict[str, str] = {}
    for table, frame in present.items():
        if "receipt_ids" in frame.columns:
            for receipt_id in frame["receipt_ids"].explode().drop_nulls().unique().sort().to_list():
                named.setdefault(receipt_id, table)
    if not named:
        return
    replies: set[str] = set()
    journals = []
    for journal in JOURNALS:
        path = record.journal_path(EVENTS, journal, event)
        if not path.exists():
            continue
        rel = path.relative_to(record.root).as_posix()
        journals.append(rel)
        try:
            entries, _ = read_journal(path, rel)
        except JournalError:
            out.problems.append(
                f"event {event}: its replies not compared with {rel}, which is not as written"
            )
            return
        replies |= {e["receipt_id"] for e in entries if e.get("event") == "reply" and e.get("receipt_id")}
    if not journals:
        out.problems.append(
            f"event {event}: its tables name {len(named)} receipts, but the event has no journal of its calls"
        )
        return
    for receipt_id, table in sorted(named.items()):
        if receipt_id not in replies:
            out.problems.append(
                f"{table} event {event}: names receipt {receipt_id}, which no reply in its journal "
                f"({', '.join(journals)}) recorded"
            )


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
    site_counts: tuple[str, ...] = ("events_downloads", "events_downloads_checked")
    site_downloads_checked_by_partition: tuple[str, ...] = ()
    checks_partition_files: bool = False
    journals: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=lambda: dict(JOURNALS))

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        events = sorted(scan.partitions.get("event_manifests", frozenset()))
        return [Task("events", 1, _check_event, (str(scan.root), event)) for event in events]

    def published_arena_keys(self, root: Path) -> list[str]:
        """The arena keys that signed the events' manifests (each manifest carries its public key)."""
        tables = Record(record_path(root)).tables(EVENTS)
        found: set[str] = set()
        for event in tables.partitions("event_manifests"):
            try:
                frame = tables.read_checked("event_manifests", event)
                found |= {
                    key_id
                    for key_id, public in frame.select("key_id", "public_key").iter_rows()
                    if key_id == key_id_of(b64url_decode(public))
                }
            except DECODE_ERRORS:
                continue  # the record's own check names it
        return sorted(found)

    def site_tasks(self, scan: SiteScan) -> list[Task]:
        """Every row identifier of the events' Parquet downloads, and per event that every download its
        kind publishes is there and agrees with the others (and with the record the site lives in, if
        it does: ``site.downloads_check``)."""
        site = str(scan.site)
        files = [f for f in scan.verified if _DOWNLOAD.search(f)]
        tasks = (
            [Task("events downloads", len(files), check_downloads, (site, files, "events_downloads"))]
            if files
            else []
        )
        for folder, names in sorted(event_folders(scan.verified).items()):
            tasks.append(
                Task("events downloads", 1, check_event_downloads, (site, folder, sorted(names), scan.record))
            )
        return tasks


EVENTS_AUDIT = EventsAudit()
