"""A Kalshi market as the arenas read it, parsed from an events page with nested markets.

Kalshi publishes prices as fixed-point dollar strings (``yes_bid_dollars: "0.1200"``) and counts as
fixed-point strings (``volume_24h_fp: "45.25"``); older answers carried integer cents
(``yes_bid: 12``) and integer counts (``volume_24h: 45``). Both are read, exactly, with ``Decimal``;
a value in neither shape is an error naming the page's receipt, the market and the field. The
category lives on the event, not the market.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, Final

KALSHI_API: Final = "https://api.elections.kalshi.com/trade-api/v2"
CENT: Final = Decimal("0.01")


class KalshiError(ValueError):
    """A Kalshi answer that cannot be read: names the receipt, the market and the field."""


@dataclasses.dataclass(frozen=True)
class KalshiMarket:
    ticker: str
    event_ticker: str
    series_ticker: str | None
    category: str | None
    title: str
    yes_sub_title: str | None
    status: str
    close_time: dt.datetime | None
    yes_bid: Decimal | None
    yes_ask: Decimal | None
    last_price: Decimal | None
    volume_24h: Decimal
    open_interest: Decimal | None
    rules_primary: str
    rules_secondary: str
    result: str
    receipt_id: str

    @property
    def yes_price(self) -> Decimal | None:
        """The last trade, else the mid of the book (Kalshi's own "yes price" reading)."""
        if self.last_price is not None and self.last_price > 0:
            return self.last_price
        if self.yes_bid is not None and self.yes_ask is not None:
            return (self.yes_bid + self.yes_ask) / 2
        return None


def _decimal(text: Any, where: str) -> Decimal:
    if isinstance(text, bool) or not isinstance(text, str | int):
        raise KalshiError(f"{where}: expected a fixed-point string or an integer, got {text!r:.40}")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise KalshiError(f"{where}: {text!r:.40} is not a number") from None
    if not value.is_finite():
        raise KalshiError(f"{where}: {text!r} is not a finite number")
    return value


def dollars(market: Mapping[str, Any], name: str, where: str) -> Decimal | None:
    """``<name>_dollars`` (current) or ``<name>`` in integer cents (older); None if neither is there."""
    current = market.get(f"{name}_dollars")
    if current is not None:
        return _decimal(current, f"{where} field {name}_dollars")
    older = market.get(name)
    if older is not None:
        if isinstance(older, bool) or not isinstance(older, int):
            raise KalshiError(f"{where} field {name}: expected integer cents, got {older!r:.40}")
        return Decimal(older) * CENT
    return None


def count(market: Mapping[str, Any], name: str, where: str) -> Decimal | None:
    """``<name>_fp`` (current) or ``<name>`` as an integer (older); None if neither is there."""
    for field in (f"{name}_fp", name):
        value = market.get(field)
        if value is not None:
            return _decimal(value, f"{where} field {field}")
    return None


def _instant(value: Any, where: str) -> dt.datetime | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise KalshiError(f"{where}: expected an ISO 8601 instant, got {value!r:.40}")
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise KalshiError(f"{where}: {value!r:.40} is not an ISO 8601 instant") from None
    if parsed.tzinfo is None:
        raise KalshiError(f"{where}: {value!r} has no time zone")
    return parsed.astimezone(dt.UTC)


def _text(value: Any, where: str, *, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        raise KalshiError(f"{where}: expected text, got {value!r:.40}")
    return value


def market_of(market: Mapping[str, Any], event: Mapping[str, Any], receipt_id: str) -> KalshiMarket:
    ticker = market.get("ticker")
    where = f"receipt {receipt_id[:12]}… market {ticker!r}"
    if not isinstance(ticker, str) or not ticker:
        raise KalshiError(f"{where} field ticker: expected a ticker")
    volume = count(market, "volume_24h", where)
    return KalshiMarket(
        ticker=ticker,
        event_ticker=_text(
            market.get("event_ticker") or event.get("event_ticker"),
            f"{where} field event_ticker",
            required=True,
        ),
        series_ticker=event.get("series_ticker") if isinstance(event.get("series_ticker"), str) else None,
        category=event.get("category") if isinstance(event.get("category"), str) else None,
        title=_text(market.get("title"), f"{where} field title", required=True),
        yes_sub_title=market.get("yes_sub_title") if isinstance(market.get("yes_sub_title"), str) else None,
        status=_text(market.get("status"), f"{where} field status", required=True),
        close_time=_instant(market.get("close_time"), f"{where} field close_time"),
        yes_bid=dollars(market, "yes_bid", where),
        yes_ask=dollars(market, "yes_ask", where),
        last_price=dollars(market, "last_price", where),
        volume_24h=volume if volume is not None else Decimal(0),
        open_interest=count(market, "open_interest", where),
        rules_primary=_text(market.get("rules_primary"), f"{where} field rules_primary"),
        rules_secondary=_text(market.get("rules_secondary"), f"{where} field rules_secondary"),
        result=_text(market.get("result"), f"{where} field result"),
        receipt_id=receipt_id,
    )


def events_page(body: Any, receipt_id: str) -> tuple[list[KalshiMarket], str | None]:
    """The markets of one ``GET /events?with_nested_markets=true`` page, and the next cursor (None: last)."""
    where = f"receipt {receipt_id[:12]}…"
    if not isinstance(body, dict):
        raise KalshiError(f"{where}: expected an object with events and cursor, got {type(body).__name__}")
    events = body.get("events")
    if not isinstance(events, list):
        raise KalshiError(f"{where} field events: expected a list, got {events!r:.40}")
    markets: list[KalshiMarket] = []
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            raise KalshiError(f"{where} events[{i}]: expected an object")
        nested = event.get("markets") or []
        if not isinstance(nested, list):
            raise KalshiError(f"{where} events[{i}] field markets: expected a list")
        markets += [market_of(m, event, receipt_id) for m in nested if isinstance(m, dict)]
    cursor = body.get("cursor")
    return markets, cursor if isinstance(cursor, str) and cursor else None


def top_by_volume(markets: Sequence[KalshiMarket], n: int) -> list[KalshiMarket]:
    """Kalshi has no server-side sort: the ``n`` markets with the most 24 h volume, ties by ticker."""
    return sorted(markets, key=lambda m: (-m.volume_24h, m.ticker))[:n]
