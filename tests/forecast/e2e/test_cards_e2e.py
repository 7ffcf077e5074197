"""End to end: the simulated exchange on loopback, real Dagster runs of the real Definitions."""

from __future__ import annotations

import datetime as dt
import json

import dagster as dg
import duckdb
import polars as pl
import pytest

from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.sweep.copy_check import recheck_copy
from colosseum_core.forecast.sweep.copy_step import ASIDE, HERE
from colosseum_dagster.definitions import defs
from colosseum_standins.simulated_exchange import running_exchange
from tests.conftest import all_checks_pass, run_card, run_catalog

CARDS = ("2026-11-28-1800", "2026-11-29-0500")
CARD_TABLES = ("raw_sweep", "sweeps", "verbatim_markets", "copy_errors")


@pytest.fixture(scope="module")
def exchange_url():
    with running_exchange(seed=11, markets=1200) as url:
        yield url


def test_definitions_load():
    dg.Definitions.validate_loadable(defs)
    job = defs.resolve_job_def("card_job")
    assert {k.path[-1] for k in job.asset_layer.executable_asset_keys} >= set(CARD_TABLES)


def test_two_consecutive_cards_end_to_end(exchange_url, record, instance):
    # The first card's check reads its few pages in the step's own process; the second is told to
    # read them in a separate process beside the copy, as a large board's is.
    for key, aside_from_pages in zip(CARDS, (None, 1), strict=True):
        run_config = record.run_config(exchange_url)
        if aside_from_pages:
            ops = {"forecast__verbatim_markets": {"config": {"check_aside_from_pages": aside_from_pages}}}
            run_config = {**run_config, "ops": ops}
        result = defs.resolve_job_def("card_job").execute_in_process(
            partition_key=key, run_config=run_config, instance=instance, raise_on_error=False
        )
        assert result.success, key
        assert all_checks_pass(result)
        [copy_check] = [
            e for e in result.get_asset_check_evaluations() if e.check_name == "verbatim_matches_receipts"
        ]
        read_by = copy_check.metadata["pages_read_by"].value
        if aside_from_pages:
            assert read_by == ASIDE and copy_check.metadata["check_process_peak_mb"].value > 0
        else:
            assert read_by.startswith(HERE) and "fewer than 100)" in read_by, read_by
    for table in CARD_TABLES:
        assert record.tables.partitions(table) == list(CARDS), table
    assert instance.get_materialized_partitions(dg.AssetKey(["forecast", "verbatim_markets"])) == set(CARDS)

    assert run_catalog(record, instance).success
    con = duckdb.connect(str(record.catalog), read_only=True)
    try:
        sweeps = con.execute(
            "SELECT card, complete, reason, exchange, pages, markets FROM forecast.sweeps ORDER BY card"
        )
        rows = sweeps.fetchall()
        assert [r[0] for r in rows] == list(CARDS)
        assert all(r[1] is True and r[2] is None and r[3] == "simulated" for r in rows)
        per_card = dict(
            con.execute("SELECT card, count(*) FROM forecast.verbatim_markets GROUP BY card").fetchall()
        )
        page_receipts = con.execute(
            "SELECT count(DISTINCT receipt_id) FROM forecast.raw_sweep WHERE outcome IN ('page', 'last_page')"
        ).fetchone()[0]
        orphan_rows = con.execute(
            "SELECT count(*) FROM forecast.verbatim_markets v ANTI JOIN forecast.raw_sweep r "
            "ON v.receipt_id = r.receipt_id AND v.card = r.card"
        ).fetchone()[0]
    finally:
        con.close()
    assert page_receipts == sum(r[4] for r in rows)
    assert orphan_rows == 0
    for key in CARDS:
        card = card_from_key(key)
        markets = record.tables.read("verbatim_markets", key)
        assert per_card[key] == markets.height > 100
        assert markets["market_id"].is_unique().all()
        # The sweep window is the seal plus 102 hours, by each market's own end date.
        assert markets["end_date_ts"].min() >= card.seal
        assert markets["end_date_ts"].max() <= card.seal + dt.timedelta(hours=102)
        # Every request of the sweep names a receipt that is in the store.
        requests = record.tables.read("raw_sweep", key)
        assert all(rid in record.receipts for rid in requests["receipt_id"])
        assert recheck_copy(markets, record.receipts) == []


def test_a_card_swept_twice_copies_the_same_board(exchange_url, tmp_path, instance, sparring_url):
    from tests.conftest import Record

    first, second = Record(tmp_path / "one", sparring_url), Record(tmp_path / "two", sparring_url)
    for rec in (first, second):
        assert run_card(CARDS[0], rec, exchange_url, instance).success
    content = [
        c for c in first.tables.read("verbatim_markets", CARDS[0]).columns if c not in ("id", "receipt_id")
    ]
    a = first.tables.read("verbatim_markets", CARDS[0]).select(content)
    b = second.tables.read("verbatim_markets", CARDS[0]).select(content)
    assert a.equals(b)


def test_tampering_with_a_copied_value_fails_the_recheck(exchange_url, record, instance):
    assert run_card(CARDS[0], record, exchange_url, instance).success
    markets = record.tables.read("verbatim_markets", CARDS[0])
    forged = markets.with_columns(
        pl.when(pl.int_range(pl.len()) == 3)
        .then(pl.lit("Will it rain?"))
        .otherwise(pl.col("question"))
        .alias("question")
    )
    [mismatch] = recheck_copy(forged, record.receipts)
    assert mismatch.column == "question" and mismatch.market_id == markets["market_id"][3]
    assert "Will it rain?" in mismatch.copied


class TestFaults:
    def test_429_then_success_is_a_complete_sweep(self, record, instance):
        with running_exchange(seed=3, markets=400, faults="429:n=1:retry_after=1") as url:
            result = run_card(CARDS[0], record, url, instance)
        assert result.success
        sweep = record.tables.read("sweeps", CARDS[0]).row(0, named=True)
        assert sweep["complete"] is True
        requests = record.tables.read("raw_sweep", CARDS[0])
        throttled = requests.filter(pl.col("status") == 429)
        assert throttled.height == 1 and throttled["outcome"][0] == "retry"
        assert record.receipts.get(throttled["receipt_id"][0]).headers["retry-after"] == "1"

    def test_a_500_that_never_clears_gives_a_flagged_partial_sweep_and_loses_nothing(self, record, instance):
        with running_exchange(seed=3, markets=1200, faults="500:always:page=2") as url:
            result = run_card(CARDS[0], record, url, instance)
        assert result.success  # a partial sweep is recorded, not a crash
        sweep = record.tables.read("sweeps", CARDS[0]).row(0, named=True)
        assert sweep["complete"] is False
        requests = record.tables.read("raw_sweep", CARDS[0])
        failed = requests.filter(pl.col("status") == 500)
        assert failed.height >= 2 and set(failed["outcome"]) <= {"retry", "failed"}
        assert failed["receipt_id"][-1] in sweep["reason"]
        for rid in requests["receipt_id"]:
            receipt = record.receipts.get(rid)
            assert receipt.status in (200, 500)
        assert json.loads(record.receipts.get(failed["receipt_id"][0]).body)["type"] == "internal error"
        # The pages that did arrive are copied.
        assert record.tables.read("verbatim_markets", CARDS[0]).height > 0
        assert all_checks_pass(result)

    def test_truncated_json_keeps_its_receipt_and_gives_a_clear_error(self, record, instance):
        with running_exchange(seed=3, markets=1200, faults="truncate:always:page=2") as url:
            result = run_card(CARDS[0], record, url, instance)
        assert result.success
        sweep = record.tables.read("sweeps", CARDS[0]).row(0, named=True)
        assert sweep["complete"] is False
        truncated = record.tables.read("raw_sweep", CARDS[0]).filter(
            (pl.col("page") == 2) & (pl.col("status") == 200)
        )
        assert truncated.height >= 1
        rid = truncated["receipt_id"][-1]
        assert rid in sweep["reason"] and "JSON" in sweep["reason"]
        body = record.receipts.get(rid).body
        with pytest.raises(json.JSONDecodeError):
            json.loads(body)
