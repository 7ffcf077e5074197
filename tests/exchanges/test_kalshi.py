"""The Kalshi client: cursor paging over open events with nested markets, both price shapes,
every page a receipt, a partial walk named with its page and receipt."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from colosseum_core.exchanges.kalshi.client import KalshiClient
from colosseum_core.exchanges.kalshi.markets import KalshiError, events_page, top_by_volume
from colosseum_core.record.receipts import ReceiptStore
from tests.support import REPO

SAMPLES = REPO.parent / "shared" / "reference" / "polymarket_samples"
NOW = dt.datetime(2026, 12, 1, 6, tzinfo=dt.UTC)


def _market(ticker: str, volume: str, **fields: object) -> dict[str, object]:
    return {
        "ticker": ticker,
        "event_ticker": ticker.rsplit("-", 1)[0],
        "title": f"Will {ticker} happen?",
        "status": "active",
        "close_time": "2027-01-01T00:00:00Z",
        "yes_bid_dollars": "0.4100",
        "yes_ask_dollars": "0.4300",
        "last_price_dollars": "0.4200",
        "volume_24h_fp": volume,
        "open_interest_fp": "1200.50",
        "rules_primary": "Resolves Yes if it happens.",
        "result": "",
        **fields,
    }


PAGE_1 = {
    "cursor": "next-please",
    "events": [
        {
            "event_ticker": "KXA",
            "series_ticker": "KXA",
            "category": "Politics",
            "markets": [_market("KXA-1", "10.00")],
        },
        {
            "event_ticker": "KXB",
            "category": "Economics",
            "markets": [_market("KXB-1", "250.25"), _market("KXB-2", "0.00")],
        },
    ],
}
# An older answer: integer cents and integer counts.
OLD = {
    "ticker": "KXC-1",
    "event_ticker": "KXC",
    "title": "Old shape?",
    "status": "active",
    "yes_bid": 12,
    "yes_ask": 14,
    "last_price": 13,
    "volume_24h": 99,
    "close_time": "2027-02-01T00:00:00Z",
}
PAGE_2 = {"cursor": "", "events": [{"event_ticker": "KXC", "category": "World", "markets": [OLD]}]}


def _client(tmp_path: Path, handler) -> KalshiClient:
    return KalshiClient(
        "https://kalshi.test/trade-api/v2",
        receipts=ReceiptStore(tmp_path / "receipts"),
        client=httpx.Client(transport=httpx.MockTransport(handler)),
        clock=lambda: NOW,
    )


def test_the_client_walks_every_page_and_reads_both_shapes(tmp_path: Path) -> None:
    seen: list[httpx.URL] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        page = PAGE_2 if request.url.params.get("cursor") == "next-please" else PAGE_1
        return httpx.Response(200, json=page)

    client = _client(tmp_path, handler)
    sweep = client.open_markets()
    assert sweep.complete and sweep.pages == 2 and len(sweep.receipt_ids) == 2
    assert all(r in client.receipts for r in sweep.receipt_ids)
    assert seen[0].params["status"] == "open" and seen[0].params["with_nested_markets"] == "true"
    by = {m.ticker: m for m in sweep.markets}
    assert by["KXB-1"].volume_24h == Decimal("250.25") and by["KXB-1"].category == "Economics"
    assert by["KXC-1"].yes_bid == Decimal("0.12") and by["KXC-1"].volume_24h == Decimal(99)
    assert by["KXA-1"].yes_price == Decimal("0.4200") and by["KXA-1"].close_time == dt.datetime(
        2027, 1, 1, tzinfo=dt.UTC
    )
    assert [m.ticker for m in top_by_volume(sweep.markets, 2)] == ["KXB-1", "KXC-1"]


def test_a_page_that_fails_ends_the_walk_as_partial_and_keeps_the_pages_before(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("cursor"):
            return httpx.Response(503, text="busy")
        return httpx.Response(200, json=PAGE_1)

    sweep = _client(tmp_path, handler).open_markets()
    assert not sweep.complete and len(sweep.markets) == 3 and sweep.reason.startswith("page 2 (receipt ")
    assert "HTTP 503" in sweep.reason and len(sweep.receipt_ids) == 2

    garbled = _client(tmp_path, lambda request: httpx.Response(200, content=b"<html>")).open_markets()
    assert not garbled.complete and "page 1" in garbled.reason


def test_a_value_in_neither_shape_names_the_receipt_the_market_and_the_field() -> None:
    page = {"cursor": "", "events": [{"event_ticker": "KXA", "markets": [_market("KXA-1", "lots")]}]}
    with pytest.raises(KalshiError, match=r"market 'KXA-1' field volume_24h_fp: 'lots' is not a number"):
        events_page(page, "f" * 64)
    page = {"cursor": "", "events": [{"event_ticker": "KXA", "markets": [{**OLD, "yes_bid": "12"}]}]}
    with pytest.raises(KalshiError, match="field yes_bid: expected integer cents"):
        events_page(page, "f" * 64)


@pytest.mark.skipif(
    not SAMPLES.is_dir(), reason=f"the recorded payloads are not beside this checkout ({SAMPLES})"
)
def test_every_recorded_kalshi_events_page_parses() -> None:
    pages = sorted(SAMPLES.glob("kalshi_events*.json"))
    assert pages
    for path in pages:
        markets, cursor = events_page(json.loads(path.read_text()), "0" * 64)
        assert markets and all(m.title and m.event_ticker for m in markets), path.name
        assert cursor is None or isinstance(cursor, str)
