"""The events board (COLOSSEUM-EVENTS-BOARD-1): every sealed event, built from its record alone.

``index.html`` lists the sealed events with their medals. Per event (``<event>/``): the standings
with their intervals, placements and medals, drawn as an interval chart above the table, with a
head-to-head matrix of the games below it (``pictures``), the fits (ν, White's share), the games,
the prompts verbatim, the frozen manifest with its signature (``manifest.json``, ``manifest.dsse.json``) and
every table as Parquet (``downloads/``). An event's own pages are drawn by its kind
(``events.kinds``): a chess event's game pages (``<event>/games/<id>.html``: the PGN, a board per
position, every attempt) by ``events.chess.pages``, which alone imports python-chess. Beside the
tables, what re-derives every number and ``recipes.html`` saying how (``site.downloads``). The same
record and ``built_at`` give the same bytes.

Every standings page opens with a key that says what each column means, and every column header
carries a tooltip, both from ``glossary``; a CALIBRATION event's house players are named first, with
the contender they stand in for beside them (``glossary.Names``), on every page and in the index.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.events.arena import EVENTS, MANIFEST_TABLES
from colosseum_core.events.bundle import BUNDLE_TABLE
from colosseum_core.events.kind import EventKind, EventPages
from colosseum_core.events.kinds import KINDS, kind_named
from colosseum_core.events.manifest import placement_rule
from colosseum_core.events.site import glossary
from colosseum_core.events.site.downloads import RECIPES, event_downloads, recipes_page
from colosseum_core.events.site.glossary import Names
from colosseum_core.record import RecordTables
from colosseum_core.record.layout import Record
from colosseum_core.site.formats import FieldFormats, fixed, integer
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.shell import VERIFY_NOTICE, Shell, attr, column_head, key_html, stylesheet
from colosseum_core.site.writer import SiteWriter, json_bytes
from colosseum_core.statistics.placement import PLACEMENT

BOARD_VERSION: Final = "COLOSSEUM-EVENTS-BOARD-1"
NAV: Final = (("index.html", "Events"),)
# Every table an event publishes, by its kind: its manifest, then its kind's tables.
DOWNLOADED: Final = {kind.name: (*MANIFEST_TABLES, *kind.tables) for kind in KINDS}
MEDALS: Final = {"gold": "gold", "silver": "silver", "bronze": "bronze"}
FIELDS: Final = FieldFormats(
    by_field={"rating": fixed(1), "low": fixed(1), "high": fixed(1), "games": integer, "points": fixed(1)}
)
SHELL: Final = Shell(
    brand="Colosseum events",
    nav=NAV,
    fields=FIELDS,
    tips=lambda table, field: "",
    notice=VERIFY_NOTICE,
)


@dataclasses.dataclass(frozen=True)
class EventsSiteReport:
    files: int
    bytes: int
    events: int
    games: int


def sealed_events(tables: RecordTables) -> list[str]:
    return [s.partition for s in Record(tables.root.parent.parent).seals(EVENTS).seals()]


def number(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def html_table(
    caption: str,
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    numeric: Sequence[int] = (),
    tips: Mapping[str, str] = glossary.TIPS,
) -> str:
    """A plain table; ``rows`` are already escaped HTML; ``numeric`` the columns of numbers; ``tips``
    each header's tooltip, by the header (``glossary``)."""
    heads = "".join(column_head(h, tips.get(h, "")) for h in head)
    body = "\n".join(
        "<tr>"
        + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return (
        f'<div class="table-wrap"><table>\n<caption>{esc(caption)}</caption>\n'
        f"<thead><tr>{heads}</tr></thead>\n"
        f"<tbody>\n{body}\n</tbody></table></div>"
    )


def download_name(event: str, table: str) -> str:
    return f"{event}/downloads/{table}.parquet"


def build_events_site(
    tables: RecordTables,
    out: Path,
    *,
    built_at: str,
    arenas: Sequence[tuple[str, str]] = (),
    kinds: Sequence[EventKind] = KINDS,
) -> EventsSiteReport:
    """The events board into ``out``; ``arenas``: the navigation between the site's arenas, kept in
    ``about.json`` so that the re-check builds the same bytes; each event's own pages are its kind's
    (``kinds``, the registry's)."""
    writer = SiteWriter(out)

    page = SHELL.page_writer(writer, built_at=built_at, versions=BOARD_VERSION, arenas=arenas)

    writer.write("style.css", stylesheet())
    events = sealed_events(tables)
    listed, games_written = [], 0
    for event in events:
        row = tables.read_checked("event_manifests", event).row(0, named=True)
        manifest = json.loads(row["manifest"])
        kind = kind_named(manifest["kind"], kinds)
        if kind is None:
            raise ValueError(f"event_manifests event {event}: kind {manifest['kind']!r} is no kind of event")
        published = (*MANIFEST_TABLES, *kind.tables)
        frames = {t: tables.read_checked(t, event) for t in published}
        writer.write(f"{event}/manifest.json", row["manifest"].encode("utf-8"))
        writer.write(f"{event}/manifest.dsse.json", json_bytes(json.loads(row["envelope"])))
        if tables.exists(BUNDLE_TABLE, event):
            bundle = tables.read_checked(BUNDLE_TABLE, event).row(0, named=True)
            writer.write(f"{event}/bundle.json", bundle["document"].encode("utf-8"))
            writer.write(f"{event}/bundle.dsse.json", json_bytes(json.loads(bundle["envelope"])))
            signed = ["bundle.json", "bundle.dsse.json"]
        else:
            signed = []
        downloads = []
        for table in published:
            writer.write(download_name(event, table), tables.read_bytes(table, event))
            downloads.append(f"downloads/{table}.parquet")
        derived = event_downloads(manifest, frames)
        for download in derived:
            writer.write(f"{event}/{download.name}", download.data)
            downloads.append(download.name)
        downloads += signed
        recipes = pl.read_parquet(io.BytesIO(next(d.data for d in derived if d.table == RECIPES)))
        page(f"{event}/recipes.html", f"{event}: recipes", recipes_page(event, recipes, downloads))
        downloads.append("recipes.html")
        drawn = kind.pages(EventPages(page, event, manifest, frames, downloads, html_table, MEDALS))
        standings, played = drawn.standings, drawn.played
        games_written += drawn.games
        names = Names(manifest)
        medals = {
            m: names.listed(standings.filter(pl.col("medal") == m)["contender"].sort().to_list()) or "–"
            for m in MEDALS
        }
        listed.append(
            [
                f'<a href="{attr(event)}/index.html">{esc(event)}</a>',
                esc(kind.name),
                esc(manifest["class"]),
                esc(number(len(manifest["contenders"]))),
                esc(number(played)),
                esc(medals["gold"]),
                esc(medals["silver"]),
                esc(medals["bronze"]),
                esc(placement_rule(manifest)),
            ]
        )
    intro = (
        "<h1>Events</h1>\n<p>Each event has its own standings and medals; there is no overall championship. "
        "An event is frozen in a signed manifest before its first game or question, and every result "
        "cites it. Medals go to placements 1–3 by the placement rule the event was frozen under (its "
        f"column): under {PLACEMENT} a contender's placement is 1 + the number of contenders whose 95 % "
        "interval lies wholly above its own; events sealed under COLOSSEUM-PLACEMENT-1 keep it."
        + (' <a href="#key">How to read this list</a>.' if listed else "")
        + "</p>\n"
    )
    head = ["Event", "Kind", "Class", "Contenders", "Games or items", "Gold", "Silver", "Bronze", "Placed by"]
    body = intro + (
        html_table("Sealed events", head, listed, numeric=(3, 4), tips=glossary.INDEX_TIPS)
        + key_html(glossary.INDEX_KEY, heading="How to read the events")
        if listed
        else '<p class="empty">No event is sealed yet.</p>'
    )
    page("index.html", "Events", body)
    writer.write(
        "about.json",
        json_bytes(
            {
                "board": BOARD_VERSION,
                "built_at": built_at,
                "events": events,
                "arenas": [list(a) for a in arenas],
            }
        ),
    )
    return EventsSiteReport(writer.files, writer.bytes, len(events), games_written)
