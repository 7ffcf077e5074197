"""The events board read back from disk against the record: every page's shape (the shared check),
and the whole board built again from the record with the ``built_at`` it states (``about.json``),
file for file and byte for byte, so every standing, game, board, prompt and download is what the
record gives."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from colosseum_core.events.site.build import build_events_site
from colosseum_core.record import RecordTables
from colosseum_core.site.check import page_problems
from colosseum_core.site.page_parse import read_page
from colosseum_core.site.plugin import ALONE, Neighbours
from colosseum_core.trust.bundle import ARENA_PEM, ENVELOPE_NAME, MANIFEST_NAME

SIGNED = frozenset({MANIFEST_NAME, ENVELOPE_NAME, ARENA_PEM})


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def events_site_problems(site: Path, tables: RecordTables, *, neighbours: Neighbours = ALONE) -> list[str]:
    problems: list[str] = []
    files = {n: p for n, p in _files(site).items() if n not in SIGNED and neighbours.owns(n)}
    about = files.get("about.json")
    if about is None:
        return [f"{site}: no about.json, so the events board cannot be rebuilt to compare"]
    try:
        document = json.loads(about.read_text())
        built_at = str(document["built_at"])
        arenas = tuple((str(href), str(label)) for href, label in document.get("arenas", []))
    except (ValueError, KeyError, TypeError) as exc:
        return [f"{site}/about.json: not the events board's about document ({exc})"]
    if arenas != neighbours.arenas:
        problems.append(
            f"about.json: the navigation between arenas {[list(a) for a in arenas]} is not the site's "
            f"{[list(a) for a in neighbours.arenas]}"
        )
    linkable = set(files) | neighbours.files
    for name, path in files.items():
        if name.endswith(".html"):
            problems += page_problems(name, read_page(path.read_text(encoding="utf-8")), linkable)
    with tempfile.TemporaryDirectory(prefix="events-board-check-") as scratch:
        again = Path(scratch) / "site"
        build_events_site(tables, again, built_at=built_at, arenas=arenas)
        rebuilt = _files(again)
        for name in sorted(set(rebuilt) - set(files)):
            problems.append(f"{name}: the record gives this file; the site lacks it")
        for name in sorted(set(files) - set(rebuilt)):
            problems.append(f"{name}: the site has this file; the record gives none")
        for name in sorted(set(files) & set(rebuilt)):
            if files[name].read_bytes() != rebuilt[name].read_bytes():
                problems.append(f"{name}: differs from the board the record gives")
    return problems
