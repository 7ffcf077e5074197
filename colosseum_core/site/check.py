"""The re-check every arena's site shares: what a page or a plot must be whatever it shows.

An arena's re-check reads each file back (``read_page``, ``svg_cells``), asks these for the problems
of its shape (a page's language and title, no script, images with alt text, relative links that
resolve to files of the site, no raw hidden code point; an SVG that is well-formed and sized), and
then holds every marked value to its record itself.
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Collection
from pathlib import Path
from urllib.parse import urlsplit

from colosseum_core.site.formats import code_point_title
from colosseum_core.site.page_parse import Cell, PageMarks
from colosseum_core.site.plugin import Neighbours
from colosseum_core.trust.bundle import ARENA_PEM, ENVELOPE_NAME, MANIFEST_NAME

SVG_ROOT = "{http://www.w3.org/2000/svg}svg"


def link_problem(name: str, tag: str, attribute: str, ref: str, files: Collection[str]) -> str | None:
    """Why the link ``ref`` on page ``name`` is broken (None if it is not): a site is read from the file
    system or any static host, so a link is relative and names a file of the site."""
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or ref.startswith("/"):
        return f"{name}: <{tag} {attribute}={ref!r}> is not a relative link"
    if not parts.path:
        return None  # a fragment of the same page
    target = posixpath.normpath(posixpath.join(posixpath.dirname(name), parts.path))
    if target not in files:
        return f"{name}: <{tag} {attribute}={ref!r}> points to no file of the site"
    return None


def page_problems(name: str, marks: PageMarks, files: Collection[str]) -> list[str]:
    """The problems of a page's shape, whatever its arena: language, title, no script, alt text,
    links, and no hidden code point standing raw."""
    problems = []
    if not marks.lang:
        problems.append(f"{name}: <html> has no lang")
    if not marks.title:
        problems.append(f"{name}: no <title>")
    if marks.scripts:
        problems.append(f"{name}: {marks.scripts} <script> element(s); the board runs no script")
    for image in marks.images:
        if not image.get("alt"):
            problems.append(f"{name}: <img src={image.get('src')!r}> has no alt text")
    for tag, attribute, ref in marks.refs:
        problem = link_problem(name, tag, attribute, ref, files)
        if problem:
            problems.append(problem)
    for table, row_id, field, char in marks.raw:
        where = "outside any published value" if table is None else f"{table} row {row_id} field {field}"
        problems.append(f"{name}: {where}: a raw {code_point_title(char)}, not its visible escape")
    return problems


def svg_cells(name: str, data: bytes) -> tuple[list[str], list[Cell]]:
    """An SVG image's problems of shape, and the values it marks (read back as a page's are)."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        return [f"{name}: not well-formed XML ({exc})"], []
    problems = []
    if root.tag != SVG_ROOT:
        problems.append(f"{name}: the root element is {root.tag}, not an SVG <svg>")
    for attribute in ("width", "height", "viewBox"):
        if not root.get(attribute):
            problems.append(f"{name}: <svg> has no {attribute}")
    cells: list[Cell] = [
        (str(e.get("data-table")), e.get("data-id"), e.get("data-field"), "".join(e.itertext()))
        for e in root.iter()
        if e.get("data-table") is not None
    ]
    return problems, cells


# --------------------------------------------------------------------------------------------
# A board read back whole: its own files, its about.json, and the same board built again


SIGNED_FILES = frozenset({MANIFEST_NAME, ENVELOPE_NAME, ARENA_PEM})  # the whole site's, not a board's


@dataclasses.dataclass(frozen=True)
class BoardOnDisk:
    """A board's files as read back (the signed manifest's files and the neighbours' left out), and
    what its ``about.json`` says it was built with."""

    files: dict[str, Path]
    built_at: str
    arenas: tuple[tuple[str, str], ...]


class BoardUnreadable(ValueError):
    """The board has no readable ``about.json``, so it cannot be built again to compare."""


def site_files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def read_board(site: Path, neighbours: Neighbours, board: str) -> BoardOnDisk:
    """The board at ``site`` (``board`` names it in messages); ``BoardUnreadable`` without its about."""
    files = {n: p for n, p in site_files(site).items() if n not in SIGNED_FILES and neighbours.owns(n)}
    about = files.get("about.json")
    if about is None:
        raise BoardUnreadable(f"{site}: no about.json, so {board} cannot be rebuilt to compare")
    try:
        document = json.loads(about.read_text())
        built_at = str(document["built_at"])
        arenas = tuple((str(href), str(label)) for href, label in document.get("arenas", []))
    except (ValueError, KeyError, TypeError) as exc:
        raise BoardUnreadable(f"{site}/about.json: not {board}'s about document ({exc})") from None
    return BoardOnDisk(files, built_at, arenas)


def navigation_problems(board: BoardOnDisk, neighbours: Neighbours) -> list[str]:
    if board.arenas == neighbours.arenas:
        return []
    return [
        f"about.json: the navigation between arenas {[list(a) for a in board.arenas]} is not the site's "
        f"{[list(a) for a in neighbours.arenas]}"
    ]


def rebuilt_problems(board: BoardOnDisk, build: Callable[[Path], None], scratch_prefix: str) -> list[str]:
    """The board built again by ``build(directory)`` against the files read back, file for file and
    byte for byte: every file one side has and the other lacks, and every file that differs."""
    problems = []
    with tempfile.TemporaryDirectory(prefix=scratch_prefix) as scratch:
        again = Path(scratch) / "site"
        build(again)
        rebuilt, files = site_files(again), board.files
        for name in sorted(set(rebuilt) - set(files)):
            problems.append(f"{name}: the record gives this file; the site lacks it")
        for name in sorted(set(files) - set(rebuilt)):
            problems.append(f"{name}: the site has this file; the record gives none")
        for name in sorted(set(files) & set(rebuilt)):
            if files[name].read_bytes() != rebuilt[name].read_bytes():
                problems.append(f"{name}: differs from the board the record gives")
    return problems
