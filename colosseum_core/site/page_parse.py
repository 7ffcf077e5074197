"""Reading a built page back: every marked value, link and image, as a browser would see them.

Two readers with one meaning (``shell`` describes the markup):

* ``html.parser`` (``_Page``) reads anything: single marked elements, and compact tables whose
  ``<table data-table>`` names the table, ``<th data-field>`` the field of each column and
  ``<tr data-id>`` the row, a cell's own ``data-id``/``data-field`` taking precedence;
* a compact table written in the builder's one fixed shape is read by regular expressions instead,
  which is what makes a page of thousands of rows cheap to check. A table in any other shape (edited
  by hand, or holding any element but a link) is left in the page for ``html.parser``.

``read_page(text)`` cuts every table it can read the fast way out of the page, reads it, and hands
the rest to ``html.parser``; ``read_page(text, fast=False)`` reads the whole page with
``html.parser``. Both give the same ``PageMarks`` for any page (the tests hold them to it).

A page may state the status of what it shows (a partition sealed or missed, …) in a ``data-partition-status``
attribute (``formats.STATUS_ATTR``), which a builder writes outside any compact table; a table
carrying one anywhere is not in the fixed shape, so ``html.parser`` reads it, and every statement is
in ``PageMarks.statuses``.

A hidden code point (``formats.hidden``: a control, a bidirectional or zero-width character) is written
by the builder as ``<span class="cp" title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>``, and both
readers read that element, exactly as written, as the code point itself, so a value's text is the
record's text. One that stands on the page raw instead (or as a character reference, which a browser
turns into the very code point) is listed in ``PageMarks.raw`` with the value it sits in.
"""

from __future__ import annotations

import dataclasses
import re
from html import unescape
from html.parser import HTMLParser
from typing import Final

from colosseum_core.site.formats import (
    CODE_POINT_CLASS,
    STATUS_ATTR,
    code_point_title,
    has_hidden,
    hidden_in,
    label_code_point,
)

# (table, row id, field, text): one published value. A single marked element may lack an id or a field.
Cell = tuple[str, str | None, str | None, str]
# (table, row id, field, code point): a hidden code point standing raw on the page, in that value;
# (None, None, None, code point) outside any (plain text, an attribute, a comment).
Raw = tuple[str | None, str | None, str | None, str]

_VOID_TAGS: Final = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


@dataclasses.dataclass
class PageMarks:
    cells: list[Cell] = dataclasses.field(default_factory=list)
    rows: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (table, id) of compact rows
    refs: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)  # (tag, attribute, value)
    images: list[dict[str, str | None]] = dataclasses.field(default_factory=list)
    raw: list[Raw] = dataclasses.field(default_factory=list)
    statuses: list[str] = dataclasses.field(default_factory=list)  # each data-partition-status, in order
    scripts: int = 0
    lang: str | None = None
    title: bool = False


class _Compact:
    """Where ``html.parser`` is inside a compact table: the column fields, the row, the column."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.head = False
        self.fields: list[str | None] = []
        self.row_id: str | None = None
        self.col = 0

    def start(self, tag: str, a: dict[str, str | None], rows: list[tuple[str, str]]) -> Cell | None:
        if tag in ("thead", "tbody"):
            self.head = tag == "thead"
        elif tag == "tr":
            self.col = 0
            if self.head:
                self.fields = []
                self.row_id = None
            else:
                self.row_id = a.get("data-id") or None
                if self.row_id:
                    rows.append((self.table, self.row_id))
        elif tag in ("td", "th"):
            single = "data-table" in a  # a single marked value: its own table, id and field
            if self.head:
                self.fields.append(None if single else a.get("data-field") or None)
                return None
            column, self.col = self.col, self.col + 1
            if single:
                return None
            row_id = a.get("data-id") or self.row_id
            field = a.get("data-field") or (self.fields[column] if column < len(self.fields) else None)
            if row_id and field:
                return (self.table, row_id, field, "")
        return None


def decode_escape(label: str, title: str | None) -> str:
    """The code point of a ``cp`` element written as the builder writes it; else its text as it stands."""
    char = label_code_point(label)
    return label if char is None or title != code_point_title(char) else char


class _Page(HTMLParser):
    def __init__(self, *, raw: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.marks = PageMarks()
        # (tag, the cell it marks or None, its text so far)
        self.stack: list[tuple[str, Cell | None, list[str]]] = []
        self.compact: list[_Compact | None] = []
        self.escapes: dict[int, str | None] = {}  # stack depth of each open cp element: its title
        self.raw = raw  # list the raw hidden code points, and the value each sits in

    def _raw(self, text: str, *, attribute: bool = False) -> None:
        chars = hidden_in(text)
        if not chars:
            return
        marked = None if attribute else next((m for _, m, _ in reversed(self.stack) if m is not None), None)
        for char in chars:
            if marked is None:
                self.marks.raw.append((None, None, None, char))
            else:
                self.marks.raw.append((marked[0], marked[1], marked[2], char))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        marks = self.marks
        if self.raw:
            for value in a.values():
                if value:
                    self._raw(value, attribute=True)
        if tag == "html":
            marks.lang = a.get("lang")
        elif tag == "title":
            marks.title = True
        elif tag == "script":
            marks.scripts += 1
        elif tag == "img":
            marks.images.append(a)
        if STATUS_ATTR in a:
            marks.statuses.append(a[STATUS_ATTR] or "")
        for name in ("href", "src"):
            if a.get(name) is not None:
                marks.refs.append((tag, name, str(a[name])))
        marked: Cell | None = None
        if tag == "table":
            self.compact.append(_Compact(str(a["data-table"] or "")) if "data-table" in a else None)
        else:
            if "data-table" in a:
                marked = (str(a["data-table"] or ""), a.get("data-id"), a.get("data-field"), "")
            compact = self.compact[-1] if self.compact else None
            if compact is not None:
                in_table = compact.start(tag, a, marks.rows)
                marked = marked or in_table
        if tag in _VOID_TAGS:
            if marked is not None:
                marks.cells.append(marked)
            return
        if tag == "span" and a.get("class") == CODE_POINT_CLASS:
            self.escapes[len(self.stack)] = a.get("title")
        self.stack.append((tag, marked, []))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID_TAGS:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth][0] == tag:
                break
        else:
            return
        while len(self.stack) > depth:
            self._close()

    def _close(self) -> None:
        tag, marked, text = self.stack.pop()
        self.escapes.pop(len(self.stack), None)
        if tag == "table" and self.compact:
            self.compact.pop()
        elif tag == "thead" and self.compact and self.compact[-1] is not None:
            self.compact[-1].head = False
        if marked is not None:
            body = "".join(text)
            if tag == "pre" and body.startswith("\n"):
                body = body[1:]  # a browser drops the newline right after <pre>; the builder adds one
            self.marks.cells.append((marked[0], marked[1], marked[2], body))

    def handle_data(self, data: str) -> None:
        depth = len(self.stack) - 1
        decoded = decode_escape(data, self.escapes[depth]) if depth in self.escapes else data
        if decoded == data and self.raw:
            self._raw(data)  # text, or an escape not as written: any hidden code point in it is raw
        data = decoded
        for _, marked, text in self.stack:
            if marked is not None:
                text.append(data)

    def handle_comment(self, data: str) -> None:
        if self.raw:
            self._raw(data)

    def close(self) -> None:
        super().close()
        while self.stack:
            self._close()


# --- the fast reader: the builder's compact table, and nothing else -----------------------------------

# Possessive quantifiers (*+): the grammar never needs to backtrack, so a table that does not fit it
# fails in one pass. A page's status statement is no attribute of the shape: html.parser collects it.
_ATTRS: Final = rf'(?: (?!{STATUS_ATTR}=)[a-z-]++="[^"<>]*+")*+'
# A hidden code point's escape (``formats.escape_html``), with its title and label.
_ESCAPE: Final = rf'<span class="{CODE_POINT_CLASS}" title="([^"<>]*+)">(U\+[0-9A-F]{{4,6}})</span>'
_TEXT: Final = r"[^<]*+(?:(?:<wbr>|" + _ESCAPE.replace("(", "(?:") + r")[^<]*+)*+"
_CONTENT: Final = rf'(?:{_TEXT}|<a href="[^"<>]*+">{_TEXT}</a>)'
_CELL: Final = rf"(?:<td{_ATTRS}>{_CONTENT}</td>|<th{_ATTRS}>{_CONTENT}</th>)"
_TABLE: Final = re.compile(
    rf'<table data-table="([^"<>]*+)"{_ATTRS}>\n?<caption>{_TEXT}</caption>\n?'
    rf"<thead><tr>((?:{_CELL})*+)</tr></thead>\n?<tbody>\n?((?:<tr{_ATTRS}>(?:{_CELL})*+</tr>\n?)*+)"
    r"</tbody></table>"
)
_ROW: Final = re.compile(rf"<tr({_ATTRS})>((?:{_CELL})*+)</tr>")
_CELL_PARTS: Final = re.compile(rf'<t[dh]({_ATTRS})>(?:({_TEXT})|<a href="([^"<>]*+)">({_TEXT})</a>)</t[dh]>')
_ATTR: Final = re.compile(r' ([a-z-]+)="([^"<>]*)"')
_START: Final = '<table data-table="'
_PIECE: Final = re.compile(rf"<wbr>|{_ESCAPE}")
# Any character reference but the five the builder writes: one may stand for a hidden code point.
_REFERENCE: Final = re.compile(r"&(?!(?:amp|lt|gt|quot|#x27);)")


def _attrs(text: str) -> dict[str, str]:
    return {k: unescape(v) if "&" in v else v for k, v in _ATTR.findall(text)} if text else {}


def _text(raw: str) -> str:
    if "<" not in raw:
        return unescape(raw) if "&" in raw else raw
    # As html.parser reads it: each run of text between two tags unescaped on its own.
    parts = []
    at = 0
    for piece in _PIECE.finditer(raw):
        run = raw[at : piece.start()]
        parts.append(unescape(run) if "&" in run else run)
        title, label = piece.groups()
        if label is not None:
            parts.append(decode_escape(label, unescape(title)))
        at = piece.end()
    run = raw[at:]
    parts.append(unescape(run) if "&" in run else run)
    return "".join(parts)


def _read_table(match: re.Match[str], marks: PageMarks) -> None:
    table = unescape(match.group(1))
    fields: list[str | None] = []
    for attrs, plain, href, linked in _CELL_PARTS.findall(match.group(2)):
        a = _attrs(attrs)
        if "data-table" in a:
            marks.cells.append(
                (a["data-table"], a.get("data-id"), a.get("data-field"), _text(plain or linked))
            )
            fields.append(None)
        else:
            fields.append(a.get("data-field") or None)
        if href:
            marks.refs.append(("a", "href", unescape(href)))
    width = len(fields)
    cells, refs = marks.cells, marks.refs
    for row_attrs, row in _ROW.findall(match.group(3)):
        r = _attrs(row_attrs)
        row_id = r.get("data-id") or None
        if row_id:
            marks.rows.append((table, row_id))
        for column, (attrs, plain, href, linked) in enumerate(_CELL_PARTS.findall(row)):
            text = plain or linked
            if "<" in text or "&" in text:
                text = _text(text)
            if href:
                refs.append(("a", "href", unescape(href)))
            field = fields[column] if column < width else None
            cell_id = row_id
            if attrs and "data-" in attrs:
                a = _attrs(attrs)
                if "data-table" in a:
                    cells.append((a["data-table"], a.get("data-id"), a.get("data-field"), text))
                    continue
                cell_id = a.get("data-id") or row_id
                field = a.get("data-field") or field
            if cell_id and field:
                cells.append((table, cell_id, field, text))


def read_page(text: str, *, fast: bool = True) -> PageMarks:
    """Every marked value, compact row, link and image of the page ``text``."""
    marks = PageMarks()
    rest = text
    if fast and _START in text:
        kept: list[str] = []
        at = 0
        found = text.find(_START)
        while found >= 0:
            match = _TABLE.match(text, found)
            if match is None:
                found = text.find(_START, found + 1)
                continue
            _read_table(match, marks)
            kept.append(text[at:found])
            at = match.end()
            found = text.find(_START, at)
        kept.append(text[at:])
        rest = "".join(kept)
    page = _Page()
    page.feed(rest)
    page.close()
    slow = page.marks
    marks.cells += slow.cells
    marks.rows += slow.rows
    marks.refs += slow.refs
    marks.images, marks.scripts, marks.lang, marks.title = slow.images, slow.scripts, slow.lang, slow.title
    marks.statuses = slow.statuses
    marks.raw = raw_code_points(text)
    return marks


def raw_code_points(text: str) -> list[Raw]:
    """Every hidden code point standing raw in the page ``text``, once per value it sits in."""
    decoded = unescape(text) if _REFERENCE.search(text) else text
    if not has_hidden(decoded):
        return []  # almost every page: one pass in C
    # Only now read the page again to say where each one is.
    page = _Page(raw=True)
    page.feed(text)
    page.close()
    found = list(dict.fromkeys(page.marks.raw))
    placed = {char for *_, char in found}
    # Inside a tag's name or a doctype, say: nowhere html.parser hands over as text.
    return found + [(None, None, None, char) for char in hidden_in(decoded) if char not in placed]
