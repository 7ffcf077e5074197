"""What an arena gives the site engine: how to build its part of the one public site from its record,
and how to read that part back against the record.

The engine (``publish``) does what holds for every arena: refuse an unverified record before building,
build into a staging directory beside the published one, sign the manifest of every file with the
arena key, swap the new site in whole, and re-read it against the record and the signature.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Protocol

from colosseum_core.record import RecordTables
from colosseum_core.record.layout import ArenaRecord
from colosseum_core.site.front import Front, PartFiles


class BuildRefused(Exception):
    """The arena's builder refused before writing anything (an arena's release rule, say); the message
    says why, naming the partition and what it waits for."""


@dataclasses.dataclass(frozen=True)
class Neighbours:
    """The other arenas' parts of the one public site, as one arena's part sees them from its own root.

    ``arenas``: (a page, its label), the site's landing page first, then the home page of every part
    of the site in order, this one included as ``index.html``: the navigation between arenas.
    ``folders``: folders under this part's root that hold another part (their files are not this
    part's; none while every part has a folder of its own beside the others). ``files``: every file of
    the site outside this part, relative to this part's root: what a link from this part may point to.
    """

    arenas: tuple[tuple[str, str], ...] = ()
    folders: tuple[str, ...] = ()
    files: frozenset[str] = frozenset()

    def owns(self, relative: str) -> bool:
        """Whether ``relative`` (a path under this part's root) is this part's file."""
        return relative not in self.files and not any(relative.startswith(f"{f}/") for f in self.folders)


ALONE: Final = Neighbours()


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

    def build(
        self, tables: RecordTables, out: Path, *, built_at: str, neighbours: Neighbours = ALONE
    ) -> BuildReport:
        """Write the arena's part into ``out`` (new or empty), the same bytes for the same record,
        ``built_at`` and ``neighbours``; raise ``BuildRefused`` before writing anything when it may not
        be built."""
        ...

    def arena_key_ids(self, tables: RecordTables) -> list[str]:
        """The arena keys the record publishes (a site signed by any other is refused)."""
        ...

    def site_problems(self, site: Path, tables: RecordTables, *, neighbours: Neighbours = ALONE) -> list[str]:
        """Every way the arena's part at ``site`` differs from the record ([] if none), leaving the
        other parts' folders alone."""
        ...

    def front(self, files: PartFiles) -> Front:
        """What the site's landing page says of the arena, read from its part of a built site alone
        (``files``: never the record), so that the page re-derives from the site; raise
        ``front.FrontUnreadable`` naming the file when one it needs is missing or unreadable."""
        ...
