"""The chess event's game pages for the site: the PGN, a board after every move, every attempt.

Each page replays its game from the recorded moves (the SAN the rules engine accepted) and draws
the board after every ply (``boards``), the first after the suite's line, each captioned with the
move, the player and the attempts it took. Below them, every attempt: the token read from the
reply, the canonical SAN or the failure class and why, and the reply's text. Players are named as
every events page names them (``events.site.glossary.Names``): in a CALIBRATION event the house
player first, with the contender it stands in for beside it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import chess
import polars as pl

from colosseum_core.events.chess.boards import board_definitions, board_svg
from colosseum_core.events.chess.game import line_board
from colosseum_core.events.chess.prompt import move_prompt
from colosseum_core.events.site.glossary import CHESS_TIPS, Names
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.shell import column_head

_REPLY_SHOWN = 600


def example_prompt(manifest: Mapping[str, Any]) -> str:
    """White's (or the side to move's) first prompt after the event's first line."""
    return move_prompt(line_board(manifest["suite"]["lines"][0]["san"]))


def _reply(text: str | None) -> str:
    if text is None:
        return "(no reply)"
    return text if len(text) <= _REPLY_SHOWN else f"{text[:_REPLY_SHOWN]}… ({len(text):,} characters in all)"


def _game_page(game: Mapping[str, Any], moves: pl.DataFrame, names: Names) -> str:
    sans = game["moves"].split(" ") if game["moves"] else []
    line_plies = len(sans) - int(moves.filter(pl.col("accepted")).height)
    board = chess.Board()
    figures = []
    tries = {ply: n for ply, n in moves.group_by("ply").agg(n=pl.len()).iter_rows()}
    by_ply = {r["ply"]: r for r in moves.filter(pl.col("accepted")).iter_rows(named=True)}
    for ply, san in enumerate(sans, start=1):
        board.push_san(san)
        if ply < line_plies:
            continue
        who = by_ply.get(ply)
        caption = (
            f"after the line ({line_plies} plies)"
            if ply == line_plies
            else f"ply {ply}: {san} by {names(who['contender']) if who else '?'}"
            + (f", attempt {tries[ply]}" if tries.get(ply, 1) > 1 else "")
        )
        figures.append(
            f'<figure class="board" style="margin:0">'
            f"{board_svg(board, label=esc(f'{caption}; FEN {board.fen()}'))}"
            f"<figcaption>{esc(caption)}</figcaption></figure>"
        )
    if game["forfeited_by"]:
        figures.append(
            f'<p class="forfeit">{esc(names(game["forfeited_by"]))} forfeits: three rejected attempts at ply '
            f"{len(sans) + 1}.</p>"
        )
    attempts = "\n".join(
        "<tr>"
        f'<td class="num">{m["ply"]}</td><td class="num">{m["attempt"]}</td><td>{esc(m["side"])}</td>'
        f"<td>{esc(names(m['contender']))}</td>"
        f"<td><code>{esc(m['token'] if m['token'] is not None else '–')}</code></td>"
        f"<td>{esc(m['san'] if m['accepted'] else m['failure'])}</td>"
        f"<td>{esc(m['detail'] or m['error'] or '')}</td><td><pre>{esc(_reply(m['text']))}</pre></td>"
        f'<td class="num">{len(m["receipt_ids"] or [])}</td>'
        "</tr>"
        for m in moves.sort("ply", "attempt").iter_rows(named=True)
    )
    head = "".join(
        column_head(h, CHESS_TIPS.get(h, ""))
        for h in (
            "Ply",
            "Attempt",
            "Side",
            "Player",
            "Token",
            "Move or rejection",
            "Why",
            "Reply",
            "Receipts",
        )
    )
    title = f"{game['game_id']}: {names(game['white'])} v {names(game['black'])}, {game['result']}"
    ended = game["ended_by"].replace("_", " ")
    return f"""<h1>{esc(title)}</h1>
<p>Round {game["round"]}, line {esc(game["line_id"])} ({esc(game["eco"])}); ended by {esc(ended)}
after {game["plies"]} plies; rejected attempts: White {game["white_rejected"]},
Black {game["black_rejected"]}.
Verified to specification: the rules engine decided it. <a href="../games.html">Every game</a>.</p>
<h2>PGN</h2>
<pre class="pgn">{esc(game["pgn"])}</pre>
<h2>The boards</h2>
{board_definitions()}
<div class="boards" style="display:flex;flex-wrap:wrap;gap:0.75rem">
{chr(10).join(figures)}
</div>
<h2>Every attempt</h2>
<div class="table-wrap scroll"><table>
<caption>Attempts ({moves.height})</caption>
<thead><tr>{head}</tr></thead>
<tbody>
{attempts}
</tbody></table></div>
"""


def game_pages(
    event: str, games: pl.DataFrame, moves: pl.DataFrame, names: Names
) -> Iterator[tuple[str, str, str]]:
    """(path under the event's folder, title, body) of every game's page, in game order; ``names``:
    how the event's players are named."""
    by_game = moves.partition_by("game_id", as_dict=True) if moves.height else {}
    empty = moves.clear()
    for game in games.sort("game_id").iter_rows(named=True):
        own = by_game.get((game["game_id"],), empty)
        yield f"games/{game['game_id']}.html", f"{event}: {game['game_id']}", _game_page(game, own, names)
