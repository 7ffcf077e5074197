"""The local ledger: a real HTTP service standing in for the chain (blocks, neurons, commitments,
weights) and for GitHub's gists, offline. ``colosseum debate ledger serve`` runs it.

``server`` serves it, ``state`` holds the chain and the gists, ``house_miners`` seeds a fresh ledger
with miners the entry checks tell apart.

Imported by: the debate's wiring and commands (``colosseum debate ledger serve``, the validator's
house hotkey), ``colosseum dev``, the benchmarks and the tests.
"""

from colosseum_standins.ledger.server import (
    DEFAULT_GENESIS,
    LEDGER_HEADER,
    create_app,
    running_ledger,
    serve,
)
from colosseum_standins.ledger.state import LedgerRefused, LocalLedger

__all__ = [
    "DEFAULT_GENESIS",
    "LEDGER_HEADER",
    "LedgerRefused",
    "LocalLedger",
    "create_app",
    "running_ledger",
    "serve",
]
