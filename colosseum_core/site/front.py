"""The site's front door (COLOSSEUM-FRONT-1): what the landing page at the site's root says of each arena.

Each arena's plug-in reads its own part of a *built* site (``PartFiles``: the files it published, never
the record) into a ``Front``: what the arena measures, who leads now in each kind (FIGHT and CALIBRATION
apart, never in one list), when that last changed, and the ways in (its board, its downloads, its
keys). The engine (``public``) writes the landing page from the fronts. So the page re-derives from the
site alone: the site's re-check and ``colosseum verify`` of a site read the parts' files again, write the
page again and compare it byte for byte, naming each number that differs (``front_differences``); the
parts' files are held to the record by the parts' own checks.

Every value on the page that comes from a published row carries that row's table, id and field
(``data-table``, ``data-id``, ``data-field``), as on every other page of the site.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl
from polars.exceptions import PanicException

from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.page_parse import read_page
from colosseum_core.site.shell import attr

FRONT_VERSION: Final = "COLOSSEUM-FRONT-1"
KINDS: Final = ("FIGHT", "CALIBRATION")
# How many names a shared lead shows before "and N more".
NAMES_SHOWN: Final = 4


class FrontUnreadable(ValueError):
    """A file the landing page reads from a part is missing, not vouched for by the signed manifest, or
    not what its arena publishes; the message names it from the site's root."""


class PartFiles:
    """One arena's part of a built site, as the landing page may read it: files under ``root/folder``,
    and (``vouched``: names relative to the site's root) only those the signed manifest vouches for."""

    def __init__(self, root: Path, folder: str, vouched: Collection[str] | None = None) -> None:
        self.base = root / folder if folder else root
        self.folder = folder
        self._vouched = None if vouched is None else frozenset(vouched)

    def site_name(self, name: str) -> str:
        return f"{self.folder}/{name}" if self.folder else name

    def exists(self, name: str) -> bool:
        vouched = self._vouched is None or self.site_name(name) in self._vouched
        return vouched and (self.base / name).is_file()

    def names(self, directory: str) -> list[str]:
        """The files directly in ``directory`` of the part (relative to the part), sorted."""
        found = self.base / directory
        if not found.is_dir():
            return []
        return sorted(
            f"{directory}/{p.name}"
            for p in found.iterdir()
            if p.is_file() and self.exists(f"{directory}/{p.name}")
        )

    def read(self, name: str) -> bytes:
        if self._vouched is not None and self.site_name(name) not in self._vouched:
            raise FrontUnreadable(f"{self.site_name(name)}: not vouched for by the signed manifest")
        try:
            return (self.base / name).read_bytes()
        except OSError as exc:
            raise FrontUnreadable(f"{self.site_name(name)}: cannot be read ({exc.strerror or exc})") from None

    def json(self, name: str) -> Any:
        try:
            return json.loads(self.read(name))
        except ValueError as exc:
            raise FrontUnreadable(f"{self.site_name(name)}: not JSON ({exc})") from None

    def listed(self, key: str, name: str = "about.json") -> list[str]:
        """The list ``key`` of the board's ``about.json`` (the units in the order they sealed)."""
        about = self.json(name)
        try:
            return [str(item) for item in about[key]]
        except (KeyError, TypeError) as exc:
            raise FrontUnreadable(f"{self.site_name(name)}: not the board's about ({exc})") from None

    def parquet(self, name: str) -> pl.DataFrame:
        try:
            return pl.read_parquet(io.BytesIO(self.read(name)))
        except FrontUnreadable:
            raise
        except (Exception, PanicException) as exc:  # whatever a decoder says of bytes it cannot read
            raise FrontUnreadable(f"{self.site_name(name)}: not Parquet ({type(exc).__name__})") from None


@dataclasses.dataclass(frozen=True)
class Value:
    """A value as the landing page shows it, and the published row it was read from (table, id, field);
    no row: a value the part's files give without one (a date in a signed bundle, say)."""

    text: str
    table: str | None = None
    row_id: str | None = None
    field: str | None = None

    @classmethod
    def of(cls, table: str, row: dict[str, Any], field: str, text: str) -> Value:
        return cls(text, table, str(row["id"]), field)

    def html(self) -> str:
        if self.table is None or self.row_id is None or self.field is None:
            return f'<span class="value">{esc(self.text)}</span>'
        return (
            f'<span data-table="{attr(self.table)}" data-id="{attr(self.row_id)}" '
            f'data-field="{attr(self.field)}">{esc(self.text)}</span>'
        )


@dataclasses.dataclass(frozen=True)
class Lead:
    """One line of who leads: ``title`` (e.g. "Top seat by FC SCORE"), the names that hold it (several
    when it is shared, none when nobody does yet), its numbers as (label, value), and where it is shown
    in full (``href``, relative to the part's root)."""

    title: str
    who: tuple[Value, ...]
    figures: tuple[tuple[str, Value], ...] = ()
    href: str | None = None
    nobody: str = "nobody yet"


@dataclasses.dataclass(frozen=True)
class KindFront:
    """Who leads in one kind, and when that last changed (``changed``, linked by ``changed_href``)."""

    kind: str
    leads: tuple[Lead, ...] = ()
    changed: Value | None = None
    changed_href: str | None = None
    empty: str = "no records yet"


@dataclasses.dataclass(frozen=True)
class Front:
    """What the landing page says of one arena, read from its part of the site."""

    measures: str  # what the arena measures, in two sentences
    kinds: tuple[KindFront, ...]  # FIGHT, then CALIBRATION
    board: str = "index.html"
    downloads: str = "downloads.html"
    keys: tuple[tuple[str, str], ...] = ()  # (page, label): where the keys its record publishes are shown


@dataclasses.dataclass(frozen=True)
class Shown:
    """An arena as the landing page shows it: its folder and label, its front (None: no pages on the
    site), why its front could not be read (``unreadable``), and the notice of a held arena."""

    arena: str
    label: str
    folder: str
    front: Front | None = None
    unreadable: str | None = None
    notice: str | None = None
    no_pages: str = "No record yet."


def read_front(plugin: Any, files: PartFiles) -> tuple[Front | None, str | None]:
    """The arena's front from its part's files, or why it cannot be read (a file the plug-in names, or
    files that are not what its board publishes: a site is read as it is found)."""
    try:
        return plugin.front(files), None
    except FrontUnreadable as exc:
        return None, str(exc)
    except (KeyError, TypeError, ValueError, AttributeError, pl.exceptions.PolarsError) as exc:
        where = files.folder or "the site's root"
        return None, f"{where}/: its files are not what its board publishes ({type(exc).__name__}: {exc})"


def _link(folder: str, href: str | None, inner: str) -> str:
    return f'<a href="{attr(f"{folder}/{href}")}">{inner}</a>' if href else inner


def _lead_html(folder: str, lead: Lead) -> str:
    if not lead.who:
        who = f'<span class="empty">{esc(lead.nobody)}</span>'
    elif len(lead.who) == 1:
        who = f'<span class="who">{lead.who[0].html()}</span>'
    else:
        names = [f"<li>{value.html()}</li>" for value in lead.who[:NAMES_SHOWN]]
        more = len(lead.who) - NAMES_SHOWN
        names += [f"<li>and {more} more</li>"] if more > 0 else []
        who = f'<ul class="who">{"".join(names)}</ul>'
    figures = "".join(
        f'<span class="figure">{esc(label)} {value.html()}</span>' for label, value in lead.figures
    )
    figures = f'<span class="figures">{figures}</span>' if figures else ""
    return f"<dt>{_link(folder, lead.href, esc(lead.title))}</dt><dd>{who}{figures}</dd>"


def _kind_html(folder: str, kind: KindFront) -> str:
    slug = kind.kind.lower()
    heading = f'<h3><span class="badge kind-{slug}">{esc(kind.kind)}</span> Who leads now</h3>'
    if kind.leads:
        body = "<dl>" + "".join(_lead_html(folder, lead) for lead in kind.leads) + "</dl>"
    else:
        body = f'<p class="empty">{esc(kind.empty)}</p>'
    changed = (
        f'<p class="changed">Last changed: {_link(folder, kind.changed_href, kind.changed.html())}</p>'
        if kind.changed is not None
        else ""
    )
    return (
        f'<section class="lead kind-{slug}" data-kind="{attr(kind.kind)}" aria-label="{attr(kind.kind)}">'
        f"{heading}{body}{changed}</section>"
    )


def arena_html(shown: Shown) -> str:
    """One arena's section of the landing page."""
    anchor = f"arena-{shown.arena}"
    front, folder = shown.front, shown.folder
    title = _link(folder, front.board, esc(shown.label)) if front is not None else esc(shown.label)
    parts = [
        f'<section class="arena" id="{attr(anchor)}" aria-labelledby="{attr(anchor)}-h">',
        f'<h2 id="{attr(anchor)}-h">{title}</h2>',
    ]
    if shown.notice:
        parts.append(f'<p class="notice held" role="status">{esc(shown.notice)}</p>')
    if front is None:
        parts.append(f'<p class="empty">{esc(shown.unreadable or shown.no_pages)}</p>')
        parts.append("</section>")
        return "".join(parts)
    parts.append(f'<p class="measures">{esc(front.measures)}</p>')
    parts.append('<div class="leads">' + "".join(_kind_html(folder, k) for k in front.kinds) + "</div>")
    ways = [
        _link(folder, front.board, "The board"),
        _link(folder, front.downloads, "The record (downloads)"),
        *(_link(folder, href, esc(label)) for href, label in front.keys),
    ]
    parts.append('<p class="ways">' + " · ".join(ways) + "</p>")
    parts.append("</section>")
    return "".join(parts)


def landing_body(shown: Sequence[Shown], *, verify_text: str) -> str:
    """The landing page's body: every arena in the site's order, then how to check it all."""
    downloads = [
        f'<li>{esc(s.label)}: <a href="{attr(f"{s.folder}/{s.front.downloads}")}">downloads</a></li>'
        for s in shown
        if s.front is not None
    ]
    keys = [
        f'<li>{esc(s.label)}: <a href="{attr(f"{s.folder}/{href}")}">{esc(label)}</a></li>'
        for s in shown
        if s.front is not None
        for href, label in s.front.keys
    ]
    check = (
        '<section id="check" aria-labelledby="check-h"><h2 id="check-h">Check it yourself</h2>'
        "<p>Every number on this site is published with the record rows it came from, and the whole "
        'site is signed: <a href="MANIFEST.json">MANIFEST.json</a> lists every file with its SHA-256, '
        'and <a href="MANIFEST.json.dsse">MANIFEST.json.dsse</a> is its signature by the arena key, '
        '<a href="keys/arena.pem">keys/arena.pem</a>.</p>'
        + (f"<h3>The record</h3><ul>{''.join(downloads)}</ul>" if downloads else "")
        + (
            "<h3>The keys the record publishes</h3>"
            "<p>Compare the arena key above with the one the record publishes.</p>"
            f"<ul>{''.join(keys)}</ul>"
            if keys
            else ""
        )
        + f"<h3>Verify</h3><p>{verify_text}</p></section>"
    )
    return (
        "<h1>Frontier Colosseum</h1>"
        '<p class="lede">Three arenas on one signed record. FIGHT records are official; CALIBRATION '
        "records are practice, played by house players standing in; the two are never mixed, here or "
        "on any board.</p>" + "".join(arena_html(s) for s in shown) + check
    )


def _named_values(shown: Sequence[Shown]) -> list[tuple[str, Value]]:
    """Every row-marked value of the landing page in page order, each with what it is, in words."""
    found: list[tuple[str, Value]] = []
    for arena in shown:
        if arena.front is None:
            continue
        for kind in arena.front.kinds:
            where = f"{arena.label} {kind.kind}"
            for lead in kind.leads:
                found += [(f"{where}, {lead.title}: who", v) for v in lead.who[:NAMES_SHOWN]]
                found += [(f"{where}, {lead.title}: its {label}", v) for label, v in lead.figures]
            if kind.changed is not None:
                found.append((f"{where}: last changed", kind.changed))
    return [(what, v) for what, v in found if v.table is not None]


def front_differences(name: str, page: str, shown: Sequence[Shown]) -> list[str]:
    """Each marked value of the landing ``page`` that is not what the parts' files give, named: shown
    with another text, shown though no part's files give it, or missing."""
    expected = {(v.table, v.row_id, v.field): (what, v.text) for what, v in _named_values(shown)}
    problems, seen = [], set()
    for table, row_id, field, text in read_page(page).cells:
        key = (table, row_id, field)
        seen.add(key)
        if key not in expected:
            problems.append(f"{name}: {table} row {row_id} field {field} ({text!r}): no part's files give it")
        elif text != expected[key][1]:
            what, given = expected[key]
            problems.append(
                f"{name}: {what}: {table} row {row_id} field {field}: shows {text!r}, the parts' files "
                f"give {given!r}"
            )
    for (table, row_id, field), (what, _) in expected.items():
        if (table, row_id, field) not in seen:
            problems.append(f"{name}: {what}: {table} row {row_id} field {field}: missing")
    return problems
