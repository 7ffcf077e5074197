"""COLOSSEUM-SETTLEMENT-1: the settlement rule, reading receipts, and never overwriting a settled outcome."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from colosseum_core.forecast.rules import COLOSSEUM_SETTLEMENT
from colosseum_core.forecast.settlement.resolution import (
    SETTLED,
    VOID,
    WAITING,
    news,
    observations,
    resolution_of,
    settle_card,
)
from colosseum_core.record import ReceiptStore
from colosseum_core.record.receipts import Receipt, ReceiptError

CARD = "2026-11-20-1000"
QUESTIONS = pl.DataFrame({"label": ["M01", "M02", "M03"], "market_id": ["101", "102", "103"]})


def market(
    mid: str, prices: list[str] | None, *, closed: Any = True, status: str | None = "resolved"
) -> dict:
    body: dict[str, Any] = {
        "id": mid,
        "question": f"Will {mid} happen?",
        "conditionId": "0x" + mid,
        "outcomes": '["Yes", "No"]',
        "outcomePrices": json.dumps(prices) if prices is not None else None,
        "closed": closed,
        "closedTime": "2026-11-22 06:12:29+00" if closed is True else None,
    }
    if status is not None:
        body["umaResolutionStatus"] = status
    return body


@pytest.mark.parametrize(
    ("obj", "state", "outcome"),
    [
        (market("1", ["1", "0"]), SETTLED, 1),
        (market("1", ["0", "1"]), SETTLED, 0),
        (market("1", ["1.0", "0.0"]), SETTLED, 1),
        (market("1", ["0.5", "0.5"]), VOID, None),
        (market("1", ["0.9995", "0.0005"]), WAITING, None),  # never settle from prices alone
        (market("1", ["1", "0"], closed=False), WAITING, None),
        (market("1", ["1", "0"], closed="true"), WAITING, None),  # a string is not the boolean true
        (market("1", ["0.5", "0.5"], closed=False, status="proposed"), WAITING, None),
        (market("1", ["1", "0"], status="disputed"), WAITING, None),
        (market("1", ["1", "0"], status=None), WAITING, None),
        (market("1", ["0.7", "0.3"]), WAITING, None),
        (market("1", None), WAITING, None),
        (market("1", ["1", "0", "0"]), WAITING, None),
    ],
)
def test_the_settlement_rule(obj: dict, state: str, outcome: int | None) -> None:
    got = resolution_of(obj)
    assert (got.state, got.outcome) == (state, outcome)
    assert got.detail


def _store(tmp_path: Path, *pages: tuple[list[dict], str]) -> tuple[ReceiptStore, list[str]]:
    store = ReceiptStore(tmp_path / "receipts")
    ids = []
    for markets, as_of in pages:
        receipt = Receipt(
            method="GET",
            url="http://127.0.0.1:1/markets/keyset",
            params=(("closed", "true"),),
            status=200,
            headers={"content-type": "application/json"},
            body=json.dumps({"markets": markets}).encode(),
            started_at=as_of,
            ended_at=as_of,
            request_headers={"x-colosseum-as-of": as_of},
        )
        ids.append(store.put(receipt))
    return store, ids


def test_observations_read_only_the_card_markets_from_receipts(tmp_path: Path) -> None:
    store, ids = _store(
        tmp_path,
        ([market("101", ["1", "0"]), market("999", ["0", "1"])], "2026-11-23T00:00:00Z"),
        ([market("102", ["0.5", "0.5"]), market("103", ["1", "0"], closed=False)], "2026-11-23T00:00:00Z"),
    )
    observed = observations(store, ids, ["101", "102", "103"])
    assert observed.select("market_id", "state", "outcome").rows() == [
        ("101", SETTLED, 1),
        ("102", VOID, None),
        ("103", WAITING, None),
    ]
    assert set(observed["observed_at"]) == {"2026-11-23T00:00:00Z"}


def test_a_receipt_that_is_not_a_gamma_page_is_refused_naming_it(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path / "r")
    bad = store.put(Receipt("GET", "http://x/markets/keyset", (), 200, {}, b'{"error": "boom"}', "t", "t"))
    with pytest.raises(ReceiptError, match=bad):
        observations(store, [bad], ["101"])


def test_first_settlement_stands_and_contradictions_are_flagged(tmp_path: Path) -> None:
    store, ids = _store(
        tmp_path,
        ([market("101", ["1", "0"]), market("102", ["0.5", "0.5"])], "2026-11-23T00:00:00Z"),
    )
    first = settle_card(CARD, QUESTIONS, None, None, observations(store, ids, ["101", "102", "103"]))
    assert first.added == 2 and first.flagged == 0
    assert first.settlements.select("label", "status", "outcome", "winner").rows() == [
        ("M01", SETTLED, 1, "Yes"),
        ("M02", VOID, None, None),
    ]
    assert set(first.settlements["rules"]) == {COLOSSEUM_SETTLEMENT}
    assert first.settlements["receipt_id"].to_list() == [ids[0], ids[0]]

    # Later: M01 "un-resolves", then names the other winner; M02's void names a winner; M03 settles.
    store2, later = _store(
        tmp_path,
        ([market("101", ["1", "0"], closed=False, status="disputed")], "2026-11-24T00:00:00Z"),
        (
            [market("101", ["0", "1"]), market("102", ["1", "0"]), market("103", ["0", "1"])],
            "2026-11-25T00:00:00Z",
        ),
    )
    observed = observations(store2, later, ["101", "102", "103"])
    assert news(first.settlements, observed) == [
        ("101", SETTLED, 0),
        ("101", WAITING, None),
        ("102", SETTLED, 1),
        ("103", SETTLED, 0),
    ]
    second = settle_card(CARD, QUESTIONS, first.settlements, first.reviews, observed)
    assert second.added == 1 and second.flagged == 3
    # Settled outcomes are untouched, byte for byte.
    assert second.settlements.filter(pl.col("label") != "M03").equals(first.settlements)
    assert second.reviews.select("label", "problem").rows() == [
        ("M01", "un-resolved: a settled market no longer reads as settled"),
        ("M01", "changed winner"),
        ("M02", "a void now names a winner"),
    ]
    settlement_of = dict(first.settlements.select("market_id", "id").iter_rows())
    assert second.reviews["settlement_id"].to_list() == [
        settlement_of["101"],
        settlement_of["101"],
        settlement_of["102"],
    ]

    # The same observations again change nothing.
    again = settle_card(CARD, QUESTIONS, second.settlements, second.reviews, observed)
    assert (again.added, again.flagged) == (0, 0)
    assert again.settlements.equals(second.settlements) and again.reviews.equals(second.reviews)
    # And agreeing observations are no news.
    assert news(second.settlements, observations(store, ids, ["101", "102"])) == []
