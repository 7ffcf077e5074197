"""Walking Kalshi's open events with their nested markets, page by page, every page a receipt.

``GET /events?status=open&with_nested_markets=true&limit=200&cursor=…`` until the cursor comes back
empty (listing through ``/events`` rather than ``/markets``, which has been flooded with generated
parlay legs). A page that does not answer, answers with an error, or cannot be read ends the walk
as partial, with the reason and the receipt that holds what was said; the pages before it are kept.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from typing import Final

import httpx

from colosseum_core import json_values
from colosseum_core.exchanges.kalshi.markets import KALSHI_API, KalshiError, KalshiMarket, events_page
from colosseum_core.record.http import send_with_receipt
from colosseum_core.record.receipts import ReceiptStore

PAGE_LIMIT: Final = 200
MAX_PAGES: Final = 500


@dataclasses.dataclass(frozen=True)
class KalshiSweep:
    markets: tuple[KalshiMarket, ...]
    receipt_ids: tuple[str, ...]
    pages: int
    complete: bool
    reason: str | None  # why the walk stopped early (None when it reached the last page)


def _wall_clock() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class KalshiClient:
    def __init__(
        self,
        base_url: str = KALSHI_API,
        *,
        receipts: ReceiptStore,
        client: httpx.Client | None = None,
        clock: Callable[[], dt.datetime] = _wall_clock,
        timeout_s: float = 30.0,
        max_pages: int = MAX_PAGES,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.receipts = receipts
        self.client = client or httpx.Client(timeout=timeout_s)
        self.clock = clock
        self.max_pages = max_pages

    def _page(self, cursor: str | None) -> tuple[httpx.Response | None, str, str | None]:
        params = [("status", "open"), ("with_nested_markets", "true"), ("limit", str(PAGE_LIMIT))]
        if cursor:
            params.append(("cursor", cursor))
        request = self.client.build_request("GET", f"{self.base_url}/events", params=params)
        sent = send_with_receipt(
            self.client, request, receipts=self.receipts, clock=self.clock, params=params
        )
        assert sent.receipt_id is not None  # this client always keeps receipts
        return sent.response, sent.receipt_id, sent.error

    def open_markets(self) -> KalshiSweep:
        markets: list[KalshiMarket] = []
        receipt_ids: list[str] = []
        cursor: str | None = None
        for page in range(1, self.max_pages + 1):
            response, receipt_id, error = self._page(cursor)
            receipt_ids.append(receipt_id)
            problem: str | None = None
            if response is None:
                problem = f"no answer ({error})"
            elif response.status_code != 200:
                problem = f"HTTP {response.status_code}"
            else:
                try:
                    found, cursor = events_page(json_values.loads(response.content), receipt_id)
                except (KalshiError, ValueError) as exc:
                    problem = str(exc)
                else:
                    markets += found
            if problem is not None:
                why = f"page {page} (receipt {receipt_id[:12]}…): {problem}"
                return KalshiSweep(tuple(markets), tuple(receipt_ids), page, False, why)
            if cursor is None:
                return KalshiSweep(tuple(markets), tuple(receipt_ids), page, True, None)
        stopped = f"stopped after {self.max_pages} pages"
        return KalshiSweep(tuple(markets), tuple(receipt_ids), self.max_pages, False, stopped)
