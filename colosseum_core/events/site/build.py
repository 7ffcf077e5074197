"""The events board (COLOSSEUM-EVENTS-BOARD-1): every sealed event, built from its record alone.

``index.html`` lists the sealed events with their medals. Per event (``<event>/``): the standings
with their intervals, placements and medals, drawn as an interval chart above the table, with a
head-to-head matrix of the games below it (``pictures``), the fits (ν, White's share), the games,
the prompts verbatim, the frozen manifest with its signature (``manifest.json``, ``manifest.dsse.json``) and
every table as Parquet (``downloads/``). A chess event's game pages (``<event>/games/<id>.html``:
the PGN, a board per position, every attempt) are written by ``events.chess.pages``, which alone
imports python-chess. Beside the tables, what re-derives every number and ``recipes.html`` saying how
(``site.downloads``). The same record and ``built_at`` give the same bytes.

Every standings page opens with a key that says what each column means, and every column header
carries a tooltip, both from ``glossary``; a CALIBRATION event's house players are named first, with
the contender they stand in for beside them (``glossary.Names``), on every page and in the index.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.events.arena import (
    CHALLENGE_CLOSING_TABLES,
    CHALLENGE_WRITTEN_TABLES,
    CHESS_GAME_TABLES,
    CHESS_STANDING_TABLES,
    EVENTS,
    MANIFEST_TABLES,
    SOO_REPLY_TABLES,
    SOO_STANDING_TABLES,
)
from colosseum_core.events.bundle import BUNDLE_TABLE
from colosseum_core.events.manifest import placement_rule
from colosseum_core.events.site import glossary, pictures
from colosseum_core.events.site.downloads import RECIPES, event_downloads, recipes_page
from colosseum_core.events.site.glossary import Names
from colosseum_core.record import RecordTables
from colosseum_core.record.layout import Record
from colosseum_core.site.formats import FieldFormats, fixed, integer
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.shell import VERIFY_NOTICE, Shell, attr, column_head, key_html, stylesheet
from colosseum_core.site.writer import SiteWriter, json_bytes
from colosseum_core.statistics.placement import PLACEMENT
from colosseum_core.statistics.placement import reading as placement_reading

BOARD_VERSION: Final = "COLOSSEUM-EVENTS-BOARD-1"
NAV: Final = (("index.html", "Events"),)
DOWNLOADED: Final = {
    "chess": (*MANIFEST_TABLES, *CHESS_GAME_TABLES, *CHESS_STANDING_TABLES),
    "solve-or-object": (*MANIFEST_TABLES, *SOO_REPLY_TABLES, *SOO_STANDING_TABLES),
    "challenge": (*MANIFEST_TABLES, *CHALLENGE_WRITTEN_TABLES, *CHALLENGE_CLOSING_TABLES),
}
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


def _num(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def _share(value: Any) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


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


def _standings_rows(ordered: pl.DataFrame, names: Names) -> list[list[str]]:
    """The standings table's rows, in ``ordered``'s order (``pictures.in_table_order``)."""
    rows = []
    for r in ordered.iter_rows(named=True):
        interval = f"[{_num(r['low'])}, {_num(r['high'])}]" if r["low"] is not None else "–"
        clean = (
            f"{_num(r['sensitivity_rating'])} [{_num(r['sensitivity_low'])}, {_num(r['sensitivity_high'])}]"
            if r["sensitivity_rating"] is not None
            else "–"
        )
        # The standings' own model column says what answered; a stand-in's says what it stands in for.
        who = names.of(r["contender"])
        rows.append(
            [
                esc(_num(r["placement"], 0)) + (f" {esc(MEDALS[r['medal']])}" if r["medal"] else ""),
                f'<span class="nowrap">{esc(who.played)}</span>',
                esc(who.beside if who.stands_in_for else r["model"]),
                esc(_num(r["rating"])),
                esc(interval),
                esc(_num(r["games"])),
                esc(_num(r["points"])),
                esc(f"{r['wins']}–{r['draws']}–{r['losses']}"),
                esc(f"{r['forfeits']} ({_share(r['forfeit_rate'])})"),
                esc(f"{r['rejected']} of {r['attempts']} ({_share(r['rejected_rate'])})"),
                esc(f"{clean} (n {r['sensitivity_games']})"),
            ]
        )
    return rows


def _event_page(
    event: str, manifest: dict[str, Any], frames: dict[str, pl.DataFrame], downloads: list[str]
) -> str:
    standings, fits = pictures.in_table_order(frames["chess_standings"], "rating"), frames["chess_fit"]
    names = Names(manifest)
    suite = manifest["suite"]
    fit_rows = [
        [
            esc(f["fit"].replace("_", " ")),
            esc(f["status"]),
            esc(_num(f["games"])),
            esc(_num(f["draws"])),
            esc(_num(f["clusters"])),
            esc(f"{_num(f['nu'], 4)} [{_num(f['nu_low'], 4)}, {_num(f['nu_high'], 4)}]"),
            esc(_num(f["degenerate"])),
            esc(
                f"{_share(f['white_share'])} [{_share(f['white_low'])}, {_share(f['white_high'])}], "
                f"{_num(f['white_elo'])} Elo"
                if f["white_share"] is not None
                else "–"
            ),
        ]
        for f in fits.iter_rows(named=True)
    ]
    first = fits.row(0, named=True)
    anchors = [c for c in manifest["contenders"] if c["kind"] == "engine"]
    anchor_text = ", ".join(f"{c['id']} ({c['engine']}, {c['nodes']:,} nodes)" for c in anchors) or "none"
    links = "".join(f'<li><a href="{attr(d)}">{esc(d.rsplit("/", 1)[-1])}</a></li>' for d in downloads)
    cited = frames["chess_standings"]["manifest_sha256"][0]
    placed_by = esc(placement_reading(placement_rule(manifest)))
    standing_head = [
        "Place",
        "Player",
        "Plays as",
        "Rating",
        "95 % interval",
        "Games",
        "Points",
        "W–D–L",
        "Forfeits",
        "Rejected attempts",
        "Without forfeits",
    ]
    fit_head = [
        "Fit",
        "Status",
        "Games",
        "Draws",
        "Game pairs",
        "ν [95 %]",
        "Degenerate replicates",
        "White's share of the points",
    ]
    standings_table = html_table(
        "Standings",
        standing_head,
        _standings_rows(standings, names),
        numeric=(3, 5, 6),
        tips=glossary.CHESS_STANDINGS_TIPS,
    )
    standings_chart = pictures.standings_chart(
        "chess-standings-chart",
        "Rating and 95 % interval of each player, in the table's order (chess_standings: rating, low, "
        "high, placement; medals coloured)",
        standings,
        names,
        point="rating",
        axis="rating (Elo scale)",
        digits=1,
    )
    head_to_head = pictures.head_to_head_chart("chess-head-to-head", frames["chess_games"], standings, names)
    fits_table = html_table("Fits", fit_head, fit_rows, numeric=(2, 3, 4, 6), tips=glossary.CHESS_FIT_TIPS)
    return f"""<h1>{esc(event)}</h1>
<p>A {esc(manifest["kind"])} event, <strong>{esc(manifest["class"])}</strong>, frozen
{esc(manifest["frozen_at"])}: {len(manifest["contenders"])} contenders, {suite["name"]}
({len(suite["lines"])} lines, SHA-256 <code>{esc(suite["sha256"])}</code>), {manifest["schedule"]["games"]:,}
games, every pair on every line twice with colours swapped. Every result cites the manifest
<code>{esc(cited)}</code> (<a href="manifest.json">manifest.json</a>, its signature
<a href="manifest.dsse.json">manifest.dsse.json</a>).
Every game is evidence <em>Verified to specification</em>: the rules engine decided it.</p>
<h2>Standings</h2>
<p>Bradley–Terry–Davidson on the Elo scale ({esc(manifest["rules"]["ratings"])}), 95 % intervals from
{first["replicates"]:,} bootstrap replicates resampling game pairs (seed {first["seed"]}).
{placed_by} Forfeits count as losses; the last column is the fit over the games without a
forfeit. Stockfish anchors: {esc(anchor_text)}. <a href="#key">How to read the standings</a>.</p>
{standings_chart}
{standings_table}
{key_html(glossary.CHESS_KEY, heading="How to read the standings")}
<h2>Head to head</h2>
<p>Every pair of players, from the games as recorded (<code>chess_games</code>): each cell is the
share of the points the row's player took from the column's (a win 1, a draw ½, a loss 0, and a game
lost by forfeit a loss, as the ratings count it), with the games; columns are numbered as the rows.</p>
{head_to_head}
<h2>The fits</h2>
{fits_table}
<p><code>verify</code> re-fits these within {first["tolerance_elo"]} Elo.</p>
<details><summary>The method, as the fit records it</summary><p>{esc(first["method"] or "")}</p></details>
<h2>More</h2>
<ul><li><a href="games.html">Every game</a></li><li><a href="prompts.html">The prompts, verbatim</a></li></ul>
<h2>Downloads</h2>
<ul>{links}</ul>
"""


def _games_page(event: str, games: pl.DataFrame, names: Names) -> str:
    rows = [
        [
            f'<a href="games/{attr(g["game_id"])}.html">{esc(g["game_id"])}</a>',
            esc(_num(g["round"])),
            esc(f"{g['line_id']} {g['eco']}"),
            esc(names(g["white"])),
            esc(names(g["black"])),
            esc(g["result"]),
            esc(g["ended_by"].replace("_", " ")),
            esc(_num(g["plies"])),
            esc(f"{g['white_rejected']} / {g['black_rejected']}"),
        ]
        for g in games.sort("round", "game_id").iter_rows(named=True)
    ]
    head = ["Game", "Round", "Line", "White", "Black", "Result", "Ended by", "Plies", "Rejected (W / B)"]
    return f"<h1>{esc(event)}: every game</h1>\n" + html_table(
        "Games", head, rows, numeric=(1, 7), tips=glossary.CHESS_TIPS
    )


def _prompts_page(event: str, manifest: dict[str, Any], example: str) -> str:
    rules = manifest["rules"]
    return f"""<h1>{esc(event)}: the prompts, verbatim</h1>
<p>{esc(rules["prompt"])}: the same bytes for every player in the same position. The reply is read by
{esc(rules["reading"])}; a game follows {esc(rules["game"])} ({rules["attempts_per_move"]} attempts per
move, draws claimed for the players, a cap of {rules["ply_cap"]} plies).</p>
<h2>The move prompt</h2>
<pre>{esc(rules["prompt_template"])}</pre>
<h2>After a rejected attempt</h2>
<pre>{esc(rules["retry_named"])}</pre>
<p>or, when the reply named no single move:</p>
<pre>{esc(rules["retry_unnamed"])}</pre>
<h2>An example: White's first move after the first line</h2>
<pre>{esc(example)}</pre>
"""


Page = Callable[[str, str, str], None]


def _chess_pages(
    page: Page, event: str, manifest: dict[str, Any], frames: dict[str, pl.DataFrame], downloads: list[str]
) -> tuple[pl.DataFrame, int]:
    """A chess event's pages; its standings and the number of its games."""
    from colosseum_core.events.chess.pages import example_prompt, game_pages

    page(f"{event}/index.html", f"{event}: standings", _event_page(event, manifest, frames, downloads))
    names = Names(manifest)
    page(f"{event}/games.html", f"{event}: games", _games_page(event, frames["chess_games"], names))
    page(
        f"{event}/prompts.html", f"{event}: prompts", _prompts_page(event, manifest, example_prompt(manifest))
    )
    for relative, title, body in game_pages(event, frames["chess_games"], frames["chess_moves"], names):
        page(f"{event}/{relative}", title, body)
    return frames["chess_standings"], frames["chess_games"].height


def _solve_or_object_pages(
    page: Page, event: str, manifest: dict[str, Any], frames: dict[str, pl.DataFrame], downloads: list[str]
) -> tuple[pl.DataFrame, int]:
    """A Solve-or-Object event's pages; its standings and the number of its items."""
    from colosseum_core.events.solve_or_object import pages
    from colosseum_core.events.solve_or_object.bank import load_bank
    from colosseum_core.events.solve_or_object.run import DEFAULT_CONTENDERS

    base = DEFAULT_CONTENDERS.parent
    bank = load_bank(base / manifest["bank"]["file"], root=base)
    items = [bank.item(item_id) for item_id in manifest["bank"]["items"]]
    standings = frames["soo_standings"]
    body = pages.event_page(event, manifest, standings, frames["soo_replies"], downloads, html_table, MEDALS)
    page(f"{event}/index.html", f"{event}: standings", body)
    page(
        f"{event}/items.html",
        f"{event}: items",
        pages.items_page(event, items, bank, frames["soo_replies"], html_table, Names(manifest)),
    )
    page(f"{event}/prompts.html", f"{event}: prompts", pages.prompts_page(event, manifest, items[0]))
    return standings, len(items)


def _challenge_pages(
    page: Page, event: str, manifest: dict[str, Any], frames: dict[str, pl.DataFrame], downloads: list[str]
) -> tuple[pl.DataFrame, int]:
    """A challenge event's pages; its solving standings (Verified basis) and the number of its tasks."""
    from colosseum_core.events.challenges import pages

    body = pages.event_page(event, manifest, frames, downloads, html_table, MEDALS)
    page(f"{event}/index.html", f"{event}: standings", body)
    page(f"{event}/tasks.html", f"{event}: tasks", pages.tasks_page(event, frames, html_table))
    page(f"{event}/prompts.html", f"{event}: prompts", pages.prompts_page(event, manifest))
    standings = frames["challenge_standings"].filter(
        (pl.col("ranking") == "solving") & (pl.col("basis") == "verified")
    )
    return standings, frames["challenge_reveals"].height


def download_name(event: str, table: str) -> str:
    return f"{event}/downloads/{table}.parquet"


def build_events_site(
    tables: RecordTables, out: Path, *, built_at: str, arenas: Sequence[tuple[str, str]] = ()
) -> EventsSiteReport:
    """The events board into ``out``; ``arenas``: the navigation between the site's arenas, kept in
    ``about.json`` so that the re-check builds the same bytes."""
    writer = SiteWriter(out)

    def page(relative: str, title: str, body: str) -> None:
        writer.write(
            relative,
            SHELL.layout(
                title=title,
                depth=relative.count("/"),
                active=relative,
                body=body,
                built_at=built_at,
                versions=BOARD_VERSION,
                arenas=arenas,
            ),
        )

    writer.write("style.css", stylesheet())
    events = sealed_events(tables)
    listed, games_written = [], 0
    for event in events:
        row = tables.read_checked("event_manifests", event).row(0, named=True)
        manifest = json.loads(row["manifest"])
        kind = manifest["kind"]
        frames = {t: tables.read_checked(t, event) for t in DOWNLOADED[kind]}
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
        for table in DOWNLOADED[kind]:
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
        if kind == "solve-or-object":
            standings, played = _solve_or_object_pages(page, event, manifest, frames, downloads)
        elif kind == "challenge":
            standings, played = _challenge_pages(page, event, manifest, frames, downloads)
        else:
            standings, played = _chess_pages(page, event, manifest, frames, downloads)
            games_written += played
        names = Names(manifest)
        medals = {
            m: names.listed(standings.filter(pl.col("medal") == m)["contender"].sort().to_list()) or "–"
            for m in MEDALS
        }
        listed.append(
            [
                f'<a href="{attr(event)}/index.html">{esc(event)}</a>',
                esc(kind),
                esc(manifest["class"]),
                esc(_num(len(manifest["contenders"]))),
                esc(_num(played)),
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
