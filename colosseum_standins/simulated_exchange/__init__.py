"""A simulated exchange: deterministic boards served over Polymarket's Gamma API and Kalshi's.

``Board`` generates the Polymarket board at any instant and ``kalshi.KalshiBoard`` Kalshi's open
events with their nested markets (``/trade-api/v2/events``); ``build_app`` / ``serve`` /
``running_exchange`` / ``exchange_process`` serve both as ``gamma-api.polymarket.com`` and
``api.elections.kalshi.com`` would, on loopback; ``parse_faults``
reads the fault SPEC that injects 429s, 500s, truncated bodies, stalls, connection resets, cursor
loops and rate limiting. Never imports dagster.

Imported by: the commands (``colosseum exchange serve``, ``colosseum dev``), the benchmarks and the
tests.
"""

from colosseum_standins.simulated_exchange.board import SCHEMA_URL, Board, Snapshot
from colosseum_standins.simulated_exchange.faults import Fault, FaultPlan, parse_faults
from colosseum_standins.simulated_exchange.server import (
    AS_OF_HEADER,
    SIMULATOR_HEADER,
    build_app,
    exchange_process,
    running_exchange,
    serve,
)

__all__ = [
    "AS_OF_HEADER",
    "SCHEMA_URL",
    "SIMULATOR_HEADER",
    "Board",
    "Fault",
    "FaultPlan",
    "Snapshot",
    "build_app",
    "exchange_process",
    "parse_faults",
    "running_exchange",
    "serve",
]
