"""What an arena gives the site engine: how to build its part of the public site from its record, and
how to read that part back against the record.

The engine (``publish``) does what holds for every arena: refuse an unverified record before building,
build into a staging directory beside the published one, sign the manifest of every file with the
arena key, swap the new site in whole, and re-read it against the record and the signature.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from colosseum_core.record import RecordTables
from colosseum_core.record.layout import ArenaRecord


class BuildRefused(Exception):
    """The arena's builder refused before writing anything (an arena's release rule, say); the message
    says why, naming the partition and what it waits for."""


@dataclasses.dataclass(frozen=True)
class BuildReport:
    """What a build wrote: ``files`` and ``bytes``, the arena's own counts (``summary``, machine-readable:
    its partitions shown, released, awaiting …) and ``headline``, those counts in words."""

    files: int
    bytes: int
    summary: Mapping[str, Any]
    headline: str


class SitePlugin(Protocol):
    """An arena's part of the public site."""

    @property
    def arena(self) -> ArenaRecord: ...

    def publishing_problems(self, tables: RecordTables) -> list[str]:
        """Why the record may not be published under the arena's signature ([] if it may): the site
        vouches for the record it was built from, so what it reads must verify first."""
        ...

    def key_valid_from(self, tables: RecordTables) -> dt.date:
        """The first day the arena key must cover, when the build creates it."""
        ...

    def build(self, tables: RecordTables, out: Path, *, built_at: str) -> BuildReport:
        """Write the site into ``out`` (new or empty), the same bytes for the same record and
        ``built_at``; raise ``BuildRefused`` before writing anything when it may not be built."""
        ...

    def arena_key_ids(self, tables: RecordTables) -> list[str]:
        """The arena keys the record publishes (a site signed by any other is refused)."""
        ...

    def site_problems(self, site: Path, tables: RecordTables) -> list[str]:
        """Every way the built site differs from the record ([] if none)."""
        ...
