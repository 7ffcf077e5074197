"""Bad input through the real stack: a Gamma look-alike on loopback serving broken pages to a card run.

Each problem must reach the run log and the card's record naming the receipt, the field and the
value; the raw receipt must be kept; and nothing else in the record may change.
"""

from __future__ import annotations

import copy
import json

import polars as pl
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from colosseum_core.exchanges.polymarket.client import shard_windows
from colosseum_core.exchanges.polymarket.timestamps import format_timestamp
from colosseum_core.forecast.schedule import card_from_key
from colosseum_standins.loopback import running_app
from tests.conftest import all_checks_pass, run_card
from tests.support import FIXTURES

POLYMARKET = FIXTURES / "polymarket"
CARD = "2026-11-29-1000"


def _good_markets() -> list[dict]:
    return json.loads((POLYMARKET / "markets_keyset_page.json").read_text())["markets"]


def _bad_markets() -> list[dict]:
    good = _good_markets()
    wrong_type = copy.deepcopy(good[1]) | {"id": "7400001", "bestBid": {"a": 1}}
    orphan = copy.deepcopy(good[2]) | {"id": "7400002"}
    orphan.pop("events")
    twin = copy.deepcopy(good[0]) | {"question": good[0]["question"] + " (rescheduled)"}
    return [*good, wrong_type, orphan, twin]


def _shard_starts() -> list[str]:
    card = card_from_key(CARD)
    return [format_timestamp(low) for low, _ in shard_windows(*card.sweep_window, 4)]


def _app(markets: list[dict], malformed_shard: int | None = None) -> Starlette:
    """Serves ``markets`` to the sweep's first end-date slice, a malformed page to one other if asked."""
    starts = _shard_starts()

    async def keyset(request: Request) -> Response:
        shard = starts.index(request.query_params["end_date_min"])
        if shard == malformed_shard:
            return JSONResponse({"markets": {"oops": "not an array"}})
        # One page per slice and no cursor: each slice's last page.
        return JSONResponse({"markets": markets if shard == 0 else []})

    async def status(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    return Starlette(routes=[Route("/markets/keyset", keyset), Route("/status", status)])


def test_bad_markets_are_quarantined_with_receipt_field_and_value(record, instance):
    with running_app(_app(_bad_markets())) as url:
        result = run_card(CARD, record, url, instance)
    assert result.success
    assert all_checks_pass(result)

    errors = record.tables.read("copy_errors", CARD)
    by_field = {row["field"]: row for row in errors.iter_rows(named=True)}
    assert set(by_field) == {"bestBid", "events", "id"}
    assert by_field["bestBid"]["market_id"] == "7400001" and "{'a': 1}" in by_field["bestBid"]["value"]
    assert by_field["events"]["market_id"] == "7400002"
    assert by_field["id"]["market_id"] == "7300001" and "different contents" in by_field["id"]["error"]
    for row in errors.iter_rows(named=True):
        assert row["receipt_id"] in row["error"]
        assert row["receipt_id"] in record.receipts  # the raw receipt is kept

    # Nothing else changes: the two clean markets are copied exactly as a clean page copies them.
    markets = record.tables.read("verbatim_markets", CARD)
    assert sorted(markets["market_id"]) == ["7300002", "7300003"]

    messages = [
        r.user_message
        for r in instance.all_logs(result.run_id)
        if r.level >= 40 and "not copied" in (r.user_message or "")
    ]
    assert len(messages) == 3
    assert any("bestBid" in m and "{'a': 1}" in m for m in messages)


def test_a_malformed_page_makes_the_sweep_partial_and_keeps_its_receipt(record, instance):
    with running_app(_app(_good_markets(), malformed_shard=1)) as url:
        result = run_card(CARD, record, url, instance)
    assert result.success
    sweep = record.tables.read("sweeps", CARD).row(0, named=True)
    assert sweep["complete"] is False
    failed = record.tables.read("raw_sweep", CARD).filter(pl.col("outcome") == "failed")
    [receipt_id] = failed["receipt_id"].to_list()
    assert receipt_id in sweep["reason"] and "not an array" in sweep["reason"]
    assert json.loads(record.receipts.get(receipt_id).body) == {"markets": {"oops": "not an array"}}
    assert record.tables.read("verbatim_markets", CARD)["market_id"].to_list() == [
        "7300001",
        "7300002",
        "7300003",
    ]
    errors = [r.user_message for r in instance.all_logs(result.run_id) if r.level >= 40]
    assert any(receipt_id in m for m in errors)


@pytest.fixture(autouse=True)
def _no_gamma_env(monkeypatch):
    monkeypatch.delenv("COLOSSEUM_GAMMA_URL", raising=False)
