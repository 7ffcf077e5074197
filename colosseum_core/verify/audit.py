"""The audit protocol: what an arena gives ``verify``, so that the runner, which knows no arena,
checks every arena's part of a record or a site.

The runner does what holds for every arena: the record's layout, every table file's bytes against
its ledger entry and every row's identifier, every seal and missed record against the tables it
names and the arena's sealing policy (``seals.py``), every journal's chain and the receipts its lines
name (``journals.py``), every receipt, every orphaned ledger entry, the signed manifest of a site,
its signer against the record's arena keys or a pinned key, and its downloads' identifiers. An arena
adds the units of work that only it can check (what a seal's content identifier means, signatures,
re-derived verdicts, games and scores, the tables against the journal they were written from; its
boards), as tasks the runner spreads over its worker processes, and names the counts they report.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from colosseum_core.record.layout import ArenaRecord
from colosseum_core.verify.workers import Task


@dataclasses.dataclass(frozen=True)
class RecordScan:
    """What the runner found of one arena in a record."""

    root: Path
    # table -> the partitions it has a file for
    partitions: Mapping[str, frozenset[str]]
    # partitions with a seal or a missed record
    decided: frozenset[str]
    has_receipts: bool
    workers: int


@dataclasses.dataclass(frozen=True)
class SiteScan:
    """What the runner found in a built site: the downloads it could read, what its manifest vouches for,
    and the folder of each arena's part (``folders``, from the site's signed ``site.json``; "" for the
    root, where a site from before the landing page has the forecasting board, and for an arena the
    site does not place)."""

    site: Path
    readable: frozenset[str]
    verified: tuple[str, ...]
    workers: int
    # The record the site lives in (``<data>/site``), if it does: an arena may then hold its part of
    # the site to it.
    record: str | None = None
    folders: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def folder(self, arena: ArenaRecord) -> str:
        return self.folders.get(arena.name, "")

    def part(self, folder: str) -> SiteScan:
        """The scan of the part in ``folder``: its root, and its files named from there."""
        if not folder:
            return self
        prefix = f"{folder}/"

        def inside(names: Iterable[str]) -> list[str]:
            return [n.removeprefix(prefix) for n in names if n.startswith(prefix)]

        return SiteScan(
            self.site / folder,
            frozenset(inside(self.readable)),
            tuple(inside(self.verified)),
            self.workers,
            self.record,
        )


class Audit(Protocol):
    """An arena's part of ``verify``."""

    @property
    def arena(self) -> ArenaRecord: ...

    # The counts its tasks report, in the order a report lists them.
    @property
    def record_counts(self) -> tuple[str, ...]: ...

    @property
    def site_counts(self) -> tuple[str, ...]: ...

    # Downloads of a site whose rows its partition tasks check (the runner then does not slice them).
    @property
    def site_downloads_checked_by_partition(self) -> tuple[str, ...]: ...

    # Whether its record tasks check every partitioned table file themselves (bytes against the
    # ledger, decoding, every row's identifier, each counted as files and rows); if not, the runner does.
    @property
    def checks_partition_files(self) -> bool: ...

    # Its journals (``journal/<arena>/<name>/``) by name, each with the fields that key one call in a
    # journal of calls (``providers.call.CallJournal``), or none.
    @property
    def journals(self) -> Mapping[str, tuple[str, ...]]: ...

    def record_tasks(self, scan: RecordScan) -> list[Task]: ...

    def site_tasks(self, scan: SiteScan) -> list[Task]: ...

    def published_arena_keys(self, root: Path) -> list[str]:
        """The ids of the arena keys the record at ``root`` publishes in this arena's tables (a site
        is checked against them): [] if it publishes none."""
        ...
