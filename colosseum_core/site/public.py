"""The one public site: every arena's part, one folder each, under one signed manifest.

The first part lives at the site's root (the forecasting board, whose ``data/`` downloads ``verify``
reads there); every other part lives in its own folder (``debate/``). Each page carries a navigation
between the arenas (``Neighbours.arenas``), and each part's re-check leaves the others' folders alone
while letting its links reach them. An arena with no record yet has no part; when the root's arena has
none, the root holds a small page that leads to the parts there are.

One arena's trouble is its own. An arena whose record does not verify now (or whose builder refuses)
is *held*: its part keeps the pages of the last site that showed it, each with a notice naming the
problem, and ``site.json`` lists it under ``held``; the other arenas are built as usual. An arena held
with no earlier pages has no part until its record verifies.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import posixpath
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from colosseum_core.record import RecordTables
from colosseum_core.record.layout import Record
from colosseum_core.site.formats import FieldFormats
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.plugin import BuildRefused, BuildReport, Neighbours, SitePlugin
from colosseum_core.site.shell import STYLESHEET, Shell, attr, stylesheet
from colosseum_core.site.writer import RESERVED, SiteWriter, json_bytes

SITE_VERSION: Final = "COLOSSEUM-SITE-2"
# How many of a held arena's problems its notice and the site's document name.
HELD_SHOWN: Final = 10
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
class Held:
    """An arena whose part of the site is not built from its record now: why, and the last pages shown
    of it (``pages_built_at``; None: it has none on the site)."""

    arena: str
    label: str
    folder: str
    problems: tuple[str, ...]  # the first HELD_SHOWN of them
    problem_count: int
    pages_built_at: str | None

    @classmethod
    def of(cls, part: SitePart, problems: Sequence[str], pages_built_at: str | None) -> Held:
        return cls(
            arena=part.plugin.arena.name,
            label=part.label,
            folder=part.folder,
            problems=tuple(problems[:HELD_SHOWN]),
            problem_count=len(problems),
            pages_built_at=pages_built_at,
        )

    def document(self) -> dict[str, Any]:
        return {
            "arena": self.arena,
            "label": self.label,
            "folder": self.folder or ".",
            "pages_built_at": self.pages_built_at,
            "problem_count": self.problem_count,
            "problems": list(self.problems),
        }

    @property
    def headline(self) -> str:
        kept = f"its pages of {self.pages_built_at} kept" if self.pages_built_at else "no pages yet"
        first = self.problems[0] if self.problems else "no reason recorded"
        return f"held ({kept}): {self.problem_count} problem(s), first: {first}"


class PartRefused(BuildRefused):
    """A part's builder refused: which arena, and why."""

    def __init__(self, arena: str, message: str) -> None:
        super().__init__(message)
        self.arena = arena


@dataclasses.dataclass(frozen=True)
class SiteBuild:
    """What a build wrote: every part's report by arena, the arenas held, and the totals."""

    parts: dict[str, BuildReport]
    files: int
    bytes: int
    held: dict[str, Held] = dataclasses.field(default_factory=dict)

    @property
    def summary(self) -> dict[str, Any]:
        built = {name: dict(report.summary) for name, report in self.parts.items()}
        return built | {name: {"held": held.document()} for name, held in self.held.items()}

    @property
    def headline(self) -> str:
        parts = [f"{name}: {report.headline}" for name, report in self.parts.items() if name not in self.held]
        parts += [f"{name}: {held.headline}" for name, held in self.held.items()]
        return "; ".join(parts) or "no arena"


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

    def build(
        self,
        record: Record,
        out: Path,
        *,
        built_at: str,
        held: Mapping[str, Sequence[str]] | None = None,
        previous: Path | None = None,
    ) -> SiteBuild:
        """Every present part into its folder of ``out`` (new or empty), then the site's own files.

        ``held``: arenas (by name) not to build from their record, with why; each keeps its pages from
        the ``previous`` site, if that showed it, with a notice. A part whose builder refuses raises
        ``PartRefused`` naming its arena (the caller holds it and builds again).
        """
        present = self.present(record)
        kept = pages_on(previous) if previous is not None else {}
        holding = {
            p.plugin.arena.name: Held.of(p, held[p.plugin.arena.name], kept.get(p.plugin.arena.name))
            for p in present
            if held and p.plugin.arena.name in held
        }
        shown = [p for p in present if _shown(p, holding)]
        reports: dict[str, BuildReport] = {}
        for part in shown:
            target = out / part.folder if part.folder else out
            if part.folder and target.exists():
                raise ValueError(f"{part.folder}/: the root part wrote it, yet it is {part.label}'s folder")
            name = part.plugin.arena.name
            if name in holding:
                assert previous is not None
                reports[name] = _keep_pages(self, part, holding[name], previous, out)
                continue
            neighbours = self.neighbours(part, shown, files=None)
            try:
                reports[name] = part.plugin.build(
                    _tables(record, part), target, built_at=built_at, neighbours=neighbours
                )
            except BuildRefused as exc:
                raise PartRefused(name, str(exc)) from exc
        writer = SiteWriter(out)
        for file, body in self.own_files(shown, built_at, tuple(holding.values())).items():
            writer.write(file, body)
        return SiteBuild(
            parts=reports,
            files=sum(r.files for r in reports.values()) + writer.files,
            bytes=sum(r.bytes for r in reports.values()) + writer.bytes,
            held=holding,
        )

    def own_files(
        self, present: Sequence[SitePart], built_at: str, held: Sequence[Held] = ()
    ) -> dict[str, bytes]:
        """The files the site writes itself, not a part: ``site.json``, and when the root's arena has no
        pages, the root page that leads to the others and its stylesheet."""
        files: dict[str, bytes] = {}
        if not present or present[0].folder != "":
            files[STYLESHEET] = stylesheet()
            files[LANDING] = landing_page(self.parts, present, built_at, held).encode()
        files[SITE_DOCUMENT] = json_bytes(site_document(present, built_at, held))
        return files

    def part_files(self, part: SitePart, files: Sequence[str]) -> list[str]:
        """Which of a site's ``files`` (relative to its root) are ``part``'s."""
        if part.folder:
            return [f for f in files if f.startswith(f"{part.folder}/")]
        others = tuple(f"{p.folder}/" for p in self.parts if p.folder)
        return [f for f in files if not f.startswith(others) and f not in RESERVED and f != SITE_DOCUMENT]

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
        """Every part read back against its record, and the site's own files. A held part's pages are
        the earlier site's, not this record's: they are not compared with it."""
        present = self.present(record)
        files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
        document = site / SITE_DOCUMENT
        if not document.is_file():
            return [f"{SITE_DOCUMENT}: missing from the site"]
        try:
            loaded = json.loads(document.read_text())
            built_at = str(loaded["built_at"])
            held = tuple(_held_from(entry) for entry in loaded.get("held", []))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            return [f"{SITE_DOCUMENT}: not the site's document ({exc})"]
        by_name = {h.arena: h for h in held}
        shown = [p for p in present if _shown(p, by_name)]
        problems: list[str] = []
        for part in shown:
            if part.plugin.arena.name in by_name:
                continue
            target = site / part.folder if part.folder else site
            neighbours = self.neighbours(part, shown, files)
            problems += [
                problem if not part.folder else f"{part.folder}/{problem}"
                for problem in part.plugin.site_problems(target, _tables(record, part), neighbours=neighbours)
            ]
        parts = {p.folder for p in self.parts if p.folder}
        shown_folders = {p.folder for p in shown if p.folder}
        for name in files:
            top = name.split("/", 1)[0]
            if "/" in name and top in parts and top not in shown_folders:
                problems.append(f"{name}: a part of the site whose arena has no record")
        own = self.own_files(shown, built_at, held)
        for name, body in own.items():
            if not (site / name).is_file():
                problems.append(f"{name}: missing from the site")
            elif (site / name).read_bytes() != body:
                problems.append(f"{name}: differs from the site the record gives")
        if not shown or shown[0].folder != "":  # no part owns the root: every file there is the site's own
            problems += [
                f"{name}: a file of no part of the site"
                for name in files
                if "/" not in name and name not in own and name not in RESERVED
            ]
        return problems


def _tables(record: Record, part: SitePart) -> RecordTables:
    return record.tables(part.plugin.arena)


def site_document(present: Sequence[SitePart], built_at: str, held: Sequence[Held] = ()) -> dict[str, Any]:
    """``site.json``: the arenas built from the record now, and those held (with why)."""
    held_names = {h.arena for h in held}
    return {
        "site": SITE_VERSION,
        "built_at": built_at,
        "arenas": [
            {"arena": p.plugin.arena.name, "label": p.label, "folder": p.folder or "."}
            for p in present
            if p.plugin.arena.name not in held_names
        ],
        "held": [h.document() for h in held],
    }


def _held_from(entry: Mapping[str, Any]) -> Held:
    folder = str(entry["folder"])
    return Held(
        arena=str(entry["arena"]),
        label=str(entry["label"]),
        folder="" if folder == "." else folder,
        problems=tuple(str(p) for p in entry["problems"]),
        problem_count=int(entry["problem_count"]),
        pages_built_at=entry["pages_built_at"],
    )


def _shown(part: SitePart, held: Mapping[str, Held]) -> bool:
    """Whether ``part`` has pages on the site: built now, or kept while it is held."""
    name = part.plugin.arena.name
    return name not in held or held[name].pages_built_at is not None


def pages_on(site: Path) -> dict[str, str]:
    """Each arena with pages on the site at ``site``, and when those pages were built."""
    try:
        document = json.loads((site / SITE_DOCUMENT).read_text())
        pages = {str(a["arena"]): str(document["built_at"]) for a in document.get("arenas", [])}
        for entry in document.get("held", []):
            if entry.get("pages_built_at"):
                pages[str(entry["arena"])] = str(entry["pages_built_at"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # no earlier site, or not one this engine wrote: nothing to keep
    return pages


_NOTICE = re.compile(r'<p class="notice held"[^>]*>.*?</p>\n', re.DOTALL)
_MAIN = '<main id="main">\n'


def held_notice(held: Held) -> str:
    first = "; ".join(held.problems[:3])
    more = f" (and {held.problem_count - 3} more)" if held.problem_count > 3 else ""
    return (
        f'<p class="notice held" role="status">These {esc(held.label)} pages are as published on '
        f"{esc(held.pages_built_at or '')}: this arena's record does not verify now, so its pages are not "
        f"rebuilt until it does. {esc(first)}{esc(more)}</p>\n"
    )


def _keep_pages(site: PublicSite, part: SitePart, held: Held, previous: Path, out: Path) -> BuildReport:
    """A held part: its files from the ``previous`` site, each page with the notice of why."""
    everything = sorted(p.relative_to(previous).as_posix() for p in previous.rglob("*") if p.is_file())
    files = bytes_written = 0
    for name in site.part_files(part, everything):
        body = (previous / name).read_bytes()
        if name.endswith(".html") and _MAIN.encode() in body:
            text = _NOTICE.sub("", body.decode("utf-8"))
            body = text.replace(_MAIN, _MAIN + held_notice(held), 1).encode("utf-8")
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        files, bytes_written = files + 1, bytes_written + len(body)
    return BuildReport(
        files=files, bytes=bytes_written, summary={"held": held.document()}, headline=held.headline
    )


_LANDING_SHELL: Final = Shell(
    brand="Colosseum",
    nav=((LANDING, "Arenas"),),
    fields=FieldFormats(by_field={}),
    tips=lambda table, field: "",
    notice="Every number re-derives from the signed record: colosseum verify checks it.",
)


def landing_page(
    parts: Sequence[SitePart], present: Sequence[SitePart], built_at: str, held: Sequence[Held] = ()
) -> str:
    """The root's page when the root's own arena has no pages: every arena, linked where it has a part
    on the site, and why a held one is held."""
    reasons = {h.arena: h for h in held}

    def item(part: SitePart) -> str:
        name = part.plugin.arena.name
        if part in present:
            link = f'<a href="{attr(posixpath.join(part.folder, LANDING))}">{esc(part.label)}</a>'
            return f"<li>{link}" + (f": {esc(reasons[name].headline)}" if name in reasons else "") + "</li>"
        if name in reasons:
            return f"<li>{esc(part.label)}: {esc(reasons[name].headline)}</li>"
        return f"<li>{esc(part.label)}: no record yet</li>"

    body = f"<h1>The arenas</h1><ul>{''.join(item(p) for p in parts)}</ul>"
    return _LANDING_SHELL.layout(
        title="Arenas", depth=0, active=LANDING, body=body, built_at=built_at, versions=SITE_VERSION
    )
