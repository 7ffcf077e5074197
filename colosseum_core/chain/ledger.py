"""The ledger interface: what an arena reads from a chain, as plain values.

A Bittensor subnet keeps, per hotkey, only its latest commitment and the block it was made in, and
per neuron the block it registered at; blocks come every 12 seconds. Everything an entry check
needs is here, and nothing about any one chain's SDK.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Final, Protocol

BLOCK_SECONDS: Final = 12


class LedgerError(Exception):
    """A ledger answer that cannot be read: the message names the record, the field and the value."""


class GistUnavailable(LedgerError):
    """A gist revision that could not be fetched now (a timeout, a 5xx, a rate limit): try again later."""


class GistNotFound(LedgerError):
    """A gist revision that does not exist (404): the pointer names nothing."""


@dataclasses.dataclass(frozen=True)
class Neuron:
    uid: int
    hotkey: str
    block_at_registration: int


@dataclasses.dataclass(frozen=True)
class Commitment:
    """The latest commitment of ``hotkey``: its bytes as text, and the block it was made in."""

    hotkey: str
    block: int
    data: str


@dataclasses.dataclass(frozen=True)
class WeightSet:
    """The weights a validator set at ``block``, by uid (they sum to 1)."""

    validator: str
    block: int
    weights: Mapping[int, float]


@dataclasses.dataclass(frozen=True)
class GistFile:
    filename: str
    content: str
    size: int  # bytes of the whole file, as GitHub reports it
    truncated: bool  # GitHub cuts large files short in its API answers


@dataclasses.dataclass(frozen=True)
class GistRevision:
    gist_id: str
    sha: str
    files: tuple[GistFile, ...]


class Ledger(Protocol):
    """A chain as an arena reads it."""

    def current_block(self) -> int: ...

    def neurons(self) -> Sequence[Neuron]: ...

    def commitments(self) -> Mapping[str, Commitment]:
        """The latest commitment per hotkey (hotkeys that never committed are absent)."""
        ...

    def weights(self) -> Sequence[WeightSet]: ...

    def set_weights(self, validator: str, weights: Mapping[int, float]) -> WeightSet:
        """Set ``validator``'s weight vector (uid -> weight); what the chain recorded."""
        ...


class Gists(Protocol):
    """Where gist pointers are resolved."""

    def revision(self, gist_id: str, sha: str) -> GistRevision:
        """The revision's files; ``GistNotFound`` if it does not exist, ``GistUnavailable`` if it could
        not be fetched now."""
        ...


def block_at(instant: dt.datetime, genesis: dt.datetime) -> int:
    """The block current at ``instant`` on a chain whose block 0 began at ``genesis``."""
    if instant.tzinfo is None or genesis.tzinfo is None:
        raise ValueError(f"block_at needs aware instants, got {instant!r} and {genesis!r}")
    elapsed = (instant - genesis).total_seconds()
    if elapsed < 0:
        raise ValueError(f"{instant.isoformat()} is before the chain's genesis {genesis.isoformat()}")
    return int(elapsed // BLOCK_SECONDS)


def block_start(block: int, genesis: dt.datetime) -> dt.datetime:
    """When ``block`` began."""
    return genesis + dt.timedelta(seconds=block * BLOCK_SECONDS)
