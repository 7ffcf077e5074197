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

import json
import tempfile
from pathlib import Path

from colosseum_core.debate.site.build import FIELDS, build_debate_site, read_sealed
from colosseum_core.record import RecordTables
from colosseum_core.site.check import page_problems
from colosseum_core.site.page_parse import read_page
from colosseum_core.site.plugin import ALONE, Neighbours
from colosseum_core.trust.bundle import ARENA_PEM, ENVELOPE_NAME, MANIFEST_NAME

SIGNED = frozenset({MANIFEST_NAME, ENVELOPE_NAME, ARENA_PEM})


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def debate_site_problems(site: Path, tables: RecordTables, *, neighbours: Neighbours = ALONE) -> list[str]:
    """``neighbours``: the other arenas' parts of the site (links may reach them; the navigation
    between arenas the board was built with is ``about.json``'s, and must be theirs)."""
    problems: list[str] = []
    files = {
        name: path for name, path in _files(site).items() if name not in SIGNED and neighbours.owns(name)
    }
    about = files.get("about.json")
    if about is None:
        return [f"{site}: no about.json, so the board cannot be rebuilt to compare"]
    try:
        document = json.loads(about.read_text())
        built_at = str(document["built_at"])
        arenas = tuple((str(href), str(label)) for href, label in document.get("arenas", []))
    except (ValueError, KeyError, TypeError) as exc:
        return [f"{site}/about.json: not the board's about document ({exc})"]
    if arenas != neighbours.arenas:
        problems.append(
            f"about.json: the navigation between arenas {[list(a) for a in arenas]} is not the site's "
            f"{[list(a) for a in neighbours.arenas]}"
        )
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
    with tempfile.TemporaryDirectory(prefix="debate-board-check-") as scratch:
        again = Path(scratch) / "site"
        build_debate_site(tables, again, built_at=built_at, arenas=arenas)
        rebuilt = _files(again)
        for name in sorted(set(rebuilt) - set(files)):
            problems.append(f"{name}: the record gives this file; the site lacks it")
        for name in sorted(set(files) - set(rebuilt)):
            problems.append(f"{name}: the site has this file; the record gives none")
        for name in sorted(set(files) & set(rebuilt)):
            if files[name].read_bytes() != rebuilt[name].read_bytes():
                problems.append(f"{name}: differs from the board the record gives")
    return problems
