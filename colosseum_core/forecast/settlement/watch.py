"""Watching for settlements: which cards still wait, which markets to ask about, what is news.

One tick of the watch admits newly answered cards, asks the exchange about a bounded batch of the
waiting cards' markets (so a tick stays well inside a sensor's time limit however long the
backlog), reads the answers with the settlement rule, and reports per card the receipts that carry
news: a market newly settled or voided, or one that contradicts its recorded settlement. A card
stays on the watch, with no deadline, until its record holds a settlement for every question and
then for ``RECHECK`` more: its settled markets are asked about again in that time, so an outcome that
changes soon after it settled is caught and flagged for review.

The state is a small JSON document: the waiting cards with their markets, the newest card
admitted, and where the next batch starts.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import hashlib
import json
from collections.abc import Callable, Sequence

from colosseum_core.exchanges.polymarket.client import GammaClient
from colosseum_core.forecast.settlement.resolution import news, observations
from colosseum_core.interrupts import run_async
from colosseum_core.record import ReceiptStore, RecordTables

WATCH_FORMAT = "colosseum-settlement-watch/1"
DEFAULT_BATCH = 400
RECHECK = dt.timedelta(hours=48)


@dataclasses.dataclass
class WatchState:
    pending: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    through: str | None = None
    rotation: int = 0
    # When each card was first seen fully settled (ISO-8601 UTC): it leaves the watch RECHECK later.
    settled_since: dict[str, str] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_cursor(cls, cursor: str | None) -> WatchState | None:
        """The state a cursor holds; None for no cursor (the first tick reconciles with the record)."""
        if not cursor:
            return None
        doc = json.loads(cursor)
        if doc.get("format") != WATCH_FORMAT:
            raise ValueError(f"settlement cursor has format {doc.get('format')!r}, not {WATCH_FORMAT!r}")
        return cls(
            pending=dict(doc["pending"]),
            through=doc["through"],
            rotation=int(doc["rotation"]),
            settled_since=dict(doc.get("settled_since", {})),
        )

    def to_cursor(self) -> str:
        doc = {
            "format": WATCH_FORMAT,
            "pending": self.pending,
            "through": self.through,
            "rotation": self.rotation,
            "settled_since": self.settled_since,
        }
        return json.dumps(doc, sort_keys=True, separators=(",", ":"))


@dataclasses.dataclass(frozen=True)
class CardNews:
    """A card whose record would change: the receipts to settle it from, and what they say."""

    card: str
    receipt_ids: list[str]
    news: list[tuple[str, str, int | None]]

    @property
    def run_key(self) -> str:
        # The same news always gets the same key, so no tick requests a run twice.
        digest = hashlib.sha256(json.dumps(self.news).encode()).hexdigest()[:16]
        return f"settle:{self.card}:{digest}"


@dataclasses.dataclass(frozen=True)
class TickReport:
    state: WatchState
    cards: list[CardNews]
    polled_markets: int
    polled_cards: int
    requests: int
    settled_cards: list[str]
    admitted: list[str]


def _card_markets(tables: RecordTables, card: str) -> list[str]:
    return tables.read("card_questions", card)["market_id"].to_list()


def _is_settled(tables: RecordTables, card: str, markets: Sequence[str]) -> bool:
    settled = tables.read_if_present("settlements", card)
    return settled is not None and set(markets) <= set(settled["market_id"].to_list())


def admit(state: WatchState | None, tables: RecordTables) -> tuple[WatchState, list[str]]:
    """Add answered cards to the watch: newer than the last admitted, or, on a first tick, all unsettled."""
    answered = tables.partitions("answers")
    if state is None:
        state = WatchState()
        candidates = answered
    else:
        candidates = [c for c in answered if state.through is None or c > state.through]
    admitted = []
    for card in candidates:
        if card in state.pending:
            continue
        markets = _card_markets(tables, card)
        if markets and not _is_settled(tables, card, markets):
            state.pending[card] = markets
            admitted.append(card)
    if answered:
        state.through = max(answered[-1], state.through or answered[-1])
    return state, admitted


def batch_of(state: WatchState, limit: int) -> list[tuple[str, str]]:
    """Up to ``limit`` (card, market) pairs, rotating through every waiting market across ticks."""
    pairs = [(card, market) for card in sorted(state.pending) for market in state.pending[card]]
    if not pairs:
        state.rotation = 0
        return []
    start = state.rotation % len(pairs)
    chosen = (pairs[start:] + pairs[:start])[:limit]
    state.rotation = (start + len(chosen)) % len(pairs)
    return chosen


async def ask_exchange(client: GammaClient, market_ids: Sequence[str]) -> tuple[list[str], int]:
    """Ask about every market both closed and open (an open one is news only if it was settled)."""
    closed, still_open = await asyncio.gather(
        client.lookup_markets(market_ids, closed=True), client.lookup_markets(market_ids, closed=False)
    )
    return closed.receipt_ids + still_open.receipt_ids, closed.requests + still_open.requests


def watch_tick(
    state: WatchState | None,
    tables: RecordTables,
    receipts: ReceiptStore,
    client_factory: Callable[[], GammaClient],
    *,
    now: dt.datetime,
    batch: int = DEFAULT_BATCH,
    recheck: dt.timedelta = RECHECK,
) -> TickReport:
    """One tick: admit, retire settled cards, ask about one batch, and name the cards with news."""
    state, admitted = admit(state, tables)
    settled_cards = []
    for card, markets in list(state.pending.items()):
        if not _is_settled(tables, card, markets):
            continue
        since = dt.datetime.fromisoformat(state.settled_since.setdefault(card, now.isoformat()))
        if now - since >= recheck:
            del state.pending[card]
            del state.settled_since[card]
            settled_cards.append(card)
    chosen = batch_of(state, batch)
    if not chosen:
        return TickReport(state, [], 0, 0, 0, settled_cards, admitted)

    async def ask() -> tuple[list[str], int]:
        async with client_factory() as client:
            return await ask_exchange(client, [market for _, market in chosen])

    receipt_ids, requests = run_async(ask())
    by_card: dict[str, list[str]] = {}
    for card, market in chosen:
        by_card.setdefault(card, []).append(market)
    found: list[CardNews] = []
    for card, markets in sorted(by_card.items()):
        observed = observations(receipts, receipt_ids, markets)
        card_news = news(tables.read_if_present("settlements", card), observed)
        if card_news:
            used = sorted(set(observed["receipt_id"].to_list()))
            found.append(CardNews(card, used, card_news))
    return TickReport(state, found, len(chosen), len(by_card), requests, settled_cards, admitted)


def describe(report: TickReport) -> str:
    """One line for an operator: what the tick watched, asked and found."""

    def n(count: int, noun: str) -> str:
        return f"{count} {noun}" + ("" if count == 1 else "s")

    return (
        f"{n(len(report.state.pending), 'card')} waiting ({len(report.admitted)} newly admitted); "
        f"asked about {n(report.polled_markets, 'market')} of {n(report.polled_cards, 'card')} "
        f"in {n(report.requests, 'request')}; news on {n(len(report.cards), 'card')}, "
        f"{n(len(report.settled_cards), 'card')} settled and no longer watched"
    )
