"""The multi-event arena's part of a model maker's trial (``events.trial``) through the real stack: the
model, a house player of the sparring server named as a model maker would name it (a non-house
``ModelRef`` with a base URL and a key variable of its own), frozen into an ordinary CALIBRATION event
of each kind beside the house field, run and sealed by the kind's own jobs of the real Definitions,
covered by ``colosseum verify``; its report read back from the record alone; a trial killed and run
again asks nothing twice; a model that answers garbage, and one whose server goes down mid-event."""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import dagster as dg
import polars as pl
import pytest

from colosseum_core.arenas import sparring_houses, trial_parts
from colosseum_core.events import trial as events_trial
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.asking import journalled_calls
from colosseum_core.events.trial_field import EVENTS_TRIAL, model_contender_id
from colosseum_core.providers.models import ModelRef, parse_model
from colosseum_core.providers.usage import usage_of
from colosseum_core.record.layout import Record
from colosseum_core.trial import PartReport, TrialError, TrialRequest, trial_id
from colosseum_dagster.cli.trial_jobs import job_runner, provider_keys_config
from colosseum_dagster.resources import ProviderKeysResource, provider_keys_from_environment
from colosseum_standins.sparring import running_sparring
from tests.support import events_e2e as e2e
from tests.support.sandbox import need_sandbox

KEY_VARIABLE = "COLOSSEUM_TRIAL_TEST_KEY"
KEY = "sk-trial-test-not-a-real-key-5521"


@pytest.fixture(autouse=True)
def _model_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    if not os.environ.get("COLOSSEUM_STOCKFISH") and Path("/usr/games/stockfish").exists():
        monkeypatch.setenv("COLOSSEUM_STOCKFISH", "/usr/games/stockfish")


def model_named(name: str, url: str) -> ModelRef:
    return parse_model(name, base_url=url, key_env=KEY_VARIABLE)


def request_for(
    model: ModelRef, data: Path, sparring_url: str, lines: list[str] | None = None
) -> TrialRequest:
    return TrialRequest(
        model=model,
        trial=trial_id(model),
        data_dir=data,
        sparring_url=sparring_url,
        environ=dict(os.environ),
        clock=lambda: dt.datetime.now(dt.UTC),
        progress=(lines if lines is not None else []).append,
        run_job=job_runner(data),
    )


def manifest(data: Path, event: str) -> dict[str, Any]:
    return e2e.manifest(data, event)


def receipt_files(data: Path) -> set[str]:
    root = data / "receipts"
    return {p.name for p in root.rglob("*.json.gz")} if root.exists() else set()


def check_part(
    report: PartReport, data: Path, model: ModelRef, part: events_trial.TrialEvent
) -> dict[str, Any]:
    """What every sealed part holds: an ordinary CALIBRATION event of its kind naming the trial, the
    model as named with its key variable and never its key, verify passing, and the report read
    back from the record alone the same."""
    trial = trial_id(model)
    assert report.state == "sealed", report.note
    assert report.unit == part.event(trial) and report.arena == "events"
    document = manifest(data, report.unit)
    assert document["kind"] == part.kind and document["class"] == "CALIBRATION"
    assert document["trial"] == {"id": trial, "model": model.record(), "rules": EVENTS_TRIAL}
    mine = [c for c in document["contenders"] if c["id"] == model_contender_id(trial)]
    assert len(mine) == 1
    assert {k: mine[0][k] for k in ("protocol", "model", "base_url", "key_env")} == {
        "protocol": model.protocol,
        "model": model.model,
        "base_url": model.base_url,
        "key_env": KEY_VARIABLE,
    }
    rows = Record(data).tables(EVENTS).read("event_manifests", report.unit)
    assert KEY not in rows.write_csv()
    e2e.verified(data)
    assert part.read(data, trial) == report
    for standing in report.standings:
        if standing.value is not None:
            assert standing.low <= standing.value <= standing.high, standing
            assert 1 <= standing.rank <= standing.field, standing
    # Every transcript is a file of the record: the event's journals, then the tables the report read.
    assert report.transcripts and all((data / t).is_file() for t in report.transcripts)
    assert all(f"event={report.unit}" in t for t in report.transcripts)
    return document


def model_usage(data: Path, frame: pl.DataFrame) -> Any:
    """The calls, tokens and seconds of ``frame``'s rows' receipts, read here from the receipts."""
    store = Record(data).receipts
    calls = frame.select("receipt_ids", "protocol").explode("receipt_ids").drop_nulls("receipt_ids")
    return usage_of((store.get(r["receipt_ids"]), r["protocol"]) for r in calls.iter_rows(named=True))


# -- registered, named, refused ------------------------------------------------------------------


def test_the_parts_are_registered_and_their_events_are_the_kinds_own_jobs() -> None:
    from colosseum_dagster.events.kinds import wiring_named

    parts = trial_parts(["events"])
    assert [p.part for p in parts] == ["chess", "solve-or-object", "challenges"]
    trial = trial_id(parse_model("openai/" + "x" * 60, base_url="http://127.0.0.1:9/v1"))
    for part in parts:
        assert isinstance(part, events_trial.TrialEvent) and part.arena == "events"
        wiring = wiring_named(part.kind)
        assert wiring is not None and (wiring.prefix, wiring.resource) == (part.jobs, part.resource)
        assert re.match(r"^[a-z0-9][a-z0-9._-]{0,63}$", part.event(trial)), part.event(trial)
        assert part.event(trial) == part.event(trial)  # a rerun finds it


def test_a_model_whose_key_is_not_set_is_refused_before_anything_is_frozen(
    tmp_path: Path, sparring_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_VARIABLE)
    model = model_named("openai/house-solver", sparring_url)
    data = tmp_path / "data"
    for part in events_trial.TRIAL_EVENTS:
        with pytest.raises(TrialError, match=f"\\${KEY_VARIABLE} is not set"):
            part.run(request_for(model, data, sparring_url))
        assert part.read(data, trial_id(model)) is None
    assert not (data / "warehouse").exists()


# -- Solve or Object: end to end, resumed, garbage ---------------------------------------------------


def test_solve_or_object_the_model_beside_the_house_solvers(tmp_path: Path, sparring_url: str) -> None:
    need_sandbox()
    data = tmp_path / "data"
    model = model_named("openai/house-solver-sharp", sparring_url)
    lines: list[str] = []
    part = events_trial.SOLVE_OR_OBJECT
    report = part.run(request_for(model, data, sparring_url, lines))
    document = check_part(report, data, model, part)
    contender = model_contender_id(trial_id(model))
    house = ["openai-frontier", "anthropic-frontier", "google-frontier", "house-paranoid", "house-garbled"]
    assert [c["id"] for c in document["contenders"]] == [contender, *house, "house-silent"]
    assert len(document["bank"]["pairs"]) == 4 and len(document["bank"]["items"]) == 8
    tables = Record(data).tables(EVENTS)
    replies = tables.read("soo_replies", report.unit).filter(pl.col("contender") == contender)
    standings = tables.read("soo_standings", report.unit)
    row = standings.filter(pl.col("contender") == contender).row(0, named=True)
    score, brier = report.standings
    assert (score.value, score.low, score.high, score.rank) == (
        row["score"],
        row["low"],
        row["high"],
        row["placement"],
    )
    assert score.field == standings.height == 7 and score.higher_is_better
    assert (brier.value, brier.higher_is_better) == (row["brier"], False)
    assert brier.rank == 1 + standings.filter(pl.col("brier") < row["brier"]).height
    usage = model_usage(data, replies)
    assert report.calls == usage.calls == replies.height == 8
    assert (report.tokens_in, report.tokens_out) == (usage.tokens_in, usage.tokens_out)
    assert report.tokens_in > 0 and report.tokens_out > 0
    assert sum(report.format_failures.values()) == replies["failure"].is_not_null().sum()
    assert report.transcripts[0] == f"journal/events/soo_replies/event={report.unit}.jsonl"
    assert f"warehouse/events/soo_replies/event={report.unit}/data.parquet" in report.transcripts
    assert any("freezing" in line for line in lines) and any("sealed" in line for line in lines)
    # Run again: the sealed event is only read; nothing is asked, nothing written.
    before = receipt_files(data)
    assert part.run(request_for(model, data, sparring_url)) == report
    assert receipt_files(data) == before


@pytest.mark.slow
def test_a_model_that_answers_garbage_is_its_format_failures(tmp_path: Path, sparring_url: str) -> None:
    """A chess player asked Solve-or-Object items: every reply unreadable, each counted by its class,
    and the event sealed with the model ranked on what it scored."""
    need_sandbox()
    data = tmp_path / "data"
    model = model_named("openai/house-chess", sparring_url)
    part = events_trial.SOLVE_OR_OBJECT
    report = part.run(request_for(model, data, sparring_url))
    check_part(report, data, model, part)
    replies = Record(data).tables(EVENTS).read("soo_replies", report.unit)
    replies = replies.filter(pl.col("contender") == model_contender_id(trial_id(model)))
    assert sum(report.format_failures.values()) == replies.height == 8
    assert set(report.format_failures) == set(replies["failure"].unique().to_list())
    assert report.calls == 8 and report.standings[0].value is not None


CHILD = """
import datetime as dt, os, sys
from pathlib import Path
from colosseum_core.events import trial
from colosseum_core.providers.models import parse_model
from colosseum_core.trial import TrialRequest, trial_id
from colosseum_dagster.cli.trial_jobs import job_runner
part, name, model_url, sparring_url, data = sys.argv[1:6]
model = parse_model(name, base_url=model_url, key_env=os.environ["TRIAL_KEY_VARIABLE"])
request = TrialRequest(
    model=model, trial=trial_id(model), data_dir=Path(data), sparring_url=sparring_url,
    environ=os.environ, clock=lambda: dt.datetime.now(dt.UTC), progress=print, run_job=job_runner(Path(data)),
)
print(getattr(trial, part).run(request).state)
"""


def killed_trial(part: str, model: ModelRef, data: Path, sparring_url: str, kill_at: str) -> None:
    """The trial's part run in a process of its own, killed (SIGKILL, as a power cut) at ``kill_at``."""
    env = {**os.environ, "COLOSSEUM_KILL_AT": kill_at, "TRIAL_KEY_VARIABLE": KEY_VARIABLE}
    argv = [sys.executable, "-c", CHILD, part, model.name, model.base_url, sparring_url, str(data)]
    killed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -9, (kill_at, killed.stdout[-1000:], killed.stderr[-3000:])


def asks(data: Path, journal: str, event: str, fields: tuple[str, ...]) -> dict[tuple[Any, ...], list[Any]]:
    return journalled_calls(e2e.journal_entries(Record(data).journal_path(EVENTS, journal, event)), fields)


@pytest.mark.slow
def test_a_trial_killed_twice_resumes_and_asks_nothing_twice(tmp_path: Path, sparring_url: str) -> None:
    """Killed right after its manifest is written, then right after one of the model's replies is
    journalled: run again, the event seals as one run would, and no question answered before a kill
    is asked again (the journal holds one request for each, the receipts one more only per new ask)."""
    need_sandbox()
    data = tmp_path / "data"
    model = model_named("openai/house-solver", sparring_url)
    part = events_trial.SOLVE_OR_OBJECT
    trial = trial_id(model)
    event, contender = part.event(trial), model_contender_id(trial)
    killed_trial("SOLVE_OR_OBJECT", model, data, sparring_url, "wrote:event_manifests")
    frozen = manifest(data, event)
    assert frozen["trial"]["id"] == trial and not Record(data).tables(EVENTS).exists("soo_replies", event)
    victim = frozen["bank"]["items"][2]
    killed_trial("SOLVE_OR_OBJECT", model, data, sparring_url, f"event-reply:{contender}:{victim}")
    fields = ("contender", "item")
    answered = {
        k for k, requests in asks(data, "soo_replies", event, fields).items() if requests[-1].receipt_id
    }
    assert (contender, victim) in answered
    receipts_before = receipt_files(data)
    report = part.run(request_for(model, data, sparring_url))
    check_part(report, data, model, part)
    assert manifest(data, event) == frozen  # frozen once, never again
    calls = asks(data, "soo_replies", event, fields)
    for key in answered:
        assert len(calls[key]) == 1, (key, calls[key])
    asked_after = sum(len(calls[k]) for k in calls) - len(answered)
    asked_after -= sum(1 for k in calls if k not in answered for r in calls[k] if r.interrupted)
    assert len(receipt_files(data) - receipts_before) == asked_after
    replies = Record(data).tables(EVENTS).read("soo_replies", report.unit)
    assert report.calls == replies.filter(pl.col("contender") == contender).height == 8


# -- chess: against the anchors; the model's server down mid-event -----------------------------------


def chess_event_checks(report: PartReport, data: Path, contender: str) -> pl.DataFrame:
    tables = Record(data).tables(EVENTS)
    document = manifest(data, report.unit)
    anchors = ["stockfish-n1", "stockfish-n100", "stockfish-n1000", "stockfish-n10000"]
    assert [c["id"] for c in document["contenders"]] == [contender, *anchors]
    games = tables.read("chess_games", report.unit)
    mine = games.filter((pl.col("white") == contender) | (pl.col("black") == contender))
    assert games.height == 20 and mine.height == 8
    # Colours swapped: the model is White once and Black once against every anchor.
    for anchor in anchors:
        assert mine.filter(pl.col("white") == contender, pl.col("black") == anchor).height == 1
        assert mine.filter(pl.col("black") == contender, pl.col("white") == anchor).height == 1
    (rating,) = report.standings
    row = (
        tables.read("chess_standings", report.unit)
        .filter(pl.col("contender") == contender)
        .row(0, named=True)
    )
    assert (rating.value, rating.low, rating.high, rating.rank, rating.field) == (
        row["rating"],
        row["low"],
        row["high"],
        row["placement"],
        5,
    )
    moves = tables.read("chess_moves", report.unit).filter(pl.col("contender") == contender)
    assert sum(report.format_failures.values()) == moves["failure"].is_not_null().sum()
    assert report.calls == model_usage(data, moves).calls
    assert f"journal/events/chess_moves/event={report.unit}.jsonl" in report.transcripts
    assert f"warehouse/events/chess_moves/event={report.unit}/data.parquet" in report.transcripts
    return moves


@pytest.mark.slow
def test_chess_the_model_against_the_stockfish_anchors(tmp_path: Path, sparring_url: str) -> None:
    from tests.support.chess import need_stockfish

    need_stockfish()
    data = tmp_path / "data"
    model = model_named("openai/house-chess", sparring_url)
    part = events_trial.CHESS
    report = part.run(request_for(model, data, sparring_url))
    check_part(report, data, model, part)
    moves = chess_event_checks(report, data, model_contender_id(trial_id(model)))
    assert report.calls == moves.height and report.tokens_in and report.tokens_out


@pytest.mark.slow
def test_the_model_s_server_down_mid_event_is_its_failures_and_the_event_seals(
    tmp_path: Path, sparring_url: str
) -> None:
    """The model's own server stops after the model's first move is recorded: the trial run again
    asks it each move it still owes, every one fails (no response), those games are its forfeits, and
    the event seals with the failures counted by class; verify passes."""
    from tests.support.chess import need_stockfish

    need_stockfish()
    data = tmp_path / "data"
    with running_sparring(houses=sparring_houses(["events"])) as model_url:
        model = model_named("openai/house-chess", model_url)
        contender = model_contender_id(trial_id(model))
        # L01 opens with eight plies: the model's first move as White in its first game is ply 9.
        killed_trial("CHESS", model, data, sparring_url, "chess-reply:L01-01v02-a:9:1")
    report = events_trial.CHESS.run(request_for(model, data, sparring_url))
    check_part(report, data, model, events_trial.CHESS)
    moves = chess_event_checks(report, data, contender)
    failed = moves.filter(pl.col("status") != "answered")
    assert failed.height > 0 and set(failed["failure"].to_list()) <= set(report.format_failures)
    games = Record(data).tables(EVENTS).read("chess_games", report.unit)
    assert games.filter(pl.col("forfeited_by") == contender).height > 0


# -- challenges ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_challenges_the_model_authors_and_solves_beside_the_house(tmp_path: Path, sparring_url: str) -> None:
    need_sandbox()
    data = tmp_path / "data"
    model = model_named("openai/house-author", sparring_url)
    part = events_trial.CHALLENGES
    report = part.run(request_for(model, data, sparring_url))
    document = check_part(report, data, model, part)
    contender = model_contender_id(trial_id(model))
    assert document["contenders"][0]["id"] == contender and len(document["contenders"]) == 6
    assert {j["model"] for j in document["judges"]} == {"house-reviewer"}
    assert document["slots"] == 2
    tables = Record(data).tables(EVENTS)
    standings = tables.read("challenge_standings", report.unit).filter(pl.col("basis") == "verified")
    assert [s.measure.split()[0] for s in report.standings] == ["solving", "authoring"]
    for standing in report.standings:
        ranking = standing.measure.split()[0]
        row = standings.filter(pl.col("ranking") == ranking, pl.col("contender") == contender).row(
            0, named=True
        )
        assert (standing.value, standing.low, standing.high, standing.rank) == (
            row["score"],
            row["low"],
            row["high"],
            row["placement"],
        )
        assert standing.field == 6
    authored = tables.read("challenge_authored", report.unit).filter(pl.col("author") == contender)
    replies = tables.read("challenge_replies", report.unit).filter(pl.col("solver") == contender)
    assert authored.height == 2
    assert report.calls == model_usage(data, pl.concat([authored, replies], how="diagonal_relaxed")).calls
    submissions = tables.read("challenge_submissions", report.unit).filter(pl.col("author") == contender)
    not_verified = submissions.filter(pl.col("status") != "verified").height
    assert sum(v for k, v in report.format_failures.items() if k.startswith("authoring")) == not_verified


def test_a_model_named_with_no_key_variable_is_asked_without_a_key() -> None:
    """A local server that needs no key (``parse_model`` with a base URL and no key variable): asked
    with none; a model whose key variable is named and unset is still refused, naming it."""
    from colosseum_core.events.asking import AskersError, askers_for

    settings = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 64, "timeout_s": 5.0, "seed": 0}
    local = {"id": "local", "protocol": "openai", "model": "qwen3-8b", "base_url": "http://127.0.0.1:8000/v1"}
    askers = askers_for(
        [{**local, "key_env": None, "settings": settings}],
        sparring_url="http://x",
        environ={},
        per_provider=1,
    )
    assert askers["local"].endpoint.api_key is None
    with pytest.raises(AskersError, match=r"local needs \$LOCAL_KEY, which is not set"):
        askers_for(
            [{**local, "key_env": "LOCAL_KEY", "settings": settings}],
            sparring_url="http://x",
            environ={},
            per_provider=1,
        )


def test_the_model_s_key_variable_is_read_by_the_run_and_never_stored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The runner's config names the model's key variable beside the providers' set ones, each read
    from the environment when the run asks; no value is in the run's stored config."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-secret")

    @dg.asset
    def keys_seen(provider_keys: ProviderKeysResource) -> dict[str, str]:
        return provider_keys.by_variable()

    result = dg.materialize(
        [keys_seen],
        resources={"provider_keys": provider_keys_from_environment()},
        run_config={"resources": {"provider_keys": provider_keys_config([KEY_VARIABLE, "UNSET_VARIABLE"])}},
    )
    assert result.success
    assert result.output_for_node("keys_seen") == {"OPENAI_API_KEY": "sk-provider-secret", KEY_VARIABLE: KEY}
    stored = str(result.dagster_run.run_config)
    assert KEY_VARIABLE in stored and KEY not in stored and "sk-provider-secret" not in stored
