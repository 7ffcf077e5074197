"""Every shape a Gamma response takes, flattened to (market, parent event) pairs in document order.

Gamma answers in six shapes: the keyset envelopes ``{"markets": [...], "next_cursor": ...}`` and
``{"events": [...], ...}``, bare arrays of markets or of events (the legacy listings), one market
(``/markets/{id}``, sometimes carrying ``$schema``) and one event. Markets from ``/markets`` routes
carry their parent as ``events[0]``; markets nested in an event belong to that event. Anything
else, including the CLOB's and Kalshi's look-alike envelopes, is refused with a ``PageError`` that
names the receipt, so a wrong base URL or a changed API is loud rather than an empty card.

Only the shape is judged here; whether each market's fields are well formed is the copy's job
(``markets.verbatim_row``), so one bad market never hides the others on its page.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

# Keys by which a lone object is recognised. A Gamma market always publishes ``question`` and
# ``conditionId`` (the latter "" for placeholders); an event publishes ``title`` and ``ticker``.
_MARKET_KEYS = frozenset({"question", "conditionId", "outcomes"})
_EVENT_KEYS = frozenset({"title", "ticker", "markets"})
# Pagination keys of the look-alike APIs: the CLOB pages with ``data``, Kalshi with ``cursor``.
_FOREIGN_ENVELOPE_KEYS = {"data": "the CLOB's", "cursor": "Kalshi's"}
_FOREIGN_OBJECT_KEYS = {
    "condition_id": "a CLOB market",
    "tokens": "a CLOB market",
    "asset_id": "a CLOB order book",
    "bids": "a CLOB order book",
    "event_ticker": "a Kalshi object",
    "series_ticker": "a Kalshi object",
}


class PageError(ValueError):
    """A response body that is not one of Gamma's page shapes."""

    def __init__(self, receipt_id: str, problem: str) -> None:
        self.receipt_id = receipt_id
        self.problem = problem
        super().__init__(f"receipt {receipt_id}: {problem}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.receipt_id, self.problem))


@dataclasses.dataclass(frozen=True)
class PageMarket:
    """One market as it stands in a page: the object, its parent event, and where it stood."""

    market: Mapping[str, Any]
    event: Mapping[str, Any] | None
    receipt_id: str
    position: int


def _keys(obj: Mapping[str, Any], limit: int = 8) -> str:
    names = sorted(str(k) for k in obj)
    more = f", … ({len(names)} keys)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _foreign(obj: Mapping[str, Any]) -> str | None:
    for key, what in _FOREIGN_OBJECT_KEYS.items():
        if key in obj:
            return what
    return None


def _kind(obj: Mapping[str, Any]) -> str | None:
    if _foreign(obj) is not None:
        return None
    if _MARKET_KEYS & obj.keys():
        return "market"
    if _EVENT_KEYS & obj.keys():
        return "event"
    return None


def _parent_of(market: Mapping[str, Any]) -> Mapping[str, Any] | None:
    # Only a well-formed ``events`` list names a parent; anything else is left for the copy to
    # report precisely (``verbatim_row`` says whether ``events`` was absent, empty or malformed).
    events = market.get("events")
    if isinstance(events, list) and events and isinstance(events[0], Mapping):
        return events[0]
    return None


def _objects(items: Any, where: str, receipt_id: str) -> Sequence[Mapping[str, Any]]:
    if not isinstance(items, list):
        raise PageError(receipt_id, f"{where} is {type(items).__name__}, not an array")
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise PageError(receipt_id, f"{where}[{index}] is {type(item).__name__}, not an object")
    return items


def _event_markets(event: Mapping[str, Any], where: str, receipt_id: str) -> Sequence[Mapping[str, Any]]:
    # ``include_markets=false`` drops the key; a null is read the same way (every field is nullable).
    markets = event.get("markets")
    if markets is None:
        return []
    return _objects(markets, f"{where}.markets", receipt_id)


def _from_markets(markets: Sequence[Mapping[str, Any]], receipt_id: str) -> list[PageMarket]:
    return [PageMarket(m, _parent_of(m), receipt_id, i) for i, m in enumerate(markets)]


def _from_events(events: Sequence[Mapping[str, Any]], where: str, receipt_id: str) -> list[PageMarket]:
    items: list[PageMarket] = []
    for index, event in enumerate(events):
        for market in _event_markets(event, f"{where}[{index}]", receipt_id):
            items.append(PageMarket(market, event, receipt_id, len(items)))
    return items


def _from_array(body: list[Any], receipt_id: str) -> list[PageMarket]:
    objects = _objects(body, "the array", receipt_id)
    kinds = {_kind(obj) for obj in objects}
    if None in kinds:
        index = next(i for i, obj in enumerate(objects) if _kind(obj) is None)
        what = _foreign(objects[index])
        problem = f"is {what}, not a Gamma market or event" if what else "is neither a market nor an event"
        raise PageError(receipt_id, f"array item [{index}] (keys {_keys(objects[index])}) {problem}")
    if kinds == {"market", "event"}:
        raise PageError(receipt_id, "the array mixes markets and events")
    if kinds == {"event"}:
        return _from_events(objects, "events", receipt_id)
    return _from_markets(objects, receipt_id)


def _from_envelope(body: Mapping[str, Any], receipt_id: str) -> list[PageMarket]:
    for key, whose in _FOREIGN_ENVELOPE_KEYS.items():
        if key in body:
            raise PageError(
                receipt_id, f"an envelope with {key!r} (keys {_keys(body)}) is {whose}, not a Gamma page"
            )
    if "markets" in body and "events" in body:
        raise PageError(receipt_id, "the envelope holds both 'markets' and 'events'")
    if "markets" in body:
        return _from_markets(_objects(body["markets"], "markets", receipt_id), receipt_id)
    return _from_events(_objects(body["events"], "events", receipt_id), "events", receipt_id)


def page_items(body: Any, receipt_id: str) -> list[PageMarket]:
    """Every market in a Gamma response body with its parent event, in document order."""
    if isinstance(body, list):
        return _from_array(body, receipt_id)
    if not isinstance(body, Mapping):
        raise PageError(receipt_id, f"the body is a JSON {type(body).__name__}, not an object or an array")
    if "id" not in body and ("markets" in body or "events" in body or "data" in body):
        return _from_envelope(body, receipt_id)
    if "id" not in body and "error" in body:
        raise PageError(
            receipt_id,
            f"the body is an error: type={body.get('type')!r}, error={str(body.get('error'))[:200]!r}",
        )
    kind = _kind(body) if "id" in body else None
    if kind == "market":
        return _from_markets([body], receipt_id)
    if kind == "event":
        return _from_events([body], "event", receipt_id)
    what = _foreign(body)
    if what:
        raise PageError(receipt_id, f"the body is {what} (keys {_keys(body)}), not a Gamma page")
    raise PageError(receipt_id, f"the body (keys {_keys(body)}) is not a Gamma page, market or event")


def next_cursor_of(body: Any, receipt_id: str = "<unrecorded>") -> str | None:
    """The keyset cursor for the next page, or None on the last page (absent, null or empty)."""
    if not isinstance(body, Mapping):
        return None
    cursor = body.get("next_cursor")
    if cursor is None or cursor == "":
        return None
    if not isinstance(cursor, str):
        raise PageError(receipt_id, f"next_cursor is {type(cursor).__name__} {cursor!r:.80}, not a string")
    return cursor


@dataclasses.dataclass(frozen=True)
class KeysetSummary:
    """What a sweep reads of a ``/markets/keyset`` page: each market's id as ``page_items`` and the
    sweep read it (a string or integer as text, else None), whether it has a parent event, and the
    cursor as ``next_cursor_of`` reads it."""

    market_ids: list[str | None]
    with_parent: list[bool]
    next_cursor: str | None


# gc=False: never in a cycle, and untracked they cost the collector nothing.
_AnyObject = msgspec.defstruct("_AnyObject", [], gc=False)
_SummaryMarket = msgspec.defstruct(
    "_SummaryMarket", [("id", str | int | None, None), ("events", list[_AnyObject] | None, None)], gc=False
)
_SUMMARY_DECODER = msgspec.json.Decoder(
    msgspec.defstruct(
        "_SummaryEnvelope",
        [("markets", list[_SummaryMarket]), ("next_cursor", str | None, None)],
        forbid_unknown_fields=True,
    )
)


def keyset_summary(body: bytes) -> KeysetSummary | None:
    """``KeysetSummary`` of a plain keyset page, ``{"markets": [...], "next_cursor": ...}``, read from
    its bytes without decoding what a sweep does not read; None for anything else, or anything read
    otherwise (a value of another type, a lone surrogate, a number beyond a double...), which the
    caller then decodes whole and reads with ``page_items``.

    Of such a page ``page_items`` takes every market (each an object) with ``events[0]`` as its
    parent when ``events`` is a non-empty array of objects; msgspec requires every item to be an
    object and every id a string, an integer or null, and steps aside otherwise.
    """
    try:
        envelope = _SUMMARY_DECODER.decode(body)
    except (msgspec.DecodeError, RecursionError):
        return None
    return KeysetSummary(
        market_ids=[None if m.id is None else str(m.id) for m in envelope.markets],
        with_parent=[bool(m.events) for m in envelope.markets],
        next_cursor=envelope.next_cursor or None,
    )
