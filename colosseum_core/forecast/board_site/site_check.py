"""The re-reading check: the BUILT site, read back from disk, against the record.

Independent of how the pages were written: every HTML page is parsed with ``html.parser``, every JSON
file with ``json`` and every Parquet download with polars, and each published value is compared with
the record row it names. Pages mark values as ``data-table``/``data-id``/``data-field`` elements; the
record value is formatted by the same one-function-per-kind formatter and must match the text exactly.
Any answer-bearing row (answers, answer lines, signatures, scores) of a card that is not releasable,
wherever it appears, is reported as published early (method §11).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import polars as pl

from colosseum_core.forecast.board_site.build import (
    CARD_TABLES,
    DOWNLOADS,
    JSON_FILES,
    RESERVED,
    UNPARTITIONED,
    calibration_plot,
    standing_plot,
)
from colosseum_core.forecast.board_site.documents import (
    BOARD_FORMAT,
    pseudo_rows,
    rules_document,
    seats_document,
    site_document,
)
from colosseum_core.forecast.board_site.formats import format_field, plain
from colosseum_core.forecast.board_site.release import ANSWER_TABLES, ReleaseState, release_state
from colosseum_core.record import RecordTables
from colosseum_core.rules import COLOSSEUM_SCORING
from colosseum_core.seats import Seat

KINDS: Final = ("FIGHT", "CALIBRATION")
PAGES: Final = ("index.html", "cards/index.html", "seats.html", "keys.html", "rules.html", "calibration.html")
# Enough mismatches per file and column to see the pattern without drowning the check's output.
MAX_PER_COLUMN: Final = 10
_CARD: Final = "\x00card"
_VOID_TAGS: Final = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


class _Page(HTMLParser):
    """Every marked element with its text, every link and image, as a browser would see them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str | None] | None, list[str]]] = []
        self.cells: list[tuple[str, dict[str, str | None], str]] = []
        self.refs: list[tuple[str, str, str]] = []
        self.images: list[dict[str, str | None]] = []
        self.scripts = 0
        self.lang: str | None = None
        self.title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang")
        elif tag == "title":
            self.title = True
        elif tag == "script":
            self.scripts += 1
        elif tag == "img":
            self.images.append(a)
        for name in ("href", "src"):
            if a.get(name) is not None:
                self.refs.append((tag, name, str(a[name])))
        marked = a if "data-table" in a else None
        if tag in _VOID_TAGS:
            if marked is not None:
                self.cells.append((tag, marked, ""))
            return
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
        if marked is not None:
            body = "".join(text)
            if tag == "pre" and body.startswith("\n"):
                body = body[1:]  # a browser drops the newline right after <pre>; the builder adds one
            self.cells.append((tag, marked, body))

    def handle_data(self, data: str) -> None:
        for _, marked, text in self.stack:
            if marked is not None:
                text.append(data)

    def close(self) -> None:
        super().close()
        while self.stack:
            self._close()


class _Record:
    """Record rows by table and id, read per card on demand (a card page needs only its own card)."""

    def __init__(self, tables: RecordTables, pseudo: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
        self.tables = tables
        self.pseudo = pseudo
        self._card: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self._everywhere: dict[str, dict[str, tuple[str | None, dict[str, Any]]]] = {}

    def known(self, table: str) -> bool:
        return table in self.pseudo or table in UNPARTITIONED or table in DOWNLOADS

    def partition(self, table: str, card: str) -> dict[str, dict[str, Any]]:
        key = (table, card)
        if key not in self._card:
            if len(self._card) > 64:
                self._card.clear()  # pages are checked card by card; old cards are not asked again
            try:
                frame = self.tables.read(table, card) if self.tables.exists(table, card) else None
            except ValueError:  # a hand-made file name that is no card key at all
                frame = None
            self._card[key] = {} if frame is None else {r["id"]: r for r in frame.iter_rows(named=True)}
        return self._card[key]

    def everywhere(self, table: str) -> dict[str, tuple[str | None, dict[str, Any]]]:
        if table not in self._everywhere:
            found: dict[str, tuple[str | None, dict[str, Any]]] = {}
            if table in self.pseudo:
                found = {i: (None, dict(r)) for i, r in self.pseudo[table].items()}
            elif table in UNPARTITIONED:
                if self.tables.exists(table):
                    found = {r["id"]: (None, r) for r in self.tables.read(table).iter_rows(named=True)}
            else:
                for card in self.tables.partitions(table):
                    for i, r in self.partition(table, card).items():
                        found.setdefault(i, (card, r))
            self._everywhere[table] = found
        return self._everywhere[table]

    def find(self, table: str, row_id: str, card: str | None) -> tuple[str | None, dict[str, Any]] | None:
        if card is not None and table not in UNPARTITIONED and table not in self.pseudo:
            row = self.partition(table, card).get(row_id)
            if row is not None:
                return card, row
        return self.everywhere(table).get(row_id)

    def frame(self, table: str) -> pl.DataFrame | None:
        """Every record row of ``table`` with the card it was recorded under."""
        if table in UNPARTITIONED:
            if not self.tables.exists(table):
                return None
            return self.tables.read(table).with_columns(pl.lit(None, pl.String).alias(_CARD))
        scans = [
            pl.scan_parquet(self.tables.path(table, card)).with_columns(pl.lit(card).alias(_CARD))
            for card in self.tables.partitions(table)
        ]
        return pl.concat(scans, how="diagonal_relaxed").collect() if scans else None


class _Check:
    def __init__(self, site: Path, tables: RecordTables, seats: Sequence[Seat], state: ReleaseState) -> None:
        self.site = site
        self.seats = seats
        self.state = state
        self.cards = list(state.cards)
        self.released = set(state.released)
        self.seats_doc = seats_document(seats)
        self.rules_doc = rules_document()
        self.record = _Record(tables, pseudo_rows(self.seats_doc, self.rules_doc))
        self.problems: list[str] = []
        self.early: dict[tuple[str, str], None] = {}
        self._unreleased_answer_ids: dict[str, tuple[str, str]] | None = None

    # --- reporting ----------------------------------------------------------------------------------

    def problem(self, message: str) -> None:
        self.problems.append(message)

    def published_early(self, card: str, file: str) -> None:
        self.early.setdefault((card, file), None)

    def releasable(self, card: str | None) -> bool:
        return card is not None and card in self.released

    def unreleased_answer_ids(self) -> dict[str, tuple[str, str]]:
        """Every answer-bearing row id of a card that may not be published: id → (table, card)."""
        if self._unreleased_answer_ids is None:
            ids: dict[str, tuple[str, str]] = {}
            for table in ANSWER_TABLES:
                for card in self.record.tables.partitions(table):
                    if card not in self.released:
                        for row_id in self.record.partition(table, card):
                            ids[row_id] = (table, card)
            self._unreleased_answer_ids = ids
        return self._unreleased_answer_ids

    # --- files ----------------------------------------------------------------------------------------

    def expected_files(self) -> list[str]:
        files = [*PAGES, "downloads.html", "style.css", *JSON_FILES]
        files += [f"data/{table}.parquet" for table in DOWNLOADS]
        files += [f"cards/{card}.html" for card in self.cards] + [
            f"data/cards/{card}.json" for card in self.cards
        ]
        for kind in KINDS:
            files.append(standing_plot(kind))
            files += [calibration_plot(kind, seat.id) for seat in self.seats]
        return files

    def run(self) -> list[str]:
        if not self.site.is_dir():
            return [f"{self.site}: the site directory does not exist"]
        present = {
            p.relative_to(self.site).as_posix(): p
            for p in sorted(self.site.rglob("*"))
            if p.is_file() and p.relative_to(self.site).as_posix() not in RESERVED
        }
        for name in self.expected_files():
            if name not in present:
                self.problem(f"{name}: missing from the site")
        for name, path in present.items():
            if name.endswith(".html"):
                self.check_html(name, path)
            elif name.endswith(".json"):
                self.check_json(name, path)
            elif name.endswith(".parquet"):
                self.check_parquet(name, path)
            elif name.endswith(".svg"):
                self.check_svg(name, path)
        return self.problems + [f"card {card}: answer published early ({file})" for card, file in self.early]

    # --- HTML -------------------------------------------------------------------------------------------

    def page_card(self, name: str) -> str | None:
        if name.startswith("cards/") and name != "cards/index.html":
            return name.removeprefix("cards/").removesuffix(".html")
        return None

    def check_html(self, name: str, path: Path) -> None:
        page = _Page()
        try:
            page.feed(path.read_text(encoding="utf-8"))
            page.close()
        except (UnicodeDecodeError, AssertionError) as exc:
            self.problem(f"{name}: cannot be read as HTML ({exc})")
            return
        card = self.page_card(name)
        if card is not None and card not in self.cards:
            self.problem(f"{name}: a page for card {card}, which is not a sealed card of the record")
        if not page.lang:
            self.problem(f"{name}: <html> has no lang")
        if not page.title:
            self.problem(f"{name}: no <title>")
        if page.scripts:
            self.problem(f"{name}: {page.scripts} <script> element(s); the board runs no script")
        for image in page.images:
            if not image.get("alt"):
                self.problem(f"{name}: <img src={image.get('src')!r}> has no alt text")
        for tag, attr, ref in page.refs:
            self.check_ref(name, path, tag, attr, ref)
        for _tag, attrs, text in page.cells:
            self.check_cell(name, card, attrs, text)

    def check_ref(self, name: str, path: Path, tag: str, attr: str, ref: str) -> None:
        parts = urlsplit(ref)
        if parts.scheme or parts.netloc or ref.startswith("/"):
            self.problem(f"{name}: <{tag} {attr}={ref!r}> is not a relative link")
            return
        if not parts.path:
            return  # a fragment of the same page
        target = (path.parent / parts.path).resolve()
        root = self.site.resolve()
        if root not in target.parents or not target.is_file():
            self.problem(f"{name}: <{tag} {attr}={ref!r}> points to no file of the site")

    def check_cell(self, name: str, card: str | None, attrs: Mapping[str, str | None], text: str) -> None:
        table, row_id, field = attrs.get("data-table"), attrs.get("data-id"), attrs.get("data-field")
        if not table or not row_id or not field:
            self.problem(f"{name}: an element with data-table={table!r} lacks data-id or data-field")
            return
        if not self.record.known(table):
            self.problem(f"{name}: {table} row {row_id} field {field}: {table!r} is not a published table")
            return
        found = self.record.find(table, row_id, card)
        if found is None:
            self.problem(
                f"{name}: {table} row {row_id} field {field}: no such row in the record (published {text!r})"
            )
            if table in ANSWER_TABLES and card is not None and not self.releasable(card):
                self.published_early(card, name)
            return
        row_card, row = found
        if table in ANSWER_TABLES:
            if not self.releasable(row_card):
                self.published_early(str(row_card), name)
            if card is not None and row_card != card:
                self.problem(f"{name}: {table} row {row_id} belongs to card {row_card}, not {card}")
                if not self.releasable(card):
                    self.published_early(card, name)
        try:
            expected = format_field(table, field, row)
        except (KeyError, ValueError, AttributeError):
            self.problem(f"{name}: {table} row {row_id}: the record has no field {field!r}")
            return
        if text != expected:
            self.problem(
                f"{name}: {table} row {row_id} field {field}: published {text!r}, record {expected!r}"
            )

    # --- JSON -------------------------------------------------------------------------------------------

    def check_json(self, name: str, path: Path) -> None:
        try:
            document = json.loads(path.read_bytes())
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.problem(f"{name}: cannot be read as JSON ({exc})")
            return
        self.scan_for_answers(name, document)
        if name in ("data/leaderboard.json", "data/calibration.json"):
            table = name.removeprefix("data/").removesuffix(".json")
            self.compare_value(name, "format", document.get("format"), BOARD_FORMAT)
            self.compare_value(name, "formula", document.get("formula"), COLOSSEUM_SCORING)
            self.check_rows(name, table, document.get("rows"), card=None)
        elif name == "data/seats.json":
            self.compare_value(name, "", document, self.seats_doc)
        elif name == "data/rules.json":
            self.compare_value(name, "", document, self.rules_doc)
        elif name == "data/site.json":
            built_at = document.get("built_at") if isinstance(document, dict) else None
            if not isinstance(built_at, str):
                self.problem(f"{name}: built_at is not a string")
            expected = site_document(str(built_at), self.cards, self.released)
            self.compare_value(name, "", document, expected)
        elif name.startswith("data/cards/"):
            self.check_card_json(name, name.removeprefix("data/cards/").removesuffix(".json"), document)

    def check_card_json(self, name: str, card: str, document: Any) -> None:
        if not isinstance(document, dict) or not isinstance(document.get("tables"), dict):
            self.problem(f"{name}: not a card document (no tables)")
            return
        if card not in self.cards:
            self.problem(f"{name}: card {card} is not a sealed card of the record")
        released = self.releasable(card)
        self.compare_value(name, "card", document.get("card"), card)
        self.compare_value(name, "released", document.get("released"), released)
        self.compare_value(
            name, "status", document.get("status"), "released" if released else "awaiting answers"
        )
        packet = self.record.partition("packet", card)
        kind = next(iter(packet.values()))["kind"] if packet else None
        self.compare_value(name, "kind", document.get("kind"), kind)
        for table, rows in document["tables"].items():
            if table in ANSWER_TABLES and rows and not released:
                self.published_early(card, name)
            self.check_rows(name, table, rows, card=card)
        for table in CARD_TABLES:
            shown = table not in ANSWER_TABLES or released
            if shown and table not in document["tables"] and self.record.tables.exists(table, card):
                self.problem(f"{name}: tables.{table}: missing (the record has it for card {card})")

    def check_rows(self, name: str, table: str, rows: Any, *, card: str | None) -> None:
        if not isinstance(rows, list):
            self.problem(f"{name}: {table}: rows are not a list")
            return
        if not self.record.known(table):
            self.problem(f"{name}: {table!r} is not a published table")
            return
        seen: set[str] = set()
        for row in rows:
            row_id = row.get("id") if isinstance(row, dict) else None
            if not isinstance(row_id, str):
                self.problem(f"{name}: {table}: a row without an id")
                continue
            seen.add(row_id)
            found = self.record.find(table, row_id, card)
            if found is None:
                self.problem(f"{name}: {table} row {row_id}: no such row in the record")
                continue
            row_card, record_row = found
            if card is not None and row_card != card:
                self.problem(f"{name}: {table} row {row_id} belongs to card {row_card}, not {card}")
            if table in ANSWER_TABLES and not self.releasable(row_card):
                self.published_early(str(row_card), name)
            self.compare_row(name, table, row_id, row, plain(record_row))
        if table in UNPARTITIONED:
            expected = set(self.record.everywhere(table))
        elif card is not None and (table not in ANSWER_TABLES or self.releasable(card)):
            expected = set(self.record.partition(table, card))
        else:
            expected = set()
        for row_id in sorted(expected - seen)[:MAX_PER_COLUMN]:
            self.problem(f"{name}: {table} row {row_id} of the record is missing")

    def compare_row(
        self, name: str, table: str, row_id: str, published: Mapping[str, Any], record: Mapping[str, Any]
    ) -> None:
        for field in sorted(set(published) | set(record)):
            if field not in record:
                self.problem(f"{name}: {table} row {row_id} field {field}: not a field of the record")
            elif field not in published:
                self.problem(
                    f"{name}: {table} row {row_id} field {field}: missing (record {record[field]!r})"
                )
            elif not _same(published[field], record[field]):
                self.problem(
                    f"{name}: {table} row {row_id} field {field}: published {published[field]!r}, "
                    f"record {record[field]!r}"
                )

    def compare_value(self, name: str, where: str, published: Any, expected: Any) -> None:
        """Walk two JSON values side by side, naming the path of every difference."""
        if isinstance(expected, dict) and isinstance(published, dict):
            for key in sorted(set(expected) | set(published)):
                path = f"{where}.{key}" if where else key
                if key not in published:
                    self.problem(f"{name}: {path}: missing (expected {expected[key]!r})")
                elif key not in expected:
                    if not (where == "" and key == "built_at"):
                        self.problem(f"{name}: {path}: not expected (published {published[key]!r})")
                else:
                    self.compare_value(name, path, published[key], expected[key])
        elif isinstance(expected, list) and isinstance(published, list) and len(expected) == len(published):
            for i, (p, e) in enumerate(zip(published, expected, strict=True)):
                self.compare_value(name, f"{where}[{i}]", p, e)
        elif not _same(published, expected):
            self.problem(f"{name}: {where or 'document'}: published {published!r}, expected {expected!r}")

    def scan_for_answers(self, name: str, document: Any) -> None:
        """Any row id of an unreleased card's answers, anywhere in a JSON document, is an early answer."""
        hidden = self.unreleased_answer_ids()
        if not hidden:
            return
        for value in _ids(document):
            if value in hidden:
                self.published_early(hidden[value][1], name)

    # --- Parquet ----------------------------------------------------------------------------------------

    def check_parquet(self, name: str, path: Path) -> None:
        try:
            published = pl.read_parquet(path)
        except Exception as exc:  # polars raises several kinds for a damaged file; all mean the same here
            self.problem(f"{name}: cannot be read as Parquet ({exc})")
            return
        table = name.removeprefix("data/").removesuffix(".parquet")
        if "id" not in published.columns:
            self.problem(f"{name}: no id column")
            return
        hidden = self.unreleased_answer_ids()
        if hidden:
            for row_id in published["id"].drop_nulls().to_list():
                if row_id in hidden:
                    self.published_early(hidden[row_id][1], name)
        if name.count("/") != 1 or table not in DOWNLOADS:
            return
        duplicated = published.filter(pl.col("id").is_duplicated())["id"].unique().sort().to_list()
        for row_id in duplicated[:MAX_PER_COLUMN]:
            self.problem(f"{name}: {table} row {row_id} is published more than once")
        record = self.record.frame(table)
        if record is None:
            if published.height:
                self.problem(f"{name}: {published.height} row(s) of {table}, which has no rows in the record")
            return
        # public_keys repeats a key on every card it signed; one row per id is what is published.
        record = record.unique("id", keep="first", maintain_order=True)
        self.compare_frames(name, table, published.unique("id", keep="first", maintain_order=True), record)

    def compare_frames(self, name: str, table: str, published: pl.DataFrame, record: pl.DataFrame) -> None:
        suffix, marker = "\x00record", "\x00known"
        renamed = record.rename({c: c + suffix for c in record.columns if c != "id"}).with_columns(
            pl.lit(True).alias(marker)
        )
        joined = published.join(renamed, on="id", how="left")
        known = pl.col(marker).is_not_null()
        for row in joined.filter(~known).head(MAX_PER_COLUMN).iter_rows(named=True):
            row_card = row.get("card")
            if table in ANSWER_TABLES and isinstance(row_card, str) and not self.releasable(row_card):
                self.published_early(row_card, name)
            self.problem(f"{name}: {table} row {row['id']}: no such row in the record")
        if table not in UNPARTITIONED:
            for row_card in joined.filter(known)[_CARD + suffix].unique().sort().to_list():
                if row_card not in self.cards:
                    self.problem(f"{name}: {table} has rows of card {row_card}, which is not a sealed card")
                elif table in ANSWER_TABLES and not self.releasable(row_card):
                    self.published_early(row_card, name)
        for column in published.columns:
            if column == "id":
                continue
            if column + suffix not in joined.columns:
                self.problem(f"{name}: {table} column {column} is not a column of the record")
                continue
            if joined[column].dtype != joined[column + suffix].dtype:
                self.problem(
                    f"{name}: {table} column {column} is {joined[column].dtype}, "
                    f"the record's is {joined[column + suffix].dtype}"
                )
                continue
            differs = joined.filter(known & pl.col(column).ne_missing(pl.col(column + suffix)))
            for row in differs.head(MAX_PER_COLUMN).select("id", column, column + suffix).iter_rows():
                self.problem(
                    f"{name}: {table} row {row[0]} field {column}: published {plain(row[1])!r}, "
                    f"record {plain(row[2])!r}"
                )
        for column in record.columns:
            if column != _CARD and column not in published.columns:
                self.problem(f"{name}: {table} column {column} of the record is missing")
        self.check_missing_rows(name, table, published, record)

    def check_missing_rows(
        self, name: str, table: str, published: pl.DataFrame, record: pl.DataFrame
    ) -> None:
        if table in UNPARTITIONED:
            wanted = record
        else:
            cards = [c for c in self.cards if table not in ANSWER_TABLES or c in self.released]
            wanted = record.filter(pl.col(_CARD).is_in(cards))
        missing = wanted.filter(~pl.col("id").is_in(published["id"].implode()))["id"].unique().sort()
        for row_id in missing.head(MAX_PER_COLUMN).to_list():
            self.problem(f"{name}: {table} row {row_id} of the record is missing")
        if missing.len() > MAX_PER_COLUMN:
            self.problem(f"{name}: {table}: {missing.len()} rows of the record are missing in all")

    # --- SVG --------------------------------------------------------------------------------------------

    def check_svg(self, name: str, path: Path) -> None:
        try:
            root = ET.fromstring(path.read_bytes())
        except ET.ParseError as exc:
            self.problem(f"{name}: not well-formed XML ({exc})")
            return
        if root.tag != "{http://www.w3.org/2000/svg}svg":
            self.problem(f"{name}: the root element is {root.tag}, not an SVG <svg>")
        for attribute in ("width", "height", "viewBox"):
            if not root.get(attribute):
                self.problem(f"{name}: <svg> has no {attribute}")


def _same(published: Any, expected: Any) -> bool:
    """JSON equality that keeps true apart from 1 and 1 apart from "1"; 1 and 1.0 are one number."""
    if isinstance(published, bool) or isinstance(expected, bool):
        return type(published) is type(expected) and published == expected
    if isinstance(published, int | float) and isinstance(expected, int | float):
        return published == expected
    if isinstance(published, list) and isinstance(expected, list):
        return len(published) == len(expected) and all(
            _same(p, e) for p, e in zip(published, expected, strict=True)
        )
    if isinstance(published, dict) and isinstance(expected, dict):
        return published.keys() == expected.keys() and all(
            _same(published[k], expected[k]) for k in published
        )
    return type(published) is type(expected) and published == expected


def _ids(document: Any) -> Iterable[str]:
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("id", "record_id", "answer_line_id") and isinstance(item, str):
                    yield item
                else:
                    stack.append(item)
        elif isinstance(value, list):
            stack.extend(value)


def site_problems(site: Path, tables: RecordTables, seats: Sequence[Seat]) -> list[str]:
    """Every way the built site at ``site`` differs from the record or breaks the release rule; [] if none."""
    state = release_state(tables, seats)
    return _Check(Path(site), tables, seats, state).run()
