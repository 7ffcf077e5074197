"""Asking the three live sources of a rotation's topics: Polymarket, Kalshi and the web search.

* Polymarket: one page of the top events by 24 h volume (``exchanges.polymarket.top``);
* Kalshi: every open event with its nested markets, page by page (``exchanges.kalshi``), and the
  ``KALSHI_TOP`` markets with the most 24 h volume (Kalshi sorts nothing on its side). A walk that
  stopped early is a failure: the top of part of the exchange is not its top;
* the search: the chain's first endpoint, and the next one whenever it fails (no answer, an HTTP
  error, a reply that can not be read or holds no usable controversy).

Each source's outcome is one row of ``sources``: its ``status`` (ok or failed), the ``items`` it
contributed, the ``receipt_ids`` of every request made for it, the ``error`` that failed it and
``notes`` (a rejected search item, an endpoint the chain walked past). A failed source contributes
nothing, and the rotation fills from the others. Every request's receipt is stored before its
answer is read; nothing here raises on what a source says.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any, Final

import httpx
import polars as pl

from colosseum_core.debate.topics.candidates import (
    CANDIDATE_SCHEMA,
    empty_candidates,
    kalshi_candidates,
    polymarket_candidates,
    search_candidates,
)
from colosseum_core.debate.topics.names import KALSHI, POLYMARKET, SEARCH
from colosseum_core.debate.topics.rotation import rotation_start
from colosseum_core.debate.topics.search import ask_search
from colosseum_core.exchanges.kalshi.client import KalshiClient
from colosseum_core.exchanges.kalshi.markets import top_by_volume
from colosseum_core.exchanges.polymarket.top import top_events
from colosseum_core.providers.call import Endpoint
from colosseum_core.record.receipts import ReceiptStore

POLYMARKET_TOP: Final = 50
KALSHI_TOP: Final = 50
OK: Final = "ok"
FAILED: Final = "failed"
# One client for all three: long enough for a live web search, which reads pages before it answers.
DEFAULT_TIMEOUT_S: Final = 180.0
Clock = Callable[[], dt.datetime]

SOURCES_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rotation": pl.String(),
    "source": pl.String(),
    "status": pl.String(),
    "items": pl.Int64(),
    "receipt_ids": pl.List(pl.String()),
    "error": pl.String(),
    "notes": pl.List(pl.String()),
}


@dataclasses.dataclass(frozen=True)
class TopicsCollected:
    """One row per live source (``SOURCES_SCHEMA``) and every candidate they gave (``CANDIDATE_SCHEMA``)."""

    sources: pl.DataFrame
    candidates: pl.DataFrame


@dataclasses.dataclass(frozen=True)
class _Asked:
    source: str
    candidates: pl.DataFrame
    receipt_ids: tuple[str, ...]
    error: str | None
    notes: tuple[str, ...] = ()

    def row(self, key: str) -> dict[str, Any]:
        return {
            "rotation": key,
            "source": self.source,
            "status": OK if self.error is None else FAILED,
            "items": self.candidates.height,
            "receipt_ids": list(self.receipt_ids),
            "error": self.error,
            "notes": list(self.notes),
        }


def _unique(asked: _Asked) -> _Asked:
    """``asked`` with an item a source listed twice (a Kalshi ticker on two pages) kept once, the
    first time, and a note naming it: what a source says is recorded, never a reason to fail."""
    frame = asked.candidates
    repeated = frame.filter(frame["source_id"].is_duplicated())["source_id"].unique().sort().to_list()
    if not repeated:
        return asked
    notes = tuple(f"{asked.source} listed {sid!r} more than once; the first is kept" for sid in repeated)
    kept = frame.unique("source_id", keep="first", maintain_order=True)
    return dataclasses.replace(asked, candidates=kept, notes=(*asked.notes, *notes))


def _ids(*ids: str | None) -> tuple[str, ...]:
    return tuple(i for i in ids if i is not None)


def _polymarket(gamma_url: str, http: httpx.Client, receipts: ReceiptStore, clock: Clock) -> _Asked:
    top = top_events(gamma_url, receipts=receipts, clock=clock, client=http, limit=POLYMARKET_TOP)
    if top.error is not None:
        return _Asked(POLYMARKET, empty_candidates(), _ids(top.receipt_id), top.error)
    return _Asked(POLYMARKET, polymarket_candidates(top), _ids(top.receipt_id), None)


def _kalshi(kalshi_url: str, http: httpx.Client, receipts: ReceiptStore, clock: Clock) -> _Asked:
    sweep = KalshiClient(kalshi_url, receipts=receipts, client=http, clock=clock).open_markets()
    if not sweep.complete:
        return _Asked(
            KALSHI,
            empty_candidates(),
            sweep.receipt_ids,
            f"the walk did not reach the last page: {sweep.reason}",
        )
    return _Asked(
        KALSHI, kalshi_candidates(top_by_volume(sweep.markets, KALSHI_TOP)), sweep.receipt_ids, None
    )


def _search(
    chain: Sequence[Endpoint], day: dt.date, http: httpx.Client, receipts: ReceiptStore, clock: Clock
) -> _Asked:
    if not chain:
        return _Asked(SEARCH, empty_candidates(), (), "no search endpoint is configured")
    receipt_ids: list[str] = []
    notes: list[str] = []
    error: str | None = None
    for endpoint in chain:
        result = ask_search(endpoint, date=day, receipts=receipts, clock=clock, client=http)
        receipt_ids += _ids(result.receipt_id)
        notes += result.rejected
        if result.error is None:
            return _Asked(
                SEARCH,
                search_candidates(result.items, result.receipt_id),
                tuple(receipt_ids),
                None,
                tuple(notes),
            )
        error = f"{endpoint.model} at {endpoint.base_url}: {result.error}"
        notes.append(error)
    # Every endpoint failed: the last one's error is the source's, the others' are in the notes.
    return _Asked(SEARCH, empty_candidates(), tuple(receipt_ids), error, tuple(notes[:-1]))


def collect_topics(
    key: str,
    *,
    gamma_url: str,
    kalshi_url: str,
    search_chain: Sequence[Endpoint],
    receipts: ReceiptStore,
    clock: Clock,
    client: httpx.Client | None = None,
) -> TopicsCollected:
    """Ask Polymarket, Kalshi and the search for the rotation of ``key`` (its date is the search's
    "today"); every source's outcome in ``sources``, every candidate in ``candidates``."""
    day = rotation_start(key).date()
    own = client is None
    http = httpx.Client(timeout=DEFAULT_TIMEOUT_S) if client is None else client
    try:
        asked = [
            _unique(_polymarket(gamma_url, http, receipts, clock)),
            _unique(_kalshi(kalshi_url, http, receipts, clock)),
            _unique(_search(search_chain, day, http, receipts, clock)),
        ]
    finally:
        if own:
            http.close()
    sources = pl.DataFrame([a.row(key) for a in asked], schema=SOURCES_SCHEMA, orient="row")
    candidates = pl.concat([a.candidates for a in asked], how="vertical").select(list(CANDIDATE_SCHEMA))
    return TopicsCollected(sources, candidates)
