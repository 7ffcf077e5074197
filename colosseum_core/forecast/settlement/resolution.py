"""COLOSSEUM-SETTLEMENT-1: when a card's question has settled, read from the exchange's receipts.

The rule (docs/decisions.md, and Polymarket's own resolution mechanics): a market settles only when
``closed`` is the JSON boolean true and ``umaResolutionStatus`` is ``"resolved"``. Then its
``outcomePrices`` decide: exactly one ``1`` and the other ``0`` names the winner; both ``0.5`` is a
50-50 void (excluded from scoring, counted publicly). Anything else waits, with no deadline:
prices of 0.9995, a proposal, a dispute, a closed market not yet resolved. Never from prices alone.

Every observation comes from a stored receipt, so anyone can re-read the same bytes and reach the
same settlement. A settled outcome is never overwritten: an observation that contradicts it (a
market that "un-resolves", a changed winner, a void that later names a winner) is recorded in
``settlement_reviews``, flagged for review, and the first settlement stands.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final

import polars as pl

from colosseum_core.exchanges.polymarket.client import AS_OF_HEADER
from colosseum_core.exchanges.polymarket.pages import PageError, page_items
from colosseum_core.forecast.rules import COLOSSEUM_SETTLEMENT
from colosseum_core.record import ReceiptStore, with_ids
from colosseum_core.record.receipts import ReceiptError

SETTLED: Final = "settled"
VOID: Final = "void"
WAITING: Final = "waiting"

OBSERVATION_SCHEMA: Final[dict[str, pl.DataType]] = {
    "market_id": pl.String(),
    "state": pl.String(),
    "outcome": pl.Int64(),
    "outcome_prices": pl.String(),
    "closed": pl.String(),
    "uma_resolution_status": pl.String(),
    "closed_time": pl.String(),
    "detail": pl.String(),
    "receipt_id": pl.String(),
    "observed_at": pl.String(),
}
SETTLEMENT_SCHEMA: Final[dict[str, pl.DataType]] = {
    "card": pl.String(),
    "label": pl.String(),
    "market_id": pl.String(),
    "status": pl.String(),
    "outcome": pl.Int64(),
    "winner": pl.String(),
    "outcome_prices": pl.String(),
    "closed_time": pl.String(),
    "uma_resolution_status": pl.String(),
    "receipt_id": pl.String(),
    "observed_at": pl.String(),
    "rules": pl.String(),
}
REVIEW_SCHEMA: Final[dict[str, pl.DataType]] = {
    "card": pl.String(),
    "label": pl.String(),
    "market_id": pl.String(),
    "problem": pl.String(),
    "settlement_id": pl.String(),
    "settled_status": pl.String(),
    "settled_outcome": pl.Int64(),
    "observed_state": pl.String(),
    "observed_outcome": pl.Int64(),
    "observed_detail": pl.String(),
    "receipt_id": pl.String(),
    "observed_at": pl.String(),
    "rules": pl.String(),
}


@dataclasses.dataclass(frozen=True)
class Resolution:
    """What one market object says about its settlement. ``outcome`` is 1 if YES won, 0 if NO."""

    state: str
    outcome: int | None
    detail: str


def _json_list(value: Any) -> list[Any] | None:
    # Gamma publishes outcomes and prices as JSON-encoded strings; a real array is read the same.
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, list) else None


def _decimal(value: Any) -> Decimal | None:
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def resolution_of(market: Mapping[str, Any]) -> Resolution:
    """The settlement rule applied to one Gamma market object."""
    closed = market.get("closed")
    status = market.get("umaResolutionStatus")
    if closed is not True or status != "resolved":
        return Resolution(
            WAITING, None, f"closed={json.dumps(closed)}, umaResolutionStatus={json.dumps(status)}"
        )
    outcomes = _json_list(market.get("outcomes"))
    prices = [_decimal(p) for p in _json_list(market.get("outcomePrices")) or []]
    shown = json.dumps(market.get("outcomePrices"))
    if outcomes is None or [str(o).lower() for o in outcomes] != ["yes", "no"]:
        return Resolution(
            WAITING, None, f"resolved, but outcomes {json.dumps(market.get('outcomes'))} are not Yes/No"
        )
    if len(prices) != 2 or None in prices:
        return Resolution(WAITING, None, f"resolved, but outcomePrices {shown} are not two numbers")
    if prices == [Decimal("0.5"), Decimal("0.5")]:
        return Resolution(VOID, None, f"resolved 50-50: outcomePrices {shown}")
    if sorted(prices) == [Decimal(0), Decimal(1)]:  # type: ignore[type-var]
        yes_won = prices[0] == 1
        return Resolution(
            SETTLED, 1 if yes_won else 0, f"resolved {'Yes' if yes_won else 'No'}: outcomePrices {shown}"
        )
    return Resolution(WAITING, None, f"resolved, but outcomePrices {shown} name no winner and no 50-50")


def observations(
    receipts: ReceiptStore, receipt_ids: Iterable[str], market_ids: Iterable[str]
) -> pl.DataFrame:
    """What the receipts say about ``market_ids``: one row per market per receipt that carries it.

    A receipt that is not a Gamma page (an error, a foreign API) raises, naming the receipt: a
    settlement is never read from something that is not the exchange's answer.
    """
    wanted = set(market_ids)
    rows: list[dict[str, Any]] = []
    for receipt_id in dict.fromkeys(receipt_ids):
        receipt = receipts.get(receipt_id)
        if receipt.status != 200:
            raise ReceiptError(
                f"receipt {receipt_id}: {receipt.method} {receipt.url} answered {receipt.status}"
            )
        try:
            items = page_items(receipt.json(), receipt_id)
        except PageError as exc:
            raise ReceiptError(str(exc)) from exc
        observed_at = receipt.request_headers.get(AS_OF_HEADER.lower()) or receipt.ended_at
        for item in items:
            market = item.market
            market_id = str(market.get("id"))
            if market_id not in wanted:
                continue
            resolution = resolution_of(market)
            rows.append(
                {
                    "market_id": market_id,
                    "state": resolution.state,
                    "outcome": resolution.outcome,
                    "outcome_prices": json.dumps(market.get("outcomePrices")),
                    "closed": json.dumps(market.get("closed")),
                    "uma_resolution_status": market.get("umaResolutionStatus"),
                    "closed_time": market.get("closedTime"),
                    "detail": resolution.detail,
                    "receipt_id": receipt_id,
                    "observed_at": observed_at,
                }
            )
    return pl.DataFrame(rows, schema=OBSERVATION_SCHEMA).sort("observed_at", "receipt_id", "market_id")


def _problem(settled_status: str, settled_outcome: int | None, state: str, outcome: int | None) -> str | None:
    if settled_status == state and settled_outcome == outcome:
        return None
    if state == WAITING:
        return "un-resolved: a settled market no longer reads as settled"
    if settled_status == VOID:
        return "a void now names a winner"
    if state == VOID:
        return "a settled market now reads as a 50-50 void"
    return "changed winner"


@dataclasses.dataclass(frozen=True)
class CardSettlement:
    settlements: pl.DataFrame
    reviews: pl.DataFrame
    added: int
    flagged: int


def settle_card(
    card: str,
    questions: pl.DataFrame,
    existing: pl.DataFrame | None,
    existing_reviews: pl.DataFrame | None,
    observed: pl.DataFrame,
) -> CardSettlement:
    """The card's settlements and reviews after ``observed``; settled rows are never changed.

    Observations are taken in time order: the first that settles or voids a market settles it;
    every later one that disagrees is a review row, flagged and kept, never applied.
    """
    label_of = dict(questions.select("market_id", "label").iter_rows())
    settlements = existing if existing is not None else with_ids(pl.DataFrame(schema=SETTLEMENT_SCHEMA))
    reviews = (
        existing_reviews if existing_reviews is not None else with_ids(pl.DataFrame(schema=REVIEW_SCHEMA))
    )
    settled = {row["market_id"]: row for row in settlements.iter_rows(named=True)}
    new_settled: list[dict[str, Any]] = []
    new_reviews: list[dict[str, Any]] = []
    for obs in observed.filter(pl.col("market_id").is_in(list(label_of))).iter_rows(named=True):
        market_id = obs["market_id"]
        prior = settled.get(market_id)
        if prior is None:
            if obs["state"] == WAITING:
                continue
            row = {
                "card": card,
                "label": label_of[market_id],
                "market_id": market_id,
                "status": obs["state"],
                "outcome": obs["outcome"],
                "winner": None if obs["outcome"] is None else ("Yes" if obs["outcome"] == 1 else "No"),
                "outcome_prices": obs["outcome_prices"],
                "closed_time": obs["closed_time"],
                "uma_resolution_status": obs["uma_resolution_status"],
                "receipt_id": obs["receipt_id"],
                "observed_at": obs["observed_at"],
                "rules": COLOSSEUM_SETTLEMENT,
            }
            settled[market_id] = row
            new_settled.append(row)
            continue
        problem = _problem(prior["status"], prior["outcome"], obs["state"], obs["outcome"])
        if problem is None:
            continue
        new_reviews.append(
            {
                "card": card,
                "label": label_of[market_id],
                "market_id": market_id,
                "problem": problem,
                "settlement_id": prior.get("id"),
                "settled_status": prior["status"],
                "settled_outcome": prior["outcome"],
                "observed_state": obs["state"],
                "observed_outcome": obs["outcome"],
                "observed_detail": obs["detail"],
                "receipt_id": obs["receipt_id"],
                "observed_at": obs["observed_at"],
                "rules": COLOSSEUM_SETTLEMENT,
            }
        )
    if new_settled:
        fresh = with_ids(pl.DataFrame(new_settled, schema=SETTLEMENT_SCHEMA))
        settlements = pl.concat([settlements, fresh]).sort("label")
        # A review raised in this same batch names the settlement it contradicts by its id.
        ids = dict(fresh.select("market_id", "id").iter_rows())
        for review in new_reviews:
            review["settlement_id"] = review["settlement_id"] or ids.get(review["market_id"])
    if new_reviews:
        fresh_reviews = with_ids(pl.DataFrame(new_reviews, schema=REVIEW_SCHEMA))
        reviews = pl.concat([reviews, fresh_reviews.join(reviews.select("id"), on="id", how="anti")]).sort(
            "observed_at", "label", "receipt_id"
        )
    return CardSettlement(
        settlements=settlements,
        reviews=reviews,
        added=len(new_settled),
        flagged=reviews.height - (existing_reviews.height if existing_reviews is not None else 0),
    )


def news(settled: pl.DataFrame | None, observed: pl.DataFrame) -> list[tuple[str, str, int | None]]:
    """Observations that would change the card's record: new settlements and contradictions.

    Sorted (market, state, outcome) triples, so the same news always names the same run.
    """
    prior = {} if settled is None else {r["market_id"]: r for r in settled.iter_rows(named=True)}
    found: set[tuple[str, str, int | None]] = set()
    for obs in observed.iter_rows(named=True):
        before = prior.get(obs["market_id"])
        if before is None:
            if obs["state"] != WAITING:
                found.add((obs["market_id"], obs["state"], obs["outcome"]))
        elif _problem(before["status"], before["outcome"], obs["state"], obs["outcome"]) is not None:
            found.add((obs["market_id"], obs["state"], obs["outcome"]))
    return sorted(found, key=lambda t: (t[0], t[1], -1 if t[2] is None else t[2]))
