"""End to end: selection, the rotated card, the packet and the seal, through the real Definitions."""

from __future__ import annotations

import hashlib

import dagster as dg
import duckdb
import polars as pl
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.forecast.arena import SEALED_TABLES, WRITE_ONCE_TABLES
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.sealing.packet import parse_packet, render_packet
from colosseum_core.forecast.selection.rotation import rotation_offset
from colosseum_core.record.seals import SealError
from colosseum_core.record.tables import parquet_bytes
from colosseum_dagster.definitions import defs
from colosseum_standins.simulated_exchange import running_exchange
from tests.conftest import all_checks_pass, check_results, run_card, run_catalog

CARDS = ("2026-11-28-1000", "2026-11-28-1800", "2026-11-29-0500")


@pytest.fixture(scope="module")
def exchange_url():
    with running_exchange(seed=23, markets=1500) as url:
        yield url


@pytest.mark.slow
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
        parsed = parse_packet(text)
        assert list(parsed.labels) == questions["label"].to_list()
        for row, quoted in zip(questions.iter_rows(named=True), parsed.questions, strict=True):
            assert (quoted.question, quoted.scheduled_end) == (row["question"], row["end_date"])
            assert quoted.rules == row["description"]
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
        cards = con.execute("SELECT card, questions, packet_id FROM forecast.cards ORDER BY card").fetchall()
        assert [c[0] for c in cards] == list(CARDS)
        ruled = dict(
            con.execute(
                "SELECT rule, count(*) FROM forecast.verdicts WHERE rule IS NOT NULL GROUP BY 1"
            ).fetchall()
        )
        assert ruled.get("settles_soon", 0) > 0 and ruled.get("gradeable", 0) > 0
    finally:
        con.close()


CARD_TABLES = (*SEALED_TABLES, *(t for t in WRITE_ONCE_TABLES if t not in SEALED_TABLES))


def _files(record, key: str) -> dict[str, bytes]:
    found = {t: record.tables.path(t, key).read_bytes() for t in CARD_TABLES if record.tables.exists(t, key)}
    found["journal"] = (record.root / "journal" / "forecast" / "answers" / f"card={key}.jsonl").read_bytes()
    return found


def _receipts(record) -> int:
    return sum(1 for _ in record.receipts.ids())


def test_a_sealed_card_is_never_rewritten(exchange_url, record, instance):
    key = CARDS[0]
    assert run_card(key, record, exchange_url, instance).success
    before, receipts = _files(record, key), _receipts(record)

    # Re-running the whole card sweeps nothing and asks no seat: it re-derives the card from its
    # recorded sweep, its journal and its receipts, and reproduces every file byte for byte.
    rerun = run_card(key, record, exchange_url, instance)
    assert rerun.success and all_checks_pass(rerun), check_results(rerun)
    assert _files(record, key) == before
    assert _receipts(record) == receipts
    status = next(
        e.event_specific_data.materialization
        for e in rerun.get_asset_materialization_events()
        if e.event_specific_data.materialization.asset_key.path[-1] == "card_status"
    )
    assert status.metadata["reproduced"].value is True

    # Any other write to a sealed card is refused, naming the card and the table.
    forged = record.tables.read("ranked_candidates", key).with_columns(pl.lit("forged").alias("value"))
    with pytest.raises(SealError, match=f"card {key} is sealed.*ranked_candidates"):
        record.seals.check_write("ranked_candidates", key, parquet_bytes(forged))
    # So is a second, different answer to the card: answers are written once.
    answers = record.tables.read("answers", key).with_columns(pl.lit("forged").alias("error"))
    with pytest.raises(SealError, match=f"card {key}'s answers table is written once"):
        record.seals.check_write("answers", key, parquet_bytes(answers))


def _status(record, key: str) -> dict:
    return record.tables.read("card_status", key).row(0, named=True)


@pytest.mark.slow
def test_an_overtaken_card_is_missed_and_the_arena_goes_on(exchange_url, record, instance, tmp_path):
    """The sequence that used to lock the arena for good: a later card, an earlier one, a later one."""
    from colosseum_core.verify import verify_record

    first, earlier, after = "2026-11-30-1000", "2026-11-29-1800", "2026-11-30-1800"
    assert run_card(first, record, exchange_url, instance).success

    overtaken = run_card(earlier, record, exchange_url, instance)
    assert overtaken.success
    missed = record.seals.missed(earlier)
    assert missed is not None and missed.overtaken_by == first and "sealed first" in missed.reason
    status = _status(record, earlier)
    assert (status["status"], status["overtaken_by"], status["packet_id"]) == ("missed", first, None)
    # Its sweep and receipts stay; it is never sealed and never answered.
    assert record.tables.exists("raw_sweep", earlier) and record.tables.exists("verbatim_markets", earlier)
    for table in ("ranked_candidates", "card_questions", "packet", "answers"):
        assert not record.tables.exists(table, earlier), table
    assert record.seals.get(earlier) is None

    # It blocks nothing: the next card seals and is answered.
    later = run_card(after, record, exchange_url, instance)
    assert later.success and all_checks_pass(later), check_results(later)
    assert _status(record, after)["status"] == "sealed"

    # Running the missed card again changes nothing and sweeps nothing.
    files, receipts = _files_without_journal(record, earlier), _receipts(record)
    again = run_card(earlier, record, exchange_url, instance)
    assert again.success
    assert _files_without_journal(record, earlier) == files and _receipts(record) == receipts

    report = verify_record(record.root, AUDITS, workers=1)
    assert report.ok(), report.problems
    assert report.checked["missed"] == 1 and report.checked["seals"] == 2


def _files_without_journal(record, key: str) -> dict[str, bytes]:
    return {t: record.tables.path(t, key).read_bytes() for t in CARD_TABLES if record.tables.exists(t, key)}


def test_a_card_that_failed_before_its_seal_is_missed_once_a_later_card_seals(exchange_url, record, instance):
    """Stopped after its copy (a failure, a crash), a card stays re-runnable until a later card seals."""
    stopped, later = CARDS[1], CARDS[2]
    job = defs.resolve_job_def("card_job")
    partial = job.execute_in_process(
        partition_key=stopped,
        run_config=record.run_config(exchange_url),
        instance=instance,
        asset_selection=[
            dg.AssetKey(["forecast", k]) for k in ("raw_sweep", "sweeps", "verbatim_markets", "copy_errors")
        ],
    )
    assert partial.success and not record.tables.exists("card_status", stopped)

    sealed = run_card(later, record, exchange_url, instance)
    assert sealed.success
    decision = next(
        e.event_specific_data.materialization
        for e in sealed.get_asset_materialization_events()
        if e.event_specific_data.materialization.asset_key.path[-1] == "card_status"
    )
    assert decision.metadata["overtook"].value == stopped
    missed = record.seals.missed(stopped)
    assert missed is not None and missed.overtaken_by == later

    # Run again, the stopped card records itself missed; it never seals.
    assert run_card(stopped, record, exchange_url, instance).success
    assert _status(record, stopped)["status"] == "missed"
    assert not record.tables.exists("packet", stopped)


def test_backfills_decide_cards_in_time_order():
    """Each card's seal depends on the previous card's status (sealed or missed), so a backfill (UI or
    daemon) runs cards in order, and a missed card never holds back the cards after it."""
    from colosseum_dagster.forecast.partitions import card_partitions

    seal = defs.resolve_assets_def(dg.AssetKey(["forecast", "card_status"]))
    mapping = seal.get_partition_mapping(dg.AssetKey(["forecast", "card_status"]))
    for key, previous in [("2026-11-29-0500", "2026-11-28-1800"), ("2026-11-01-0500", "2026-10-31-1800")]:
        subset = card_partitions.empty_subset().with_partition_keys([key])
        upstream = mapping.get_upstream_mapped_partitions_result_for_partitions(
            subset, card_partitions, card_partitions
        )
        assert upstream.partitions_subset.get_partition_keys() == [previous]
