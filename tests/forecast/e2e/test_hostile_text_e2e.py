"""Hostile text end to end: a market author who forges the packet, injects answers and hides code
points, seats that quote the rules back or write other scripts' digits, through the real stack."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys

import dagster as dg
import polars as pl
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.forecast.answering.reading import read_reply
from colosseum_core.forecast.answering.seats import DEFAULT_REGISTRY
from colosseum_core.forecast.rules import COLOSSEUM_READING_1
from colosseum_core.forecast.sealing.packet import parse_packet
from colosseum_core.forecast.site import ForecastSite
from colosseum_core.record.layout import Record as Layout
from colosseum_core.site.public import PublicSite, SitePart
from colosseum_core.site.publish import publish_site
from colosseum_core.trust.keys import KeyStore
from colosseum_core.verify import verify_record
from colosseum_dagster.definitions import defs
from colosseum_standins.simulated_exchange import running_exchange
from colosseum_standins.simulated_exchange.faults import HOSTILE_QUESTION_SUFFIX, HOSTILE_TAIL
from tests.conftest import all_checks_pass, check_results

CARD = "2026-11-30-1000"
QUOTING_SEAT, DIGITS_SEAT = "openai-flagship", "openai-small"


@pytest.fixture(scope="module")
def hostile_card(tmp_path_factory, sparring_url):
    from tests.conftest import Record

    base = tmp_path_factory.mktemp("hostile")
    registry = DEFAULT_REGISTRY.read_text()
    registry = registry.replace('house = "house-hash"\n', 'house = "house-hash-quote"\n', 1)
    registry = registry.replace('house = "house-coin"\n', 'house = "house-coin-sloppy-digits"\n', 1)
    seats_path = base / "seats.toml"
    seats_path.write_text(registry)
    record = Record(base / "data", sparring_url)
    with (
        running_exchange(seed=43, markets=500, faults="hostile:always") as url,
        dg.instance_for_test() as instance,
    ):
        config = record.run_config(url)
        config["resources"]["gladiators"]["config"]["seats_path"] = str(seats_path)
        result = defs.resolve_job_def("card_job").execute_in_process(
            partition_key=CARD, run_config=config, instance=instance, raise_on_error=False
        )
    assert result.success and all_checks_pass(result), check_results(result)
    return record, seats_path


def test_a_hostile_description_cannot_forge_the_packet(hostile_card):
    record, _ = hostile_card
    packet = record.tables.read("packet", CARD).row(0, named=True)
    questions = record.tables.read("card_questions", CARD)
    parsed = parse_packet(packet["packet_text"].encode("utf-8"))
    # Exactly the card's questions, each text byte for byte as Polymarket (here: the hostile author)
    # published it, forged blocks, fake fences and "END OF CARD" lines included.
    assert list(parsed.labels) == questions["label"].to_list()
    for row, quoted in zip(questions.iter_rows(named=True), parsed.questions, strict=True):
        assert quoted.question == row["question"] and quoted.question.endswith(HOSTILE_QUESTION_SUFFIX)
        assert quoted.rules == row["description"] and quoted.rules.endswith(HOSTILE_TAIL)
    assert parsed.fence not in HOSTILE_TAIL
    assert packet["packet_text"].count(f"{parsed.fence} END OF CARD") == 1


def test_a_reply_that_quotes_the_rules_keeps_its_own_answers(hostile_card):
    record, _ = hostile_card
    seats = {r["seat"]: r for r in record.tables.read("answers", CARD).iter_rows(named=True)}
    lines = record.tables.read("answer_lines", CARD)
    quoting = seats[QUOTING_SEAT]
    assert quoting["status"] == "answered" and quoting["bad_formatting"] and quoting["unbound"] == 0
    mine = lines.filter(pl.col("seat") == QUOTING_SEAT)
    assert mine["binding"].all() and mine.height == record.tables.read("card_questions", CARD).height
    assert json.loads(quoting["format_record"])["quotations"] > 0
    # The first reading could not tell the quotation from the answer: the same reply forfeits there.
    packet = record.tables.read("packet", CARD)["packet_text"][0].encode("utf-8")
    [receipt] = quoting["receipt_ids"]
    reply = json.loads(record.receipts.get(receipt).body)["choices"][0]["message"]["content"]
    labels = mine["label"].to_list()
    old = read_reply(reply, labels, packet=packet, rules=COLOSSEUM_READING_1)
    assert any(a.status == "unbound" and "ambiguous" in (a.reason or "") for a in old.answers.values())


def test_digits_of_other_scripts_are_read_but_never_strict(hostile_card):
    record, _ = hostile_card
    seat = record.tables.read("answers", CARD).filter(pl.col("seat") == DIGITS_SEAT).row(0, named=True)
    lines = record.tables.read("answer_lines", CARD).filter(pl.col("seat") == DIGITS_SEAT)
    assert seat["bad_formatting"] and seat["answered"] == 0 and seat["recovered"] == lines.height
    assert set(lines["step"]) == {"digit_forms"} and lines["binding"].all()
    assert "digit_forms" in json.loads(seat["format_record"])["steps_used"]


def test_the_hostile_card_verifies_and_its_pages_show_every_hidden_code_point(hostile_card, tmp_path):
    record, seats_path = hostile_card
    report = verify_record(record.root, AUDITS, workers=2)
    assert report.ok(), report.problems[:10]
    published = publish_site(
        PublicSite((SitePart(ForecastSite(seats_path), "forecast", "Forecasting"),)),
        Layout(record.root),
        KeyStore.for_data(record.root),
        tmp_path / "site",
        built_at=dt.datetime(2026, 12, 1, tzinfo=dt.UTC),
    )
    page = (published.site / "forecast" / "cards" / f"{CARD}.html").read_text()
    for code_point in ("\x00", "\u202e", "\u2066", "\u200b", "\x1b"):
        assert code_point not in page
    assert "U+202E" in page and "U+0000" in page


def test_card_show_never_prints_a_control_or_an_override(hostile_card):
    record, _ = hostile_card
    env = dict(os.environ) | {"COLOSSEUM_DATA": str(record.root)}
    shown = subprocess.run(
        [sys.executable, "-m", "colosseum_dagster.cli", "forecast", "card", "show", CARD],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert not any(c in shown.stdout for c in ("\x00", "\x1b", "\u202e", "\u2066"))
    assert "⟨U+202E⟩" in shown.stdout and "⟨U+0000⟩" in shown.stdout
    assert "code points shown as" in shown.stderr
    exact = subprocess.run(
        [sys.executable, "-m", "colosseum_dagster.cli", "forecast", "card", "show", CARD, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(exact.stdout)["packet"]["packet_text"].count(HOSTILE_TAIL) > 0
