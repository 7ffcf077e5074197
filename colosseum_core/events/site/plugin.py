"""The events board as a plug-in of the shared site engine (``colosseum_core.site.plugin``)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.site.front import events_front
from colosseum_core.record import RecordTables
from colosseum_core.record.layout import ArenaRecord
from colosseum_core.site.front import Front, PartFiles
from colosseum_core.site.plugin import ALONE, BuildReport, Neighbours
from colosseum_core.verify.audit import Audit


class EventsSite:
    """``audits``: the arena's audits (``colosseum_core.arenas``): the board vouches for the record it
    reads, so the record must verify first, whole."""

    arena: ArenaRecord = EVENTS

    def __init__(self, audits: Sequence[Audit]) -> None:
        self._audits = tuple(audits)

    def publishing_problems(self, tables: RecordTables) -> list[str]:
        from colosseum_core.verify import verify_record

        root = tables.root.parent.parent
        if not tables.root.is_dir():
            return [f"{root} has no events record: no {tables.root.name}/ directory under its warehouse"]
        try:
            import chess  # noqa: F401
        except ImportError:
            return [
                "the events board draws its games with python-chess, the [chess] extra, which is not "
                "installed"
            ]
        return list(verify_record(root, self._audits, workers=1, only_these_arenas=True).problems)

    def key_valid_from(self, tables: RecordTables) -> dt.date:
        from colosseum_core.events.site.build import sealed_events

        frozen = [
            json.loads(tables.read_checked("event_manifests", e)["manifest"][0])["frozen_at"]
            for e in sealed_events(tables)
        ]
        return dt.date.fromisoformat(min(frozen, default="2026-01-01")[:10])

    def build(
        self, tables: RecordTables, out: Path, *, built_at: str, neighbours: Neighbours = ALONE
    ) -> BuildReport:
        from colosseum_core.events.site.build import build_events_site

        report = build_events_site(tables, out, built_at=built_at, arenas=neighbours.arenas)
        return BuildReport(
            files=report.files,
            bytes=report.bytes,
            summary={"events": report.events, "games": report.games},
            headline=f"{report.events} sealed events, {report.games} games",
        )

    def arena_key_ids(self, tables: RecordTables) -> list[str]:
        return []

    def site_problems(self, site: Path, tables: RecordTables, *, neighbours: Neighbours = ALONE) -> list[str]:
        from colosseum_core.events.site.check import events_site_problems

        return events_site_problems(site, tables, neighbours=neighbours)

    def front(self, files: PartFiles) -> Front:
        return events_front(files)
