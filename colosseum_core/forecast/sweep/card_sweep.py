"""A card's sweep: every open Polymarket question ending in (seal, seal + 102 h], as of the seal.

The sweep itself is the Gamma client's; this module fixes the window from the card, runs it, and
lays the outcome out as two record tables: ``raw_sweep`` (one row per HTTP attempt, each naming
its receipt) and ``sweeps`` (one row per card: completeness, reason, counts, where it came from).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from collections.abc import Callable

import httpx
import polars as pl

from colosseum_core.exchanges.polymarket import GammaClient, SweepProgress, SweepResult
from colosseum_core.exchanges.polymarket.client import SweepSettings
from colosseum_core.forecast.rules import SLATE_LAWS
from colosseum_core.forecast.schedule import Card
from colosseum_core.interrupts import run_async
from colosseum_core.record import ReceiptStore, with_ids

SIMULATOR_HEADER = "x-colosseum-simulator"

RAW_SWEEP_SCHEMA: dict[str, pl.DataType] = {
    "card": pl.String(),
    "seq": pl.Int64(),
    "shard": pl.Int64(),
    "page": pl.Int64(),
    "attempt": pl.Int64(),
    "method": pl.String(),
    "url": pl.String(),
    "params": pl.String(),
    "status": pl.Int64(),
    "error": pl.String(),
    "outcome": pl.String(),
    "receipt_id": pl.String(),
    "started_at": pl.String(),
    "ended_at": pl.String(),
}


@dataclasses.dataclass(frozen=True)
class CardSweep:
    requests: pl.DataFrame
    summary: pl.DataFrame
    result: SweepResult


async def run_sweep(
    settings: SweepSettings,
    receipts: ReceiptStore,
    *,
    as_of: dt.datetime,
    window: tuple[dt.datetime, dt.datetime],
    clock: Callable[[], dt.datetime],
    rng: random.Random,
    transport: httpx.AsyncBaseTransport | None = None,
    progress: Callable[[SweepProgress], None] | None = None,
) -> SweepResult:
    async with GammaClient(
        settings.base_url,
        receipts,
        as_of=as_of,
        max_in_flight=settings.max_in_flight,
        page_cap=settings.page_cap,
        timeout_s=settings.timeout_s,
        clock=clock,
        rng=rng,
        transport=transport,
    ) as client:
        return await client.sweep_markets(
            end_date_min=window[0], end_date_max=window[1], shards=settings.shards, progress=progress
        )


def simulator_of(result: SweepResult, receipts: ReceiptStore) -> str | None:
    """The simulator's self-identification, if any response of the sweep carries it."""
    for record in result.requests_log:
        if record.status is None:
            continue
        header = receipts.get(record.receipt_id).headers.get(SIMULATOR_HEADER)
        if header:
            return header
    return None


def requests_frame(card: Card, result: SweepResult) -> pl.DataFrame:
    rows = [
        {
            "card": card.key,
            "seq": r.seq,
            "shard": r.shard,
            "page": r.page,
            "attempt": r.attempt,
            "method": r.method,
            "url": r.url,
            "params": json.dumps([list(p) for p in r.params], ensure_ascii=False),
            "status": r.status,
            "error": r.error,
            "outcome": r.outcome,
            "receipt_id": r.receipt_id,
            "started_at": r.started_at,
            "ended_at": r.ended_at,
        }
        for r in result.requests_log
    ]
    return with_ids(pl.DataFrame(rows, schema=RAW_SWEEP_SCHEMA).sort("seq"))


def summary_frame(card: Card, result: SweepResult, simulator: str | None) -> pl.DataFrame:
    window_start, window_end = card.sweep_window
    row = {
        "card": card.key,
        "slot": card.slot,
        "seal": card.seal,
        "window_start": window_start,
        "window_end": window_end,
        "exchange_url": result.base_url,
        "exchange": "simulated" if simulator else "polymarket",
        "simulator": simulator,
        "complete": result.complete,
        "reason": result.reason,
        "pages": result.pages,
        "requests": result.requests,
        "receipts": len(set(result.receipt_ids)),
        "markets": len(result.markets),
        "started_at": result.started_at,
        "ended_at": result.ended_at,
        "rules": SLATE_LAWS,
    }
    schema = {
        "seal": pl.Datetime("us", "UTC"),
        "window_start": pl.Datetime("us", "UTC"),
        "window_end": pl.Datetime("us", "UTC"),
        "simulator": pl.String(),
        "reason": pl.String(),
    }
    return with_ids(pl.DataFrame([row], schema_overrides=schema))


def sweep_card(
    card: Card,
    settings: SweepSettings,
    receipts: ReceiptStore,
    *,
    clock: Callable[[], dt.datetime],
    rng: random.Random | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    progress: Callable[[SweepProgress], None] | None = None,
) -> CardSweep:
    """Sweep the board as of the card's seal and return its record tables."""
    result = run_async(
        run_sweep(
            settings,
            receipts,
            as_of=card.seal,
            window=card.sweep_window,
            clock=clock,
            # Jitter is seeded by the card so a re-run backs off the same way.
            rng=rng or random.Random(f"sweep:{card.key}"),
            transport=transport,
            progress=progress,
        )
    )
    simulator = simulator_of(result, receipts)
    return CardSweep(
        requests=requests_frame(card, result), summary=summary_frame(card, result, simulator), result=result
    )
