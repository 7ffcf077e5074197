"""The events board in plain words: who played, what each column means, and the footer.

Three CALIBRATION events (chess, Solve or Object, a challenge) are played through the real commands
with company contenders (``openai-frontier``, ``anthropic-frontier``) stood in for by house players,
and the board is built from them. No house player's result is shown under a company's id: every
page names the house player first, with the contender it stands in for beside it; every standings
page has a key covering each of its columns; every column header has a tooltip; no footer holds a
backticked command.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from colosseum_core.arenas import PUBLIC_SITE
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.site.glossary import player, tips_of
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import published_problems
from tests.conftest import cli
from tests.support import events_e2e as e2e
from tests.support.chess import need_stockfish
from tests.support.pages import read_page_text as _read
from tests.support.sandbox import need_sandbox

COMPANIES = ("openai-frontier", "anthropic-frontier")
EVENTS_PLAYED = {
    "chess-words": (
        ["chess", "event", "freeze", "chess-words", "--lines", "1", "--seed", "7"],
        [*COMPANIES, "house-illegal", "stockfish-n1"],
    ),
    "soo-words": (
        ["solve-or-object", "event", "freeze", "soo-words", "--pairs", "2", "--seed", "3"],
        [*COMPANIES, "house-paranoid"],
    ),
    "ch-words": (
        ["challenges", "event", "freeze", "ch-words", "--slots", "1", "--seed", "5", "--replicates", "99"],
        [*COMPANIES, "house-lazy"],
    ),
}
KIND = {"chess-words": "chess", "soo-words": "solve-or-object", "ch-words": "challenges"}
# The columns that name who played, on every events page.
PLAYER_COLUMNS = frozenset(
    {"Player", "White", "Black", "Author", "Solver", "Judge", "Objector", "Phase", "Gold", "Silver", "Bronze"}
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    need_stockfish()
    need_sandbox()
    data = tmp_path_factory.mktemp("words") / "data"
    for event, (freeze, contenders) in EVENTS_PLAYED.items():
        assert cli("events", *freeze, *e2e.contenders(contenders), "--data", str(data)) == 0
        e2e.run(KIND[event], data, event)
    site = e2e.published(data, tmp_path_factory.mktemp("s") / "site")
    assert published_problems(PUBLIC_SITE, site, Record(data)) == []
    return data, site / "events"


def _named_as_played(text: str, company: str) -> bool:
    """Every mention of ``company`` in ``text`` is what a house player stands in for."""
    return all(text[: m.start()].endswith("standing in for ") for m in re.finditer(re.escape(company), text))


@pytest.mark.slow
def test_no_house_player_is_shown_under_a_company_id(site: tuple[Path, Path]) -> None:
    data, events = site
    tables = Record(data).tables(EVENTS)
    labels = {}
    for event in EVENTS_PLAYED:
        manifest = json.loads(tables.read("event_manifests", event)["manifest"][0])
        assert manifest["class"] == "CALIBRATION"
        stand_ins = {c["id"]: c for c in manifest["contenders"] if c.get("stands_in_for")}
        assert set(stand_ins) == set(COMPANIES), event  # the companies are played by house players
        labels[event] = {c: player(entry) for c, entry in stand_ins.items()}
        # The standings: the house player in the Player column, what it stands in for beside it.
        index = _read(events / event / "index.html")
        standings = [t for t in index.tables if "Player" in t.head]
        assert standings, event
        for table in standings:
            at = table.head.index("Player")
            played = {row[at]: row[at + 1] for row in table.texts()}
            for company, entry in stand_ins.items():
                assert company not in played, (event, table.caption)
                assert played[entry["model"]] == f"standing in for {company} ({entry['stands_in_for']})"
    # Every page: a column or heading that names who played never names a company's id but as what a
    # house player stands in for.
    pages = sorted(events.rglob("*.html"))
    assert len(pages) > 10
    seen = 0
    for path in pages:
        page = _read(path)
        for table in page.tables:
            columns = [i for i, h in enumerate(table.head) if h in PLAYER_COLUMNS]
            for row in table.texts():
                for i in columns:
                    seen += 1
                    for company in COMPANIES:
                        assert _named_as_played(row[i], company), (path.name, table.caption, row[i])
        for heading in page.headings:
            for company in COMPANIES:
                assert _named_as_played(heading, company), (path.name, heading)
    assert seen > 50
    # The index lists each medal's holders by the name they played under.
    index = _read(events / "index.html")
    [listing] = index.tables
    rows = {row[0]: dict(zip(listing.head, row, strict=True)) for row in listing.texts()}
    assert set(rows) == set(EVENTS_PLAYED)
    medalled = [
        (event, who)
        for event, row in rows.items()
        for who in (row["Gold"], row["Silver"], row["Bronze"])
        if any(c in who for c in COMPANIES)
    ]
    assert medalled  # a company's stand-in holds a medal somewhere, shown as the house player
    for event, who in medalled:
        assert any(p.label in who for p in labels[event].values()), who
    # A chess game names its players the same way, in its title and its captions.
    games = _read(events / "chess-words" / "games.html")
    [listed] = games.tables
    assert any("standing in for openai-frontier" in row[3] for row in listed.texts())


@pytest.mark.slow
def test_every_standings_page_has_a_key_for_every_column(site: tuple[Path, Path]) -> None:
    _, events = site
    for page_path in [events / "index.html", *(events / e / "index.html" for e in EVENTS_PLAYED)]:
        page = _read(page_path)
        terms = {header for term in page.key for header in term.split(", ")}
        standings = [
            t
            for t in page.tables
            if t.caption in ("Standings", "Sealed events") or t.caption.startswith(("Solving", "Authoring"))
        ]
        assert standings, page_path
        for table in standings:
            missing = [h for h in table.head if h not in terms]
            assert not missing, (page_path, table.caption, missing)
        if page_path.parent != events:
            assert {"Place", "Medal", "Player", "Plays as", "95 % interval"} <= terms, page_path
    chess = _read(events / "chess-words" / "index.html")
    assert {"Rating", "Forfeits", "Without forfeits", "Standing in for", "FIGHT and CALIBRATION"} <= set(
        chess.key
    )
    challenge = _read(events / "ch-words" / "index.html")
    assert {"Verified", "Reviewed", "Unresolved", "Score (mean)", "Verified slots"} <= set(challenge.key)
    # Every column header of every events page says what it is when hovered.
    for path in sorted(events.rglob("*.html")):
        for table in _read(path).tables:
            untitled = [h for h, tip in zip(table.head, table.tips, strict=True) if not tip.strip()]
            assert not untitled, (path.name, table.caption, untitled)


def test_tooltips_are_the_keys_words() -> None:
    from colosseum_core.events.site import glossary

    tips = tips_of(glossary.CHESS_KEY)
    assert tips["W–D–L"] == dict(glossary.CHESS_KEY)["W–D–L"]
    assert glossary.CHESS_STANDINGS_TIPS["Rating"] == tips["Rating"]


@pytest.mark.slow
def test_no_page_says_colosseum_verify_in_backticks(site: tuple[Path, Path]) -> None:
    _, events = site
    for path in sorted(events.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        assert "`colosseum verify`" not in text and "`" not in _read(path).footer, path
        assert "colosseum verify checks it" in _read(path).footer, path
