"""Reading a built page as a reader sees it, for the boards' tests: its tables (caption, headers with
their tooltips, rows of cells with their text, tooltip and link), its headings, its key's terms and its
footer."""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser
from pathlib import Path


@dataclasses.dataclass
class Cell:
    text: str = ""
    title: str = ""
    href: str = ""


@dataclasses.dataclass
class Table:
    caption: str = ""
    head: list[str] = dataclasses.field(default_factory=list)
    tips: list[str] = dataclasses.field(default_factory=list)  # each header's tooltip
    rows: list[list[Cell]] = dataclasses.field(default_factory=list)

    def texts(self) -> list[list[str]]:
        return [[c.text for c in row] for row in self.rows]

    def column(self, header: str) -> list[Cell]:
        at = self.head.index(header)
        return [row[at] for row in self.rows]


class ReadPage(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Table] = []
        self.headings: list[str] = []  # <title>, h1–h3 and figure captions
        self.key: list[str] = []  # the terms of the key (section#key)
        self.footer = ""
        self._text: list[str] | None = None
        self._where: str | None = None
        self._cell: Cell | None = None
        self._row: list[Cell] | None = None
        self._in_head = self._in_key = self._in_footer = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section" and a.get("id") == "key":
            self._in_key = True
        elif tag == "footer":
            self._in_footer = True
        elif tag == "table":
            self.tables.append(Table())
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr" and self.tables and not self._in_head:
            self._row = []
        elif tag == "a" and self._cell is not None:
            self._cell.href = a.get("href") or ""
        if tag in ("td", "th", "caption", "h1", "h2", "h3", "dt", "figcaption", "title"):
            self._text, self._where = [], tag
            if tag in ("td", "th"):
                self._cell = Cell(title=a.get("title") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self._in_key = False
        elif tag == "footer":
            self._in_footer = False
        elif tag == "thead":
            self._in_head = False
        elif tag == "tr" and self._row is not None:
            self.tables[-1].rows.append(self._row)
            self._row = None
        elif tag == self._where and self._text is not None:
            text = "".join(self._text).strip()
            if tag == "caption":
                self.tables[-1].caption = text
            elif tag in ("td", "th") and self._cell is not None:
                self._cell.text = text
                if self._in_head:
                    self.tables[-1].head.append(text)
                    self.tables[-1].tips.append(self._cell.title)
                elif self._row is not None:
                    self._row.append(self._cell)
                self._cell = None
            elif tag == "dt" and self._in_key:
                self.key.append(text)
            elif tag in ("h1", "h2", "h3", "figcaption", "title"):
                self.headings.append(text)
            self._text = self._where = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)
        if self._in_footer:
            self.footer += data


def read_page_text(path: Path) -> ReadPage:
    page = ReadPage()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page
