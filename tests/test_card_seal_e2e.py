"""End to end: selection, the rotated card, the packet and the seal, through the real Definitions."""

from __future__ import annotations

import hashlib
import json

import dagster as dg
import duckdb
import polars as pl
import pytest

from colosseum_core.forecast.packet import render_packet
from colosseum_core.forecast.rotation import rotation_offset
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.record.seals import SealError
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.simulated_exchange import running_exchange
from colosseum_dagster.definitions import defs
from tests.conftest import all_checks_pass, check_results, run_card, run_catalog

CARDS = ("2026-11-28-1000", "2026-11-28-1800", "2026-11-29-0500")


@pytest.fixture(scope="module")
def exchange_url():
    with running_exchange(seed=23, markets=1500) as url:
        yield url


def test_three_cards_in_time_order_seal_with_every_check_passing(exchange_url, record, instance):
    for key in CARDS:
        result = run_card(key, record, exchange_url, instance)
        assert result.success, key
        assert all_checks_pass(result), (key, check_results(result))
        assert record.seals.get(key) is not None

    seen: dict[str, str] = {}
    for key in CARDS:
        card = card_from_key(key)
        packet = record.tables.read("packet", key).row(0, named=True)
        questions = record.tables.read("card_questions", key)
        verdicts = record.tables.read("ranked_candidates", key)
        swept = record.tables.read("verbatim_markets", key)

        # Every swept question has exactly one verdict.
        assert sorted(verdicts["market_id"]) == sorted(swept["market_id"])
        # The card: at most 25, labels M01.. in rotated order of the ranked list.
        n = questions.height
        assert 0 < n <= 25 and packet["questions"] == n
        assert questions["label"].to_list() == [f"M{i:02d}" for i in range(1, n + 1)]
        places = questions["place"].to_list()
        offset = rotation_offset(card.day_number, n)
        assert places == [*range(offset + 1, n + 1), *range(1, offset + 1)]
        assert packet["total_doubt_bits"] == pytest.approx(questions["doubt_bits"].sum())
        # The packet's bytes hash to its identifier, hold no prices, and render the same twice.
        text = packet["packet_text"].encode("utf-8")
        assert hashlib.sha256(text).hexdigest() == packet["packet_id"]
        assert render_packet(card, questions.iter_rows(named=True)) == text
        for row in questions.iter_rows(named=True):
            assert f"{row['label']}\nQuestion: {row['question']}\n" in packet["packet_text"]
        # No prices: neither the seal prices nor their sources reach the packet.
        for source in ("midpoint", "last_trade", "outcome_price", "doubt"):
            assert source not in packet["packet_text"]
        # One question, one card, ever.
        for market_id in questions["market_id"]:
            assert market_id not in seen, f"market {market_id} on {seen.get(market_id)} and {key}"
            seen[market_id] = key
        assert packet["kind"] == "CALIBRATION" and packet["sweep_complete"] is True

    assert run_catalog(record, instance).success
    con = duckdb.connect(str(record.catalog), read_only=True)
    try:
        cards = con.execute("SELECT card, questions, packet_id FROM cards ORDER BY card").fetchall()
        assert [c[0] for c in cards] == list(CARDS)
        ruled = dict(
            con.execute("SELECT rule, count(*) FROM verdicts WHERE rule IS NOT NULL GROUP BY 1").fetchall()
        )
        assert ruled.get("settles_soon", 0) > 0 and ruled.get("gradeable", 0) > 0
    finally:
        con.close()


def test_a_sealed_card_is_never_rewritten(exchange_url, record, instance):
    key = CARDS[0]
    assert run_card(key, record, exchange_url, instance).success
    sealed_files = {
        t: record.tables.path(t, key).read_bytes()
        for t in ("raw_sweep", "sweeps", "verbatim_markets", "ranked_candidates", "card_questions", "packet")
    }

    # Re-running the whole card is refused with a clear error, before any sweep.
    rerun = run_card(key, record, exchange_url, instance)
    assert not rerun.success
    [failure] = [e for e in rerun.all_events if e.is_step_failure]
    assert f"card {key} is sealed" in failure.message or f"card {key} is sealed" in str(
        failure.event_specific_data.error
    )

    # Re-deciding the card from its sealed inputs reproduces its sealed bytes exactly.
    job = defs.resolve_job_def("card_job")
    again = job.execute_in_process(
        partition_key=key,
        run_config=record.run_config(exchange_url),
        instance=instance,
        asset_selection=[
            dg.AssetKey("ranked_candidates"),
            dg.AssetKey("card_questions"),
            dg.AssetKey("packet"),
        ],
        raise_on_error=False,
    )
    assert again.success
    for table, data in sealed_files.items():
        assert record.tables.path(table, key).read_bytes() == data, table

    # Any other write to a sealed card is refused, naming the card and the table.
    forged = record.tables.read("ranked_candidates", key).with_columns(pl.lit("forged").alias("value"))
    with pytest.raises(SealError, match=f"card {key} is sealed.*ranked_candidates"):
        record.seals.admit_write("ranked_candidates", key, parquet_bytes(forged))


def test_cards_of_one_kind_seal_in_time_order(exchange_url, record, instance):
    later, earlier = CARDS[2], CARDS[1]
    assert run_card(later, record, exchange_url, instance).success
    refused = run_card(earlier, record, exchange_url, instance)
    assert not refused.success
    messages = " ".join(str(e.event_specific_data.error) for e in refused.all_events if e.is_step_failure)
    assert f"card {earlier} cannot seal" in messages and later in messages
    assert not record.tables.exists("packet", earlier)
    seal = json.loads((record.root / "seals" / f"card={later}.json").read_text())
    assert seal["card"] == later and set(seal["tables"]) >= {"packet", "ranked_candidates", "raw_sweep"}


def test_backfills_seal_cards_in_time_order():
    """Each card's packet depends on the previous card's, so a backfill (UI or daemon) runs in order."""
    from colosseum_dagster.partitions import card_partitions

    packet = defs.resolve_assets_def(dg.AssetKey("packet"))
    mapping = packet.get_partition_mapping(dg.AssetKey("packet"))
    for key, previous in [("2026-11-29-0500", "2026-11-28-1800"), ("2026-11-01-0500", "2026-10-31-1800")]:
        subset = card_partitions.empty_subset().with_partition_keys([key])
        upstream = mapping.get_upstream_mapped_partitions_result_for_partitions(
            subset, card_partitions, card_partitions
        )
        assert upstream.partitions_subset.get_partition_keys() == [previous]
