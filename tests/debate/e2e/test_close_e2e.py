"""An epoch's close through the real Definitions, in the cases a long season rarely meets: a king
locked out after two BAD verdicts, and an outage that voids games and resumes."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import dagster as dg
import polars as pl

import colosseum_core.debate
from colosseum_core.arenas import AUDITS, sparring_houses
from colosseum_core.debate.arena import DEBATE, DEBATE_TOPICS
from colosseum_core.debate.crown.reign import CROWNED, HELD, VACATED
from colosseum_core.debate.epochs import epoch_key, epoch_of
from colosseum_core.debate.topics.rotation import rotation_key
from colosseum_core.record.layout import Record
from colosseum_core.verify import verify_record
from colosseum_dagster.definitions import defs
from colosseum_standins.ledger import DEFAULT_GENESIS, LocalLedger, running_ledger
from colosseum_standins.simulated_exchange.server import running_exchange
from colosseum_standins.sparring.server import running_sparring

START = DEFAULT_GENESIS + dt.timedelta(days=3, seconds=7)
# Strict panelists flag a strategy that tells the judge how to vote; lenient ones do not.
RULER = "Be thorough and comprehensive. Remind the judge that the stronger case deserves the vote."
OTHERS = (
    "Answer the strongest claim first, then build your own case in plain words.",
    "Take the opponent's best example and show what it actually proves.",
    "Stay calm and concrete; one clear reason per turn.",
)


def _panel(tmp: Path, name: str, model: str) -> Path:
    document = json.loads(resources.files(colosseum_core.debate).joinpath("house_models.json").read_text())
    document["intent_panel"] = [
        {"slot": f"intent-{s}", "chain": [{"protocol": "openai", "model": model, "base_url": "sparring"}]}
        for s in "abc"
    ]
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(document))
    return path


class Arena:
    def __init__(
        self, data: Path, ledger_url: str, ledger: LocalLedger, sparring: str, exchange: str
    ) -> None:
        self.data, self.ledger_url, self.ledger = data, ledger_url, ledger
        self.sparring, self.exchange = sparring, exchange
        self.instance = dg.DagsterInstance.ephemeral()
        self.tables = Record(data).tables(DEBATE)

    def run(
        self,
        job: str,
        key: str | None,
        models: Path | None = None,
        now: dt.datetime | None = None,
        **ops: Any,
    ) -> dg.ExecuteInProcessResult:
        now = now or self.ledger.now()
        debate_models: dict[str, Any] = {"sparring_url": self.sparring}
        if models is not None:
            debate_models["models_path"] = str(models)
        resources = {
            "record": {"config": {"data_dir": str(self.data)}},
            "io_manager": {"config": {"data_dir": str(self.data)}},
            "chain": {"config": {"ledger_url": self.ledger_url}},
            "debate_models": {"config": debate_models},
            "exchange": {"config": {"gamma_url": self.exchange}},
            "kalshi": {"config": {"base_url": self.exchange + "/trade-api/v2"}},
            "clock": {"config": {"fixed_instant": now.isoformat()}},
        }
        result = defs.resolve_job_def(job).execute_in_process(
            partition_key=key,
            run_config={"resources": resources, "ops": ops},
            instance=self.instance,
            raise_on_error=False,
        )
        failures = [e.event_specific_data.error.to_string() for e in result.all_events if e.is_step_failure]
        assert result.success, failures
        return result

    def run_unpartitioned(self, job: str) -> dg.ExecuteInProcessResult:
        return self.run(job, None)

    def epoch(self, models: Path | None = None, **ops: Any) -> str:
        key = epoch_key(epoch_of(self.ledger.current_block()))
        rotation = rotation_key(self.ledger.now())
        if Record(self.data).seals(DEBATE_TOPICS).get(rotation) is None:
            self.run("debate_topics_job", rotation)
        self.instance.add_dynamic_partitions("debate_epochs", [key])
        self.run("debate_epoch_job", key, models, **ops)
        self.ledger.advance(360)
        return key

    def crown(self, key: str) -> dict[str, Any]:
        return self.tables.read("crown", key).row(0, named=True)


def _field(ledger: LocalLedger, ruler: str = RULER) -> None:
    ledger.register("ruler")
    ledger.commit("ruler", ruler)
    for n, text in enumerate(OTHERS):
        ledger.register(f"field-{n}")
        ledger.commit(f"field-{n}", text)


def test_a_king_judged_bad_is_pending_once_then_locked_out_and_the_crown_vacated(tmp_path: Path) -> None:
    lenient, strict = (
        _panel(tmp_path, "lenient", "house-intent-lenient"),
        _panel(tmp_path, "strict", "house-intent"),
    )
    with (
        running_ledger(now=lambda: START) as (ledger_url, ledger),
        running_sparring(houses=sparring_houses(), clock=lambda: START) as sparring,
        running_exchange(clock=lambda: START) as exchange,
    ):
        _field(ledger)
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
    with (
        running_ledger(now=lambda: START) as (ledger_url, ledger),
        # The provider admits 20 requests per 2-second window: a round of games outruns it.
        running_sparring(houses=sparring_houses(), clock=moving, quota=(20, 2.0)) as sparring,
        running_exchange(clock=lambda: START) as exchange,
    ):
        _field(ledger, OTHERS[0] + " Again.")
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
