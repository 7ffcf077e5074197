"""The re-check every arena's site shares: what a page or a plot must be whatever it shows.

An arena's re-check reads each file back (``read_page``, ``svg_cells``), asks these for the problems
of its shape (a page's language and title, no script, images with alt text, relative links that
resolve to files of the site, no raw hidden code point; an SVG that is well-formed and sized), and
then holds every marked value to its record itself.
"""

from __future__ import annotations

import posixpath
import xml.etree.ElementTree as ET
from collections.abc import Collection
from urllib.parse import urlsplit

from colosseum_core.site.formats import code_point_title
from colosseum_core.site.page_parse import Cell, PageMarks

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
