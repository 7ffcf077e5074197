"""The debate board read back from disk against the record.

Two checks, each naming what differs: every value a page marks (``data-table``, ``data-id``,
``data-field``) is looked up by its row's identifier among the sealed epochs' tables and must be
the record's value as the board writes it; and the whole site is built again from the record with
the ``built_at`` it states (``about.json``), file for file and byte for byte (so the statistics,
the prompts, the downloads and every link are what the record gives). The shape of every page
(language, title, no script, relative links that resolve, no raw hidden code point) is the shared
check's.
"""

from __future__ import annotations

from pathlib import Path

from colosseum_core.debate.site.build import FIELDS, build_debate_site, read_sealed
from colosseum_core.record import RecordTables
from colosseum_core.site.check import (
    BoardUnreadable,
    navigation_problems,
    page_problems,
    read_board,
    rebuilt_problems,
)
from colosseum_core.site.page_parse import read_page
from colosseum_core.site.plugin import ALONE, Neighbours


def debate_site_problems(site: Path, tables: RecordTables, *, neighbours: Neighbours = ALONE) -> list[str]:
    """``neighbours``: the other arenas' parts of the site (links may reach them; the navigation
    between arenas the board was built with is ``about.json``'s, and must be theirs)."""
    try:
        board = read_board(site, neighbours, "the board")
    except BoardUnreadable as exc:
        return [str(exc)]
    problems = navigation_problems(board, neighbours)
    files = board.files
    linkable = set(files) | neighbours.files
    record = read_sealed(tables)
    by_id = {table: {row["id"]: row for row in frame.to_dicts()} for table, frame in record.frames.items()}
    for name, path in files.items():
        if not name.endswith(".html"):
            continue
        marks = read_page(path.read_text(encoding="utf-8"))
        problems += page_problems(name, marks, linkable)
        for table, row_id, field, text in marks.cells:
            row = by_id.get(table, {}).get(row_id or "")
            if row is None:
                problems.append(f"{name}: {table} row {row_id} is not a row of a sealed epoch")
                continue
            if field is None:
                continue
            wanted = FIELDS.format_field(table, field, row)
            if text != wanted:
                problems.append(
                    f"{name}: {table} row {row_id} field {field}: shows {text!r}, the record {wanted!r}"
                )
        for table, row_id in marks.rows:
            if row_id not in by_id.get(table, {}):
                problems.append(f"{name}: {table} row {row_id} is not a row of a sealed epoch")

    def build(directory: Path) -> None:
        build_debate_site(tables, directory, built_at=board.built_at, arenas=board.arenas)

    return problems + rebuilt_problems(board, build, "debate-board-check-")
