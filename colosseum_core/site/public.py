"""The one public site: every arena's part in a folder of its own, a landing page at the root, under one
signed manifest.

Each part lives in its own folder (``forecast/``, ``debate/``, ``events/``); the site's root belongs to the
engine: the landing page (``index.html``, COLOSSEUM-FRONT-1, ``front``), which says of every arena what it
measures, who leads now in each kind and the way in, ``site.json``, the stylesheet, and the signer's
files. Each page carries a navigation between the arenas (``Neighbours.arenas``), and each part's
re-check leaves the others' folders alone while letting its links reach them. An arena with no record
yet has no part; the landing page says so.

The landing page is written from the parts' own published files, never from the record, so the site
re-check and ``colosseum verify`` of a site write it again from those files and compare it byte for
byte (``landing_problems``); the parts' files are held to the record by the parts' own checks.

One arena's trouble is its own. An arena whose record does not verify now (or whose builder refuses)
is *held*: its part keeps the pages of the last site that showed it in the same folder, each with a
notice naming the problem, ``site.json`` lists it under ``held``, and the landing page shows the notice
beside what its kept pages say; the other arenas are built as usual. An arena held with no earlier
pages has no part until its record verifies.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import posixpath
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from colosseum_core.record import RecordTables
from colosseum_core.record.layout import Record
from colosseum_core.site.check import page_problems
from colosseum_core.site.dataset import DATASET_CARD, site_dataset_card
from colosseum_core.site.formats import FieldFormats
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.front import (
    FRONT_VERSION,
    PartFiles,
    Shown,
    front_differences,
    landing_body,
    read_front,
)
from colosseum_core.site.page_parse import read_page
from colosseum_core.site.plugin import BuildRefused, BuildReport, Neighbours, SitePlugin
from colosseum_core.site.shell import STYLESHEET, Shell, stylesheet
from colosseum_core.site.trials import TRIALS_FOLDER, TrialPages, landing_trials, listed_trials
from colosseum_core.site.writer import RESERVED, SiteWriter, json_bytes

SITE_VERSION: Final = "COLOSSEUM-SITE-2"
# How many of a held arena's problems its notice and the site's document name.
HELD_SHOWN: Final = 10
# Written by the site, not by a part: which parts it holds and when it was built.
SITE_DOCUMENT: Final = "site.json"
LANDING: Final = "index.html"
# The landing page's name in every part's navigation between the arenas.
FRONT_LABEL: Final = "Arenas"
# Folders at the site's root that are the site's own, never a part's (the signer's public key).
ENGINE_FOLDERS: Final = frozenset({"keys", TRIALS_FOLDER})


@dataclasses.dataclass(frozen=True)
class SitePart:
    """An arena's part of the site: its plug-in, its folder (one plain name), its label."""

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
    """The parts in order, each in its own folder: one plain name, distinct, none the engine's own."""

    def __init__(self, parts: Sequence[SitePart], trials: TrialPages | None = None) -> None:
        folders = [p.folder for p in parts]
        for folder in folders:
            if not folder or "/" in folder or folder.startswith(".") or folder in ENGINE_FOLDERS:
                raise ValueError(
                    f"site part folder {folder!r}: one plain name of its own (the root and "
                    f"{', '.join(sorted(ENGINE_FOLDERS))}/ are the site's)"
                )
        if len(set(folders)) != len(folders) or len({p.plugin.arena.name for p in parts}) != len(parts):
            raise ValueError("every part of the site has its own folder and its own arena")
        self.parts = tuple(parts)
        # The model trials' pages (``trials/``), the site's own as the landing page is: a trial is
        # every arena's at once, so no part has it.
        self.trials = trials

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

    def kept_pages(self, previous: Path | None) -> dict[str, str]:
        """Each arena whose pages the ``previous`` site holds in the folder its part has now, and when
        they were built. Pages of a site from before the parts had these folders (the forecasting board
        at the root) are not kept: their links lead where the new site has other files."""
        if previous is None:
            return {}
        folders = {p.plugin.arena.name: p.folder for p in self.parts}
        return {
            arena: built
            for arena, (built, folder) in pages_on(previous).items()
            if folders.get(arena) == folder
        }

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
        kept = self.kept_pages(previous)
        holding = {
            p.plugin.arena.name: Held.of(p, held[p.plugin.arena.name], kept.get(p.plugin.arena.name))
            for p in present
            if held and p.plugin.arena.name in held
        }
        shown = [p for p in present if _shown(p, holding)]
        reports: dict[str, BuildReport] = {}
        for part in shown:
            target = out / part.folder
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
        # Before the landing page, which lists the trials from their files.
        for file, body in (self.trials.files(record, built_at) if self.trials else {}).items():
            writer.write(file, body)
        for file, body in self.own_files(out, shown, built_at, tuple(holding.values())).items():
            writer.write(file, body)
        return SiteBuild(
            parts=reports,
            files=sum(r.files for r in reports.values()) + writer.files,
            bytes=sum(r.bytes for r in reports.values()) + writer.bytes,
            held=holding,
        )

    def own_files(
        self,
        site: Path,
        shown: Sequence[SitePart],
        built_at: str,
        held: Sequence[Held] = (),
        *,
        vouched: Collection[str] | None = None,
    ) -> dict[str, bytes]:
        """The files the site writes itself, not a part: the landing page (written from the files of
        the parts at ``site``; ``vouched``: only these of them may be read), its stylesheet,
        ``site.json``, and the dataset card that makes the boards' downloads a Hugging Face dataset
        (``site.dataset``; none while no board has a download)."""
        own = {
            STYLESHEET: stylesheet(),
            LANDING: landing_page(
                self.shown(site, shown, held, vouched=vouched), built_at, listed_trials(site, vouched)
            ).encode(),
            SITE_DOCUMENT: json_bytes(site_document(shown, built_at, held)),
        }
        card = site_dataset_card(site, [p.folder for p in shown], vouched=vouched)
        return own if card is None else {**own, DATASET_CARD: card}

    def shown(
        self,
        site: Path,
        shown: Sequence[SitePart],
        held: Sequence[Held] = (),
        *,
        vouched: Collection[str] | None = None,
    ) -> list[Shown]:
        """Every arena as the landing page shows it, its front read from its part's files at ``site``."""
        reasons = {h.arena: h for h in held}
        arenas: list[Shown] = []
        for part in self.parts:
            name = part.plugin.arena.name
            notice = landing_notice(reasons[name]) if name in reasons else None
            front, unreadable = (
                read_front(part.plugin, PartFiles(site, part.folder, vouched))
                if part in shown
                else (None, None)
            )
            arenas.append(
                Shown(
                    arena=name,
                    label=part.label,
                    folder=part.folder,
                    front=front,
                    unreadable=unreadable and f"What its pages say cannot be read: {unreadable}",
                    notice=notice,
                )
            )
        return arenas

    def part_files(self, part: SitePart, files: Sequence[str]) -> list[str]:
        """Which of a site's ``files`` (relative to its root) are ``part``'s."""
        return [f for f in files if f.startswith(f"{part.folder}/")]

    def neighbours(
        self, part: SitePart, present: Sequence[SitePart], files: Sequence[str] | None
    ) -> Neighbours:
        """What ``part`` sees of the others from its own root; ``files``: every file of the site
        (relative to its root), or None while building (links are checked after)."""

        def from_here(path: str) -> str:
            return posixpath.relpath(path, part.folder)

        arenas = (
            (from_here(LANDING), FRONT_LABEL),
            *((from_here(posixpath.join(p.folder, LANDING)), p.label) for p in present),
        )
        mine = f"{part.folder}/"
        return Neighbours(
            arenas=arenas,
            folders=(),
            files=frozenset(from_here(f) for f in files or () if not f.startswith(mine)),
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
            neighbours = self.neighbours(part, shown, files)
            problems += [
                f"{part.folder}/{problem}"
                for problem in part.plugin.site_problems(
                    site / part.folder, _tables(record, part), neighbours=neighbours
                )
            ]
        parts = {p.folder for p in self.parts}
        shown_folders = {p.folder for p in shown}
        for name in files:
            top = name.split("/", 1)[0]
            if "/" in name and top in parts and top not in shown_folders:
                problems.append(f"{name}: a part of the site whose arena has no record")
        own = self.own_files(site, shown, built_at, held)
        problems += self._own_problems(site, own, shown, held, files, "the site the record gives")
        trials = set()
        if self.trials is not None:
            problems += self.trials.problems(site, record, built_at, files)
            trials = {TRIALS_FOLDER}
        problems += [
            f"{name}: a file of no part of the site"
            for name in files
            if name not in own
            and name not in RESERVED
            and name.split("/", 1)[0] not in parts
            and name.split("/", 1)[0] not in trials
        ]
        return problems

    def _own_problems(
        self,
        site: Path,
        own: Mapping[str, bytes],
        shown: Sequence[SitePart],
        held: Sequence[Held],
        files: Collection[str],
        given_by: str,
        vouched: Collection[str] | None = None,
    ) -> list[str]:
        """The site's own files against ``own``: each named when missing or not the bytes it should be;
        the landing page's numbers each named, and its shape and links checked like any page's."""
        problems: list[str] = []
        for name, body in own.items():
            if not (site / name).is_file():
                problems.append(f"{name}: missing from the site")
                continue
            found = (site / name).read_bytes()
            if name == LANDING:
                page = found.decode("utf-8", errors="replace")
                arenas = self.shown(site, shown, held, vouched=vouched)
                problems += front_differences(name, page, arenas)
                problems += page_problems(name, read_page(page), files)
            if found != body:
                problems.append(f"{name}: differs from {given_by}")
        return problems

    def landing_problems(self, site: Path, vouched: Collection[str]) -> tuple[list[str], list[str]]:
        """The landing page of a built site written again from its parts' files alone (no record): what
        ``colosseum verify`` of a site checks of it. ``vouched``: the files the signed manifest vouches
        for, the only ones read. Problems, and notes: a site whose ``site.json`` names another landing
        page version (or none: a site from before the landing page) is not re-derived, since the page
        is compared byte for byte with what this version writes."""
        if SITE_DOCUMENT not in vouched:
            return [], [f"{SITE_DOCUMENT}: not in the signed manifest, so the landing page is not re-derived"]
        try:
            loaded = json.loads((site / SITE_DOCUMENT).read_text())
            built_at = str(loaded["built_at"])
            held = tuple(_held_from(entry) for entry in loaded.get("held", []))
            listed = {str(a["arena"]): str(a["folder"]) for a in loaded.get("arenas", [])}
            version = loaded.get("front")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            return [f"{SITE_DOCUMENT}: not the site's document ({exc})"], []
        if version != FRONT_VERSION:
            written = (
                f"under {version}" if version else "before the landing page (its root is an arena's board)"
            )
            return [], [f"{LANDING}: written {written}; this verify writes {FRONT_VERSION}: not re-derived"]
        listed |= {h.arena: h.folder for h in held if h.pages_built_at is not None}
        folders = {p.plugin.arena.name: p.folder for p in self.parts}
        misplaced = sorted(a for a, folder in listed.items() if folders.get(a) != folder)
        if misplaced:
            where = ", ".join(f"{a} in {listed[a] or '.'}/" for a in misplaced)
            return [f"{SITE_DOCUMENT}: places {where}, not where this site's parts live"], []
        shown = [p for p in self.parts if p.plugin.arena.name in listed]
        own = {LANDING: self.own_files(site, shown, built_at, held, vouched=vouched)[LANDING]}
        files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
        given_by = "what the site's parts give"
        return self._own_problems(site, own, shown, held, files, given_by, vouched), []


def _tables(record: Record, part: SitePart) -> RecordTables:
    return record.tables(part.plugin.arena)


def site_document(present: Sequence[SitePart], built_at: str, held: Sequence[Held] = ()) -> dict[str, Any]:
    """``site.json``: the arenas built from the record now, and those held (with why)."""
    held_names = {h.arena for h in held}
    return {
        "site": SITE_VERSION,
        "front": FRONT_VERSION,
        "built_at": built_at,
        "arenas": [
            {"arena": p.plugin.arena.name, "label": p.label, "folder": p.folder}
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


def pages_on(site: Path) -> dict[str, tuple[str, str]]:
    """Each arena with pages on the site at ``site``: when those pages were built, and their folder
    ("" for the root, as a site from before the landing page had the forecasting board)."""
    try:
        document = json.loads((site / SITE_DOCUMENT).read_text())
        built = str(document["built_at"])
        pages = {str(a["arena"]): (built, _folder(a["folder"])) for a in document.get("arenas", [])}
        for entry in document.get("held", []):
            if entry.get("pages_built_at"):
                pages[str(entry["arena"])] = (str(entry["pages_built_at"]), _folder(entry["folder"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # no earlier site, or not one this engine wrote: nothing to keep
    return pages


def _folder(written: Any) -> str:
    return "" if str(written) == "." else str(written)


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


def landing_notice(held: Held) -> str:
    """What the landing page says of a held arena."""
    first = "; ".join(held.problems[:3])
    more = f" (and {held.problem_count - 3} more)" if held.problem_count > 3 else ""
    kept = (
        f"Its pages are as published on {held.pages_built_at}, and what they say is shown here"
        if held.pages_built_at
        else "It has no pages on the site yet"
    )
    return (
        f"{held.label} is held: its record does not verify now, so its pages are not rebuilt until it "
        f"does. {kept}. {first}{more}"
    )


VERIFY_TEXT: Final = (
    "With the project installed, <code>colosseum verify SITE</code> checks all of this on a copy of the "
    "site: the signature and every file against the manifest, every download's row identifiers and "
    "signatures, the scores and boards re-derived from the downloads, and this page written again from "
    "the arenas' own files. Pin the signer with <code>--key KEY_ID</code> (a key you trust) or "
    "<code>--record DATA</code> (the record that publishes it); without either the verdict is UNPINNED."
)


def landing_page(shown: Sequence[Shown], built_at: str, trials: Sequence[Mapping[str, Any]] = ()) -> str:
    """The site's root: every arena, what it measures, who leads now, the way in; then how to check it;
    then the model trials, when the site has any (a site without them is as before)."""
    arenas = tuple((posixpath.join(s.folder, LANDING), s.label) for s in shown if s.front is not None)
    return _LANDING_SHELL.layout(
        title="Arenas",
        depth=0,
        active=LANDING,
        body=landing_body(shown, verify_text=VERIFY_TEXT) + landing_trials(trials),
        built_at=built_at,
        versions=f"{SITE_VERSION} · {FRONT_VERSION}",
        arenas=arenas,
    )
