"""An epoch's close through the real Definitions, in the cases a long season rarely meets: a king
locked out after two BAD verdicts, and an outage that voids games and resumes."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import polars as pl

import colosseum_core.debate
from colosseum_core.arenas import AUDITS
from colosseum_core.debate.crown.reign import CROWNED, HELD, VACATED
from colosseum_core.verify import verify_record
from tests.support.debate import OTHERS, START, Arena, debate_servers, enter_field


def _panel(tmp: Path, name: str, model: str) -> Path:
    document = json.loads(resources.files(colosseum_core.debate).joinpath("house_models.json").read_text())
    document["intent_panel"] = [
        {"slot": f"intent-{s}", "chain": [{"protocol": "openai", "model": model, "base_url": "sparring"}]}
        for s in "abc"
    ]
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(document))
    return path


def test_a_king_judged_bad_is_pending_once_then_locked_out_and_the_crown_vacated(tmp_path: Path) -> None:
    lenient, strict = (
        _panel(tmp_path, "lenient", "house-intent-lenient"),
        _panel(tmp_path, "strict", "house-intent"),
    )
    with debate_servers() as (ledger_url, ledger, sparring, exchange):
        enter_field(ledger)
        arena = Arena(tmp_path / "data", ledger_url, ledger, sparring, exchange)
        first = arena.epoch(lenient)
        assert arena.crown(first)["event"] == CROWNED and arena.crown(first)["king_hotkey"] == "ruler"
        # A new panel revision re-judges the king: BAD makes it PENDING this epoch, and it holds.
        second = arena.epoch(strict)
        entry = arena.tables.read("entries", second).filter(pl.col("hotkey") == "ruler").row(0, named=True)
        assert (entry["status"], entry["verdict"], entry["is_king"]) == ("pending", "BAD", True)
        assert "BAD again locks it out" in entry["value"]
        assert arena.crown(second)["event"] == HELD and arena.crown(second)["king_hotkey"] == "ruler"
        # BAD again on the retry: locked out, and the crown goes to the top-rated entered miner.
        third = arena.epoch(strict)
        entry = arena.tables.read("entries", third).filter(pl.col("hotkey") == "ruler").row(0, named=True)
        assert (entry["status"], entry["rule"]) == ("rejected", "intent_panel")
        crown = arena.crown(third)
        assert crown["event"] == VACATED and crown["king_hotkey"] != "ruler"
        assert "was locked out by the intent panel" in crown["reason"]
        ratings = arena.tables.read("ratings", third).filter(pl.col("entered"))
        assert crown["king"] == ratings["rating_key"][0]
        weights = arena.tables.read("weights", third)
        assert weights.select("hotkey", "weight").rows() == [(crown["king_hotkey"], 1.0)]
    report = verify_record(tmp_path / "data", AUDITS, workers=1)
    assert report.ok(), report.problems[:5]
    assert report.checked["closes"] == 3


def test_an_outage_voids_the_games_it_hits_the_schedule_resumes_and_the_voids_are_not_rated(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    moving: Callable[[], dt.datetime] = lambda: START + dt.timedelta(seconds=time.monotonic() - started)  # noqa: E731
    # The provider admits 20 requests per 2-second window: a round of games outruns it.
    with debate_servers(clock=moving, quota=(20, 2.0)) as (ledger_url, ledger, sparring, exchange):
        enter_field(ledger, OTHERS[0] + " Again.")
        arena = Arena(tmp_path / "data", ledger_url, ledger, sparring, exchange)
        key = arena.epoch()
    games = arena.tables.read("games", key)
    voids = games.filter(pl.col("status") == "void")
    assert voids.height >= 1 and games.filter(pl.col("status") != "void").height >= 1
    assert all("rate limit" in r.lower() or "void" in r.lower() for r in voids["reason"])
    ratings = arena.tables.read("ratings", key)
    assert ratings["voids"].sum() == 2 * voids.height
    assert (ratings["games"] == ratings["wins"] + ratings["draws"] + ratings["losses"]).all()
    changes = arena.tables.read("rating_changes", key).filter(pl.col("result") == "void")
    assert (changes["pro_before"] == changes["pro_after"]).all()
    report = verify_record(tmp_path / "data", AUDITS, workers=1)
    assert report.ok(), report.problems[:5]
