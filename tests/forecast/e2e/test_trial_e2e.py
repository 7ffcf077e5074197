"""End to end: a model maker's trial seat on a card run through the real Definitions on the simulated
exchange, its model served by the sparring server under a house gladiator's name but named as an
outside model (a base URL and a key variable): it answers the card's packet byte for byte, waits,
is scored once the card settles, seals a unit of its own, and ``verify`` re-derives it."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import sys
from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from colosseum_core.arenas import AUDITS, TRIAL_PARTS
from colosseum_core.forecast.arena import FORECAST, FORECAST_TRIALS
from colosseum_core.forecast.trial import TRIAL_SEAT, ForecastTrial, trial_units, unit_key
from colosseum_core.providers.models import parse_model
from colosseum_core.record.journal import Journal
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.trial import TrialRequest, trial_id
from colosseum_core.verify import verify_record
from colosseum_dagster.definitions import defs
from colosseum_dagster.resources import ClockResource, ExchangeResource, RecordResource
from colosseum_standins.loopback import running_app
from colosseum_standins.simulated_exchange import running_exchange
from tests.conftest import Record, all_checks_pass, check_results, run_card
from tests.support import REPO

CARD = "2026-11-29-0500"
KEY_ENV = "TRIAL_MODEL_KEY"
ENVIRON = {KEY_ENV: "any-non-empty-key"}


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@pytest.fixture(scope="module")
def exchange_url():
    with running_exchange(seed=31, markets=900) as url:
        yield url


@pytest.fixture(scope="module")
def card(tmp_path_factory, sparring_url, exchange_url):
    """One card run on the offline default: thirteen house gladiators answered its packet."""
    record = Record(tmp_path_factory.mktemp("trial") / "data", sparring_url)
    with dg.instance_for_test() as instance:
        result = run_card(CARD, record, exchange_url, instance)
        assert result.success and all_checks_pass(result), check_results(result)
        yield record, instance


def request_for(record: Record, name: str, base_url: str, progress: list[str] | None = None) -> TrialRequest:
    model = parse_model(name, base_url=base_url, key_env=KEY_ENV)
    return TrialRequest(
        model=model,
        trial=trial_id(model),
        data_dir=record.root,
        sparring_url=str(record.sparring_url),
        environ=ENVIRON,
        clock=_now,
        progress=(progress if progress is not None else []).append,
    )


def settle(record: Record, instance, exchange_url: str) -> None:
    """The real settlement sensor a month on, the settlement runs it asks for, and the boards."""
    context = dg.build_sensor_context(
        instance=instance,
        definitions=defs,
        resources={
            "record": RecordResource(data_dir=str(record.root)),
            "exchange": ExchangeResource(gamma_url=exchange_url),
            "clock": ClockResource(fixed_instant="2026-12-30T00:00:00+00:00"),
        },
    )
    for request in defs.resolve_sensor_def("settlement_sensor").evaluate_tick(context).run_requests:
        config = {**request.run_config, **record.run_config()}
        job = defs.resolve_job_def("settlement_job")
        key = request.partition_key
        assert job.execute_in_process(partition_key=key, run_config=config, instance=instance).success
    boards = defs.resolve_job_def("leaderboard_job")
    assert boards.execute_in_process(run_config=record.run_config(), instance=instance).success


def sent_message(record: Record, receipt_id: str) -> bytes:
    [message] = json.loads(record.receipts.get(receipt_id).request_body)["messages"]
    return message["content"].encode("utf-8")


def receipt_count(record: Record) -> int:
    return sum(1 for _ in record.receipts.ids())


def test_a_trial_seat_answers_the_card_waits_settles_seals_and_verifies(card, exchange_url, tmp_path):
    record, instance = card
    [part] = TRIAL_PARTS[FORECAST.name]()
    progress: list[str] = []
    request = request_for(record, "openai/house-hash", record.sparring_url, progress)
    unit = unit_key(CARD, request.trial)
    card_seal = record.seals.path(CARD).read_bytes()

    waiting = part.run(request)
    assert (waiting.arena, waiting.state, waiting.unit) == ("forecast", "waiting", unit), waiting
    assert waiting.calls == 1 and waiting.refusals == 0 and waiting.format_failures == {}
    assert waiting.standings == () and "waiting for" in waiting.note and progress
    assert waiting.seconds > 0 and any(p.startswith("receipts/") for p in waiting.transcripts)
    assert all((record.root / p).exists() for p in waiting.transcripts)

    # The very bytes the seats got: the sealed packet, as the openai seat's own request carried it.
    trial = RecordLayout(record.root).tables(FORECAST_TRIALS)
    answers = trial.read("trial_answers", unit)
    seats = record.tables.read("answers", CARD)
    packet = record.tables.read("packet", CARD)["packet_text"][0].encode("utf-8")
    flagship = seats.filter(pl.col("seat") == "openai-flagship").row(0, named=True)
    [trial_receipt] = answers["receipt_ids"][0]
    assert sent_message(record, trial_receipt) == sent_message(record, flagship["receipt_ids"][-1]) == packet
    assert answers["kind"].to_list() == ["CALIBRATION"] and answers["seat"].to_list() == [TRIAL_SEAT]
    # Nothing of it enters the card: its seats, its seal and its tables are as they were.
    assert TRIAL_SEAT not in seats["seat"].to_list() and seats.height == 13
    assert record.seals.path(CARD).read_bytes() == card_seal

    # Run again before settlement: nothing asked twice.
    before = receipt_count(record)
    again = part.run(request)
    assert again.state == "waiting" and receipt_count(record) == before and again.calls == 1

    settle(record, instance, exchange_url)
    before = receipt_count(record)  # the exchange's answers to the settlement sensor are receipts too
    assert part.read(record.root, request.trial).state == "waiting"  # read picks up settlement...
    assert part.read(record.root, request.trial).standings  # ...and shows the standing to come
    sealed = part.run(request)
    assert sealed.state == "sealed" and receipt_count(record) == before, sealed
    sharp, edge = sealed.standings
    assert (sharp.measure, edge.measure) == ("SHARP", "EDGE") and sharp.field == 14
    assert sharp.low <= sharp.value <= sharp.high and edge.low <= edge.value <= edge.high
    assert 1 <= sharp.rank <= 14 and 1 <= edge.rank <= 14
    # Scored exactly as the seats: the same model asked the same bytes scores as the seat it sits in.
    scores = trial.read("trial_scores", unit)
    seat_scores = record.tables.read("scores", CARD).filter(pl.col("seat") == "openai-flagship")
    columns = ["market_id", "result", "brier_units", "edge_units", "crown", "formula"]
    assert scores.select(columns).sort("market_id").equals(seat_scores.select(columns).sort("market_id"))
    board = trial.read("trial_board", unit)
    assert board.filter(pl.col("entrant") == TRIAL_SEAT)["sharp"][0] == sharp.value
    assert board.filter(pl.col("entrant") == "openai-flagship")["sharp"][0] == sharp.value
    assert set(board["kind"]) == {"CALIBRATION"}
    # The card's own boards never see it.
    assert not (record.root / "warehouse" / "forecast" / "scores" / f"card={unit}").exists()
    assert part.read(record.root, request.trial) == sealed
    assert part.run(request) == sealed

    report = verify_record(record.root, AUDITS)
    assert report.ok(), report.problems[:5]
    assert report.checked["trial_units"] >= 1 and report.checked["trial_scores"] == scores.height

    # A tampered trial answer, written through the record's own writer (its ledger agrees), is caught.
    copy = tmp_path / "tampered"
    shutil.copytree(record.root, copy)
    tables = RecordLayout(copy).tables(FORECAST_TRIALS)
    lines = tables.read("trial_answer_lines", unit)
    flipped = lines.with_columns(
        call=pl.when(pl.col("label") == lines["label"][0])
        .then(pl.when(pl.col("call") == "YES").then(pl.lit("NO")).otherwise(pl.lit("YES")))
        .otherwise(pl.col("call"))
    )
    tables.write_bytes("trial_answer_lines", parquet_bytes(flipped), unit)
    tampered = verify_record(copy, AUDITS)
    assert not tampered.ok()
    # The seal names the changed file, and the reply read again from its receipt names the answer.
    assert any(unit in p and "trial_answer_lines" in p for p in tampered.problems), tampered.problems[:5]
    reread = [p for p in tampered.problems if p.startswith(f"trial {unit}: answer_lines card {CARD}")]
    assert reread and "call is" in reread[0], tampered.problems[:5]


def _garbage_server():
    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        return JSONResponse(
            {
                "id": "chatcmpl-garbage",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "M01 maybe?? ¯\\_(ツ)_/¯\n{{{{ 7 7 7"},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290},
            }
        )

    async def status(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[Route("/v1/chat/completions", completions, methods=["POST"]), Route("/status", status)]
    )


def test_hostile_replies_are_counted_in_their_classes(card):
    record, _ = card
    questions = record.tables.read("card_questions", CARD).height
    part = ForecastTrial(timeout_s=1.0)

    refused = part.run(request_for(record, "openai/house-hash-refuse", record.sparring_url))
    assert refused.refusals == 2 and refused.calls == 2
    assert refused.format_failures == {"unbound: seat refused": questions}

    stalled = part.run(request_for(record, "openai/house-hash-stall", record.sparring_url))
    assert stalled.refusals == 0 and stalled.calls == 1
    assert stalled.format_failures == {"unbound: seat no_response": questions}

    sloppy = part.run(request_for(record, "openai/house-hash-sloppy-table", record.sparring_url))
    assert sloppy.format_failures == {"bad_formatting": 1, "recovered: markdown_table": questions}

    with running_app(_garbage_server()) as url:
        garbage = part.run(request_for(record, "openai/garbage-1", url))
    assert garbage.format_failures["bad_formatting"] == 1
    assert sum(v for k, v in garbage.format_failures.items() if k.startswith("unbound")) == questions
    assert (garbage.tokens_in, garbage.tokens_out) == (1234, 56)
    # Each is a unit of its own, and every one of them re-derives.
    assert len({r.unit for r in (refused, stalled, sloppy, garbage)}) == 4
    report = verify_record(record.root, AUDITS)
    assert report.ok(), report.problems[:5]


_CHILD = """
import datetime as dt, json, sys
from colosseum_core.forecast.trial import ForecastTrial
from colosseum_core.providers.models import parse_model
from colosseum_core.trial import TrialRequest, trial_id
root, sparring, name = sys.argv[1:]
model = parse_model(name, base_url=sparring, key_env="TRIAL_MODEL_KEY")
request = TrialRequest(model, trial_id(model), __import__("pathlib").Path(root), sparring,
                       {"TRIAL_MODEL_KEY": "k"}, lambda: dt.datetime.now(dt.UTC), print)
print(json.dumps(ForecastTrial().run(request).state))
"""


def test_an_interrupted_trial_resumes_without_asking_twice(card):
    record, _ = card
    name = "openai/house-coin-s4"
    # Killed right after the reply's receipt is journalled, before the answers are written.
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(record.root), str(record.sparring_url), name],
        env={"PYTHONPATH": str(REPO), "COLOSSEUM_KILL_AT": "journal:2", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == -9, child.stderr
    request = request_for(record, name, record.sparring_url)
    [unit] = trial_units(RecordLayout(record.root), request.trial)
    assert not RecordLayout(record.root).tables(FORECAST_TRIALS).exists("trial_answers", unit)
    asked = receipt_count(record)
    assert ForecastTrial().read(record.root, request.trial).note.startswith("asked, not finished")

    resumed = ForecastTrial().run(request)
    assert receipt_count(record) == asked and resumed.calls == 1
    journal = Journal(RecordLayout(record.root).journal_path(FORECAST_TRIALS, "answers", unit))
    assert [e["event"] for e in journal.entries()] == ["ask", "reply"]
    answers = RecordLayout(record.root).tables(FORECAST_TRIALS).read("trial_answers", unit)
    assert answers["status"].to_list() == ["answered"]
    assert Path(record.root, resumed.transcripts[0]).exists()


def test_on_a_fresh_record_the_wiring_runs_the_latest_card_first(tmp_path, sparring_url):
    from colosseum_core.trial.prepared import Prepared
    from colosseum_dagster.cli import instance as cli_instance
    from colosseum_dagster.cli.trial import prepared_parts

    record = Record(tmp_path / "data", sparring_url)
    request = request_for(record, "openai/house-hash", sparring_url)
    # The registry's part cannot run a job: it says what to run first.
    skipped = TRIAL_PARTS[FORECAST.name]()[0].run(request)
    assert skipped.state == "skipped" and "colosseum forecast card run latest" in skipped.note
    assert ForecastTrial().read(record.root, request.trial) is None

    cli_instance.for_command("colosseum", ephemeral=True)
    [part] = prepared_parts(TRIAL_PARTS[FORECAST.name]())
    assert isinstance(part, Prepared)
    report = part.run(request)
    cards = RecordLayout(record.root).tables(FORECAST).partitions("answers")
    assert len(cards) == 1 and report.unit == unit_key(cards[0], request.trial), report
    assert report.state == "waiting" and report.calls == 1
