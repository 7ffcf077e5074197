"""The events board's pictures, through real events and a real board build.

Three CALIBRATION events (chess, Solve or Object, a challenge) are frozen and run by the real commands
from copies of the repository's registries in which openai-frontier (and the first judge) names a
hostile model: markup, ``]]>``, a right-to-left override, a zero-width space and a NUL. The house
player standing in for it is labelled with that name beside it, so every chart draws a hostile label.
The board is built by ``colosseum board build``'s code and re-checked (every page's shape, and the
whole board built again and compared byte for byte). Each chart's text alternative is held to the
record's own tables, re-tallied here in plain Python.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from colosseum_core.arenas import PUBLIC_SITE
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.site.build import build_events_site
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import publish_site, published_problems
from colosseum_core.trust.keys import KeyStore
from tests.conftest import cli
from tests.support import REPO
from tests.support.chess import need_stockfish
from tests.support.pages import read_page_text
from tests.support.sandbox import need_sandbox

SVG = "{http://www.w3.org/2000/svg}"
# As TOML writes it (a basic string's escapes), and as Python holds it once read.
HOSTILE_TOML = r"gpt-<b>5</b>]]>\u202e\u200b\u0000 & \"co\""
HOSTILE = 'gpt-<b>5</b>]]>\u202e\u200b\x00 & "co"'
HIDDEN = {"\u202e": "U+202E", "\u200b": "U+200B", "\x00": "U+0000"}
CHESS, SOO, CHALLENGE = "chess-pic", "soo-pic", "ch-pic"
PLAYED = {
    CHESS: (
        "chess",
        ["chess", "event", "freeze", CHESS, "--lines", "1", "--seed", "7", "--replicates", "99"],
        ["openai-frontier", "house-illegal", "stockfish-n1"],
    ),
    SOO: (
        "solve_or_object",
        ["solve-or-object", "event", "freeze", SOO, "--pairs", "3", "--seed", "3", "--replicates", "99"],
        ["openai-frontier", "house-paranoid", "house-garbled"],
    ),
    CHALLENGE: (
        "challenges",
        ["challenges", "event", "freeze", CHALLENGE, "--slots", "1", "--seed", "5", "--replicates", "99"],
        [],  # the whole field: one solver has nothing counted on the Verified basis
    ),
}
RUN_KIND = {CHESS: "chess", SOO: "solve-or-object", CHALLENGE: "challenges"}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The record of the three events, and the events board built from it."""
    need_stockfish()
    need_sandbox()
    root = tmp_path_factory.mktemp("pictures")
    data = root / "data"
    for event, (registry, freeze, contenders) in PLAYED.items():
        text = (REPO / f"{registry}.toml").read_text(encoding="utf-8")
        assert 'model = "openai/gpt-5.1"' in text
        hostile = root / f"{registry}.toml"
        # A model id no name may hold (spaces, controls): the entry spells out its protocol, URL and key.
        spelled = (
            f'protocol = "openai"\nmodel = "{HOSTILE_TOML}"\nbase_url = "https://api.openai.com"\n'
            'key_env = "OPENAI_API_KEY"'
        )
        hostile.write_text(text.replace('model = "openai/gpt-5.1"', spelled), encoding="utf-8")
        picked = [a for c in contenders for a in ("--contender", c)]
        args = ("events", *freeze, "--contenders", str(hostile), *picked, "--data", str(data))
        assert cli(*args) == 0
        assert cli("events", RUN_KIND[event], "event", "run", event, "--data", str(data)) == 0
    built = dt.datetime.now(dt.UTC)  # after the events were frozen, by the commands' own clock
    out = publish_site(PUBLIC_SITE, Record(data), KeyStore.for_data(data), root / "site", built_at=built)
    # The re-check: every page's shape, and the board built again from the record, byte for byte.
    assert published_problems(PUBLIC_SITE, out.site, Record(data)) == []
    return data, out.site / "events"


def _table(data: Path, table: str, event: str) -> pl.DataFrame:
    return Record(data).tables(EVENTS).read(table, event)


def _manifest(data: Path, event: str) -> dict[str, Any]:
    return json.loads(_table(data, "event_manifests", event)["manifest"][0])


def _shown(text: str) -> str:
    """``text`` as a chart writes it: every hidden code point as its visible label."""
    for char, label in HIDDEN.items():
        text = text.replace(char, label)
    return text


def _labels(manifest: dict[str, Any]) -> dict[str, str]:
    """Each contender's label, written out here: a stand-in's house player first, then whom it
    stands in for and the model that contender names."""
    return {
        c["id"]: f"{c['model']}, standing in for {c['id']} ({c['stands_in_for']})"
        if c.get("stands_in_for")
        else c["id"]
        for c in manifest["contenders"]
    }


def _figures(page: Path) -> dict[str, tuple[str, ET.Element]]:
    """Every chart of a page by its id: its caption and its SVG, parsed as XML."""
    text = page.read_text(encoding="utf-8")
    found = re.findall(
        r'<figure class="chart" id="([^"]+)">\n<figcaption>(.*?)</figcaption>\n(<svg .*?</svg>)\n</figure>',
        text,
        re.S,
    )
    assert text.count('<figure class="chart"') == len(found), page
    return {ident: (caption, ET.fromstring(svg)) for ident, caption, svg in found}


def _alt(svg: ET.Element) -> tuple[str, str]:
    title, desc = svg.find(f"{SVG}title"), svg.find(f"{SVG}desc")
    assert title is not None and desc is not None
    return title.text or "", desc.text or ""


def _place(row: dict[str, Any]) -> str:
    if row["placement"] is None:
        return "no placement"
    place = row["placement"]
    said = f"placement ({place})" if place <= 3 and not row["medal"] else f"placement {place}"
    return f"{said}, {row['medal']}" if row["medal"] else said


def _interval_words(rows: list[dict[str, Any]], labels: dict[str, str], point: str, digits: int) -> str:
    said = []
    for r in rows:
        label = _shown(labels[r["contender"]])
        if r[point] is None:
            said.append(f"{label}: nothing counted, no placement")
        else:
            numbers = f"{r[point]:.{digits}f} [{r['low']:.{digits}f}, {r['high']:.{digits}f}]"
            said.append(f"{label}: {numbers}, {_place(r)}")
    return "; ".join(said)


def _in_table_order(page: Path, caption: str, rows: pl.DataFrame, labels: dict[str, str]) -> list[dict]:
    """The record's standings rows in the order the page's table lists its players."""
    [table] = [t for t in read_page_text(page).tables if t.caption == caption]
    by_player = {labels[r["contender"]].split(",")[0]: r for r in rows.iter_rows(named=True)}
    order = [cell.text for cell in table.column("Player")]
    assert sorted(order) == sorted(by_player)
    return [by_player[player] for player in order]


def _places(svg: ET.Element) -> list[str]:
    """The place column of an interval chart, top to bottom."""
    return [t.text or "" for t in svg.iter(f"{SVG}text") if t.get("font-weight") == "600"]


def _marks(rows: list[dict[str, Any]]) -> list[str]:
    return [_place(r).removeprefix("placement ").split(",")[0].replace("no placement", "–") for r in rows]


def _just_above(text: str, ident: str, caption: str) -> bool:
    """The chart ``ident`` comes right before the table ``caption``: the next table after it."""
    at = text.index(f'id="{ident}"')
    return text.index("<caption>", at) == text.index(f"<caption>{caption}</caption>")


def test_chess_standings_chart_draws_each_rating_and_interval_in_the_tables_order(
    played: tuple[Path, Path],
) -> None:
    data, events = played
    page = events / CHESS / "index.html"
    figures = _figures(page)
    assert set(figures) == {"chess-standings-chart", "chess-head-to-head"}
    caption, svg = figures["chess-standings-chart"]
    title, desc = _alt(svg)
    assert "rating, low, high, placement" in title and caption.startswith("Rating and 95 % interval")
    labels = _labels(_manifest(data, CHESS))
    rows = _in_table_order(page, "Standings", _table(data, "chess_standings", CHESS), labels)
    assert len(rows) == 3
    assert f"point and 95 % interval: {_interval_words(rows, labels, 'rating', 1)}." in desc
    assert _places(svg) == _marks(rows) and any(r["medal"] for r in rows)
    assert _just_above(page.read_text(encoding="utf-8"), "chess-standings-chart", "Standings")


def test_chess_head_to_head_tallies_every_pair_from_the_games_with_forfeits_as_losses(
    played: tuple[Path, Path],
) -> None:
    data, events = played
    page = events / CHESS / "index.html"
    caption, svg = _figures(page)["chess-head-to-head"]
    assert "forfeit counts as the loss" in caption and "chess_games" in caption
    _, desc = _alt(svg)
    labels = _labels(_manifest(data, CHESS))
    order = [
        r["contender"]
        for r in _in_table_order(page, "Standings", _table(data, "chess_standings", CHESS), labels)
    ]
    games = _table(data, "chess_games", CHESS)
    tally: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    for g in games.iter_rows(named=True):
        for me, other, points in (
            (g["white"], g["black"], g["white_score"]),
            (g["black"], g["white"], 1 - g["white_score"]),
        ):
            tally[me, other][0] += points
            tally[me, other][1] += 1
    expected = [
        f"{_shown(labels[a])} against {_shown(labels[b])}: "
        f"{tally[a, b][0] / tally[a, b][1]:.2f} in {tally[a, b][1]} games"
        for a in order
        for b in order
        if (a, b) in tally
    ]
    assert len(expected) == 6
    assert f"with its games: {'; '.join(expected)}." in desc
    # house-illegal forfeits every game it plays: a loss each, as the ratings count it.
    illegal = games.filter((pl.col("white") == "house-illegal") | (pl.col("black") == "house-illegal"))
    assert set(illegal["forfeited_by"]) == {"house-illegal"}
    assert all(
        f"house-illegal against {_shown(labels[b])}: 0.00 in 2 games" in desc
        for b in order
        if b != "house-illegal"
    )
    # Numbered as the rows, in the standings' order.
    named = [t for t in svg.iter(f"{SVG}text") if t.get("x") == "4" and t.find(f"{SVG}title") is not None]
    assert [t.findtext(f"{SVG}title") for t in named] == [_shown(labels[c]) for c in order]
    assert [(t[0].tail or "")[:2] for t in named] == ["1 ", "2 ", "3 "]


def test_solve_or_object_standings_chart_and_a_calibration_plot_per_contender(
    played: tuple[Path, Path],
) -> None:
    data, events = played
    page = events / SOO / "index.html"
    figures = _figures(page)
    labels = _labels(_manifest(data, SOO))
    rows = _in_table_order(page, "Standings", _table(data, "soo_standings", SOO), labels)
    _, svg = figures["soo-standings-chart"]
    title, desc = _alt(svg)
    assert "soo_standings: score, low, high, placement" in title
    assert f"point and 95 % interval: {_interval_words(rows, labels, 'score', 3)}." in desc
    # One calibration plot per contender, in the standings' order, as small multiples.
    text = page.read_text(encoding="utf-8")
    grid = text[text.index('<div class="charts">') :]
    assert grid.index('id="soo-calibration-1"') < grid.index('id="soo-calibration-3"') < grid.index("</div>")
    replies = _table(data, "soo_replies", SOO)
    for k, row in enumerate(rows, start=1):
        contender = row["contender"]
        mine = replies.filter(pl.col("contender") == contender).to_dicts()
        bins: dict[int, list[dict]] = defaultdict(list)
        for r in mine:
            if r["p_defective"] is not None:
                bins[min(r["p_defective"] // 10, 9)].append(r)
        words = [
            f"stated {sum(r['p_defective'] for r in b) / len(b) / 100:.2f}: "
            f"{sum(r['role'] == 'twin' for r in b) / len(b):.2f} of {len(b)}"
            for _, b in sorted(bins.items())
        ]
        _, plot = figures[f"soo-calibration-{k}"]
        title, desc = _alt(plot)
        stated = sum(len(b) for b in bins.values())
        assert title == (
            f"{_shown(labels[contender])}: stated P(defective) against the share defective "
            f"({stated} of {len(mine)} items stated one)"
        )
        assert desc.endswith(f"per bin: {'; '.join(words) or 'none'}."), (contender, desc)
    # house-garbled never writes a readable P(defective): its plot says so instead of crashing.
    garbled = 1 + [r["contender"] for r in rows].index("house-garbled")
    _, plot = figures[f"soo-calibration-{garbled}"]
    assert "nothing stated yet" in "".join(plot.itertext()) and _alt(plot)[1].endswith("per bin: none.")
    paranoid = replies.filter(pl.col("contender") == "house-paranoid")
    assert set(paranoid["p_defective"]) == {90}  # one bin: half its items were twins
    assert (
        "stated 0.90: 0.50 of 6"
        in _alt(figures[f"soo-calibration-{1 + [r['contender'] for r in rows].index('house-paranoid')}"][1])[
            1
        ]
    )


def test_every_challenge_standings_table_has_its_chart_with_nothing_counted_and_medal_less_places(
    played: tuple[Path, Path],
) -> None:
    data, events = played
    page = events / CHALLENGE / "index.html"
    figures = _figures(page)
    assert len(figures) == 4
    labels = _labels(_manifest(data, CHALLENGE))
    standings = _table(data, "challenge_standings", CHALLENGE)
    text = page.read_text(encoding="utf-8")
    nothing = bracketed = 0
    for ranking in ("solving", "authoring"):
        for basis, words in (
            ("verified", "Verified outcomes only"),
            ("with_reviewed", "Verified and Reviewed outcomes"),
        ):
            caption = f"{ranking.capitalize()}: {words}"
            part = standings.filter((pl.col("ranking") == ranking) & (pl.col("basis") == basis))
            rows = _in_table_order(page, caption, part, labels)
            ident = f"{ranking}-{basis.replace('_', '-')}-chart"
            title, desc = _alt(figures[ident][1])
            assert f"ranking is {ranking} and basis {basis}" in title
            assert f"point and 95 % interval: {_interval_words(rows, labels, 'score', 3)}." in desc
            assert _places(figures[ident][1]) == _marks(rows)
            assert _just_above(text, ident, caption)
            nothing += sum(r["n"] == 0 for r in rows)
            medal_less = [
                r for r in rows if r["placement"] is not None and r["placement"] <= 3 and not r["medal"]
            ]
            bracketed += len(medal_less)
            assert ("A place in brackets won no medal" in title) == bool(medal_less)
    assert nothing >= 1  # a solver with nothing counted is drawn as such …
    assert "nothing counted" in "".join(figures["solving-verified-chart"][1].itertext())
    assert bracketed >= 1  # … and an authoring place without 80 % of its slots verified is no medal


def test_hostile_labels_stay_text_and_every_chart_is_well_formed_xml(played: tuple[Path, Path]) -> None:
    _, events = played
    charts, hostile = 0, set()
    for page in sorted(events.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        assert not any(char in text for char in HIDDEN), page
        assert "]]>" not in text and "<b>5</b>" not in text, page
        for ident, (caption, svg) in _figures(page).items():
            charts += 1
            assert svg.get("role") == "img" and svg.get("viewBox") and caption
            assert _alt(svg)[0] and _alt(svg)[1]
            if "gpt-" in "".join(svg.itertext()):
                # The escape is what shows: the markup as text, each hidden code point as its label.
                assert _shown(HOSTILE) in _alt(svg)[1]
                hostile.add((page.parent.name, ident))
    assert charts == 2 + (1 + 3) + 4
    assert {event for event, _ in hostile} == {CHESS, SOO, CHALLENGE} and len(hostile) == 2 + 2 + 4


def test_the_same_record_gives_the_same_pictures(played: tuple[Path, Path], tmp_path: Path) -> None:
    data, events = played
    tables = Record(data).tables(EVENTS)
    about = json.loads((events / "about.json").read_text())
    arenas = [tuple(a) for a in about["arenas"]]
    for name in ("one", "two"):
        build_events_site(tables, tmp_path / name, built_at=about["built_at"], arenas=arenas)
    for event in (CHESS, SOO, CHALLENGE):
        page = f"{event}/index.html"
        assert (tmp_path / "one" / page).read_bytes() == (tmp_path / "two" / page).read_bytes()
        assert (tmp_path / "one" / page).read_bytes() == (events / page).read_bytes()
