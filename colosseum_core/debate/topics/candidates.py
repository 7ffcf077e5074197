"""Every source's items as one table of topic candidates, in one schema, before any rule judges them.

One row per candidate: its ``source`` (polymarket, kalshi, search, evergreen) and ``source_id`` (the
Gamma market id, the Kalshi market ticker, a search item's SHA-256 prefix, an evergreen's id), its
``source_rank`` (its place in its source's own answer, 1 first), the ``event_key`` the dedup groups
market siblings by (the Polymarket event slug, the Kalshi event ticker; null for the others), the
``motion`` as it will be debated, and what its context parenthetical needs: ``price_yes``,
``end_date``, ``resolution`` (the published criteria), ``reported`` (a search item's account of the
controversy), ``url``, ``citations``, ``volume_24h`` and the ``receipt_id`` it was read from.

Which items are candidates at all:

* Polymarket: every open market (``active`` and not ``closed``) of every top event whose outcomes are
  exactly Yes and No, with a question. A market between two teams, Over/Under or Up/Down is not a
  proposition one side can defend and the other attack. The motion is the market's question
  verbatim; ``outcomePrices`` (JSON text in a string) gives ``price_yes``, its first price.
* Kalshi: every open market that has not resolved. Its ``title`` is the question; where the title
  does not name the market's own outcome (``yes_sub_title``: the strike of a price ladder, "$74,300
  or above" under "Bitcoin price on Jul 25, 2026?"), the outcome follows it, so each market of a
  ladder is its own proposition. ``price_yes`` is Kalshi's yes price (last trade, else mid).
* search and evergreen items as their modules give them.

A field that is missing or malformed reads as null (a market without a price is not "decided"; the
filters decide what a missing value means), never as a guess.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import polars as pl

from colosseum_core import json_values
from colosseum_core.debate.topics.evergreen import Evergreen
from colosseum_core.debate.topics.names import EVERGREEN, KALSHI, POLYMARKET, SEARCH
from colosseum_core.debate.topics.search import SearchItem
from colosseum_core.exchanges.kalshi.markets import KalshiMarket
from colosseum_core.exchanges.polymarket.timestamps import parse_timestamp
from colosseum_core.exchanges.polymarket.top import TopEvents

CANDIDATE_SCHEMA: Final[dict[str, pl.DataType]] = {
    "source": pl.String(),
    "source_id": pl.String(),
    "source_rank": pl.Int64(),
    "event_key": pl.String(),
    "motion": pl.String(),
    "price_yes": pl.Float64(),
    "end_date": pl.Datetime("us", "UTC"),
    "resolution": pl.String(),
    "reported": pl.String(),
    "url": pl.String(),
    "citations": pl.List(pl.String()),
    "volume_24h": pl.Float64(),
    "receipt_id": pl.String(),
}

POLYMARKET_EVENT_URL: Final = "https://polymarket.com/event/{slug}"
KALSHI_EVENT_URL: Final = "https://kalshi.com/markets/{ticker}"
_YES_NO: Final = ["yes", "no"]
_OPEN_KALSHI_STATUSES: Final = frozenset({"active", "open"})


def candidate_frame(rows: Iterable[Mapping[str, Any]]) -> pl.DataFrame:
    """Rows as the candidate table: every column of ``CANDIDATE_SCHEMA``, absent ones null."""
    listed = [{name: row.get(name) for name in CANDIDATE_SCHEMA} for row in rows]
    return pl.DataFrame(listed, schema=CANDIDATE_SCHEMA, orient="row")


def empty_candidates() -> pl.DataFrame:
    return pl.DataFrame(schema=CANDIDATE_SCHEMA)


# ------------------------------------------------------------------------------------------------
# Polymarket


def _text(value: Any) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _json_list(value: Any) -> list[Any] | None:
    # Gamma ships outcomes and prices as JSON text inside a string; a real array is the same list.
    if isinstance(value, str):
        try:
            value = json_values.loads(value)
        except (ValueError, RecursionError):
            return None
    return value if isinstance(value, list) else None


def _instant(value: Any) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return parse_timestamp(value)
    except ValueError:
        return None


def _is_yes_no(market: Mapping[str, Any]) -> bool:
    outcomes = _json_list(market.get("outcomes"))
    return (
        outcomes is not None
        and all(isinstance(o, str) for o in outcomes)
        and [o.strip().lower() for o in outcomes] == _YES_NO
    )


def _is_open(obj: Mapping[str, Any] | None) -> bool:
    return obj is None or (obj.get("active") is not False and obj.get("closed") is not True)


def _price_yes(market: Mapping[str, Any]) -> float | None:
    prices = _json_list(market.get("outcomePrices"))
    if prices is None or len(prices) != 2:
        return None
    price = _number(prices[0])
    return price if price is not None and 0.0 <= price <= 1.0 else None


def polymarket_candidates(top: TopEvents) -> pl.DataFrame:
    """The open Yes/No markets of Polymarket's top events, in the page's order (its ``source_rank``)."""
    rows: list[dict[str, Any]] = []
    for item in top.markets:
        market, event = item.market, item.event
        question = _text(market.get("question"))
        # Gamma omits keys rather than nulling them; a market is open only when it says it is active.
        if question is None or market.get("active") is not True or market.get("closed") is True:
            continue
        if not _is_open(event) or not _is_yes_no(market):
            continue
        source_id = market.get("id")
        if not isinstance(source_id, str | int) or isinstance(source_id, bool):
            continue
        slug = _text((event or {}).get("slug"))
        # Every field is nullable on Gamma: an event without a slug is still one family, by its id.
        event_id = (event or {}).get("id")
        family = slug or (str(event_id) if isinstance(event_id, str | int) and event_id != "" else None)
        rows.append(
            {
                "source": POLYMARKET,
                "source_id": str(source_id),
                "source_rank": len(rows) + 1,
                "event_key": family,
                "motion": question,
                "price_yes": _price_yes(market),
                # Each market's own end, never its event's alone: an event can end before a child.
                "end_date": _instant(market.get("endDate")) or _instant((event or {}).get("endDate")),
                "resolution": _text(market.get("description")) or _text((event or {}).get("description")),
                "url": POLYMARKET_EVENT_URL.format(slug=slug) if slug else None,
                "citations": [],
                "volume_24h": _number(market.get("volume24hr")) or 0.0,
                "receipt_id": item.receipt_id,
            }
        )
    return candidate_frame(rows)


# ------------------------------------------------------------------------------------------------
# Kalshi


def kalshi_motion(market: KalshiMarket) -> str:
    """The market's question: its title, followed by its own outcome where the title does not name it."""
    title = market.title.strip()
    outcome = (market.yes_sub_title or "").strip()
    if not outcome or outcome.casefold() in title.casefold():
        return title
    return f"{title} {outcome}"


def _resolution(market: KalshiMarket) -> str | None:
    parts = [market.rules_primary.strip(), market.rules_secondary.strip()]
    return " ".join(p for p in parts if p) or None


def kalshi_candidates(markets: Sequence[KalshiMarket]) -> pl.DataFrame:
    """Kalshi's open, unresolved markets, in the given order (its ``source_rank``)."""
    rows: list[dict[str, Any]] = []
    for market in markets:
        if market.status not in _OPEN_KALSHI_STATUSES or market.result:
            continue
        price = market.yes_price
        rows.append(
            {
                "source": KALSHI,
                "source_id": market.ticker,
                "source_rank": len(rows) + 1,
                "event_key": market.event_ticker,
                "motion": kalshi_motion(market),
                "price_yes": None if price is None else float(price),
                "end_date": market.close_time,
                "resolution": _resolution(market),
                "url": KALSHI_EVENT_URL.format(ticker=market.event_ticker.lower()),
                "citations": [],
                "volume_24h": float(market.volume_24h),
                "receipt_id": market.receipt_id,
            }
        )
    return candidate_frame(rows)


# ------------------------------------------------------------------------------------------------
# Search and evergreen


def search_id(motion: str) -> str:
    """A search item's id: the first 16 hex digits of its motion's SHA-256 (the same motion, the same id)."""
    return hashlib.sha256(motion.encode("utf-8")).hexdigest()[:16]


def search_candidates(items: Sequence[SearchItem], receipt_id: str | None) -> pl.DataFrame:
    """The search's items in the order it gave them, each with its own citations."""
    return candidate_frame(
        {
            "source": SEARCH,
            "source_id": search_id(item.motion),
            "source_rank": item.rank,
            "motion": item.motion,
            "reported": item.context or None,
            "citations": list(item.citations),
            "receipt_id": receipt_id,
        }
        for item in items
    )


def evergreen_candidates(evergreen: Evergreen) -> pl.DataFrame:
    """Every motion of the evergreen list, ranked by its place in the list (the rotation turns it)."""
    return candidate_frame(
        {
            "source": EVERGREEN,
            "source_id": motion.id,
            "source_rank": index,
            "motion": motion.text,
            "citations": [],
        }
        for index, motion in enumerate(evergreen.motions, start=1)
    )
