"""The re-reading check: the BUILT site, read back from disk, against the record.

Independent of how the pages were written: every HTML page is read back (``page_parse``: compact
tables in the builder's fixed shape by regular expression, everything else by ``html.parser``), every
JSON file with ``json`` and every Parquet download with polars, and each published value is compared
with the record row it names. Pages mark values as ``data-table``/``data-id``/``data-field`` elements,
or as compact tables (table, row id and column field named once each); the record value is formatted
by the same one-function-per-kind formatter and must match the text exactly (a hidden code point's
visible escape reads as the code point; one standing raw on a page, where a reader would not see it or
would see the text around it reordered, is named with the value it sits in). Any answer-bearing row
(answers, answer lines, signatures, scores) of a card that is not releasable, wherever it appears, is
reported as published early (method §11). Two tables no record file holds are counted here from the
record, by code of the check's own: a card's verdict summary (from ranked_candidates) and its sweep
accounting (from sweeps, verbatim_markets and copy_errors). A number a plot shows is marked on its SVG
``<text>`` like a page's, and read back the same way.

A card is on the board sealed (it has a packet) or missed (its card_status says so, and it has no
packet). A missed card has a page and a JSON document and nothing else: they must show its
card_status row (status, kind, the card that overtook it, why, the rules) and its sweep, and no other
card table. Each card page states its card's status (``data-partition-status``); a page that shows a
sealed card as missed, or a missed card as sealed, or states nothing, is named, and so is a missed
card's JSON that is not a missed card's document.

A card's own files (its page, its full ranked list, its JSON and its Parquet downloads) are checked
together, card by card; with many cards, in worker processes.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from operator import itemgetter
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import polars as pl

from colosseum_core.forecast.answering.seats import Seat
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.rules import COLOSSEUM_SCORING
from colosseum_core.forecast.site.build import (
    CARD_JSON_TABLES,
    DOWNLOADS,
    JSON_FILES,
    MISSED_CARD_TABLES,
    PER_CARD_DOWNLOADS,
    UNPARTITIONED,
    calibration_plot,
    card_download,
    card_json,
    card_page,
    elsewhere_document,
    ranked_page,
    standing_plot,
)
from colosseum_core.forecast.site.documents import (
    ACCOUNTING_SOURCES,
    ALWAYS_ACCOUNTED,
    BOARD_FORMAT,
    CONFLICTING_IDS,
    COPIED,
    CUT_CONTEXT,
    FIELD_ERRORS,
    PAGE_ERRORS,
    REPEATS,
    SWEEP_ACCOUNTING,
    VERDICT_SUMMARY,
    pseudo_rows,
    rules_document,
    seats_document,
    site_document,
    summary_id,
)
from colosseum_core.forecast.site.fields import MISSED, SEALED, format_field, formatter
from colosseum_core.forecast.site.release import ANSWER_TABLES, ReleaseState, release_state
from colosseum_core.forecast.sweep.copy import CONFLICT_FIELD, CONFLICT_WORDS, PAGE_FIELD
from colosseum_core.record import RecordTables
from colosseum_core.record.storage import read_parquet, scan_parquet
from colosseum_core.site.check import page_problems, svg_cells
from colosseum_core.site.formats import plain
from colosseum_core.site.page_parse import Cell, read_page
from colosseum_core.site.plugin import ALONE, Neighbours
from colosseum_core.site.writer import RESERVED

KINDS: Final = ("FIGHT", "CALIBRATION")
PAGES: Final = ("index.html", "cards/index.html", "seats.html", "keys.html", "rules.html", "calibration.html")
# Enough mismatches per file and column to see the pattern without drowning the check's output.
MAX_PER_COLUMN: Final = 10
# Cards per worker process below which the check stays in one process (a worker costs an import).
CARDS_PER_WORKER: Final = 24
_CARD: Final = "\x00card"
# Tables the check counts from a card's record tables itself; no file of the record holds them.
DERIVED: Final = frozenset({VERDICT_SUMMARY, SWEEP_ACCOUNTING})
# What a missed card's page must show of its card_status row: every fact the record gives about it.
MISSED_FIELDS: Final = ("status", "kind", "overtaken_by", "reason", "rules")
_CARD_FILE: Final = re.compile(
    r"^(?:cards/(?!index\.html$)([^/]+)\.html|cards/([^/]+)/ranked\.html|data/cards/([^/]+)\.json"
    r"|data/(?:" + "|".join(PER_CARD_DOWNLOADS) + r")/([^/]+)\.parquet)$"
)


def card_of_file(name: str) -> str | None:
    """The card a file of the site belongs to (its page, ranked list, JSON, downloads), or None."""
    match = _CARD_FILE.match(name)
    return None if match is None else next(g for g in match.groups() if g is not None)


class _Record:
    """Record rows by table and id, read per card on demand (a card's files need only its own card)."""

    def __init__(self, tables: RecordTables, pseudo: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
        self.tables = tables
        self.pseudo = pseudo
        self._card: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self._frames: dict[tuple[str, str], pl.DataFrame | None] = {}
        self._everywhere: dict[str, dict[str, tuple[str | None, dict[str, Any]]]] = {}

    def known(self, table: str) -> bool:
        return table in self.pseudo or table in UNPARTITIONED or table in DOWNLOADS or table in DERIVED

    def read(self, table: str, card: str) -> pl.DataFrame | None:
        """The record's file of ``table`` for ``card`` (None if there is none), read once."""
        key = (table, card)
        if key not in self._frames:
            if len(self._frames) > 256:
                self._frames.clear()  # cards are checked one after another; old cards are not asked again
            try:
                exists = self.tables.exists(table, card)
            except ValueError:  # a hand-made file name that is no card key at all
                exists = False
            self._frames[key] = self.tables.read(table, card) if exists else None
        return self._frames[key]

    def partition(self, table: str, card: str) -> dict[str, dict[str, Any]]:
        key = (table, card)
        if key not in self._card:
            if len(self._card) > 256:
                self._card.clear()  # cards are checked one after another; old cards are not asked again
            if table == VERDICT_SUMMARY:
                self._card[key] = _verdict_counts(self.read("ranked_candidates", card))
            elif table == SWEEP_ACCOUNTING:
                self._card[key] = _accounting_counts(self.tables, card)
            else:
                frame = self.read(table, card)
                self._card[key] = {} if frame is None else {r["id"]: r for r in frame.iter_rows(named=True)}
        return self._card[key]

    def forget(self, card: str) -> None:
        for key in [k for k in self._card if k[1] == card]:
            del self._card[key]
        for key in [k for k in self._frames if k[1] == card]:
            del self._frames[key]

    def everywhere(self, table: str) -> dict[str, tuple[str | None, dict[str, Any]]]:
        if table not in self._everywhere:
            found: dict[str, tuple[str | None, dict[str, Any]]] = {}
            if table in self.pseudo:
                found = {i: (None, dict(r)) for i, r in self.pseudo[table].items()}
            elif table in UNPARTITIONED:
                if self.tables.exists(table):
                    found = {r["id"]: (None, r) for r in self.tables.read(table).iter_rows(named=True)}
            elif table not in DERIVED:
                for card in self.tables.partitions(table):
                    frame = self.read(table, card)
                    for r in () if frame is None else frame.iter_rows(named=True):
                        found.setdefault(r["id"], (card, r))
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
            scan_parquet(self.tables.path(table, card)).with_columns(pl.lit(card).alias(_CARD))
            for card in self.tables.partitions(table)
        ]
        return pl.concat(scans, how="diagonal_relaxed").collect() if scans else None


def _verdict_counts(ranked: pl.DataFrame | None) -> dict[str, dict[str, Any]]:
    """The verdict summary of a card, counted from its ranked_candidates here, not by the builder."""
    if ranked is None:
        return {}
    counts = ranked.group_by("verdict", "rule").agg(pl.len().alias("count"))
    rows = (
        {"id": summary_id(v, r), "verdict": v, "rule": r, "count": int(n)}
        for v, r, n in counts.select("verdict", "rule", "count").iter_rows()
    )
    return {row["id"]: row for row in rows}


def _accounting_counts(tables: RecordTables, card: str) -> dict[str, dict[str, Any]]:
    """The sweep accounting of a card, counted here from its sweeps, verbatim_markets and copy_errors.

    The listings the sweep received (sweeps.markets) are the markets copied (verbatim_markets rows),
    the listings quarantined one by one (copy_errors rows naming a field of a market), and the rest:
    repeats. Quarantined ids published with different contents, and pages, are counted as copy_errors
    rows of their own. Counts that are zero are not rows, but copied and repeats always are.
    """
    if not all(tables.exists(table, card) for table in ACCOUNTING_SOURCES):
        return {}
    sweeps = read_parquet(tables.path("sweeps", card), columns=["markets"])
    if sweeps.height != 1:
        return {}
    copied = read_parquet(tables.path("verbatim_markets", card), columns=["market_id"]).height
    errors = read_parquet(tables.path("copy_errors", card), columns=["field", "error"])
    page = (errors["field"] == PAGE_FIELD).fill_null(False)
    named = errors["error"].str.contains(CONFLICT_WORDS, literal=True)
    conflict = ((errors["field"] == CONFLICT_FIELD) & named).fill_null(False) & ~page
    pages, conflicts = int(page.sum()), int(conflict.sum())
    fields = errors.height - pages - conflicts
    counts = {
        COPIED: copied,
        REPEATS: int(sweeps["markets"][0]) - copied - fields,
        FIELD_ERRORS: fields,
        CONFLICTING_IDS: conflicts,
        PAGE_ERRORS: pages,
    }
    return {
        name: {"id": name, "count": count}
        for name, count in counts.items()
        if name in ALWAYS_ACCOUNTED or count
    }


def _around_the_cut(ranked: pl.DataFrame | None) -> set[str]:
    """The ids the card page and its JSON show of the ranked list: selected, and the best excluded."""
    if ranked is None:
        return set()
    placed = ranked.filter(pl.col("rank").is_not_null()).sort("rank")
    selected = placed.filter(pl.col("verdict") == "selected")["id"].to_list()
    excluded = placed.filter(pl.col("verdict") != "selected").head(CUT_CONTEXT)["id"].to_list()
    return set(selected) | set(excluded)


class _Check:
    def __init__(
        self,
        site: Path,
        tables: RecordTables,
        seats: Sequence[Seat],
        state: ReleaseState,
        files: frozenset[str],
        missed: frozenset[str] = frozenset(),
    ) -> None:
        self.site = site
        self.seats = seats
        self.state = state
        self.files = files  # every file of the site, the signer's included: what a link may point to
        self.cards = list(state.cards)
        self.sealed = set(state.cards)
        self.missed = set(missed) - self.sealed
        self.released = set(state.released)
        self.seats_doc = seats_document(seats)
        self.rules_doc = rules_document()
        self.record = _Record(tables, pseudo_rows(self.seats_doc, self.rules_doc))
        self.problems: dict[str, list[str]] = {}
        self.early: dict[tuple[str, str], None] = {}
        self._unreleased_answer_ids: dict[str, tuple[str, str]] | None = None

    # --- reporting ----------------------------------------------------------------------------------

    def problem(self, message: str) -> None:
        self.problems.setdefault(message.split(": ", 1)[0], []).append(message)

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
                        frame = self.record.read(table, card)
                        for row_id in () if frame is None else frame["id"].to_list():
                            ids[row_id] = (table, card)
            self._unreleased_answer_ids = ids
        return self._unreleased_answer_ids

    # --- files ----------------------------------------------------------------------------------------

    def expected_files(self) -> list[str]:
        files = [*PAGES, "downloads.html", "style.css", *JSON_FILES]
        files += [f"data/{table}.parquet" for table in DOWNLOADS]
        for card in self.cards:
            files += [card_page(card), ranked_page(card), card_json(card)]
            for directory, table in PER_CARD_DOWNLOADS.items():
                shown = table not in ANSWER_TABLES or card in self.released
                if shown and self.record.tables.exists(table, card):
                    files.append(card_download(directory, card))
        for card in sorted(self.missed):
            files += [card_page(card), card_json(card)]
        for kind in KINDS:
            files.append(standing_plot(kind))
            files += [calibration_plot(kind, seat.id) for seat in self.seats]
        return files

    def check_file(self, name: str) -> None:
        path = self.site / name
        if name.endswith(".html"):
            self.check_html(name, path)
        elif name.endswith(".json"):
            self.check_json(name, path)
        elif name.endswith(".parquet"):
            self.check_parquet(name, path)
        elif name.endswith(".svg"):
            self.check_svg(name, path)

    def check_cards(self, names: Iterable[str]) -> None:
        """The files of one card after another (``names`` in card order), forgetting each card's rows."""
        current: str | None = None
        for name in names:
            card = card_of_file(name)
            if current is not None and card != current:
                self.record.forget(current)
            current = card
            self.check_file(name)

    # --- HTML -------------------------------------------------------------------------------------------

    def check_html(self, name: str, path: Path) -> None:
        try:
            marks = read_page(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, AssertionError) as exc:
            self.problem(f"{name}: cannot be read as HTML ({exc})")
            return
        card = card_of_file(name)
        if card is not None:
            self.check_stated_status(name, card, marks.statuses)
        for problem in page_problems(name, marks, self.files):
            self.problem(problem)
        self.check_cells(name, card, marks.cells)
        # A row whose values were checked was named by them if it is not the record's.
        checked = set(map(itemgetter(1), marks.cells))
        for table, row_id in marks.rows:
            if row_id not in checked:
                self.check_row(name, card, table, row_id)
        if name in ("index.html", "cards/index.html"):
            self.check_card_lists(name, marks.cells, marks.rows, marks.refs)
        if card is not None and card in self.missed:
            if name == card_page(card):
                self.check_missed_page(name, card, marks.cells, marks.refs)
        elif card is not None and name == ranked_page(card):
            shown = {row_id for table, row_id in marks.rows if table == "ranked_candidates"}
            self.check_shown(
                name, "ranked_candidates", shown, set(self.record.partition("ranked_candidates", card))
            )
        elif card is not None and name == card_page(card):
            shown = {row_id for table, row_id in marks.rows if table == VERDICT_SUMMARY}
            self.check_shown(name, VERDICT_SUMMARY, shown, set(self.record.partition(VERDICT_SUMMARY, card)))
            accounted = set(self.record.partition(SWEEP_ACCOUNTING, card))
            self.check_shown(
                name,
                SWEEP_ACCOUNTING,
                _shown(SWEEP_ACCOUNTING, marks.cells, marks.rows),
                accounted,
                what="a count of this card's sweep",
            )
            shown = {row_id for table, row_id in marks.rows if table == "ranked_candidates"}
            around = _around_the_cut(self.record.read("ranked_candidates", card))
            self.check_shown(name, "ranked_candidates", shown, around, what="one of the rows around the cut")
            for table in ("card_status", "sweeps"):
                shown = _shown(table, marks.cells, marks.rows)
                self.check_shown(name, table, shown, set(self.record.partition(table, card)))

    def check_stated_status(self, name: str, card: str, stated: Sequence[str]) -> None:
        """A card's file belongs to a card on the board, and states the status the record gives it."""
        if card in self.missed:
            recorded = MISSED
            if name != card_page(card):
                self.problem(f"{name}: card {card} was missed; a missed card has only its page and its JSON")
        elif card in self.sealed:
            recorded = SEALED
        else:
            self.problem(f"{name}: a page for card {card}, which is neither a sealed nor a missed card")
            return
        if name == card_page(card) and not stated:
            self.problem(f"{name}: does not state whether card {card} is sealed or missed (it is {recorded})")
        for status in sorted(set(stated) - {recorded}):
            self.problem(f"{name}: shows card {card} as {status!r}, but the record has it {recorded}")

    def missed_rows(self) -> dict[str, dict[str, Any]]:
        """The card_status rows that say missed, of the missed cards, by id."""
        return {
            row_id: row
            for card in sorted(self.missed)
            for row_id, row in self.record.partition("card_status", card).items()
            if row.get("status") == MISSED
        }

    def check_overtaker_links(
        self, name: str, rows: Iterable[Mapping[str, Any]], refs: Iterable[tuple[str, str, str]]
    ) -> None:
        """Each missed card's "overtaken by" links to that card's page, where the board has one."""
        targets = {
            posixpath.normpath(posixpath.join(posixpath.dirname(name), urlsplit(ref).path))
            for tag, attr, ref in refs
            if tag == "a" and attr == "href"
        }
        for row in rows:
            later = row.get("overtaken_by")
            on_board = isinstance(later, str) and (later in self.sealed or later in self.missed)
            if on_board and card_page(str(later)) not in targets:
                page = card_page(str(later))
                self.problem(f"{name}: card_status row {row['id']} field overtaken_by: no link to {page}")

    def check_card_lists(
        self,
        name: str,
        cells: Sequence[Cell],
        rows: Sequence[tuple[str, str]],
        refs: Sequence[tuple[str, str, str]],
    ) -> None:
        """The board's lists of cards: every missed card, and (cards/index.html) every sealed card."""
        missed = self.missed_rows()
        shown = _shown("card_status", cells, rows)
        self.check_shown(name, "card_status", shown, set(missed), what="the status of a missed card")
        if name == "cards/index.html":
            self.check_overtaker_links(name, missed.values(), refs)
            packets = set(self.record.everywhere("packet"))
            self.check_shown(name, "packet", _shown("packet", cells, rows), packets, what="a sealed card")

    def check_missed_page(
        self, name: str, card: str, cells: Sequence[Cell], refs: Sequence[tuple[str, str, str]]
    ) -> None:
        """A missed card's page: every fact of its card_status rows and its sweep; nothing else of a card."""
        status = self.record.partition("card_status", card)
        fields = {(row_id, field) for table, row_id, field, _ in cells if table == "card_status"}
        for row_id in sorted(status):
            for field in MISSED_FIELDS:
                if (row_id, field) not in fields:
                    self.problem(f"{name}: card_status row {row_id} field {field}: not shown")
        self.check_shown(name, "card_status", {row_id for row_id, _ in fields if row_id}, set(status))
        sweeps = {row_id for table, row_id, _, _ in cells if table == "sweeps" and row_id}
        self.check_shown(name, "sweeps", sweeps, set(self.record.partition("sweeps", card)))
        self.check_overtaker_links(name, status.values(), refs)

    def check_row(self, name: str, card: str | None, table: str, row_id: str) -> None:
        """A compact table's row that shows no value: still a row of the record, and no early answer."""
        if not table or not self.record.known(table):
            self.problem(f"{name}: {table} row {row_id}: {table!r} is not a published table")
            return
        found = self.record.find(table, row_id, card)
        if found is None:
            self.problem(f"{name}: {table} row {row_id}: no such row in the record")
            self.unknown_row(name, card, table, row_id)
            return
        row_card, _ = found
        if table in ANSWER_TABLES:
            if not self.releasable(row_card):
                self.published_early(str(row_card), name)
            if card is not None and row_card != card and not self.releasable(card):
                self.published_early(card, name)

    def unknown_row(self, name: str, card: str | None, table: str, row_id: str) -> None:
        """A row id the record does not have under ``table``: early if it claims to be an unreleased
        card's answer, or if it is one under another table's name."""
        if table in ANSWER_TABLES and card is not None and not self.releasable(card):
            self.published_early(card, name)
        hidden = self.unreleased_answer_ids().get(row_id)
        if hidden is not None:
            self.published_early(hidden[1], name)

    def check_cells(self, name: str, card: str | None, cells: Iterable[Cell]) -> None:
        """Each published value against the record's, formatted; a compact table's cells come row by row."""
        writers: dict[str, dict[str, tuple[Callable[[Any], str], str | None]]] = {}
        by_field: dict[str, tuple[Callable[[Any], str], str | None]] = {}
        last_table: str | None = None
        last_id: str | None = None
        row: dict[str, Any] | None = None
        for table, row_id, field, text in cells:
            if row_id != last_id or table != last_table or row_id is None:
                if table != last_table:
                    by_field = writers.setdefault(table, {})
                last_table, last_id = table, row_id
                row = self.cell_row(name, card, table, row_id, field, text)
            elif row is None:
                self.cell_row(name, card, table, row_id, field, text)  # names this cell too
            if row is None:
                continue
            assert field is not None and row_id is not None  # cell_row gives no row without them
            writer = by_field.get(field)
            if writer is None:
                writer = by_field[field] = _writer(table, field)
            write, column = writer
            try:
                expected = write(row[column]) if column is not None else write(row)
            except (KeyError, ValueError, AttributeError, TypeError):
                self.problem(f"{name}: {table} row {row_id}: the record has no field {field!r}")
                continue
            if text != expected:
                self.problem(
                    f"{name}: {table} row {row_id} field {field}: published {text!r}, record {expected!r}"
                )

    def cell_row(
        self, name: str, card: str | None, table: str, row_id: str | None, field: str | None, text: str
    ) -> dict[str, Any] | None:
        """The record row a published value names, or None after naming why there is none to compare."""
        if not table or not row_id or not field:
            self.problem(f"{name}: an element with data-table={table!r} lacks data-id or data-field")
            return None
        if not self.record.known(table):
            self.problem(f"{name}: {table} row {row_id} field {field}: {table!r} is not a published table")
            return None
        found = self.record.find(table, row_id, card)
        if found is None:
            self.problem(
                f"{name}: {table} row {row_id} field {field}: no such row in the record (published {text!r})"
            )
            self.unknown_row(name, card, table, row_id)
            return None
        row_card, row = found
        if table in ANSWER_TABLES and not self.releasable(row_card):
            self.published_early(str(row_card), name)
        if card is not None and row_card is not None and row_card != card:
            self.problem(f"{name}: {table} row {row_id} belongs to card {row_card}, not {card}")
            if table in ANSWER_TABLES and not self.releasable(card):
                self.published_early(card, name)
        return row

    def check_shown(
        self, name: str, table: str, shown: set[str], expected: set[str], *, what: str = ""
    ) -> None:
        """The rows of ``table`` shown are ``expected``: none missing and, given ``what`` they must be, none
        else."""
        missing = sorted(expected - shown)
        for row_id in missing[:MAX_PER_COLUMN]:
            self.problem(f"{name}: {table} row {row_id} of the record is missing")
        if len(missing) > MAX_PER_COLUMN:
            self.problem(f"{name}: {table}: {len(missing)} rows of the record are missing in all")
        if what:
            for row_id in sorted(shown - expected)[:MAX_PER_COLUMN]:
                self.problem(f"{name}: {table} row {row_id}: not {what}")

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
            expected = site_document(str(built_at), self.cards, self.released, sorted(self.missed))
            self.compare_value(name, "", document, expected)
        elif name.startswith("data/cards/"):
            self.check_card_json(name, name.removeprefix("data/cards/").removesuffix(".json"), document)

    def check_card_json(self, name: str, card: str, document: Any) -> None:
        if not isinstance(document, dict) or not isinstance(document.get("tables"), dict):
            self.problem(f"{name}: not a card document (no tables)")
            return
        if card in self.missed:
            self.check_missed_json(name, card, document)
            return
        if card not in self.sealed:
            self.problem(f"{name}: card {card} is neither a sealed nor a missed card of the record")
        released = self.releasable(card)
        self.compare_value(name, "format", document.get("format"), BOARD_FORMAT)
        self.compare_value(name, "card", document.get("card"), card)
        self.compare_value(name, "released", document.get("released"), released)
        self.compare_value(
            name, "status", document.get("status"), "released" if released else "awaiting answers"
        )
        packet = self.record.partition("packet", card)
        kind = next(iter(packet.values()))["kind"] if packet else None
        self.compare_value(name, "kind", document.get("kind"), kind)
        ranked = self.record.read("ranked_candidates", card)
        scores = self.record.read("scores", card) if released else None
        elsewhere = elsewhere_document(
            card, None if ranked is None else ranked.height, None if scores is None else scores.height
        )
        self.compare_value(name, "elsewhere", document.get("elsewhere"), elsewhere)
        for table, block in document["tables"].items():
            rows = self.table_rows(name, table, block)
            if rows is None:
                continue
            if table in ANSWER_TABLES and rows and not released:
                self.published_early(card, name)
            if table not in CARD_JSON_TABLES:
                self.problem(f"{name}: tables.{table}: not a table of the card document")
            expected = _around_the_cut(ranked) if table == "ranked_candidates" else None
            self.check_rows(name, table, rows, card=card, expected=expected)
        for table in CARD_JSON_TABLES:
            shown = table not in ANSWER_TABLES or released
            if table == SWEEP_ACCOUNTING:
                recorded = bool(self.record.partition(SWEEP_ACCOUNTING, card))
            else:
                recorded = self.record.tables.exists(
                    "ranked_candidates" if table == VERDICT_SUMMARY else table, card
                )
            if shown and table not in document["tables"] and recorded:
                self.problem(f"{name}: tables.{table}: missing (the record has it for card {card})")

    def check_missed_json(self, name: str, card: str, document: dict[str, Any]) -> None:
        """A missed card's document: its card_status and sweeps rows, no answers, no other table."""
        status = self.record.partition("card_status", card)
        kind = next((row.get("kind") for row in status.values()), None)
        self.compare_value(name, "format", document.get("format"), BOARD_FORMAT)
        self.compare_value(name, "card", document.get("card"), card)
        self.compare_value(name, "kind", document.get("kind"), kind)
        self.compare_value(name, "released", document.get("released"), False)
        self.compare_value(name, "status", document.get("status"), MISSED)
        self.compare_value(name, "elsewhere", document.get("elsewhere"), {})
        for table, block in document["tables"].items():
            rows = self.table_rows(name, table, block)
            if rows is None:
                continue
            if table in ANSWER_TABLES and rows:
                self.published_early(card, name)
            if table not in MISSED_CARD_TABLES:
                self.problem(f"{name}: tables.{table}: not a table of a missed card's document")
            self.check_rows(name, table, rows, card=card)
        for table in MISSED_CARD_TABLES:
            if table not in document["tables"] and self.record.tables.exists(table, card):
                self.problem(f"{name}: tables.{table}: missing (the record has it for card {card})")

    def table_rows(self, name: str, table: str, block: Any) -> list[dict[str, Any]] | None:
        """A card document's table, ``{"columns": [...], "rows": [[...], ...]}``, as one dict per row."""
        columns = block.get("columns") if isinstance(block, dict) else None
        rows = block.get("rows") if isinstance(block, dict) else None
        if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
            self.problem(f"{name}: tables.{table}: no list of column names")
            return None
        if len(set(columns)) != len(columns):
            self.problem(f"{name}: tables.{table}: a column is named twice")
            return None
        if not isinstance(rows, list):
            self.problem(f"{name}: tables.{table}: rows are not a list")
            return None
        out = []
        for i, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != len(columns):
                self.problem(f"{name}: tables.{table}.rows[{i}]: not a list of {len(columns)} values")
                continue
            out.append(dict(zip(columns, row, strict=True)))
        return out

    def check_rows(
        self, name: str, table: str, rows: Any, *, card: str | None, expected: set[str] | None = None
    ) -> None:
        """Each row against the record's; ``expected``: the ids that must be there (default: all)."""
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
        if expected is None:
            if table in UNPARTITIONED:
                expected = set(self.record.everywhere(table))
            elif card is not None and (table not in ANSWER_TABLES or self.releasable(card)):
                expected = set(self.record.partition(table, card))
            else:
                expected = set()
        around = table == "ranked_candidates" and card is not None
        self.check_shown(name, table, seen, expected, what="one of the rows around the cut" if around else "")

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
        for value in _strings(document):
            if value in hidden:
                self.published_early(hidden[value][1], name)

    # --- Parquet ----------------------------------------------------------------------------------------

    def check_parquet(self, name: str, path: Path) -> None:
        try:
            published = read_parquet(path)
        except Exception as exc:  # polars raises several kinds for a damaged file; all mean the same here
            self.problem(f"{name}: cannot be read as Parquet ({exc})")
            return
        if "id" not in published.columns:
            self.problem(f"{name}: no id column")
            return
        hidden = self.unreleased_answer_ids()
        if hidden:
            for row_id in published["id"].drop_nulls().to_list():
                if row_id in hidden:
                    self.published_early(hidden[row_id][1], name)
        card = card_of_file(name)
        if card is not None:
            self.check_card_parquet(name, card, published)
            return
        table = name.removeprefix("data/").removesuffix(".parquet")
        if name.count("/") != 1 or table not in DOWNLOADS:
            return
        self.check_duplicates(name, table, published)
        record = self.record.frame(table)
        if record is None:
            if published.height:
                self.problem(f"{name}: {published.height} row(s) of {table}, which has no rows in the record")
            return
        # public_keys repeats a key on every card it signed; one row per id is what is published.
        record = record.unique("id", keep="first", maintain_order=True)
        self.compare_frames(name, table, published.unique("id", keep="first", maintain_order=True), record)

    def check_card_parquet(self, name: str, card: str, published: pl.DataFrame) -> None:
        """``data/<dir>/<key>.parquet``: the record's rows of the card, exactly; answers once released."""
        table = PER_CARD_DOWNLOADS[name.split("/")[1]]
        if card not in self.sealed:
            self.problem(f"{name}: card {card} is not a sealed card of the record")
            return
        if table in ANSWER_TABLES and not self.releasable(card):
            self.problem(f"{name}: {table} of card {card}, whose answers may not be published yet")
            if published.height:
                self.published_early(card, name)
            return
        record = self.record.read(table, card)
        if record is None:
            if published.height:
                self.problem(f"{name}: {published.height} row(s) of {table}, which card {card} has not")
            return
        if published.equals(record):
            return
        self.check_duplicates(name, table, published)
        self.compare_frames(
            name,
            table,
            published.unique("id", keep="first", maintain_order=True),
            record.with_columns(pl.lit(card).alias(_CARD)),
        )

    def check_duplicates(self, name: str, table: str, published: pl.DataFrame) -> None:
        duplicated = published.filter(pl.col("id").is_duplicated())["id"].unique().sort().to_list()
        for row_id in duplicated[:MAX_PER_COLUMN]:
            self.problem(f"{name}: {table} row {row_id} is published more than once")

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
                if row_card in self.missed and table not in MISSED_CARD_TABLES:
                    self.problem(f"{name}: {table} has rows of card {row_card}, which was missed")
                elif row_card not in self.sealed and row_card not in self.missed:
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
            if table in MISSED_CARD_TABLES:
                cards += sorted(self.missed)
            wanted = record.filter(pl.col(_CARD).is_in(cards))
        missing = wanted.filter(~pl.col("id").is_in(published["id"].implode()))["id"].unique().sort()
        for row_id in missing.head(MAX_PER_COLUMN).to_list():
            self.problem(f"{name}: {table} row {row_id} of the record is missing")
        if missing.len() > MAX_PER_COLUMN:
            self.problem(f"{name}: {table}: {missing.len()} rows of the record are missing in all")

    # --- SVG --------------------------------------------------------------------------------------------

    def check_svg(self, name: str, path: Path) -> None:
        problems, cells = svg_cells(name, path.read_bytes())
        for problem in problems:
            self.problem(problem)
        # A number a plot shows from the record is marked as on a page, and read back the same way.
        self.check_cells(name, None, cells)


def _shown(table: str, cells: Iterable[Cell], rows: Iterable[tuple[str, str]]) -> set[str]:
    """The ids of ``table``'s rows a page shows, as values or as compact rows."""
    return {row_id for t, row_id, _, _ in cells if t == table and row_id} | {
        row_id for t, row_id in rows if t == table
    }


def missed_cards(tables: RecordTables, sealed: Iterable[str]) -> frozenset[str]:
    """The cards the record has as missed: a card_status row says so, and the card has no packet."""
    done = set(sealed)
    found = set()
    for card in tables.partitions("card_status"):
        if card not in done and MISSED in tables.read("card_status", card)["status"].to_list():
            found.add(card)
    return frozenset(found)


def _writer(table: str, field: str) -> tuple[Callable[[Any], str], str | None]:
    """``format_field`` of one field, looked up once: (formatter of the row's value, column), or
    (formatter of the whole row, None) for a field that is not simply a column."""
    if "." in field or " " in field:
        return (lambda row: format_field(table, field, row)), None
    return formatter(table, field), field


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


def _strings(document: Any) -> Iterable[str]:
    """Every string in a JSON document, keys included: an id may sit anywhere (columns and rows)."""
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            yield from (k for k in value if isinstance(k, str))
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


# --- running the check -----------------------------------------------------------------------------------

Findings = tuple[dict[str, list[str]], list[tuple[str, str]]]


def _check_cards(
    site: str,
    root: str,
    seats: Sequence[Seat],
    state: ReleaseState,
    files: frozenset[str],
    missed: frozenset[str],
    names: list[str],
) -> Findings:
    """Check the files of a batch of cards, in a worker process."""
    check = _Check(Path(site), RecordTables(root, FORECAST.partition), seats, state, files, missed)
    check.check_cards(names)
    return check.problems, list(check.early)


def _mp_context() -> multiprocessing.context.BaseContext:
    # Polars runs its own thread pool; a forked child of a process that used it can deadlock.
    return multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")


def site_problems(
    site: Path,
    tables: RecordTables,
    seats: Sequence[Seat],
    *,
    workers: int | None = None,
    neighbours: Neighbours = ALONE,
) -> list[str]:
    """Every way the built site at ``site`` differs from the record or breaks the release rule; [] if none.

    ``workers``: processes for the cards' files (default: one per ``CARDS_PER_WORKER`` cards, at most
    one per CPU; 1 checks everything in this process). The result does not depend on it.
    ``neighbours``: the other arenas' parts of the site, left to their own checks (links may reach them).
    """
    site = Path(site)
    if not site.is_dir():
        return [f"{site}: the site directory does not exist"]
    state = release_state(tables, seats)
    everything = frozenset(
        {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()} | neighbours.files
    )
    present = sorted(name for name in everything if name not in RESERVED and neighbours.owns(name))
    missed = missed_cards(tables, state.cards)
    check = _Check(site, tables, seats, state, everything, missed)
    missing = [f"{name}: missing from the site" for name in check.expected_files() if name not in everything]

    by_card: dict[str, list[str]] = {}
    for name in present:
        card = card_of_file(name)
        if card is None:
            check.check_file(name)
        else:
            by_card.setdefault(card, []).append(name)
    findings: list[Findings] = [(check.problems, list(check.early))]
    batches = [by_card[card] for card in sorted(by_card)]
    if workers is None:
        workers = min(os.cpu_count() or 1, math.ceil(len(batches) / CARDS_PER_WORKER))
    root = str(tables.root)
    if workers <= 1 or len(batches) < 2:
        check.problems, check.early = {}, {}
        check.check_cards(name for names in batches for name in names)
        findings.append((check.problems, list(check.early)))
    else:
        size = max(1, math.ceil(len(batches) / (workers * 4)))
        chunks = [
            [name for names in batches[i : i + size] for name in names] for i in range(0, len(batches), size)
        ]
        with ProcessPoolExecutor(max_workers=workers, mp_context=_mp_context()) as pool:
            futures = [
                pool.submit(_check_cards, str(site), root, seats, state, everything, missed, chunk)
                for chunk in chunks
            ]
            findings += [future.result() for future in futures]

    by_file: dict[str, list[str]] = {}
    early: dict[tuple[str, str], None] = {}
    for problems, found_early in findings:
        for file, messages in problems.items():
            by_file.setdefault(file, []).extend(messages)
        early.update(dict.fromkeys(found_early))
    ordered = [message for file in sorted(by_file) for message in by_file[file]]
    return (
        missing + ordered + [f"card {card}: answer published early ({file})" for card, file in sorted(early)]
    )
