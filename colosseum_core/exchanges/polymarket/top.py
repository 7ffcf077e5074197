"""Polymarket's most traded events right now: one page of ``GET /events`` ordered by 24 h volume.

``GET {gamma}/events?active=true&closed=false&order=volume24hr&ascending=false&limit=N`` (the legacy
listing: a bare array of events, each with its nested markets; Gamma clamps ``limit`` to 100). One
request, its receipt stored before anything reads it. What it answers is read defensively: no
answer, an HTTP error, a body that is not JSON, or a body that is not a list of Gamma events is an
``error`` naming the receipt, never an exception out of the fetch, so a caller gathering several
sources can record the failure and go on with the others.

Only the shape is judged here (``pages.page_items``); which of the markets an arena can use is the
arena's reading.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any, Final

import httpx

from colosseum_core import json_values
from colosseum_core.exchanges.polymarket.pages import PageError, PageMarket, page_items
from colosseum_core.record.http import send_with_receipt
from colosseum_core.record.receipts import ReceiptStore

EVENTS_PATH: Final = "/events"
TOP_ORDER: Final = "volume24hr"  # camelCase: Gamma answers 422 to snake_case sort names
DEFAULT_LIMIT: Final = 50
MAX_LIMIT: Final = 100  # Gamma clamps listing pages to 100 items
DEFAULT_TIMEOUT_S: Final = 30.0
_SNIPPET: Final = 200


@dataclasses.dataclass(frozen=True)
class TopEvents:
    """One page of the top events: the events as published, every nested market with its event,
    the receipt that holds the answer, and why it could not be read (None when it could)."""

    events: tuple[Mapping[str, Any], ...]
    markets: tuple[PageMarket, ...]
    receipt_id: str | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None


def top_params(limit: int) -> list[tuple[str, str]]:
    """The query of the top-events page, in the order it is sent (and recorded)."""
    return [
        ("active", "true"),
        ("closed", "false"),
        ("order", TOP_ORDER),
        ("ascending", "false"),
        ("limit", str(limit)),
    ]


def _snippet(body: bytes) -> str:
    text = " ".join(body.decode("utf-8", errors="replace").split())
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 1] + "…"


def _events_of(body: Any, receipt_id: str) -> list[Mapping[str, Any]]:
    """The events of a legacy ``/events`` answer (a bare array); a PageError for anything else."""
    if not isinstance(body, list):
        if isinstance(body, Mapping) and "error" in body:
            error = str(body.get("error"))[:_SNIPPET]
            raise PageError(receipt_id, f"the body is an error: type={body.get('type')!r}, error={error!r}")
        raise PageError(receipt_id, f"the body is a JSON {type(body).__name__}, not an array of events")
    for index, item in enumerate(body):
        if not isinstance(item, Mapping):
            raise PageError(receipt_id, f"events[{index}] is {type(item).__name__}, not an object")
        # A bare array of markets is also a Gamma page, but not the one asked for: its items would
        # be read with their parents, and an /events answer that lists markets is a wrong route.
        if "question" in item and "markets" not in item:
            raise PageError(receipt_id, f"events[{index}] is a market, not an event")
    return body


def top_events(
    gamma_url: str,
    *,
    receipts: ReceiptStore,
    clock: Callable[[], dt.datetime],
    client: httpx.Client | None = None,
    limit: int = DEFAULT_LIMIT,
) -> TopEvents:
    """The ``limit`` open events with the most 24 h volume, as Gamma orders them; never raises on
    what the exchange says (see ``TopEvents.error``)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_LIMIT}, not {limit!r}")
    params = top_params(limit)
    own = client is None
    http = httpx.Client(timeout=DEFAULT_TIMEOUT_S) if client is None else client
    try:
        request = http.build_request("GET", gamma_url.rstrip("/") + EVENTS_PATH, params=params)
        sent = send_with_receipt(http, request, receipts=receipts, clock=clock, params=params)
    finally:
        if own:
            http.close()
    receipt_id = sent.receipt_id
    where = f"receipt {receipt_id}"
    if sent.response is None:
        return TopEvents((), (), receipt_id, f"{where}: no answer ({sent.error})")
    status = sent.response.status_code
    if status != 200:
        return TopEvents((), (), receipt_id, f"{where}: HTTP {status}: {_snippet(sent.response.content)}")
    try:
        body = json_values.loads(sent.response.content)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return TopEvents((), (), receipt_id, f"{where}: the body is not JSON ({exc})")
    try:
        events = _events_of(body, receipt_id or "<unrecorded>")
        markets = page_items(events, receipt_id or "<unrecorded>")
    except PageError as exc:
        return TopEvents((), (), receipt_id, str(exc))
    return TopEvents(tuple(events), tuple(markets), receipt_id, None)
