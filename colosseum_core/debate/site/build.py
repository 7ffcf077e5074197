"""The debate board, built from the sealed epochs of the record: the same bytes for the same record.

Pages (relative links, no script, one stylesheet): ``index.html`` the standings after the latest
sealed epoch with the king and the weights; ``crown.html`` every epoch's crown, every streak and
every title fight; ``epochs/<epoch>.html`` an epoch's entries, its bracket round by round, its rating
changes and its manifest; ``games/<game>.html`` a game's facts, every raw turn and every judge call
(a title fight's games too); ``prompts.html`` the prompts in full with their versions and SHA-256;
``judges.html`` the judges' statistics; ``downloads.html`` every sealed table as Parquet, byte for
byte the record's, with what re-derives every number and the recipes in words (``site.downloads``).
``about.json`` says when it was built and from which epochs.

The standings open with a key that says what every column means (``glossary``, which also gives
every column header its tooltip). ``miners/<id>.html`` is each miner's page: its ratings epoch by
epoch, its entries and every rating key it has held, in full; tables show a key's first hex digits,
with the whole key as the cell's tooltip. In a CALIBRATION epoch the house player that spoke or
judged is named first, with the seat it stands in for beside it.

The standings, each miner's page and the crown page hold pictures drawn inline (``pictures``): the
Bradley–Terry intervals and the head-to-head matrix, a miner's ratings by epoch, the crown's history
and the streaks; each is drawn from tables the downloads publish, so the re-check's byte-for-byte
rebuild covers them.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.debate.arena import CLOSING_TABLES, DEBATE, FIGHT_TABLES, GAME_TABLES
from colosseum_core.debate.crown.closing import RATINGS_SCHEMA, rank_rule_named
from colosseum_core.debate.crown.streak import HOLD, LEAD
from colosseum_core.debate.prompts import PROMPTS
from colosseum_core.debate.rules import COMPELLE_RANK_1
from colosseum_core.debate.site import glossary, pictures
from colosseum_core.debate.site.downloads import FIGHT_CALLS, debate_downloads, downloaded, downloads_page
from colosseum_core.debate.site.glossary import seat, short_key, stands_in
from colosseum_core.debate.site.stats import judge_statistics
from colosseum_core.record import RecordTables
from colosseum_core.record.layout import Record
from colosseum_core.site.formats import FieldFormats, fixed, integer, yes_no
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.shell import (
    VERIFY_NOTICE,
    Col,
    Row,
    Shell,
    attr,
    column_head,
    key_html,
    marks,
    stylesheet,
)
from colosseum_core.site.writer import SiteWriter, json_bytes
from colosseum_core.statistics.placement import PLACEMENT

BOARD_VERSION: Final = "COMPELLE-BOARD-1"
NAV: Final = (
    ("index.html", "Standings"),
    ("crown.html", "Crown"),
    ("judges.html", "Judges"),
    ("prompts.html", "Prompts"),
    ("downloads.html", "Downloads"),
)
DOWNLOADED: Final = ("entries", *GAME_TABLES, *FIGHT_TABLES, *CLOSING_TABLES, "epoch_manifest")


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
    },
    # Rating keys in tables: the strategy hash's first hex digits (the whole key is the cell's
    # tooltip and on the miner's page), so the re-check holds the short text to the record's key.
    by_table_field={
        ("ratings", "rating_key"): short_key,
        ("streaks", "rating_key"): short_key,
        ("weights", "rating_key"): short_key,
        ("title_fights", "challenger"): short_key,
        ("title_fights", "king"): short_key,
        ("crown", "king"): short_key,
        ("crown", "deposed"): short_key,
        ("crown", "challenger"): short_key,
        ("epoch_manifest", "king"): short_key,
    },
)

SHELL: Final = Shell(
    brand="Compelle debate arena",
    nav=NAV,
    fields=FIELDS,
    tips=glossary.tip,
    notice=VERIFY_NOTICE,
)


def whole(field: str) -> Callable[[Row], str]:
    """A cell's tooltip: the whole of the value ``field`` a table shows shortened."""
    return lambda row: str(row.get(field) or "")


def miner_page(hotkey: str) -> str:
    """A miner's page, by the SHA-256 of its hotkey: a hotkey is whatever its owner registered, so it
    never names a file itself."""
    return f"miners/{hashlib.sha256(hotkey.encode('utf-8')).hexdigest()[:32]}.html"


def miner_href(field: str, depth: int = 0) -> Callable[[Row], str | None]:
    """The link to the page of the miner whose hotkey is ``field``, from ``depth`` folders down."""
    return lambda row: None if row.get(field) is None else "../" * depth + miner_page(str(row[field]))


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


def _facts(
    table: str, row: Mapping[str, Any], fields: Sequence[tuple[str, str]], *, shortened: Sequence[str] = ()
) -> str:
    """``shortened``: the fields shown shortened, whose whole value is the element's tooltip."""
    items = "".join(
        f"<dt>{esc(label)}</dt><dd>"
        f"{SHELL.span(table, row, f, title=str(row.get(f) or '') if f in shortened else '')}</dd>"
        for f, label in fields
    )
    return f'<dl class="facts">{items}</dl>'


def game_href(game_id: str, depth: int) -> str:
    return f"{'../' * depth}games/{game_id}.html"


# An entry's columns after the ones that say whose and when (the epoch's page, a miner's page).
ENTRY_COLS: Final = (
    Col("status", "Entry"),
    Col("rule", "Stopped by"),
    Col("value", "Why"),
    Col("verdict", "Panel"),
    Col("strategy_hash", "Strategy SHA-256", cls="code"),
)


def _rating_cols(depth: int, rank_label: str = "Place") -> list[Col]:
    """The columns of a ratings table, headed as the standings' key names them."""
    return [
        Col("rank", rank_label),
        Col("hotkey", "Miner", href=miner_href("hotkey", depth)),
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
        Col("rating_key", "Rating key", cls="code", title=whole("rating_key")),
    ]


def _rank_heading(rules: str) -> tuple[str, str]:
    """The rank column's heading and the caption's sentence, by the rule the epoch was sealed under."""
    ranked_by = rank_rule_named(rules)
    if ranked_by == COMPELLE_RANK_1:
        return "#", (
            f"# is the order by Elo ({COMPELLE_RANK_1}, the rank this epoch was sealed under; epochs "
            f"sealed since are placed by {PLACEMENT})"
        )
    return "Place", (
        f"Place ({ranked_by}) is 1 + the number of miners whose Bradley–Terry interval lies wholly "
        "above, so miners share a place only where their intervals overlap; none without a rated game"
    )


def _standings(record: DebateRecord, games: pl.DataFrame | None) -> str:
    """``games``: every rated game up to the latest sealed epoch, as the games downloads hold them."""
    if not record.epochs:
        body = '<h1>Standings</h1><p class="empty">No epoch is sealed yet.</p>'
        return body
    last = record.epochs[-1]
    crown = record.rows("crown", epoch=last)[0]
    ratings = record.rows("ratings", epoch=last)
    weights = record.rows("weights", epoch=last)
    rank_label, rank_caption = _rank_heading(record.rows("epoch_manifest", epoch=last)[0]["rules"])
    king = (
        f'<a href="{attr(miner_page(crown["king_hotkey"]))}">{SHELL.span("crown", crown, "king_hotkey")}</a>'
        if crown["king"]
        else "nobody"
    )
    body = (
        f'<h1>Standings after epoch <a href="epochs/{attr(last)}.html">{esc(last)}</a> '
        f"({esc(record.kinds.get(last, ''))})</h1>"
        f"<p>King: {king} ({SHELL.span('crown', crown, 'event')}: {SHELL.span('crown', crown, 'reason')}). "
        '<a href="crown.html">The crown\'s history</a>; <a href="#key">how to read the standings</a>.</p>'
        + SHELL.table_html(
            "ratings",
            ratings,
            _rating_cols(0, rank_label),
            caption=f"Elo and Bradley–Terry (95 % interval), each with its n. {rank_caption}",
        )
        + _standings_pictures(record, last, games)
        + SHELL.table_html(
            "weights",
            weights,
            [
                Col("hotkey", "Miner", href=miner_href("hotkey")),
                Col("uid", "uid"),
                Col("role", "Role"),
                Col("weight", "Weight"),
            ],
            caption="The weights set for the epoch",
        )
        + key_html(glossary.STANDINGS_KEY, heading="How to read the standings")
        + "<h2>Epochs</h2><ul>"
        + "".join(f'<li><a href="epochs/{attr(e)}.html">{esc(e)}</a></li>' for e in reversed(record.epochs))
        + "</ul>"
    )
    return body


def _standings_pictures(record: DebateRecord, last: str, games: pl.DataFrame | None) -> str:
    every = record.frames.get("ratings", pl.DataFrame(schema=RATINGS_SCHEMA))
    ratings = every.filter(pl.col("epoch") == last)
    return (
        "<p>The table's BT column drawn: each miner's Bradley–Terry strength, its 95 % interval (BT low "
        f"to BT high) and its place, in the table's order, from the <code>ratings</code> table of epoch "
        f'{esc(last)} (<a href="downloads.html">downloads</a>).</p>'
        + pictures.standings_chart(ratings, last)
        + "<p>Head to head: each cell is the row's share of the points against the column over every "
        f"rated game up to epoch {esc(last)} (decided or drawn, a win 1 and a draw ½; voids and "
        "title-fight games are not rated), with the games (n), from the <code>games</code> tables "
        "of every epoch. Columns are numbered as the rows; miners with a rated game, in the "
        "standings' order.</p>" + pictures.head_to_head(ratings, games, last)
    )


def _crown_pictures(record: DebateRecord, fight_calls: pl.DataFrame | None) -> str:
    if not record.epochs:
        return '<p class="empty">No epoch is sealed yet: the crown has no history to draw.</p>'
    crowns = record.frames["crown"]
    fights = record.frames.get("title_fights")
    return (
        "<p>The crown epoch by epoch: the strip names the king (<code>crown</code>: king_hotkey); the line "
        "is the leading challenger's lead, the highest Elo among the entered miners other than the "
        "king (<code>ratings</code>) less the king's (<code>crown</code>: king_rating), against the "
        f"{LEAD:.0f} a streak needs; each title fight is marked with how it ended "
        "(<code>title_fights</code>).</p>"
        + pictures.crown_chart(record.epochs, crowns, record.frames.get("ratings"), fights)
        + "<p>The longest streak at each epoch's end (<code>streaks</code>; 0 where none) against the "
        f"{HOLD} that earns a title fight, and the streak that called each fight "
        "(<code>fight_calls</code>: the fight resets it, so its epoch's streaks never show it).</p>"
        + pictures.streak_chart(record.epochs, record.frames.get("streaks"), fight_calls, fights)
    )


def _crown_page(record: DebateRecord, fight_calls: pl.DataFrame | None) -> str:
    """``fight_calls``: the downloads' streaks that called each title fight."""
    crowns = list(reversed(record.rows("crown")))
    fights = record.rows("title_fights")
    streaks = list(reversed(record.rows("streaks")))
    body = (
        "<h1>The crown</h1>"
        + _crown_pictures(record, fight_calls)
        + SHELL.table_html(
            "title_fights",
            fights,
            [
                Col("epoch", "Epoch", href=lambda r: f"epochs/{r['epoch']}.html"),
                Col("challenger", "Challenger", cls="code", title=whole("challenger")),
                Col("king", "King", cls="code", title=whole("king")),
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
                Col("king_hotkey", "King", href=miner_href("king_hotkey")),
                Col("king_rating", "King's Elo"),
                Col("crowned_epoch", "Since"),
                Col("event", "Event"),
                Col("reason", "Why"),
                Col("deposed", "Deposed", cls="code", title=whole("deposed")),
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
                Col("hotkey", "Challenger", href=miner_href("hotkey")),
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
        Col("pro_hotkey", "Pro", href=miner_href("pro_hotkey", 1)),
        Col("con_hotkey", "Con", href=miner_href("con_hotkey", 1)),
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
            shortened=("king",),
        )
        + SHELL.table_html(
            "entries",
            record.rows("entries", epoch=epoch),
            [
                Col("uid", "uid"),
                Col("hotkey", "Miner", href=miner_href("hotkey", 1)),
                *ENTRY_COLS,
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


def _speaker(table: str, turn: Mapping[str, Any], kind: str) -> str:
    """Who spoke a turn, the model that did first: in a CALIBRATION epoch the house player, with the
    seat it stands in for beside it; then the miner whose strategy it argued."""
    model = SHELL.span(table, turn, "model")
    miner = f'<a href="../{attr(miner_page(turn["hotkey"]))}">{SHELL.span(table, turn, "hotkey")}</a>'
    if stands_in(kind, turn["model"]):
        return f"{model}, standing in for {esc(seat('debater'))}, plays {miner}’s strategy"
    return f"{model} plays {miner}’s strategy"


def _game_page(record: DebateRecord, game: Mapping[str, Any], fight: bool) -> str:
    games, turns, calls = (
        ("fight_games", "fight_turns", "fight_judge_calls") if fight else ("games", "turns", "judge_calls")
    )
    game_id = game["game_id"]
    turn_rows = sorted(record.rows(turns, game_id=game_id), key=lambda r: r["turn"])
    call_rows = record.rows(calls, game_id=game_id)
    transcript = "".join(
        f"<section><h3>Turn {esc(t['turn'])}, {esc(t['side'])}: {_speaker(turns, t, game['kind'])} "
        f"({SHELL.span(turns, t, 'status')})</h3>"
        f'<pre class="packet" {marks(turns, t, "text")}>'
        f"{esc(SHELL.fields.format_field(turns, 'text', t))}</pre>"
        "</section>"
        for t in turn_rows
    )
    house = any(stands_in(game["kind"], c["model"]) for c in call_rows)
    who = (
        [
            Col("model", "House player", tip="The house player that judged, on the arena's sparring server"),
            Col("slot", "Standing in for", tip="The judge's seat on the panel the house player sat in"),
        ]
        if house
        else [Col("model", "Model"), Col("slot", "Judge")]
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
                ("kind", "Kind"),
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
                *who,
                Col("stage", "Stage"),
                Col("attempt", "Attempt"),
                Col("temperature", "Temperature"),
                Col("reply", "Raw reply", cls="text"),
                Col("verdict", "Vote"),
                Col("problem", "Not a vote because"),
                Col("fell_back", "Fell back"),
            ],
            caption="The panel: every call, its raw reply and the vote read from it",
        )
    )
    return body


# Where a page names a miner by its hotkey, and so links to the miner's page.
HOTKEYS: Final = (
    ("ratings", "hotkey"),
    ("entries", "hotkey"),
    ("weights", "hotkey"),
    ("streaks", "hotkey"),
    ("crown", "king_hotkey"),
    ("games", "pro_hotkey"),
    ("games", "con_hotkey"),
    ("fight_games", "pro_hotkey"),
    ("fight_games", "con_hotkey"),
    ("turns", "hotkey"),
    ("fight_turns", "hotkey"),
)


def miners(record: DebateRecord) -> list[str]:
    """Every hotkey the sealed epochs name, in order: each has a page."""
    seen = set()
    for table, field in HOTKEYS:
        frame = record.frames.get(table)
        if frame is not None and field in frame.columns:
            seen.update(str(h) for h in frame[field].drop_nulls().unique())
    return sorted(seen)


def _miner_page(record: DebateRecord, hotkey: str) -> str:
    ratings = sorted(record.rows("ratings", hotkey=hotkey), key=lambda r: r["epoch"], reverse=True)
    entries = sorted(record.rows("entries", hotkey=hotkey), key=lambda r: r["epoch"], reverse=True)
    first: dict[str, str] = {}
    for row in reversed(ratings):
        first.setdefault(row["rating_key"], row["epoch"])
    keys = "".join(
        f"<li><code>{esc(key)}</code> (rated from epoch {esc(epoch)})</li>" for key, epoch in first.items()
    )
    cols = [
        Col("epoch", "Epoch", href=lambda r: f"../epochs/{r['epoch']}.html"),
        *[c for c in _rating_cols(1, "Place") if c.field != "hotkey"],
    ]
    return (
        f"<h1>Miner {esc(hotkey)}</h1>"
        "<p>A rating belongs to a strategy as one registration of this hotkey committed it: its rating "
        "key is the hotkey, the block it registered at and the SHA-256 of the strategy. A new "
        "commitment or a new registration starts a new key at 1000 Elo.</p>"
        "<h2>Rating keys, in full</h2>"
        + (
            f'<ul class="plain">{keys}</ul>'
            + "<p>Its Elo and its Bradley–Terry strength epoch by epoch, the 95 % interval shaded, from "
            "the <code>ratings</code> tables (the rows below).</p>"
            + pictures.miner_chart(hotkey, record.frames["ratings"], record.epochs)
            + SHELL.table_html("ratings", ratings, cols, caption="Its ratings, epoch by epoch")
            if keys
            else '<p class="empty">never rated</p>'
        )
        + SHELL.table_html(
            "entries",
            entries,
            [
                Col("epoch", "Epoch", href=lambda r: f"../epochs/{r['epoch']}.html"),
                Col("uid", "uid"),
                *ENTRY_COLS,
            ],
            caption="Its entries, epoch by epoch",
        )
        + '<p><a href="../index.html">The standings</a>.</p>'
    )


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
        + "".join(column_head(h, t) for h, t in glossary.JUDGES_TIPS.items())
        + "</tr></thead><tbody>"
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

    page = SHELL.page_writer(writer, built_at=built_at, versions=BOARD_VERSION, arenas=arenas)

    # The downloads first: the pictures draw the games and the fight calls as the downloads hold them
    # (the games of an epoch overtaken before its close too, which every later close rated).
    downloads = debate_downloads(tables, record.epochs)
    writer.write("style.css", stylesheet())
    page("index.html", "Standings", _standings(record, downloaded(downloads, "games")))
    page("crown.html", "Crown", _crown_page(record, downloaded(downloads, FIGHT_CALLS)))
    page("prompts.html", "Prompts", _prompts_page())
    page("judges.html", "Judges", _judges_page(record))
    for epoch in record.epochs:
        page(f"epochs/{epoch}.html", f"Epoch {epoch}", _epoch_page(record, epoch))
    for hotkey in miners(record):
        page(miner_page(hotkey), f"Miner {hotkey}", _miner_page(record, hotkey))
    games = 0
    for table, fight in (("games", False), ("fight_games", True)):
        for game in record.rows(table):
            page(f"games/{game['game_id']}.html", f"Game {game['game_id']}", _game_page(record, game, fight))
            games += 1
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
