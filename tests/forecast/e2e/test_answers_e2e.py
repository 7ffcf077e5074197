"""End to end: a sealed card's packet to thirteen seats on the sparring server, read and signed."""

from __future__ import annotations

import datetime as dt
import json

import dagster as dg
import polars as pl
import pytest

from colosseum_core.forecast.answering.answers import answer_signature_problems
from colosseum_core.forecast.answering.seats import DEFAULT_REGISTRY
from colosseum_dagster.definitions import defs
from colosseum_standins.simulated_exchange import running_exchange
from tests.conftest import all_checks_pass, check_results, run_card

CARD = "2026-11-29-0500"
DAY = dt.date(2026, 11, 29)


@pytest.fixture(scope="module")
def exchange_url():
    with running_exchange(seed=31, markets=900) as url:
        yield url


def _tables(record):
    return (
        record.tables.read("answers", CARD),
        record.tables.read("answer_lines", CARD),
        record.tables.read("answer_signatures", CARD),
        record.tables.read("public_keys", CARD),
    )


def test_thirteen_house_gladiators_answer_and_every_answer_is_signed_twice(exchange_url, record, instance):
    result = run_card(CARD, record, exchange_url, instance)
    assert result.success and all_checks_pass(result), check_results(result)
    seats, lines, signatures, keys = _tables(record)
    by_seat = {row["seat"]: row for row in seats.iter_rows(named=True)}
    assert len(by_seat) == 13 and set(seats["status"]) == {"answered"}
    assert all(seats["house"]) and set(seats["kind"]) == {"CALIBRATION"}
    questions = record.tables.read("card_questions", CARD)
    assert lines.height == 13 * questions.height

    # Refused once, asked once more.
    assert by_seat["mistral-flagship"]["attempts"] == 2
    # Equal settings, with what a provider refuses published as OMITTED.
    assert json.loads(by_seat["anthropic-small"]["settings"])["seed"] == "OMITTED"
    assert json.loads(by_seat["openai-flagship"]["settings"])["temperature"] == 0.0
    # Strict replies are clean; sloppy ones are recovered and marked BAD FORMATTING.
    assert not by_seat["openai-flagship"]["bad_formatting"]
    assert by_seat["openai-flagship"]["answered"] == questions.height
    assert by_seat["google-flagship"]["recovered"] == questions.height
    assert by_seat["meta-flagship"]["unbound"] == 1
    assert by_seat["anthropic-flagship"]["bad_formatting"] and by_seat["google-flagship"]["bad_formatting"]
    seat_lines = {seat: frame for (seat,), frame in lines.group_by("seat")}
    assert set(seat_lines["google-flagship"]["status"]) == {"recovered"}
    assert set(seat_lines["openai-flagship"]["status"]) == {"answered"}
    # A missing label, a confidence of 11 and a contradicted label bind nothing: forfeits.
    last, first = questions["label"].max(), questions["label"].min()
    unbound = lines.filter(~pl.col("binding")).select("seat", "label", "reason").rows()
    assert ("meta-flagship", last, "no answer") in unbound
    assert any(s == "moonshot-flagship" and lab == first and "11" in r for s, lab, r in unbound)
    assert any(s == "alibaba-flagship" and lab == first and "ambiguous" in r for s, lab, r in unbound)

    # Anyone holding the record verifies every signature; one flipped value is caught and named.
    assert answer_signature_problems(seats, keys, signatures=signatures, on_date=DAY) == []
    forged = seats.with_columns(
        pl.when(pl.col("seat") == "openai-small")
        .then(pl.lit(["M01 NO 10"], dtype=pl.List(pl.String)))
        .otherwise(pl.col("binding_answers"))
        .alias("binding_answers")
    )
    problems = answer_signature_problems(forged, keys, signatures=signatures, on_date=DAY)
    assert problems and all("openai-small" in p for p in problems)
    # No private key material is in the record.
    for key_file in (record.root / "keys").rglob("*.key"):
        assert key_file.stat().st_mode & 0o077 == 0
    assert not list((record.root / "warehouse").rglob("*.key"))


ANSWER_TABLES = ("answers", "answer_lines", "answer_signatures", "public_keys")


def test_a_card_is_answered_once_and_never_re_asked(exchange_url, record, instance):
    assert run_card(CARD, record, exchange_url, instance).success
    journal = record.root / "journal" / "forecast" / "answers" / f"card={CARD}.jsonl"
    before = {t: record.tables.path(t, CARD).read_bytes() for t in ANSWER_TABLES}
    journalled, receipts = journal.read_bytes(), sorted(record.receipts.ids())
    again = defs.resolve_job_def("card_job").execute_in_process(
        partition_key=CARD,
        run_config=record.run_config(exchange_url),
        instance=instance,
        asset_selection=[dg.AssetKey(["forecast", k]) for k in ANSWER_TABLES],
        raise_on_error=False,
    )
    # Answering again asks nobody: every seat's reply is read back from its receipt, and the tables
    # come out byte for byte as they were.
    assert again.success
    [answers] = [
        e.event_specific_data.materialization
        for e in again.get_asset_materialization_events()
        if e.event_specific_data.materialization.asset_key.path[-1] == "answers"
    ]
    assert answers.metadata["asked_in_this_run"].value == 0
    assert journal.read_bytes() == journalled and sorted(record.receipts.ids()) == receipts
    assert {t: record.tables.path(t, CARD).read_bytes() for t in ANSWER_TABLES} == before


def test_no_response_is_never_re_asked_and_refusals_are_asked_once_more(
    exchange_url, record, instance, tmp_path
):
    registry = DEFAULT_REGISTRY.read_text()
    registry = registry.replace('house = "house-hash"\n', 'house = "house-hash-stall"\n', 1)
    registry = registry.replace('house = "house-coin"\n', 'house = "house-coin-refuse"\n', 1)
    seats_path = tmp_path / "seats.toml"
    seats_path.write_text(registry)
    config = record.run_config(exchange_url)
    config["resources"]["gladiators"]["config"].update(seats_path=str(seats_path), timeout_s=5.0)
    result = defs.resolve_job_def("card_job").execute_in_process(
        partition_key=CARD, run_config=config, instance=instance, raise_on_error=False
    )
    assert result.success, check_results(result)
    seats = {row["seat"]: row for row in record.tables.read("answers", CARD).iter_rows(named=True)}
    assert (seats["openai-flagship"]["status"], seats["openai-flagship"]["attempts"]) == ("no_response", 1)
    assert (seats["openai-small"]["status"], seats["openai-small"]["attempts"]) == ("refused", 2)
    lines = record.tables.read("answer_lines", CARD)
    assert not lines.filter(pl.col("seat").is_in(["openai-flagship", "openai-small"]))["binding"].any()
