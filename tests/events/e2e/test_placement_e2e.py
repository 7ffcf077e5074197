"""Placements that mean something, end to end: real chess and challenge events through the CLI's freeze
and run jobs, the events board built from them, and ``colosseum verify``.

- A chess event frozen under COLOSSEUM-PLACEMENT-1 (its manifest names no placement rule, as every
  manifest before version 2): the issue's case, a house player with 0 points and 6 forfeits of 6 "gold"
  beside Stockfish, kept as sealed, re-derived by its own rule and shown with it.
- A chess event frozen now (COLOSSEUM-PLACEMENT-2) whose field separates: the forfeiting house player is
  placed below both Stockfish anchors, and the index shows gold, silver and bronze.
- A challenge event frozen now: a solver at −1.000 [−1.000, −1.000] never shares with one at +1.000
  [+1.000, +1.000] through the wide interval between them, and one with no counted outcome has no
  placement.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import colosseum_core.events.chess.rules as chess_rules
from colosseum_core.arenas import AUDITS, PUBLIC_SITE
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.site.glossary import Names
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import publish_site
from colosseum_core.statistics.placement import PLACEMENT_1, PLACEMENT_2, placements
from colosseum_core.trust.keys import KeyStore
from colosseum_core.verify import verify_record, verify_site
from tests.conftest import cli
from tests.support.sandbox import need_sandbox

# Its one record of three events (two chess events and a challenge, frozen and played) and their
# board take about 20 s of CPU before the first test: `make test-slow`.
pytestmark = pytest.mark.slow


OLD = "chess-placement-1"  # the README's demonstration field, frozen as before version 2
OLD_FIELD = ["openai-frontier", "house-illegal", "stockfish-n1", "stockfish-n100"]
NEW = "chess-placement-2"
NEW_FIELD = ["stockfish-n10000", "stockfish-n100", "openai-frontier", "house-illegal"]
CHALLENGE = "ch-placement-2"
BUILT = dt.datetime(2027, 1, 4, 12, 0, tzinfo=dt.UTC)


def _freeze_chess(data: Path, event: str, field: list[str], lines: int) -> None:
    args = ["events", "chess", "event", "freeze", event, "--lines", str(lines), "--seed", "7"]
    args += ["--replicates", "499", "--data", str(data)]
    for contender in field:
        args += ["--contender", contender]
    assert cli(*args) == 0


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.support.chess import need_stockfish

    need_stockfish()
    need_sandbox()
    data = tmp_path_factory.mktemp("placement") / "data"
    with pytest.MonkeyPatch.context() as patch:
        # Frozen by the code before version 2: its manifest's rules name no placement rule.
        patch.delitem(chess_rules.RULES, "placement")
        _freeze_chess(data, OLD, OLD_FIELD, 1)
    _freeze_chess(data, NEW, NEW_FIELD, 2)
    for event in (OLD, NEW):
        assert cli("events", "chess", "event", "run", event, "--data", str(data)) == 0
    args = ("freeze", CHALLENGE, "--slots", "2", "--seed", "5", "--replicates", "499")
    assert cli("events", "challenges", "event", *args, "--data", str(data)) == 0
    assert cli("events", "challenges", "event", "run", CHALLENGE, "--data", str(data)) == 0
    return data


@pytest.fixture(scope="module")
def board(record: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("placement-site") / "site"
    site = publish_site(PUBLIC_SITE, Record(record), KeyStore.for_data(record), out, built_at=BUILT).site
    report = verify_site(site, AUDITS)
    assert report.ok(), report.problems[:5]
    return site / "events"


class _Tables(HTMLParser):
    """Every table of a page: its caption and its rows, each a list of cell texts (the header first)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._caption: str | None = None
        self._rows: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self._in_caption = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._rows, self._caption = [], ""
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag in ("td", "th") and self._rows is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th") and self._cell is not None and self._rows is not None:
            self._rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table" and self._rows is not None:
            self.tables[self._caption or ""] = self._rows
            self._rows = None

    def handle_data(self, data: str) -> None:
        if self._in_caption:
            self._caption = (self._caption or "") + data
        elif self._cell is not None:
            self._cell.append(data)


def _tables(page: Path) -> dict[str, list[dict[str, str]]]:
    parser = _Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    return {
        caption: [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
        for caption, rows in parser.tables.items()
    }


def _text(page: Path) -> str:
    import html
    import re

    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))).split())


def _standings(data: Path, event: str, table: str) -> pl.DataFrame:
    return Record(data).tables(EVENTS).read(table, event)


def _manifest(data: Path, event: str) -> dict[str, Any]:
    return json.loads(Record(data).tables(EVENTS).read("event_manifests", event)["manifest"][0])


def _wholly_above(frame: pl.DataFrame, score: str) -> dict[str, int]:
    """1 + the contenders whose interval lies wholly above, written out here (not the project's code)."""
    rows = frame.filter(pl.col(score).is_not_null()).to_dicts()
    return {r["contender"]: 1 + sum(1 for o in rows if o["low"] > r["high"]) for r in rows}


def _place(row: dict[str, Any]) -> str:
    place = "–" if row["placement"] is None else str(row["placement"])
    return f"{place} {row['medal']}" if row["medal"] else place


def test_an_event_sealed_under_version_1_keeps_its_placements_verifies_and_says_which_rule(
    record: Path, board: Path
) -> None:
    manifest = _manifest(record, OLD)
    assert "placement" not in manifest["rules"]
    standings = _standings(record, OLD, "chess_standings")
    assert set(standings["ratings"]) == {"CHESS-RATINGS-1"}  # as every standings row cited before
    # The case, as it was sealed: the house player with 0 points and every game forfeited
    # shares gold with Stockfish through the chain of overlapping neighbours. History is not re-scored.
    illegal = standings.filter(pl.col("contender") == "house-illegal").row(0, named=True)
    assert (illegal["points"], illegal["forfeits"], illegal["games"]) == (0.0, 6, 6)
    again = placements(
        standings["rating"], standings["low"], standings["high"], standings["contender"], rule=PLACEMENT_1
    )
    assert standings["placement"].to_list() == list(again.placement)
    assert set(standings["medal"]) == {"gold"}
    # Under version 2 the same intervals would not let it share Stockfish's placement.
    now = placements(standings["rating"], standings["low"], standings["high"], standings["contender"])
    anchors = [i for i, c in enumerate(standings["contender"]) if c.startswith("stockfish")]
    mine = standings["contender"].to_list().index("house-illegal")
    assert all(now.placement[mine] > now.placement[i] for i in anchors)
    report = verify_record(record, AUDITS)
    assert report.ok(), report.problems[:5]
    assert report.checked["standings"] >= 3
    page = board / OLD / "index.html"
    assert (
        "Placements by COLOSSEUM-PLACEMENT-1, the rule these standings were frozen under and keep"
        in _text(page)
    )
    shown = {r["Player"]: r["Place"] for r in _tables(page)["Standings"]}
    names = Names(manifest)
    assert shown == {names.of(r["contender"]).played: _place(r) for r in standings.iter_rows(named=True)}
    index = {r["Event"]: r for r in _tables(board / "index.html")["Sealed events"]}
    assert index[OLD]["Placed by"] == PLACEMENT_1
    assert index[OLD]["Gold"] == names.listed(sorted(OLD_FIELD)) and index[OLD]["Silver"] == "–"


def test_a_chess_event_frozen_now_places_the_forfeiting_house_player_below_stockfish(
    record: Path, board: Path
) -> None:
    manifest = _manifest(record, NEW)
    assert manifest["rules"]["placement"] == PLACEMENT_2
    standings = _standings(record, NEW, "chess_standings")
    assert set(standings["ratings"]) == {f"CHESS-RATINGS-1,{PLACEMENT_2}"}
    assert dict(zip(standings["contender"], standings["placement"], strict=True)) == _wholly_above(
        standings, "rating"
    )
    by = {r["contender"]: r for r in standings.iter_rows(named=True)}
    for a in by.values():
        for b in by.values():
            if b["high"] < a["low"]:  # b lies wholly below a: never a's placement, never its medal
                assert b["placement"] > a["placement"] and b["medal"] != a["medal"]
    illegal = by["house-illegal"]
    assert illegal["points"] == 0.0 and illegal["forfeits"] >= 6
    assert illegal["medal"] != "gold"
    assert all(illegal["placement"] > by[s]["placement"] for s in ("stockfish-n10000", "stockfish-n100"))
    # The field separates: gold, silver and bronze; version 1 would have chained it into one gold.
    assert {"gold", "silver", "bronze"} <= set(standings["medal"].drop_nulls())
    chained = placements(
        standings["rating"], standings["low"], standings["high"], standings["contender"], rule=PLACEMENT_1
    )
    assert set(chained.medal) == {"gold"}
    page = board / NEW / "index.html"
    said = f"Placements by {PLACEMENT_2}: a contender's placement is 1 + the number of contenders"
    assert said in _text(page)
    shown = {r["Player"]: r["Place"] for r in _tables(page)["Standings"]}
    names = Names(manifest)
    assert shown == {names.of(c).played: _place(r) for c, r in by.items()}
    index = {r["Event"]: r for r in _tables(board / "index.html")["Sealed events"]}
    row = index[NEW]
    assert row["Placed by"] == PLACEMENT_2
    for medal, column in (("gold", "Gold"), ("silver", "Silver"), ("bronze", "Bronze")):
        named = [c for c, r in by.items() if r["medal"] == medal]
        assert named and row[column] == names.listed(named)
    assert "house-illegal" not in row["Gold"]


def test_a_challenge_frozen_now_never_joins_minus_one_and_plus_one_and_places_only_counted_solvers(
    record: Path, board: Path
) -> None:
    assert _manifest(record, CHALLENGE)["rules"]["placement"] == PLACEMENT_2
    standings = _standings(record, CHALLENGE, "challenge_standings")
    assert all(r.endswith(f",{PLACEMENT_2}") for r in standings["rules"])
    for (ranking, _), part in standings.group_by(["ranking", "basis"], maintain_order=True):
        placed = dict(zip(part["contender"], part["placement"], strict=True))
        assert {c: p for c, p in placed.items() if p is not None} == _wholly_above(part, "score")
        assert all(p is None for c, p in placed.items() if part.filter(pl.col("contender") == c)["n"][0] == 0)
        if ranking == "authoring":  # an authoring medal still needs 80 % of the slots verified
            medalled = part.filter(pl.col("medal").is_not_null())
            assert (medalled["verified_slots"] >= 0.8 * medalled["slots"]).all()
    solving = standings.filter((pl.col("ranking") == "solving") & (pl.col("basis") == "verified"))
    rows = solving.to_dicts()
    certain = {r["contender"]: r for r in rows if r["score"] is not None and r["low"] == r["high"]}
    top = [r for r in certain.values() if r["score"] == 1.0]
    bottom = [r for r in certain.values() if r["score"] == -1.0]
    assert top and bottom  # the case: +1.000 [+1.000, +1.000] and −1.000 [−1.000, −1.000] …
    wide = [r for r in rows if r["score"] is not None and r["low"] <= -1.0 and r["high"] >= 1.0]
    assert wide  # … and a wide third between them
    for a in top:
        for b in bottom:
            assert b["placement"] > a["placement"] and b["medal"] != a["medal"]
    # Version 1 chained them through the wide third into one placement.
    chained = placements(
        [r["score"] for r in rows], [r["low"] for r in rows], [r["high"] for r in rows],
        [r["contender"] for r in rows], rule=PLACEMENT_1, counted=[r["n"] > 0 for r in rows],
    )  # fmt: skip
    assert {chained.placement[i] for i, r in enumerate(rows) if r["n"] > 0} == {1}
    silent = [r for r in rows if r["n"] == 0]
    page = board / CHALLENGE / "index.html"
    shown = {r["Player"]: r["Place"] for r in _tables(page)["Solving: Verified outcomes only"]}
    names = Names(_manifest(record, CHALLENGE))
    assert shown == {names.of(r["contender"]).played: _place(r) for r in rows}
    assert all(shown[names.of(r["contender"]).played] == "–" for r in silent)
    assert f"Placements by {PLACEMENT_2}:" in _text(page)
    row = {r["Event"]: r for r in _tables(board / "index.html")["Sealed events"]}[CHALLENGE]
    assert row["Placed by"] == PLACEMENT_2
    assert all(b["contender"] not in row["Gold"].split(", ") for b in bottom)


def test_placements_that_do_not_re_derive_by_the_events_rule_are_named(record: Path, tmp_path: Path) -> None:
    copy = tmp_path / "data"
    subprocess.run(["cp", "-a", str(record), str(copy)], check=True)
    tables = Record(copy).tables(EVENTS)
    # The event frozen under version 2, given version 1's placements: verify names them.
    stored = tables.read("chess_standings", NEW)
    chained = placements(
        stored["rating"], stored["low"], stored["high"], stored["contender"], rule=PLACEMENT_1
    )
    forged = stored.drop("id").with_columns(
        placement=pl.Series(chained.placement, dtype=pl.Int64),
        medal=pl.Series(chained.medal, dtype=pl.String),
    )
    tables.write("chess_standings", with_ids(forged), NEW)
    report = verify_record(copy, AUDITS)
    assert not report.ok()
    assert any(f"chess_standings event {NEW}" in p and "field placement" in p for p in report.problems), (
        report.problems[:5]
    )
