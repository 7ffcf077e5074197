"""The multi-event arena's part of ``colosseum verify`` (the audit protocol of ``colosseum_core.verify``).

Per event: its manifest's bytes are canonical, hash to the identifier it is cited by, and carry the
arena key's signature; every row of every table cites that manifest; its seal vouches for that
manifest and its results bundle for the sealed tables; every receipt its tables name is a reply its
journal recorded (every call is journalled before it is sent and its reply once stored:
``events.asking``). The rest is its kind's (``events.kinds``): a chess event's games are replayed
from the recorded replies and its standings re-fitted (``events.chess.audit``; python-chess, the
chess event's optional extra, is imported only there); a Solve-or-Object event's replies are re-read
and re-scored and its standings computed again (``events.solve_or_object.audit``); a challenge
event's phases are checked against its commitments and its tasks' programs run again
(``events.challenges.audit``). The tables' bytes and row identifiers, the seal against the
tables it names, and the journals' chains, receipts and asking order are the runner's checks
(``colosseum_core.verify``); tables are read through an ``AuditRecord``, so a check that needs a
file that cannot be read says so, naming it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.bundle import BUNDLE_TABLE, bundle_problems
from colosseum_core.events.kind import EventKind
from colosseum_core.events.kinds import KINDS, kind_named
from colosseum_core.events.manifest import read_frozen
from colosseum_core.events.site.downloads_check import check_event_downloads, event_folders
from colosseum_core.record.journal import JournalError, read_journal
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.storage import record_path
from colosseum_core.trust.keys import b64url_decode, key_id_of
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.reading import DECODE_ERRORS, audit_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, check_downloads, guarded


def kind_journals(kinds: Sequence[EventKind]) -> dict[str, tuple[str, ...]]:
    """The events' journals of calls (``journal/events/<journal>/event=<key>.jsonl``), each with the
    fields that key one call: every kind's (the chess event's moves, ``chess.players.MoveJournal``;
    a Solve-or-Object event's replies and a challenge event's asks of every phase,
    ``asking.AskJournal`` with the kind's ``JOURNAL_FIELDS``)."""
    return {name: fields for kind in kinds for name, fields in kind.journals.items()}


def _check_event(root: str, event: str, kinds: tuple[EventKind, ...]) -> Outcome:
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
            for t in (t for kind in kinds for t in kind.tables)
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
        _journalled_replies(out, record, event, present, kind_journals(kinds))
        kind = kind_named(frozen.kind, kinds)
        if kind is not None:
            kind.audit(out, frozen, present, record.receipts, sealed=seal is not None)

    guarded(out, f"event {event}", run)
    return out


def _journalled_replies(
    out: Outcome,
    record: Record,
    event: str,
    present: Mapping[str, pl.DataFrame],
    kept: Mapping[str, tuple[str, ...]],
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
    for journal in kept:
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


# An event's table as the events board publishes it (``site.build.download_name``), wherever the
# board lives in the site.
_DOWNLOAD = re.compile(r"(?:^|/)events/[0-9a-z][0-9a-z._-]*/downloads/[a-z][a-z0-9_]*\.parquet$")


@dataclasses.dataclass(frozen=True)
class EventsAudit:
    """The arena's part of ``verify``; each event's own checks are its kind's (``kinds``, the
    registry's)."""

    arena: ArenaRecord = EVENTS
    kinds: tuple[EventKind, ...] = KINDS
    site_counts: tuple[str, ...] = ("events_downloads", "events_downloads_checked")
    site_downloads_checked_by_partition: tuple[str, ...] = ()
    checks_partition_files: bool = False

    @property
    def record_counts(self) -> tuple[str, ...]:
        return ("events", *(c for kind in self.kinds for c in kind.counts), "standings", "bundles")

    @property
    def journals(self) -> Mapping[str, tuple[str, ...]]:
        return kind_journals(self.kinds)

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        events = sorted(scan.partitions.get("event_manifests", frozenset()))
        return [Task("events", 1, _check_event, (str(scan.root), event, self.kinds)) for event in events]

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
