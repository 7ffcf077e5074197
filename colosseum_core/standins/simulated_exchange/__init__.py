"""A simulated Polymarket exchange: a deterministic board served over Gamma's HTTP API.

``Board`` generates the board at any instant; ``build_app`` / ``serve`` / ``running_exchange`` /
``exchange_process`` serve it as ``gamma-api.polymarket.com`` would, on loopback; ``parse_faults``
reads the fault SPEC that injects 429s, 500s, truncated bodies, stalls, connection resets, cursor
loops and rate limiting. Never imports dagster.
"""

from colosseum_core.standins.simulated_exchange.board import SCHEMA_URL, Board, Snapshot
from colosseum_core.standins.simulated_exchange.faults import Fault, FaultPlan, parse_faults
from colosseum_core.standins.simulated_exchange.server import (
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
