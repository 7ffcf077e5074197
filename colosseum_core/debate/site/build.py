"""The debate board, built from the sealed epochs of the record: the same bytes for the same record.

Pages (relative links, no script, one stylesheet): ``index.html`` the standings after the latest
sealed epoch with the king and the weights; ``crown.html`` every epoch's crown, every streak and
every title fight; ``epochs/<epoch>.html`` an epoch's entries, its bracket round by round, its rating
changes and its manifest; ``games/<game>.html`` a game's facts, every raw turn and every judge call
(a title fight's games too); ``prompts.html`` the prompts in full with their versions and SHA-256;
``judges.html`` the judges' statistics; ``downloads.html`` every sealed table as Parquet, byte for
byte the record's, with what re-derives every number and the recipes in words (``site.downloads``).
``about.json`` says when it was built and from which epochs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.debate.arena import DEBATE, FIGHT_TABLES
from colosseum_core.debate.prompts import PROMPTS
from colosseum_core.debate.site.downloads import debate_downloads, downloads_page
from colosseum_core.debate.site.stats import judge_statistics
from colosseum_core.record import RecordTables
from colosseum_core.record.layout import Record
from colosseum_core.site.formats import FieldFormats, fixed, integer, yes_no
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.shell import Col, Shell, attr, marks, stylesheet
from colosseum_core.site.writer import SiteWriter, json_bytes

BOARD_VERSION: Final = "COMPELLE-BOARD-1"
NAV: Final = (
    ("index.html", "Standings"),
    ("crown.html", "Crown"),
    ("judges.html", "Judges"),
    ("prompts.html", "Prompts"),
    ("downloads.html", "Downloads"),
)
DOWNLOADED: Final = (
    "entries",
    "games",
    "turns",
    "judge_calls",
    *FIGHT_TABLES,
    "ratings",
    "rating_changes",
    "crown",
    "streaks",
    "title_fights",
    "weights",
    "epoch_manifest",
)


def _p_value(value: Any) -> str:
    return "—" if value is None else f"{value:.3g}"


FIELDS: Final = FieldFormats(
    by_field={
        "rating": fixed(1),
        "king_rating": fixed(1),
        "lead": fixed(1),
        "bt_rating": fixed(0),
        "bt_low": fixed(0),
        "bt_high": fixed(0),
        "pro_before": fixed(1),
        "pro_after": fixed(1),
        "con_before": fixed(1),
        "con_after": fixed(1),
        "weight": fixed(2),
        "temperature": fixed(1),
        "p_value": _p_value,
        "bar": integer,
        "fell_back": yes_no,
        "concession_short": yes_no,
        "entered": yes_no,
    }
)
TIPS: Final = {
    "rating": "Elo (COMPELLE-ELO-1): from 1000, K 32, a draw costs both sides 1.6 more, voids excluded",
    "bt_rating": "Bradley–Terry strength on the Elo scale (COMPELLE-BT-1), order-free",
    "bt_low": "2.5th percentile of 1,999 bootstrap replicates clustered by pair of miners",
    "bt_high": "97.5th percentile of 1,999 bootstrap replicates clustered by pair of miners",
    "games": "rated games (wins + draws + losses): the n behind the rating",
    "bt_games": "rated games behind the Bradley–Terry strength",
    "voids": "games voided (a rate limit, or fewer than two valid votes): never rated",
    "streak": "consecutive epochs 200 Elo or more above the king",
    "lead": "Elo above the king after the epoch",
    "bar": "least number of wins that clears the exact binomial bar at α = 0.01 for the decided n",
    "p_value": "P(X ≥ k) for X ~ Bin(n, ½): the challenger's wins under a fair coin",
    "rating_key": "hotkey@block of registration:SHA-256 of the strategy: whose rating it is",
}


def tips(table: str, field: str | None) -> str:
    return TIPS.get(field or "", "")


SHELL: Final = Shell(
    brand="Compelle debate arena",
    nav=NAV,
    fields=FIELDS,
    tips=tips,
    notice="Every number re-derives from the signed record: `colosseum verify`.",
)


@dataclasses.dataclass(frozen=True)
class DebateRecord:
    """The sealed epochs' tables, concatenated, each row with its id."""

    epochs: list[str]
    frames: dict[str, pl.DataFrame]
    kinds: dict[str, str]

    def rows(self, table: str, **equal: Any) -> list[dict[str, Any]]:
        frame = self.frames.get(table)
        if frame is None:
            return []
        for column, value in equal.items():
            frame = frame.filter(pl.col(column) == value)
        return frame.to_dicts()


def read_sealed(tables: RecordTables) -> DebateRecord:
    record = Record(tables.root.parent.parent)
    seals = record.seals(DEBATE)
    epochs = [s.partition for s in seals.seals()]
    frames: dict[str, pl.DataFrame] = {}
    for table in DOWNLOADED:
        parts = [tables.read_checked(table, e) for e in epochs if tables.exists(table, e)]
        parts = [p for p in parts if p.height]
        if parts:
            frames[table] = pl.concat(parts, how="diagonal_relaxed")
    kinds = {s.partition: s.kind for s in seals.seals()}
    return DebateRecord(epochs, frames, kinds)


def _facts(table: str, row: Mapping[str, Any], fields: Sequence[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{esc(label)}</dt><dd>{SHELL.span(table, row, f)}</dd>" for f, label in fields)
    return f'<dl class="facts">{items}</dl>'


def game_href(game_id: str, depth: int) -> str:
    return f"{'../' * depth}games/{game_id}.html"


def _standings(record: DebateRecord) -> str:
    if not record.epochs:
        body = '<h1>Standings</h1><p class="empty">No epoch is sealed yet.</p>'
        return body
    last = record.epochs[-1]
    crown = record.rows("crown", epoch=last)[0]
    ratings = record.rows("ratings", epoch=last)
    weights = record.rows("weights", epoch=last)
    king = SHELL.span("crown", crown, "king_hotkey") if crown["king"] else "nobody"
    cols = [
        Col("rank", "#"),
        Col("hotkey", "Miner"),
        Col("rating", "Elo"),
        Col("bt_rating", "BT"),
        Col("bt_low", "BT low"),
        Col("bt_high", "BT high"),
        Col("games", "n"),
        Col("wins", "W"),
        Col("draws", "D"),
        Col("losses", "L"),
        Col("voids", "Voids"),
        Col("entered", "Entered"),
        Col("rating_key", "Rating key", cls="code"),
    ]
    body = (
        f'<h1>Standings after epoch <a href="epochs/{attr(last)}.html">{esc(last)}</a> '
        f"({esc(record.kinds.get(last, ''))})</h1>"
        f"<p>King: {king} ({SHELL.span('crown', crown, 'event')}: {SHELL.span('crown', crown, 'reason')}). "
        '<a href="crown.html">The crown\'s history</a>.</p>'
        + SHELL.table_html(
            "ratings", ratings, cols, caption="Elo and Bradley–Terry (95 % interval), each with its n"
        )
        + SHELL.table_html(
            "weights",
            weights,
            [Col("hotkey", "Miner"), Col("uid", "uid"), Col("role", "Role"), Col("weight", "Weight")],
            caption="The weights set for the epoch",
        )
        + "<h2>Epochs</h2><ul>"
        + "".join(f'<li><a href="epochs/{attr(e)}.html">{esc(e)}</a></li>' for e in reversed(record.epochs))
        + "</ul>"
    )
    return body


def _crown_page(record: DebateRecord) -> str:
    crowns = list(reversed(record.rows("crown")))
    fights = record.rows("title_fights")
    streaks = list(reversed(record.rows("streaks")))
    body = (
        "<h1>The crown</h1>"
        + SHELL.table_html(
            "title_fights",
            fights,
            [
                Col("epoch", "Epoch", href=lambda r: f"epochs/{r['epoch']}.html"),
                Col("challenger", "Challenger", cls="code"),
                Col("king", "King", cls="code"),
                Col("games", "Games"),
                Col("challenger_wins", "k"),
                Col("king_wins", "King's wins"),
                Col("draws", "Draws"),
                Col("voids", "Voids"),
                Col("decided", "n"),
                Col("bar", "Bar"),
                Col("p_value", "p"),
                Col("outcome", "Outcome"),
            ],
            caption="Title fights: both sides of the 100 most recent unique motions; n decided games, k the "
            "challenger's wins, the exact binomial bar at α = 0.01 (at least 80 decided)",
        )
        + SHELL.table_html(
            "crown",
            crowns,
            [
                Col("epoch", "Epoch", href=lambda r: f"epochs/{r['epoch']}.html"),
                Col("king_hotkey", "King"),
                Col("king_rating", "King's Elo"),
                Col("crowned_epoch", "Since"),
                Col("event", "Event"),
                Col("reason", "Why"),
                Col("deposed", "Deposed", cls="code"),
                Col("tail_left", "Tail left"),
            ],
            caption="Every epoch's crown (COMPELLE-CROWN-1)",
            scroll=True,
        )
        + SHELL.table_html(
            "streaks",
            streaks,
            [
                Col("epoch", "Epoch"),
                Col("hotkey", "Challenger"),
                Col("rating", "Elo"),
                Col("lead", "Lead"),
                Col("streak", "Streak"),
            ],
            caption="Streaks: 200 Elo or more above the king, epoch after epoch (20 earns a title fight)",
            scroll=True,
        )
    )
    return body


def _epoch_page(record: DebateRecord, epoch: str) -> str:
    manifest = record.rows("epoch_manifest", epoch=epoch)[0]
    games = record.rows("games", epoch=epoch)
    fight = record.rows("fight_games", epoch=epoch)
    game_cols = [
        Col("game_id", "Game", href=lambda r: game_href(r["game_id"], 1)),
        Col("round", "Round"),
        Col("pro_hotkey", "Pro"),
        Col("con_hotkey", "Con"),
        Col("motion", "Motion", cls="text"),
        Col("reason", "Result"),
    ]
    body = (
        f"<h1>Epoch {esc(epoch)}</h1>"
        + _facts(
            "epoch_manifest",
            manifest,
            [
                ("manifest_id", "Sealed as"),
                ("kind", "Kind"),
                ("block", "Block"),
                ("rotation", "Rotation argued"),
                ("models_sha256", "Models document (SHA-256)"),
                ("registered", "Registered"),
                ("entered", "Entered"),
                ("games", "Games"),
                ("fight_games", "Title-fight games"),
                ("king", "King after"),
                ("rules", "Rules"),
            ],
        )
        + SHELL.table_html(
            "entries",
            record.rows("entries", epoch=epoch),
            [
                Col("uid", "uid"),
                Col("hotkey", "Miner"),
                Col("status", "Entry"),
                Col("rule", "Stopped by"),
                Col("value", "Why"),
                Col("verdict", "Panel"),
                Col("strategy_hash", "Strategy SHA-256", cls="code"),
            ],
            caption="Entries (COMPELLE-ENTRY-1)",
        )
        + SHELL.table_html(
            "games", games, game_cols, caption="The bracket, round by round (COMPELLE-SWISS-1)"
        )
        + SHELL.table_html(
            "fight_games",
            fight,
            game_cols,
            caption="The title fight (published, not rated)",
            empty="no fight",
        )
        + SHELL.table_html(
            "rating_changes",
            record.rows("rating_changes", epoch=epoch),
            [
                Col("game_id", "Game", href=lambda r: game_href(r["game_id"], 1)),
                Col("result", "Result"),
                Col("pro_before", "Pro before"),
                Col("pro_after", "Pro after"),
                Col("con_before", "Con before"),
                Col("con_after", "Con after"),
            ],
            caption="Rating changes, in the order applied",
        )
    )
    return body


def _game_page(record: DebateRecord, game: Mapping[str, Any], fight: bool) -> str:
    games, turns, calls = (
        ("fight_games", "fight_turns", "fight_judge_calls") if fight else ("games", "turns", "judge_calls")
    )
    game_id = game["game_id"]
    turn_rows = sorted(record.rows(turns, game_id=game_id), key=lambda r: r["turn"])
    call_rows = record.rows(calls, game_id=game_id)
    transcript = "".join(
        f"<section><h3>Turn {esc(t['turn'])}, {esc(t['side'])}: {SHELL.span(turns, t, 'hotkey')} "
        f"({SHELL.span(turns, t, 'model')}, {SHELL.span(turns, t, 'status')})</h3>"
        f'<pre class="packet" {marks(turns, t, "text")}>'
        f"{esc(SHELL.fields.format_field(turns, 'text', t))}</pre>"
        "</section>"
        for t in turn_rows
    )
    body = (
        f"<h1>{'Title fight game' if fight else 'Game'} {esc(game_id)}</h1>"
        + _facts(
            games,
            game,
            [
                ("motion", "Motion"),
                ("context", "Context"),
                ("pro_hotkey", "Pro"),
                ("con_hotkey", "Con"),
                ("status", "Status"),
                ("winner", "Winner"),
                ("reason", "Panel"),
                ("ended_by", "Ended by"),
                ("rotation", "Rotation"),
                ("models_sha256", "Models document"),
                ("rules", "Rules"),
                ("prompts", "Prompts"),
            ],
        )
        + f'<p><a href="../epochs/{attr(game["epoch"])}.html">Epoch {esc(game["epoch"])}</a></p>'
        + "<h2>Transcript (raw)</h2>"
        + (transcript or '<p class="empty">no turns</p>')
        + SHELL.table_html(
            calls,
            call_rows,
            [
                Col("slot", "Judge"),
                Col("stage", "Stage"),
                Col("attempt", "Attempt"),
                Col("temperature", "Temperature"),
                Col("model", "Model"),
                Col("reply", "Raw reply", cls="text"),
                Col("verdict", "Vote"),
                Col("problem", "Not a vote because"),
                Col("fell_back", "Fell back"),
            ],
            caption="The panel: every call, its raw reply and the vote read from it",
        )
    )
    return body


def _prompts_page() -> str:
    sections = "".join(
        f"<section><h2>{esc(p.name)} · {esc(p.version)}</h2><p>SHA-256 <code>{esc(p.sha256)}</code>; "
        f'placeholders: {esc(", ".join(p.placeholders))}</p><pre class="packet">{esc(p.text)}</pre></section>'
        for p in PROMPTS
    )
    return "<h1>The prompts, verbatim</h1>" + sections


def _judges_page(record: DebateRecord) -> str:
    rows = []
    for label, frame in (
        ("Swiss games", record.frames.get("games")),
        ("Title fights", record.frames.get("fight_games")),
    ):
        shares = judge_statistics(frame if frame is not None else pl.DataFrame()).shares()
        rows.append(
            f'<tr><th scope="row">{esc(label)}</th><td>{esc(shares["first_reading_agreement"])}</td>'
            f"<td>{esc(shares['deliberation_settles'])}</td><td>{esc(shares['pro_wins'])}</td></tr>"
        )
    body = (
        "<h1>The judges</h1><p>Over every sealed epoch's games: how often the two judges agreed on their "
        "first reading, how often deliberation settled a split (else a draw), and how often Pro won a "
        "decided game (side bias).</p>"
        '<div class="table-wrap"><table><caption>Judge statistics, each with its n</caption><thead><tr>'
        '<th scope="col">Games</th><th scope="col">First-reading agreement</th>'
        '<th scope="col">Deliberation settles a split</th><th scope="col">Pro wins</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table></div>"
    )
    return body


@dataclasses.dataclass(frozen=True)
class DebateSiteReport:
    files: int
    bytes: int
    epochs: int
    games: int


def build_debate_site(
    tables: RecordTables, out: Path, *, built_at: str, arenas: Sequence[tuple[str, str]] = ()
) -> DebateSiteReport:
    """The board into ``out``; ``arenas``: the navigation between the site's arenas
    (``site.plugin.Neighbours.arenas``), kept in ``about.json`` so the re-check builds the same bytes."""
    record = read_sealed(tables)
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
    page("index.html", "Standings", _standings(record))
    page("crown.html", "Crown", _crown_page(record))
    page("prompts.html", "Prompts", _prompts_page())
    page("judges.html", "Judges", _judges_page(record))
    for epoch in record.epochs:
        page(f"epochs/{epoch}.html", f"Epoch {epoch}", _epoch_page(record, epoch))
    games = 0
    for table, fight in (("games", False), ("fight_games", True)):
        for game in record.rows(table):
            page(f"games/{game['game_id']}.html", f"Game {game['game_id']}", _game_page(record, game, fight))
            games += 1
    downloads = debate_downloads(tables, record.epochs)
    for download in downloads:
        writer.write(download.path, download.data)
    page("downloads.html", "Downloads", downloads_page(downloads))
    about = {
        "board": BOARD_VERSION,
        "built_at": built_at,
        "epochs": record.epochs,
        "games": games,
        "arenas": [list(link) for link in arenas],
    }
    writer.write("about.json", json_bytes(about))
    return DebateSiteReport(writer.files, writer.bytes, len(record.epochs), games)
