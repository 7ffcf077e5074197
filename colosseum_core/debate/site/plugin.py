"""The debate board as a plug-in of the shared site engine (``colosseum_core.site.plugin``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.site.build import build_debate_site
from colosseum_core.debate.site.check import debate_site_problems
from colosseum_core.debate.site.front import debate_front
from colosseum_core.record import RecordTables
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.site.front import Front, PartFiles
from colosseum_core.site.plugin import ALONE, BuildReport, Neighbours
from colosseum_core.verify.audit import Audit


class DebateSite:
    """``audits``: the debate arena's audits, as the registry (``colosseum_core.arenas``) holds them:
    the board vouches for the records it reads, so they must verify first, whole."""

    arena: ArenaRecord = DEBATE

    def __init__(self, audits: Sequence[Audit]) -> None:
        self._audits = tuple(audits)

    def publishing_problems(self, tables: RecordTables) -> list[str]:
        from colosseum_core.verify import verify_record

        root = tables.root.parent.parent
        if not tables.root.is_dir():
            return [f"{root} has no debate record: no {tables.root.name}/ directory under its warehouse"]
        return list(verify_record(root, self._audits, workers=1, only_these_arenas=True).problems)

    def key_valid_from(self, tables: RecordTables) -> dt.date:
        seals = Record(tables.root.parent.parent).seals(DEBATE).seals()
        first = min((s.sealed_at for s in seals), default="2026-01-01")
        return dt.date.fromisoformat(first[:10])

    def build(
        self, tables: RecordTables, out: Path, *, built_at: str, neighbours: Neighbours = ALONE
    ) -> BuildReport:
        report = build_debate_site(tables, out, built_at=built_at, arenas=neighbours.arenas)
        return BuildReport(
            files=report.files,
            bytes=report.bytes,
            summary={"epochs": report.epochs, "games": report.games},
            headline=f"{report.epochs} sealed epochs, {report.games} games",
        )

    def arena_key_ids(self, tables: RecordTables) -> list[str]:
        return []

    def site_problems(self, site: Path, tables: RecordTables, *, neighbours: Neighbours = ALONE) -> list[str]:
        return debate_site_problems(site, tables, neighbours=neighbours)

    def front(self, files: PartFiles) -> Front:
        return debate_front(files)
