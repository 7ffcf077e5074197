"""The debate board's pictures, through the real board build of epochs played through the real
Definitions: the standings' interval chart and head-to-head matrix, each miner's ratings by epoch and
the crown's history, each holding the record's numbers in its text alternative, a miner's hostile
hotkey kept as text, and the empty cases saying so."""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.arenas import PUBLIC_SITE
from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.crown.closing import FIGHT_SCHEMA
from colosseum_core.debate.crown.fight import HOLDS, TAKES
from colosseum_core.debate.site import build, pictures
from colosseum_core.debate.site.build import build_debate_site, miner_page, read_sealed
from colosseum_core.debate.site.downloads import FIGHT_CALL_SCHEMA
from colosseum_core.record import RecordTables
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import published_problems
from tests.debate.e2e.test_board import _publish
from tests.support.debate import RULER, Arena, debate_servers, enter_field

SVG = "{http://www.w3.org/2000/svg}"
# A hotkey is whatever its owner registered: the ledger takes any 64 printable characters.
HOSTILE = 'evil"><script>alert(1)</script>]]>&amp;'
# What no ledger lets through but a picture must survive all the same.
WORSE = 'evil\u202e\u200b\x00"><script>alert(1)</script>]]>'
LATE = "late-comer"
JUDGED_OUT = "judged-out"


@dataclasses.dataclass(frozen=True)
class Played:
    data: Path
    epochs: list[str]
    site: Path  # the debate board, as published

    @property
    def tables(self) -> RecordTables:
        return Record(self.data).tables(DEBATE)

    def every(self, table: str) -> pl.DataFrame:
        return pl.concat([self.tables.read(table, e) for e in self.epochs], how="diagonal_relaxed")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """Three epochs: the usual field, a miner with a hostile hotkey from the first, one the intent
    panel turns away, and one that registers for the last epoch only."""
    tmp = tmp_path_factory.mktemp("pictures")
    data = tmp / "data"
    with debate_servers() as (ledger_url, ledger, sparring, exchange):
        enter_field(ledger, "Be thorough: build a comprehensive case.")
        ledger.register(HOSTILE)
        ledger.commit(HOSTILE, "Stay calm; answer the strongest claim first and build a thorough case.")
        ledger.register(JUDGED_OUT)
        ledger.commit(JUDGED_OUT, RULER)
        arena = Arena(data, ledger_url, ledger, sparring, exchange)
        epochs = [arena.epoch(), arena.epoch()]
        ledger.register(LATE)
        ledger.commit(LATE, "Take the opponent's best example and show what it actually proves.")
        epochs.append(arena.epoch())
    record, published = _publish(data, tmp / "site")
    assert published_problems(PUBLIC_SITE, published.site, record) == []
    yield Played(data, epochs, published.site / "debate")


def _figure(page: str, ident: str) -> tuple[str, ET.Element]:
    """The figure ``ident`` of a page, and its SVG parsed as XML (a browser shows what XML reads)."""
    [figure] = re.findall(rf'<figure class="chart" id="{ident}">.*?</figure>', page, flags=re.S)
    [svg] = re.findall(r"<svg .*</svg>", figure, flags=re.S)
    return figure, ET.fromstring(svg)


def _title_desc(root: ET.Element) -> tuple[str, str]:
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and desc is not None and title.text and desc.text
    return title.text, desc.text


def _page(played: Played, name: str) -> str:
    return (played.site / name).read_text(encoding="utf-8")


def test_the_standings_draw_every_rated_miner_with_its_interval_and_place(played: Played) -> None:
    last = played.epochs[-1]
    ratings = played.tables.read("ratings", last)
    page = _page(played, "index.html")
    figure, root = _figure(page, pictures.STANDINGS_CHART)
    title, desc = _title_desc(root)
    assert title == f"Bradley–Terry strength with its 95 % interval after epoch {last}"
    assert f"<figcaption>{title}</figcaption>" in figure
    # Every row of the table, in its order, with the numbers the table shows and its place.
    said = [
        f"{r['hotkey']}: {r['bt_rating']:.0f} [{r['bt_low']:.0f}, {r['bt_high']:.0f}], placement {r['rank']}"
        for r in ratings.iter_rows(named=True)
    ]
    assert all(s in desc for s in said), (said, desc)
    assert [desc.index(s) for s in said] == sorted(desc.index(s) for s in said)
    labels = [t.find(f"{SVG}title") for t in root.iter(f"{SVG}text")]
    assert [t.text for t in labels if t is not None] == ratings["hotkey"].to_list()
    places = [t.text for t in root.iter(f"{SVG}text") if t.get("font-weight") == "600"]
    assert places == [str(r) for r in ratings["rank"]]
    assert len(list(root.iter(f"{SVG}circle"))) == ratings.height
    # Where the numbers come from is said above it; the chart sits after the table it draws.
    assert page.index("Elo and Bradley–Terry (95 % interval)") < page.index("The table's BT column drawn")
    assert page.index("The table's BT column drawn") < page.index(f'id="{pictures.STANDINGS_CHART}"')


def test_a_miner_with_no_rated_game_is_drawn_as_nothing_counted(played: Played) -> None:
    last = played.epochs[-1]
    ratings = played.tables.read("ratings", last)
    silent = ratings.with_columns(
        games=pl.when(pl.int_range(pl.len()) == 1).then(0).otherwise(pl.col("games")),
        **{
            field: pl.when(pl.int_range(pl.len()) == 1).then(None).otherwise(pl.col(field))
            for field in ("bt_rating", "bt_low", "bt_high", "rank")
        },
    )
    _, root = _figure(pictures.standings_chart(silent, last), pictures.STANDINGS_CHART)
    _, desc = _title_desc(root)
    assert f"{ratings['hotkey'][1]}: nothing counted, no placement" in desc
    assert len(list(root.iter(f"{SVG}circle"))) == ratings.height - 1
    assert "nothing counted" in [t.text for t in root.iter(f"{SVG}text")]
    empty = pictures.standings_chart(ratings.clear(), last)
    assert (
        empty
        == f'<p class="empty">No miner is rated after epoch {last}, so there is no interval to draw.</p>'
    )


def test_the_head_to_head_matrix_scores_every_pair_over_every_rated_game(played: Played) -> None:
    last = played.epochs[-1]
    ratings = played.tables.read("ratings", last)
    games = played.every("games")
    points: dict[tuple[str, str], float] = defaultdict(float)
    count: dict[tuple[str, str], int] = defaultdict(int)
    for game in games.iter_rows(named=True):
        if game["status"] not in ("decided", "draw"):
            continue
        pro, con = game["pro_rating_key"], game["con_rating_key"]
        won = 0.5 if game["status"] == "draw" else 1.0 if game["winner"] == "Pro" else 0.0
        for a, b, share in ((pro, con, won), (con, pro, 1 - won)):
            points[a, b] += share
            count[a, b] += 1
    page = _page(played, "index.html")
    _, root = _figure(page, pictures.HEAD_TO_HEAD)
    title, desc = _title_desc(root)
    assert title == f"Head to head after epoch {last}: the row's score against the column"
    rated = ratings.filter(pl.col("games") > 0)
    name = dict(rated.select("rating_key", "hotkey").iter_rows())
    assert count and all(a in name and b in name for a, b in count)
    for (a, b), n in count.items():
        assert f"{name[a]} against {name[b]}: {points[a, b] / n:.2f} in {n} games" in desc
    assert len(re.findall(r": \d\.\d\d in \d+ games", desc)) == len(count)
    # Each row's games and points are its standings row's n and W + ½D.
    for row in rated.iter_rows(named=True):
        mine = [k for k in count if k[0] == row["rating_key"]]
        assert sum(count[k] for k in mine) == row["games"]
        assert sum(points[k] for k in mine) == row["wins"] + row["draws"] / 2
    # Rows in the standings' order, numbered as the columns.
    rows = [t for t in root.iter(f"{SVG}text") if t.find(f"{SVG}title") is not None]
    assert [t.find(f"{SVG}title").text for t in rows] == rated["hotkey"].to_list()  # type: ignore[union-attr]
    for i, (row, hotkey) in enumerate(zip(rows, rated["hotkey"], strict=True)):
        shown = str(row.find(f"{SVG}title").tail)  # type: ignore[union-attr]
        assert shown.startswith(f"{i + 1} ") and f"{i + 1} {hotkey}".startswith(shown.rstrip("…"))
    assert "every rated game up to epoch" in page and "<code>games</code>" in page


def test_a_matrix_of_fewer_than_two_rated_miners_says_so(played: Played) -> None:
    ratings = played.tables.read("ratings", played.epochs[-1])
    games = played.every("games")
    said = pictures.head_to_head(ratings.head(1), games, "0000001")
    assert said == (
        '<p class="empty">Fewer than two miners have a rated game after epoch 0000001: no one to set '
        "against.</p>"
    )
    assert pictures.head_to_head_cells(ratings["rating_key"].to_list(), None) == {}


def test_each_miners_page_draws_its_elo_and_bradley_terry_by_epoch(played: Played) -> None:
    ratings = played.every("ratings")
    for hotkey in ratings["hotkey"].unique().sort():
        mine = ratings.filter(pl.col("hotkey") == hotkey).sort("epoch")
        page = (played.site / miner_page(hotkey)).read_text(encoding="utf-8")
        _, root = _figure(page, pictures.MINER_CHART)
        title, desc = _title_desc(root)
        assert title == f"{hotkey}: Elo and Bradley–Terry by epoch"
        elo = ", ".join(f"{r['epoch']} {r['rating']:.1f}" for r in mine.iter_rows(named=True))
        bt = ", ".join(
            f"{r['epoch']} {r['bt_rating']:.1f} [{r['bt_low']:.1f}, {r['bt_high']:.1f}]"
            for r in mine.iter_rows(named=True)
        )
        assert f"Elo: {elo}." in desc and f"Bradley–Terry (band: 95 %): {bt}." in desc, desc
        # The band: a polygon over two epochs or more, a bar over one.
        bands = list(root.iter(f"{SVG}polygon"))
        assert len(bands) == (1 if mine.height > 1 else 0)
    # The miner that came for the last epoch alone: one epoch, one dot per line, no line drawn.
    late = ratings.filter(pl.col("hotkey") == LATE)
    assert late["epoch"].to_list() == [played.epochs[-1]]
    _, root = _figure(_page(played, miner_page(LATE)), pictures.MINER_CHART)
    assert len(list(root.iter(f"{SVG}circle"))) == 2 and not list(root.iter(f"{SVG}polyline"))
    # A miner never rated has a page, and no picture.
    entries = played.every("entries")
    assert "entered" not in set(entries.filter(pl.col("hotkey") == JUDGED_OUT)["status"])
    never = _page(played, miner_page(JUDGED_OUT))
    assert '<p class="empty">never rated</p>' in never and "<figure" not in never


def test_the_crown_page_draws_the_kings_the_leading_challengers_lead_and_the_streaks(played: Played) -> None:
    epochs = played.epochs
    crowns, ratings = played.every("crown").sort("epoch"), played.every("ratings")
    page = _page(played, "crown.html")
    _, root = _figure(page, pictures.CROWN_CHART)
    title, desc = _title_desc(root)
    assert title == "The crown by epoch: the king, the leading challenger's lead and the title fights"
    kings = crowns["king_hotkey"].to_list()
    assert len(set(kings)) == 1 and kings[0] is not None
    assert f"King: {kings[0]} from {epochs[0]} to {epochs[-1]}." in desc
    leads = []
    for crown in crowns.iter_rows(named=True):
        rivals = ratings.filter(
            (pl.col("epoch") == crown["epoch"]) & pl.col("entered") & (pl.col("rating_key") != crown["king"])
        )
        leads.append(f"{crown['epoch']} {rivals['rating'].max() - crown['king_rating']:.1f}")  # type: ignore[operator]
    assert f"Leading challenger's lead: {', '.join(leads)}." in desc, desc
    assert "200: a streak's bar at 200." in desc
    _, root = _figure(page, pictures.STREAK_CHART)
    title, desc = _title_desc(root)
    assert title == "Streaks by epoch: epochs in a row 200 Elo or more above the king"
    streaks = played.every("streaks")
    longest = [
        f"{e} {streaks.filter(pl.col('epoch') == e)['streak'].max() or 0:.1f}"  # type: ignore[str-format]
        for e in epochs
    ]
    assert f"Longest streak: {', '.join(longest)}." in desc and "20: a title fight at 20." in desc
    assert "Streak that called a fight" not in desc  # no fight in three epochs
    assert page.index('id="crown-streaks"') < page.index("Every epoch&#x27;s crown")


def test_title_fights_are_marked_with_how_they_ended_and_a_new_king_starts_a_new_reign(
    played: Played,
) -> None:
    """Three epochs earn no fight (a streak needs 20): the record's own rows, with a fight the king
    held in the second epoch and one the challenger won in the third, give what the page would."""
    epochs = played.epochs
    crowns, ratings = played.every("crown").sort("epoch"), played.every("ratings")
    king = crowns["king"][0]
    challenger = ratings.filter((pl.col("epoch") == epochs[1]) & (pl.col("rating_key") != king))
    rival, rival_hotkey = challenger["rating_key"][0], challenger["hotkey"][0]
    fight = {f: None for f in FIGHT_SCHEMA} | {"challenger": rival, "king": king}
    fights = pl.DataFrame(
        [fight | {"epoch": epochs[1], "outcome": HOLDS}, fight | {"epoch": epochs[2], "outcome": TAKES}],
        schema=FIGHT_SCHEMA,
        orient="row",
    )
    taken = crowns.with_columns(
        king=pl.when(pl.col("epoch") == epochs[2]).then(pl.lit(rival)).otherwise("king"),
        king_hotkey=pl.when(pl.col("epoch") == epochs[2]).then(pl.lit(rival_hotkey)).otherwise("king_hotkey"),
    )
    _, root = _figure(pictures.crown_chart(epochs, taken, ratings, fights), pictures.CROWN_CHART)
    _, desc = _title_desc(root)
    assert f"title fight: held at {epochs[1]}. title fight: crowned at {epochs[2]}." in desc
    first, second = crowns["king_hotkey"][0], rival_hotkey
    assert f"King: {first} from {epochs[0]} to {epochs[1]}; {second} from {epochs[2]} to {epochs[2]}" in desc
    assert len([r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]) == 2
    # No king in an epoch: the strip says nobody, and there is no lead to draw.
    vacant = crowns.with_columns(
        king=pl.when(pl.col("epoch") == epochs[0]).then(None).otherwise("king"),
        king_hotkey=pl.when(pl.col("epoch") == epochs[0]).then(None).otherwise("king_hotkey"),
    )
    _, root = _figure(pictures.crown_chart(epochs, vacant, ratings, None), pictures.CROWN_CHART)
    _, desc = _title_desc(root)
    assert f"King: nobody from {epochs[0]} to {epochs[0]}; " in desc
    assert f"Leading challenger's lead: {epochs[1]} " in desc
    # The streak that called the fight, which the streaks table never shows at 20.
    call = {f: None for f in FIGHT_CALL_SCHEMA} | {"epoch": epochs[1], "streak": 20}
    calls = pl.DataFrame([call], schema=FIGHT_CALL_SCHEMA, orient="row")
    _, root = _figure(pictures.streak_chart(epochs, None, calls, fights), pictures.STREAK_CHART)
    _, desc = _title_desc(root)
    assert f"Streak that called a fight: {epochs[1]} 20.0." in desc
    assert f"Longest streak: {epochs[0]} 0.0, {epochs[1]} 0.0, {epochs[2]} 0.0." in desc
    assert f"title fight: held at {epochs[1]}" in desc


def test_a_hostile_hotkey_stays_text_in_every_picture(played: Played, tmp_path: Path) -> None:
    """The hostile hotkey the record holds is escaped on the published pages; one with a bidi
    override, a zero-width space and a NUL, which no ledger lets through, is too, through the same
    page functions, and every picture's SVG still parses."""
    shown = "evil&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;]]&gt;&amp;amp;"
    for name in ("index.html", "crown.html", miner_page(HOSTILE)):
        page = _page(played, name)
        assert "<script>" not in page and shown in page
        for ident in re.findall(r'<figure class="chart" id="([^"]+)">', page):
            _, root = _figure(page, ident)
            # Read back as XML, the label is the hotkey exactly as registered.
            assert HOSTILE in "".join(root.itertext()) or name == "crown.html", (name, ident)
    record = read_sealed(played.tables)
    swapped = dataclasses.replace(
        record,
        frames={
            table: frame.with_columns(
                pl.col(c).replace(HOSTILE, WORSE)
                for c in ("hotkey", "king_hotkey", "pro_hotkey", "con_hotkey")
                if c in frame.columns
            )
            for table, frame in record.frames.items()
        },
    )
    assert WORSE in swapped.frames["ratings"]["hotkey"].to_list()
    pages = {
        "standings": build._standings(swapped, played.every("games")),
        "crown": build._crown_page(swapped, None),
        "miner": build._miner_page(swapped, WORSE),
    }
    for where, page in pages.items():
        assert "\u202e" not in page and "\u200b" not in page and "\x00" not in page, where
        assert "<script>" not in page, where
        idents = re.findall(r'<figure class="chart" id="([^"]+)">', page)
        assert idents, where
        for ident in idents:
            _, root = _figure(page, ident)
            text = "".join(root.itertext())
            assert "\u202e" not in text and ("U+202E" in text or where == "crown"), (where, ident)


def test_the_same_record_draws_the_same_bytes(played: Played, tmp_path: Path) -> None:
    tables = played.tables
    build_debate_site(tables, tmp_path / "a", built_at="2026-01-05T12:00:00Z")
    build_debate_site(tables, tmp_path / "b", built_at="2026-01-05T12:00:00Z")
    for page in ("index.html", "crown.html", miner_page(HOSTILE), miner_page(LATE)):
        once, again = (tmp_path / "a" / page).read_bytes(), (tmp_path / "b" / page).read_bytes()
        assert once == again and b'<figure class="chart"' in once


def test_no_sealed_epoch_draws_nothing_and_says_so(tmp_path: Path) -> None:
    site = tmp_path / "site"
    report = build_debate_site(
        Record(tmp_path / "data").tables(DEBATE), site, built_at="2026-01-05T12:00:00Z"
    )
    assert report.epochs == 0
    index, crown = (site / "index.html").read_text(), (site / "crown.html").read_text()
    assert '<p class="empty">No epoch is sealed yet.</p>' in index and "<figure" not in index
    assert '<p class="empty">No epoch is sealed yet: the crown has no history to draw.</p>' in crown
    assert "<figure" not in crown
