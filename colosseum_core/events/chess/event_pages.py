"""A chess event's own pages on the events board: its standings with their fits, every game, and the
prompts verbatim (``<event>/index.html``, ``games.html``, ``prompts.html``); each game's page is
``pages``', which alone imports python-chess, so this module is imported only when a chess event is
drawn (``kind.KIND.pages``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from colosseum_core.events.kind import Drawn, EventPages
from colosseum_core.events.manifest import placement_rule
from colosseum_core.events.site import glossary, pictures
from colosseum_core.events.site.build import html_table, number
from colosseum_core.events.site.glossary import Names
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.shell import attr, key_html
from colosseum_core.statistics.placement import reading as placement_reading


def _share(value: Any) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


def _standings_rows(ordered: pl.DataFrame, names: Names, medals: Mapping[str, str]) -> list[list[str]]:
    """The standings table's rows, in ``ordered``'s order (``pictures.in_table_order``)."""
    rows = []
    for r in ordered.iter_rows(named=True):
        interval = f"[{number(r['low'])}, {number(r['high'])}]" if r["low"] is not None else "–"
        clean = (
            f"{number(r['sensitivity_rating'])} "
            f"[{number(r['sensitivity_low'])}, {number(r['sensitivity_high'])}]"
            if r["sensitivity_rating"] is not None
            else "–"
        )
        # The standings' own model column says what answered; a stand-in's says what it stands in for.
        who = names.of(r["contender"])
        rows.append(
            [
                esc(number(r["placement"], 0)) + (f" {esc(medals[r['medal']])}" if r["medal"] else ""),
                f'<span class="nowrap">{esc(who.played)}</span>',
                esc(who.beside if who.stands_in_for else r["model"]),
                esc(number(r["rating"])),
                esc(interval),
                esc(number(r["games"])),
                esc(number(r["points"])),
                esc(f"{r['wins']}–{r['draws']}–{r['losses']}"),
                esc(f"{r['forfeits']} ({_share(r['forfeit_rate'])})"),
                esc(f"{r['rejected']} of {r['attempts']} ({_share(r['rejected_rate'])})"),
                esc(f"{clean} (n {r['sensitivity_games']})"),
            ]
        )
    return rows


def _event_page(
    event: str,
    manifest: Mapping[str, Any],
    frames: Mapping[str, pl.DataFrame],
    downloads: Sequence[str],
    medals: Mapping[str, str],
) -> str:
    standings, fits = pictures.in_table_order(frames["chess_standings"], "rating"), frames["chess_fit"]
    names = Names(manifest)
    suite = manifest["suite"]
    fit_rows = [
        [
            esc(f["fit"].replace("_", " ")),
            esc(f["status"]),
            esc(number(f["games"])),
            esc(number(f["draws"])),
            esc(number(f["clusters"])),
            esc(f"{number(f['nu'], 4)} [{number(f['nu_low'], 4)}, {number(f['nu_high'], 4)}]"),
            esc(number(f["degenerate"])),
            esc(
                f"{_share(f['white_share'])} [{_share(f['white_low'])}, {_share(f['white_high'])}], "
                f"{number(f['white_elo'])} Elo"
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
        _standings_rows(standings, names, medals),
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
    lines = f"{len(suite['lines'])} line" + ("" if len(suite["lines"]) == 1 else "s")
    return f"""<h1>{esc(event)}</h1>
<p>A {esc(manifest["kind"])} event, <strong>{esc(manifest["class"])}</strong>, frozen
{esc(manifest["frozen_at"])}: {len(manifest["contenders"])} contenders, {suite["name"]}
({lines}, SHA-256 <code>{esc(suite["sha256"])}</code>), {manifest["schedule"]["games"]:,}
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
            esc(number(g["round"])),
            esc(f"{g['line_id']} {g['eco']}"),
            esc(names(g["white"])),
            esc(names(g["black"])),
            esc(g["result"]),
            esc(g["ended_by"].replace("_", " ")),
            esc(number(g["plies"])),
            esc(f"{g['white_rejected']} / {g['black_rejected']}"),
        ]
        for g in games.sort("round", "game_id").iter_rows(named=True)
    ]
    head = ["Game", "Round", "Line", "White", "Black", "Result", "Ended by", "Plies", "Rejected (W / B)"]
    return f"<h1>{esc(event)}: every game</h1>\n" + html_table(
        "Games", head, rows, numeric=(1, 7), tips=glossary.CHESS_TIPS
    )


def _prompts_page(event: str, manifest: Mapping[str, Any], example: str) -> str:
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


def draw(pages: EventPages) -> Drawn:
    """A chess event's pages; its standings, and its games (each with a page of its own)."""
    from colosseum_core.events.chess.pages import example_prompt, game_pages

    page, event, manifest, frames = pages.page, pages.event, pages.manifest, pages.frames
    page(
        f"{event}/index.html",
        f"{event}: standings",
        _event_page(event, manifest, frames, pages.downloads, pages.medals),
    )
    names = Names(manifest)
    page(f"{event}/games.html", f"{event}: games", _games_page(event, frames["chess_games"], names))
    page(
        f"{event}/prompts.html", f"{event}: prompts", _prompts_page(event, manifest, example_prompt(manifest))
    )
    for relative, title, body in game_pages(event, frames["chess_games"], frames["chess_moves"], names):
        page(f"{event}/{relative}", title, body)
    games = frames["chess_games"].height
    return Drawn(frames["chess_standings"], games, games)
