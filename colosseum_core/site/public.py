"""The one public site: every arena's part, one folder each, under one signed manifest.

The first part lives at the site's root (the forecasting board, whose ``data/`` downloads ``verify``
reads there); every other part lives in its own folder (``debate/``). Each page carries a navigation
between the arenas (``Neighbours.arenas``), and each part's re-check leaves the others' folders alone
while letting its links reach them. An arena with no record yet has no part; when the root's arena has
none, the root holds a small page that leads to the parts there are.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import posixpath
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from colosseum_core.record import RecordTables
from colosseum_core.record.layout import Record
from colosseum_core.site.formats import FieldFormats
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.plugin import BuildReport, Neighbours, SitePlugin
from colosseum_core.site.shell import STYLESHEET, Shell, attr, stylesheet
from colosseum_core.site.writer import RESERVED, SiteWriter, json_bytes

SITE_VERSION: Final = "COLOSSEUM-SITE-1"
# Written by the site, not by a part: which parts it holds and when it was built.
SITE_DOCUMENT: Final = "site.json"
LANDING: Final = "index.html"


@dataclasses.dataclass(frozen=True)
class SitePart:
    """An arena's part of the site: its plug-in, its folder ("" for the site's root), its label."""

    plugin: SitePlugin
    folder: str
    label: str


@dataclasses.dataclass(frozen=True)
class SiteBuild:
    """What a build wrote: every part's report by arena, and the totals."""

    parts: dict[str, BuildReport]
    files: int
    bytes: int

    @property
    def summary(self) -> dict[str, Any]:
        return {name: dict(report.summary) for name, report in self.parts.items()}

    @property
    def headline(self) -> str:
        return "; ".join(f"{name}: {report.headline}" for name, report in self.parts.items()) or "no arena"


class PublicSite:
    """The parts in order; the first is the root's. Folders are plain names, one level deep, distinct."""

    def __init__(self, parts: Sequence[SitePart]) -> None:
        if not parts or parts[0].folder != "":
            raise ValueError("the first part of the site lives at its root (folder '')")
        folders = [p.folder for p in parts[1:]]
        for folder in folders:
            if not folder or "/" in folder or folder.startswith("."):
                raise ValueError(f"site part folder {folder!r}: one plain name")
        if len(set(folders)) != len(folders) or len({p.plugin.arena.name for p in parts}) != len(parts):
            raise ValueError("every part of the site has its own folder and its own arena")
        self.parts = tuple(parts)

    def present(self, record: Record) -> list[SitePart]:
        """The parts whose arena has a record."""
        return [p for p in self.parts if record.tables(p.plugin.arena).root.is_dir()]

    def publishing_problems(self, record: Record) -> list[str]:
        present = self.present(record)
        if not present:
            arenas = ", ".join(p.plugin.arena.name for p in self.parts)
            return [f"{record.root} is not a record: no arena ({arenas}) has a warehouse/ directory"]
        return [problem for p in present for problem in p.plugin.publishing_problems(_tables(record, p))]

    def key_valid_from(self, record: Record) -> dt.date:
        return min(p.plugin.key_valid_from(_tables(record, p)) for p in self.present(record))

    def arena_key_ids(self, record: Record) -> list[str]:
        """The arena keys the record publishes ([] when no part's record names one)."""
        ids = [k for p in self.present(record) for k in p.plugin.arena_key_ids(_tables(record, p))]
        return list(dict.fromkeys(ids))

    def build(self, record: Record, out: Path, *, built_at: str) -> SiteBuild:
        """Every present part into its folder of ``out`` (new or empty), then the site's own files."""
        present = self.present(record)
        reports: dict[str, BuildReport] = {}
        for part in present:
            target = out / part.folder if part.folder else out
            if part.folder and target.exists():
                raise ValueError(f"{part.folder}/: the root part wrote it, yet it is {part.label}'s folder")
            neighbours = self.neighbours(part, present, files=None)
            reports[part.plugin.arena.name] = part.plugin.build(
                _tables(record, part), target, built_at=built_at, neighbours=neighbours
            )
        writer = SiteWriter(out)
        for name, body in self.own_files(present, built_at).items():
            writer.write(name, body)
        return SiteBuild(
            parts=reports,
            files=sum(r.files for r in reports.values()) + writer.files,
            bytes=sum(r.bytes for r in reports.values()) + writer.bytes,
        )

    def own_files(self, present: Sequence[SitePart], built_at: str) -> dict[str, bytes]:
        """The files the site writes itself, not a part: ``site.json``, and when the root's arena has no
        record, the root page that leads to the others and its stylesheet."""
        files: dict[str, bytes] = {}
        if present[0].folder != "":
            files[STYLESHEET] = stylesheet()
            files[LANDING] = landing_page(self.parts, present, built_at).encode()
        files[SITE_DOCUMENT] = json_bytes(site_document(present, built_at))
        return files

    def neighbours(
        self, part: SitePart, present: Sequence[SitePart], files: Sequence[str] | None
    ) -> Neighbours:
        """What ``part`` sees of the others from its own root; ``files``: every file of the site
        (relative to its root), or None while building (links are checked after)."""
        here = part.folder or "."

        def from_here(path: str) -> str:
            return posixpath.relpath(path, here)

        arenas = tuple((from_here(posixpath.join(p.folder, LANDING)), p.label) for p in present)
        if present[0].folder != "":
            arenas = ((from_here(LANDING), "Arenas"), *arenas)
        folders = () if part.folder else tuple(p.folder for p in self.parts if p.folder)

        def others(name: str) -> bool:
            if part.folder:
                return not name.startswith(part.folder + "/")
            return name == SITE_DOCUMENT or any(name.startswith(f"{folder}/") for folder in folders)

        return Neighbours(
            arenas=arenas, folders=folders, files=frozenset(from_here(f) for f in files or () if others(f))
        )

    def site_problems(self, site: Path, record: Record) -> list[str]:
        """Every part read back against its record, and the site's own files."""
        present = self.present(record)
        files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
        problems: list[str] = []
        for part in present:
            target = site / part.folder if part.folder else site
            neighbours = self.neighbours(part, present, files)
            problems += [
                problem if not part.folder else f"{part.folder}/{problem}"
                for problem in part.plugin.site_problems(target, _tables(record, part), neighbours=neighbours)
            ]
        parts = {p.folder for p in self.parts if p.folder}
        present_folders = {p.folder for p in present if p.folder}
        for name in files:
            top = name.split("/", 1)[0]
            if "/" in name and top in parts and top not in present_folders:
                problems.append(f"{name}: a part of the site whose arena has no record")
        document = site / SITE_DOCUMENT
        if not document.is_file():
            return [*problems, f"{SITE_DOCUMENT}: missing from the site"]
        try:
            built_at = str(json.loads(document.read_text())["built_at"])
        except (ValueError, KeyError, TypeError) as exc:
            return [*problems, f"{SITE_DOCUMENT}: not the site's document ({exc})"]
        own = self.own_files(present, built_at)
        for name, body in own.items():
            if not (site / name).is_file():
                problems.append(f"{name}: missing from the site")
            elif (site / name).read_bytes() != body:
                problems.append(f"{name}: differs from the site the record gives")
        if present[0].folder != "":  # no part owns the root: every file there is the site's own
            problems += [
                f"{name}: a file of no part of the site"
                for name in files
                if "/" not in name and name not in own and name not in RESERVED
            ]
        return problems


def _tables(record: Record, part: SitePart) -> RecordTables:
    return record.tables(part.plugin.arena)


def site_document(present: Sequence[SitePart], built_at: str) -> dict[str, Any]:
    return {
        "site": SITE_VERSION,
        "built_at": built_at,
        "arenas": [
            {"arena": p.plugin.arena.name, "label": p.label, "folder": p.folder or "."} for p in present
        ],
    }


_LANDING_SHELL: Final = Shell(
    brand="Colosseum",
    nav=((LANDING, "Arenas"),),
    fields=FieldFormats(by_field={}),
    tips=lambda table, field: "",
    notice="Every number re-derives from the signed record: `colosseum verify`.",
)


def landing_page(parts: Sequence[SitePart], present: Sequence[SitePart], built_at: str) -> str:
    """The root's page when the root's own arena has no record yet: every arena, linked where it has
    a part on the site."""
    items = "".join(
        f'<li><a href="{attr(posixpath.join(p.folder, LANDING))}">{esc(p.label)}</a></li>'
        if p in present
        else f"<li>{esc(p.label)}: no record yet</li>"
        for p in parts
    )
    body = f"<h1>The arenas</h1><ul>{items}</ul>"
    return _LANDING_SHELL.layout(
        title="Arenas", depth=0, active=LANDING, body=body, built_at=built_at, versions=SITE_VERSION
    )
