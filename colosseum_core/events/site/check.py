"""The events board read back from disk against the record: every page's shape (the shared check),
and the whole board built again from the record with the ``built_at`` it states (``about.json``),
file for file and byte for byte, so every standing, game, board, prompt and download is what the
record gives."""

from __future__ import annotations

from pathlib import Path

from colosseum_core.events.site.build import build_events_site
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


def events_site_problems(site: Path, tables: RecordTables, *, neighbours: Neighbours = ALONE) -> list[str]:
    try:
        board = read_board(site, neighbours, "the events board")
    except BoardUnreadable as exc:
        return [str(exc)]
    problems = navigation_problems(board, neighbours)
    linkable = set(board.files) | neighbours.files
    for name, path in board.files.items():
        if name.endswith(".html"):
            problems += page_problems(name, read_page(path.read_text(encoding="utf-8")), linkable)

    def build(directory: Path) -> None:
        build_events_site(tables, directory, built_at=board.built_at, arenas=board.arenas)

    return problems + rebuilt_problems(board, build, "events-board-check-")
