"""The verbatim copy from receipts, its quarantine of bad input, and the independent re-check."""

from __future__ import annotations

import copy
import json

import polars as pl
import pytest

from colosseum_core.forecast.sweep.copy import copy_markets
from colosseum_core.forecast.sweep.copy_check import CHECKED_COLUMNS, recheck_copy
from colosseum_core.record import ReceiptStore, RequestTrace
from tests.support import FIXTURES, REPO

POLYMARKET = FIXTURES / "polymarket"
SAMPLES = REPO.parent / "shared" / "reference" / "polymarket_samples"
CARD = "2026-11-29-1000"


def _store_body(store: ReceiptStore, body: bytes, url: str = "http://127.0.0.1:1/markets/keyset") -> str:
    trace = RequestTrace("GET", url, [("closed", "false")], "2026-11-29T15:00:00Z")
    return store.put(trace.receipt(ended_at="2026-11-29T15:00:01Z", status=200, body=body))


def _store_fixture(store: ReceiptStore, name: str) -> str:
    return _store_body(store, (POLYMARKET / name).read_bytes())


@pytest.fixture
def store(tmp_path) -> ReceiptStore:
    return ReceiptStore(tmp_path / "receipts")


def test_good_pages_copy_every_market_and_name_their_receipt(store):
    ids = [
        _store_fixture(store, "markets_keyset_page.json"),
        _store_fixture(store, "events_keyset_page.json"),
    ]
    copied = copy_markets(CARD, ids, store)
    assert copied.errors.is_empty()
    markets = copied.markets
    assert set(markets["receipt_id"]) == set(ids)
    assert markets["card"].unique().to_list() == [CARD]
    assert set(CHECKED_COLUMNS) <= set(markets.columns)
    first = markets.filter(pl.col("market_id") == "7300001").row(0, named=True)
    assert first["volume_24hr"] is None  # absent on the page, absent in the record
    assert isinstance(first["outcomes"], list)
    assert recheck_copy(markets, store) == []


@pytest.mark.parametrize(
    ("fixture", "field", "value_part"),
    [
        ("bad_field_wrong_type.json", "bestBid", "{'a': 1}"),
        ("bad_market_without_event.json", "events", "[]"),
        ("bad_page_shape.json", "<page>", None),
    ],
)
def test_bad_input_is_quarantined_naming_receipt_field_and_value(store, fixture, field, value_part):
    good = _store_fixture(store, "markets_keyset_page.json")
    bad = _store_fixture(store, fixture)
    copied = copy_markets(CARD, [good, bad], store)
    [error] = copied.errors.to_dicts()
    assert error["receipt_id"] == bad and error["field"] == field
    assert bad in error["error"]
    if value_part is not None:
        assert value_part in error["value"] and value_part in error["error"]
    else:
        assert "not an array" in error["error"]
    # The good page is copied in full, untouched by the bad one.
    alone = copy_markets(CARD, [good], store).markets
    assert copied.markets.filter(pl.col("receipt_id") == good).drop("id").equals(alone.drop("id"))
    assert recheck_copy(copied.markets, store) == []


def test_a_page_that_is_not_json_is_quarantined(store):
    body = (POLYMARKET / "markets_keyset_page.json").read_bytes()
    bad = _store_body(store, body[: len(body) // 2])
    copied = copy_markets(CARD, [bad], store)
    [error] = copied.errors.to_dicts()
    assert error["field"] == "<page>" and "not valid JSON" in error["error"] and bad in error["error"]
    assert copied.markets.is_empty()


def test_the_same_market_twice_is_copied_once(store):
    page = json.loads((POLYMARKET / "markets_keyset_page.json").read_text())
    a = _store_body(store, json.dumps(page).encode())
    b = _store_body(store, json.dumps({"markets": page["markets"][:1]}).encode(), url="http://127.0.0.1:1/x")
    copied = copy_markets(CARD, [a, b], store)
    assert copied.errors.is_empty()
    assert copied.markets["market_id"].to_list() == ["7300001", "7300002", "7300003"]


def test_one_id_with_two_contents_is_copied_in_neither_form(store):
    page = json.loads((POLYMARKET / "markets_keyset_page.json").read_text())
    altered = copy.deepcopy(page["markets"][0])
    altered["question"] = altered["question"] + " (rescheduled)"
    a = _store_body(store, json.dumps(page).encode())
    b = _store_body(store, json.dumps({"markets": [altered]}).encode())
    copied = copy_markets(CARD, [a, b], store)
    [error] = copied.errors.to_dicts()
    assert error["field"] == "id" and error["market_id"] == "7300001"
    assert a in error["error"] and b in error["error"]
    assert "7300001" not in copied.markets["market_id"].to_list()
    assert copied.markets.height == 2


@pytest.mark.parametrize(
    ("column", "forged"),
    [
        ("question", "Will it rain?"),
        ("best_bid", 0.123),
        ("volume", "1"),
        ("active", False),
        ("outcomes", ["No", "Yes"]),
        ("event_title", "Another event"),
        ("end_date_ts", None),
        ("event_series_recurrence", "1h"),
    ],
)
def test_the_recheck_names_any_forged_value(store, column, forged):
    copied = copy_markets(CARD, [_store_fixture(store, "markets_keyset_page.json")], store).markets
    dtype = copied.schema[column]
    tampered = copied.with_columns(
        pl.when(pl.int_range(pl.len()) == 0)
        .then(pl.lit(forged, dtype=dtype))
        .otherwise(pl.col(column))
        .alias(column)
    )
    [mismatch] = recheck_copy(tampered, store)
    assert (mismatch.column, mismatch.market_id) == (column, copied["market_id"][0])


def test_the_recheck_reports_a_missing_column(store):
    copied = copy_markets(CARD, [_store_fixture(store, "markets_keyset_page.json")], store).markets
    mismatches = recheck_copy(copied.drop("liquidity_num"), store)
    assert [m.column for m in mismatches] == ["liquidity_num"]


@pytest.mark.samples
@pytest.mark.skipif(not SAMPLES.is_dir(), reason="polymarket_samples not present")
def test_copy_and_recheck_agree_on_every_recorded_gamma_payload(store):
    """Real payloads: every market with a parent event copies, and the independent check agrees."""
    ids = [_store_body(store, path.read_bytes()) for path in sorted(SAMPLES.glob("gamma_*.json"))]
    copied = copy_markets(CARD, ids, store)
    assert copied.markets.height >= 15
    # Lone market objects fetched by id carry no parent event: quarantined, named, never guessed.
    assert set(copied.errors["field"]) == {"events"}
    assert recheck_copy(copied.markets, store) == []


def _envelope(markets: bytes, tail: bytes = b', "next_cursor": "abc"}') -> bytes:
    return b'{"markets": ' + markets + tail


@pytest.mark.parametrize(
    ("name", "body_of", "read_whole"),
    [
        ("plain", lambda m: _envelope(m), True),
        ("last page", lambda m: _envelope(m, b"}"), True),
        ("another key after the array", lambda m: _envelope(m, b', "x": 1, "next_cursor": null}'), False),
        ("a second value after the array", lambda m: _envelope(m + b", []"), False),
        ("a key before the array", lambda m: b'{"x": 1, "markets": ' + m + b"}", False),
    ],
)
def test_the_recheck_reads_a_keyset_page_whole_only_when_it_is_nothing_but_its_markets(
    store, name, body_of, read_whole
):
    from colosseum_core.forecast.sweep import copy_check

    markets = json.dumps(
        json.loads((POLYMARKET / "markets_keyset_page.json").read_text())["markets"]
    ).encode()
    body = body_of(markets)
    whole = copy_check._keyset_page("r", body)
    assert (whole is not None) == read_whole, name
    if whole is not None:
        assert whole["__position"].to_list() == [0, 1, 2]
    # Either way the check reads what the copy read, and finds it the same.
    receipt = _store_body(store, body)
    copied = copy_markets(CARD, [receipt], store)
    if copied.markets.height:
        assert recheck_copy(copied.markets, store) == []


def test_the_recheck_reads_an_empty_keyset_page(store):
    from colosseum_core.forecast.sweep import copy_check

    assert copy_check._keyset_page("r", _envelope(b"[]")).height == 0
    assert copy_check._keyset_page("r", _envelope(b"[null]")) is None
