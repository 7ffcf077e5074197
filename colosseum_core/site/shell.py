"""The pages' shell, for every arena: plain, static, accessible markup with relative links and no script.

Every value from the record is written by the arena's ``FieldFormats`` for its row, and marked so a
re-check can read it back (``page_parse``), in one of two ways:

* a single value (a fact, a board cell) is an element carrying ``data-table``, ``data-id`` (the row's
  identifier) and ``data-field``, whose text is the value (``Shell.span``, ``Shell.cell``);
* a table of record rows is **compact** (``Shell.table_html``): ``<table data-table="…">`` names the
  table once, each ``<th scope="col" data-field="…">`` names its column's field once, each
  ``<tr data-id="…">`` names its row once, and the cells are plain ``<td>`` mapped to fields by
  column. A cell may name its own ``data-id`` or ``data-field``, and a column whose ``th`` has no
  ``data-field`` holds no record value. A ``data-field`` of several names separated by spaces shows
  each value, joined by one space ("YES 7").

Compact tables are written in one fixed shape, which the re-check parses with one regular
expression; anything else is parsed with ``html.parser``, with the same meaning.

Every column header carries a tooltip (``title``, from the arena's glossary). Every text goes through
``esc`` (``formats.escape_html``) in element content and through ``attr`` in an attribute value or
``<title>``: no raw control, bidirectional or zero-width code point reaches a page, each is shown as
its visible escape.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any, Final

from colosseum_core.site.formats import FieldFormats
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.writer import SiteWriter

Row = Mapping[str, Any]
# (table, field or None) -> the header's tooltip
Tips = Callable[[str, str | None], str]
STYLESHEET: Final = "style.css"
# The footer's promise on every arena's pages: the command named as plain words, as a reader types it.
VERIFY_NOTICE: Final = "Every number re-derives from the signed record: colosseum verify checks it."


def stylesheet() -> bytes:
    """The one stylesheet every arena's pages link to (``style.css`` at the site's root)."""
    return resources.files(__package__).joinpath(STYLESHEET).read_bytes()


def attr(value: object) -> str:
    """``esc`` for an attribute value, where a hidden code point is written as its bare label."""
    return esc(value, attribute=True)


def numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def marks(table: str, row: Row, field: str) -> str:
    """The attributes that mark an element as ``field`` of ``row`` in ``table``."""
    return f'data-table="{attr(table)}" data-id="{attr(row["id"])}" data-field="{attr(field)}"'


@dataclasses.dataclass(frozen=True)
class Col:
    """A column of a compact table: a record field, or (``field`` None) text that is not one.

    ``tip``: the header's tooltip; by default the arena glossary's for the field. ``title``: each
    cell's own tooltip, e.g. the whole of a value the cell shows shortened.
    """

    field: str | None
    header: str
    href: Callable[[Row], str | None] | None = None
    cls: str = ""
    text: Callable[[Row], str] | None = None
    tip: str = ""
    title: Callable[[Row], str] | None = None


def column_head(header: str, tip: str, *, extra: str = "") -> str:
    """A column header with its tooltip; ``extra``: more attributes, written before the title."""
    titled = f' title="{attr(tip)}"' if tip else ""
    return f'<th scope="col"{extra}{titled}>{esc(header)}</th>'


def key_html(entries: Sequence[tuple[str, str]], *, heading: str, anchor: str = "key") -> str:
    """A plain-language key: each term, and what it means."""
    # A div per term keeps each term with its meaning when the list is laid out in columns.
    items = "".join(f"<div><dt>{esc(term)}</dt><dd>{esc(meaning)}</dd></div>" for term, meaning in entries)
    return (
        f'<section id="{attr(anchor)}" class="key" aria-labelledby="{attr(anchor)}-h">'
        f'<h2 id="{attr(anchor)}-h">{esc(heading)}</h2><dl>{items}</dl></section>'
    )


# Column looks drawn by the stylesheet from a class on the table (``r3``: the third column holds
# numbers), so a long table carries no class on its cells. Positions past this are classed per cell.
COLUMN_CLASSES: Final = 20
_LOOKS: Final = {"num": "r", "nowrap": "w", "text": "t", "code": "c"}


def _looks(rows: Sequence[Row], cols: Sequence[Col]) -> list[str]:
    """Each column's classes: its own, and ``num`` where it holds numbers."""
    looks = []
    for col in cols:
        field = col.field
        numeric_column = (
            bool(field) and "." not in str(field) and any(numeric(r.get(str(field))) for r in rows)
        )
        looks.append(" ".join(c for c in (col.cls, "num" if numeric_column else "") if c))
    return looks


@dataclasses.dataclass(frozen=True)
class Shell:
    """One arena's pages: its name, its navigation, how it writes its fields and the tooltips of its
    columns. ``nav`` and ``footer_links`` are (page, label) pairs relative to the site's root."""

    brand: str
    nav: tuple[tuple[str, str], ...]
    fields: FieldFormats
    tips: Tips
    footer_links: tuple[tuple[str, str], ...] = ()
    notice: str = ""

    def span(self, table: str, row: Row, field: str, *, cls: str = "", title: str = "") -> str:
        """``title``: the element's tooltip (the whole of a value shown shortened, say)."""
        klass = f' class="{cls}"' if cls else ""
        titled = f' title="{attr(title)}"' if title else ""
        text = esc(self.fields.format_field(table, field, row))
        return f"<span {marks(table, row, field)}{klass}{titled}>{text}</span>"

    def cell(
        self, table: str, row: Row, field: str, *, href: str | None = None, cls: str = "", tag: str = "td"
    ) -> str:
        text = esc(self.fields.format_field(table, field, row))
        value = row.get(field.split(".", 1)[0])
        classes = " ".join(c for c in (cls, "num" if numeric(value) and "." not in field else "") if c)
        klass = f' class="{classes}"' if classes else ""
        inner = f'<a href="{attr(href)}">{text}</a>' if href else text
        scope = ' scope="row"' if tag == "th" else ""
        return f"<{tag}{scope} {marks(table, row, field)}{klass}>{inner}</{tag}>"

    def _head_cell(self, table: str, col: Col) -> str:
        field = f' data-field="{attr(col.field)}"' if col.field else ""
        return column_head(col.header, col.tip or self.tips(table, col.field), extra=field)

    def _compact_cell(self, table: str, row: Row, col: Col, look: str) -> str:
        shown = (
            self.fields.format_field(table, col.field, row)
            if col.field
            else col.text(row)
            if col.text
            else ""
        )
        text = esc(shown)
        href = col.href(row) if col.href else None
        inner = f'<a href="{attr(href)}">{text}</a>' if href else text
        klass = f' class="{look}"' if look else ""
        tip = col.title(row) if col.title else ""
        titled = f' title="{attr(tip)}"' if tip else ""
        return f"<td{klass}{titled}>{inner}</td>"

    def table_html(
        self,
        table: str,
        rows: Sequence[Row],
        cols: Sequence[Col],
        *,
        caption: str,
        empty: str = "none",
        scroll: bool = False,
        row_class: Callable[[Row], str] | None = None,
    ) -> str:
        """A compact table of ``table``'s rows: the row id once per row, the field once per column."""
        if not rows:
            return f'<p class="empty">{esc(caption)}: {esc(empty)}</p>'
        # A partition recorded under an older schema may lack a column; its table simply has one fewer.
        cols = [c for c in cols if c.field is None or any(c.field.split(".", 1)[0] in row for row in rows)]
        looks = _looks(rows, cols)
        table_classes = " ".join(
            f"{_LOOKS[c]}{i}"
            for i, look in enumerate(looks, start=1)
            if i <= COLUMN_CLASSES
            for c in look.split()
            if c in _LOOKS
        )
        cell_looks = [
            " ".join(c for c in look.split() if i > COLUMN_CLASSES or c not in _LOOKS)
            for i, look in enumerate(looks, start=1)
        ]
        head = "".join(self._head_cell(table, c) for c in cols)
        body = []
        for row in rows:
            klass = row_class(row) if row_class else ""
            cells = "".join(
                self._compact_cell(table, row, c, look) for c, look in zip(cols, cell_looks, strict=True)
            )
            row_attrs = f' data-id="{attr(row["id"])}"' + (f' class="{klass}"' if klass else "")
            body.append(f"<tr{row_attrs}>{cells}</tr>")
        wrap = "table-wrap scroll" if scroll else "table-wrap"
        klass = f' class="{table_classes}"' if table_classes else ""
        return (
            f'<div class="{wrap}"><table data-table="{attr(table)}"{klass}>\n'
            f"<caption>{esc(caption)}</caption>\n"
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody></table></div>"
        )

    def page_writer(
        self, writer: SiteWriter, *, built_at: str, versions: str, arenas: Sequence[tuple[str, str]] = ()
    ) -> Callable[[str, str, str], None]:
        """``page(relative, title, body)``: one whole page of this shell written at ``relative`` under
        ``writer``'s root, its depth and its place in the navigation read from that path."""

        def page(relative: str, title: str, body: str) -> None:
            writer.write(
                relative,
                self.layout(
                    title=title,
                    depth=relative.count("/"),
                    active=relative,
                    body=body,
                    built_at=built_at,
                    versions=versions,
                    arenas=arenas,
                ),
            )

        return page

    def layout(
        self,
        *,
        title: str,
        depth: int,
        active: str,
        body: str,
        built_at: str,
        versions: str,
        arenas: Sequence[tuple[str, str]] = (),
    ) -> str:
        """A whole page: ``depth`` is how many folders below the arena's root it lives, ``active`` its
        own path (marked as the current page in the navigation). ``arenas``: (home page, label) of
        every arena on the site, relative to this arena's root, this arena's own as ``index.html``
        (``plugin.Neighbours.arenas``); shown when the site has more than one."""
        root = "../" * depth
        current = ' aria-current="page"'
        links = "".join(
            f'<li><a href="{root}{href}"{current if href == active else ""}>{esc(name)}</a></li>'
            for href, name in self.nav
        )
        # This arena's home is "index.html" from its own root; every other arena's lies outside it.
        here = ' aria-current="true"'
        arena_links = "".join(
            f'<li><a href="{root}{href}"{here if href == "index.html" else ""}>{esc(name)}</a></li>'
            for href, name in arenas
        )
        arena_nav = (
            f'\n<nav class="arenas" aria-label="Arenas"><ul>{arena_links}</ul></nav>'
            if len(arenas) > 1
            else ""
        )
        footer_links = "".join(
            f' · <a href="{root}{href}">{esc(name)}</a>' for href, name in self.footer_links
        )
        home = self.nav[0][0] if self.nav else "index.html"
        return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="colosseum board">
<title>{attr(title)} · {attr(self.brand)}</title>
<link rel="stylesheet" href="{root}{STYLESHEET}">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<a class="brand" href="{root}{home}">{esc(self.brand)}</a>
<nav aria-label="Site"><ul>{links}</ul></nav>{arena_nav}
</header>
<main id="main">
{body}
</main>
<footer>
<p>Built {esc(built_at)} from the public record · {esc(versions)}{footer_links}</p>
<p>{esc(self.notice)}</p>
</footer>
</body>
</html>
"""
