"""Verbatim market rows for selection tests: one market every rule passes, changed field by field."""

from __future__ import annotations

import datetime as dt
from typing import Any

from colosseum_core.exchanges.polymarket.markets import VERBATIM_SCHEMA
from colosseum_core.forecast.schedule import card_from_key

CARD = card_from_key("2026-11-29-1000")
SEAL = CARD.seal  # 2026-11-29T15:00:00Z
H = dt.timedelta(hours=1)
US = dt.timedelta(microseconds=1)

# Open, Yes/No, a $0.10 book (0.55 − 0.45 is not 0.10 in floats), two days out, on a rich event.
GOOD: dict[str, Any] = {
    "outcomes": ["Yes", "No"],
    "outcome_prices": ["0.5", "0.5"],
    "best_bid": 0.45,
    "best_ask": 0.55,
    "spread": 0.1,
    "last_trade_price": 0.5,
    "event_volume_24hr": 10_000.0,
    "event_liquidity": 5_000.0,
    "end_date_ts": SEAL + 48 * H,
    "start_date_ts": SEAL - 240 * H,
    "active": True,
    "closed": False,
    "accepting_orders": True,
}


def market(ident: str | int, /, **fields: Any) -> dict[str, Any]:
    """One verbatim row: every verbatim column, null unless a good default or ``fields`` sets it."""
    row: dict[str, Any] = dict.fromkeys(VERBATIM_SCHEMA)
    row.update(GOOD)
    row.update(market_id=str(ident), event_id=f"e{ident}", question=f"Will event {ident} happen?")
    row.update(fields)
    return row
