"""The independent re-check of the copy: every copied row against its recorded original.

Written apart from the copy code on purpose: it walks each receipt's JSON itself, decodes every
published field with polars' JSON decoder, and compares it with what the record holds.
If the copy code ever paraphrases, rounds, drops or invents a value, this check names the market,
the column, the copied value and the published one.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

import polars as pl

from colosseum_core.record import ReceiptStore

# column -> (object the value is published on, JSON path within it)
_STRINGS = {
    "market_id": ("market", "id"),
    "condition_id": ("market", "conditionId"),
    "question_id": ("market", "questionID"),
    "slug": ("market", "slug"),
    "question": ("market", "question"),
    "description": ("market", "description"),
    "resolution_source": ("market", "resolutionSource"),
    "volume": ("market", "volume"),
    "liquidity": ("market", "liquidity"),
    "start_date": ("market", "startDate"),
    "end_date": ("market", "endDate"),
    "game_start_time": ("market", "gameStartTime"),
    "market_event_start_time": ("market", "eventStartTime"),
    "closed_time": ("market", "closedTime"),
    "uma_end_date": ("market", "umaEndDate"),
    "neg_risk_market_id": ("market", "negRiskMarketID"),
    "group_item_title": ("market", "groupItemTitle"),
    "sports_market_type": ("market", "sportsMarketType"),
    "game_id": ("market", "gameId"),
    "uma_resolution_status": ("market", "umaResolutionStatus"),
    "version": ("market", "version"),
    "event_id": ("event", "id"),
    "event_title": ("event", "title"),
    "event_slug": ("event", "slug"),
    "event_start_time": ("event", "startTime"),
    "event_end_date": ("event", "endDate"),
    "event_game_id": ("event", "gameId"),
    "event_series_recurrence": ("event", "series[0].recurrence"),
}
_NUMBERS = {
    "best_bid": ("market", "bestBid"),
    "best_ask": ("market", "bestAsk"),
    "spread": ("market", "spread"),
    "last_trade_price": ("market", "lastTradePrice"),
    "volume_num": ("market", "volumeNum"),
    "volume_24hr": ("market", "volume24hr"),
    "liquidity_num": ("market", "liquidityNum"),
    "liquidity_clob": ("market", "liquidityClob"),
    "order_price_min_tick_size": ("market", "orderPriceMinTickSize"),
    "event_volume": ("event", "volume"),
    "event_volume_24hr": ("event", "volume24hr"),
    "event_liquidity": ("event", "liquidity"),
}
_BOOLEANS = {
    "active": ("market", "active"),
    "closed": ("market", "closed"),
    "archived": ("market", "archived"),
    "accepting_orders": ("market", "acceptingOrders"),
    "enable_order_book": ("market", "enableOrderBook"),
    "neg_risk": ("market", "negRisk"),
    "neg_risk_other": ("market", "negRiskOther"),
    "event_neg_risk": ("event", "negRisk"),
}
# Polymarket publishes these lists as JSON text inside a string field.
_ENCODED_LISTS = {
    "outcomes": ("market", "outcomes"),
    "outcome_prices": ("market", "outcomePrices"),
    "clob_token_ids": ("market", "clobTokenIds"),
    "uma_resolution_statuses": ("market", "umaResolutionStatuses"),
}
# Parsed instants, re-derived here from the published text by a separate normaliser.
_INSTANTS = {
    "end_date_ts": "end_date",
    "start_date_ts": "start_date",
    "game_start_time_ts": "game_start_time",
    "market_event_start_time_ts": "market_event_start_time",
    "event_start_time_ts": "event_start_time",
    "event_end_date_ts": "event_end_date",
}
CHECKED_COLUMNS = (*_STRINGS, *_NUMBERS, *_BOOLEANS, *_ENCODED_LISTS, *_INSTANTS)


@dataclasses.dataclass(frozen=True)
class CopyMismatch:
    market_id: str
    receipt_id: str
    column: str
    copied: str
    published: str


def _page_markets(body: Any) -> list[tuple[dict, dict | None]]:
    """(market, parent event) pairs in document order, for every Gamma page shape."""

    def from_event(event: dict) -> list[tuple[dict, dict | None]]:
        return [(m, event) for m in event.get("markets") or []]

    def from_market(market: dict) -> list[tuple[dict, dict | None]]:
        events = market.get("events")
        return [(market, events[0] if isinstance(events, list) and events else None)]

    def from_item(item: Any) -> list[tuple[dict, dict | None]]:
        if not isinstance(item, dict):
            return []
        return from_market(item) if "question" in item else from_event(item)

    if isinstance(body, list):
        return [pair for item in body for pair in from_item(item)]
    if isinstance(body, dict):
        if isinstance(body.get("markets"), list) and "question" not in body and "title" not in body:
            return [pair for m in body["markets"] for pair in from_market(m)]
        if isinstance(body.get("events"), list) and "question" not in body:
            return [pair for e in body["events"] for pair in from_event(e)]
        return from_item(body)
    return []


def _published_frame(rows: pl.DataFrame, receipts: ReceiptStore) -> pl.DataFrame:
    """One row per copied market: its market and event objects as published, as JSON text."""
    markets: list[str | None] = []
    events: list[str | None] = []
    pages: dict[str, list[tuple[dict, dict | None]]] = {}
    for receipt_id, position in rows.select("receipt_id", "position").iter_rows():
        if receipt_id not in pages:
            pages[receipt_id] = _page_markets(json.loads(receipts.get(receipt_id).body))
        page = pages[receipt_id]
        market, event = page[position] if 0 <= position < len(page) else (None, None)
        markets.append(None if market is None else json.dumps(market))
        events.append(None if event is None else json.dumps(event))
    return pl.DataFrame(
        {"__market": markets, "__event": events}, schema={"__market": pl.String, "__event": pl.String}
    )


def _sources() -> dict[str, dict[str, pl.DataType]]:
    """The published keys the check reads, per object, each decoded as its raw JSON text.

    Decoding to text keeps numbers exactly as published (polars' JSON-path matcher re-prints
    floats and can change their last digit); the cast to a number happens once, below.
    """
    keys: dict[str, dict[str, pl.DataType]] = {"market": {}, "event": {}}
    for owner, path in (
        *_STRINGS.values(),
        *_NUMBERS.values(),
        *_BOOLEANS.values(),
        *_ENCODED_LISTS.values(),
    ):
        if path != "series[0].recurrence":
            keys[owner][path] = pl.String()
    keys["event"]["series"] = pl.List(pl.Struct({"recurrence": pl.String()}))
    return keys


def _field(source: tuple[str, str]) -> pl.Expr:
    owner, path = source
    if path == "series[0].recurrence":
        return pl.col("__event").struct.field("series").list.first().struct.field("recurrence")
    return pl.col(f"__{owner}").struct.field(path)


def _instant(text: pl.Expr) -> pl.Expr:
    normalised = (
        text.str.replace(r"^(\d{4}-\d{2}-\d{2})$", "${1}T00:00:00Z")
        .str.replace(r"^(\d{4}-\d{2}-\d{2}) ", "${1}T")
        .str.replace(r"(\+00(:00)?(:00)?|Z)$", "+00:00")
    )
    return normalised.str.to_datetime(
        "%Y-%m-%dT%H:%M:%S%.f%:z", time_zone="UTC", time_unit="us", strict=False
    )


def _expected(published: pl.DataFrame) -> pl.DataFrame:
    sources = _sources()
    decoded = published.with_columns(
        pl.col(f"__{owner}").str.json_decode(pl.Struct(fields)) for owner, fields in sources.items()
    )
    expressions = [
        *(_field(src).alias(col) for col, src in _STRINGS.items()),
        *(_field(src).cast(pl.Float64, strict=False).alias(col) for col, src in _NUMBERS.items()),
        *(
            pl.when(_field(src).is_null()).then(None).otherwise(_field(src) == "true").alias(col)
            for col, src in _BOOLEANS.items()
        ),
        *(_field(src).str.json_decode(pl.List(pl.String)).alias(col) for col, src in _ENCODED_LISTS.items()),
    ]
    frame = decoded.select(expressions)
    return frame.with_columns(_instant(pl.col(text)).alias(col) for col, text in _INSTANTS.items())


def recheck_copy(
    verbatim: pl.DataFrame, receipts: ReceiptStore, *, limit: int | None = None
) -> list[CopyMismatch]:
    """Compare every checked column of every row with its receipt; return the differences."""
    if verbatim.is_empty():
        return []
    expected = _expected(_published_frame(verbatim, receipts))
    differs = pl.DataFrame(
        {col: ~verbatim[col].eq_missing(expected[col]) for col in CHECKED_COLUMNS if col in verbatim.columns}
    )
    missing = [col for col in CHECKED_COLUMNS if col not in verbatim.columns]
    mismatches = [
        CopyMismatch("*", "*", col, "<column missing from the copy>", "<published>") for col in missing
    ]
    flagged = differs.select(pl.any_horizontal(pl.all())).to_series()
    for index in flagged.arg_true().to_list():
        row = verbatim.row(index, named=True)
        for col in differs.columns:
            if differs[col][index]:
                mismatches.append(
                    CopyMismatch(
                        market_id=str(row["market_id"]),
                        receipt_id=str(row["receipt_id"]),
                        column=col,
                        copied=repr(row[col])[:120],
                        published=repr(expected[col][index])[:120],
                    )
                )
                if limit is not None and len(mismatches) >= limit:
                    return mismatches
    return mismatches


def mismatch_lines(mismatches: Iterable[CopyMismatch]) -> list[str]:
    return [
        f"market {m.market_id} (receipt {m.receipt_id}): {m.column} "
        f"copied {m.copied}, published {m.published}"
        for m in mismatches
    ]
