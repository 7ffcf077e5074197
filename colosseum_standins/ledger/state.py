"""The local ledger's state: a chain of 12-second blocks from a genesis instant, kept as an
append-only log so a restarted ledger is the same chain.

It does what an arena reads a subnet for, and no more: hotkeys register (the lowest free uid, the
block they registered at) and deregister; a hotkey commits (the chain keeps only the latest
commitment, with its block); a validator sets weights; gists are published and read by revision,
in GitHub's shape (a large file comes back truncated, as GitHub's API does). The clock is injected,
and tests advance it by whole blocks; an advance is in the log like any other event, and a replayed
chain's clock is never behind the last block it recorded, so a restarted ledger's blocks never go
backwards.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from colosseum_core.chain.ledger import (
    BLOCK_SECONDS,
    Commitment,
    GistFile,
    GistNotFound,
    GistRevision,
    LedgerError,
    Neuron,
    WeightSet,
    block_at,
)

# What a commitment may hold on this stand-in: a chain keeps commitments small, hence gist pointers.
MAX_COMMITMENT_BYTES: Final = 1024
# GitHub's gist API returns at most this much of a file's content and marks it truncated.
GIST_TRUNCATION_BYTES: Final = 1_000_000
MAX_UIDS: Final = 256
LOG_FORMAT: Final = "colosseum-ledger-log/1"
# The local chain's own validator, which sets weights without a uid of its own (so the neurons are
# miners only): the debate validator's hotkey when none is named.
HOUSE_VALIDATOR_HOTKEY: Final = "house-validator"
# Validators that set weights without registering as a neuron (the house validator).
VALIDATORS: Final = frozenset({HOUSE_VALIDATOR_HOTKEY})


class LedgerRefused(LedgerError):
    """An operation the chain refuses (an unknown hotkey, a second registration, a commitment too
    large); nothing was recorded."""


@dataclasses.dataclass
class _Gist:
    revisions: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)  # sha -> files


def gist_sha(gist_id: str, files: Mapping[str, str], parent: str | None) -> str:
    """A revision's id: 40 hex digits over the gist, its parent revision and its files (as a git sha is)."""
    body = json.dumps(
        {"gist": gist_id, "parent": parent, "files": dict(sorted(files.items()))}, sort_keys=True
    )
    return hashlib.sha1(body.encode("utf-8"), usedforsecurity=False).hexdigest()


class LocalLedger:
    """The chain and its gists, replayed from ``log`` (None: kept in memory only)."""

    def __init__(self, log: Path | None, *, genesis: dt.datetime, now: Callable[[], dt.datetime]) -> None:
        self.genesis = genesis
        self._now = now
        self._advanced_s = 0
        self._last_block = 0  # the highest block an event was recorded at: the clock never goes back
        self._lock = threading.RLock()
        self.log = log
        self._neurons: dict[str, Neuron] = {}
        self._commitments: dict[str, Commitment] = {}
        self._weights: list[WeightSet] = []
        self._gists: dict[str, _Gist] = {}
        self._seq = 0
        self.unavailable: dict[str, int] = {}  # gist id -> answers still to fail with 503
        if log is not None and log.exists():
            for number, line in enumerate(log.read_text(encoding="utf-8").splitlines(), start=1):
                try:
                    self._apply(json.loads(line))
                except (ValueError, KeyError, TypeError) as exc:
                    raise LedgerError(f"{log} line {number}: not a ledger event ({exc})") from exc

    # --- time --------------------------------------------------------------------------------------

    def now(self) -> dt.datetime:
        instant = self._now() + dt.timedelta(seconds=self._advanced_s)
        return max(instant, self.genesis + dt.timedelta(seconds=self._last_block * BLOCK_SECONDS))

    def current_block(self) -> int:
        return block_at(self.now(), self.genesis)

    def advance(self, blocks: int) -> int:
        """Move the clock on by ``blocks`` whole blocks; the block now current."""
        if isinstance(blocks, bool) or not isinstance(blocks, int) or blocks < 0:
            raise LedgerRefused(f"advance: blocks must be a whole number ≥ 0, got {blocks!r}")
        with self._lock:
            self._record({"op": "advance", "seconds": blocks * BLOCK_SECONDS})
            return self.current_block()

    # --- reads ---------------------------------------------------------------------------------------

    def neurons(self) -> list[Neuron]:
        return sorted(self._neurons.values(), key=lambda n: n.uid)

    def commitments(self) -> dict[str, Commitment]:
        return dict(sorted(self._commitments.items()))

    def weights(self) -> list[WeightSet]:
        return list(self._weights)

    def gist(self, gist_id: str, sha: str) -> GistRevision:
        found = self._gists.get(gist_id)
        if found is None or sha not in found.revisions:
            raise GistNotFound(f"gist {gist_id} has no revision {sha}")
        files = tuple(
            GistFile(
                filename=name,
                content=_cut(content),
                size=len(content.encode("utf-8")),
                truncated=len(content.encode("utf-8")) > GIST_TRUNCATION_BYTES,
            )
            for name, content in sorted(found.revisions[sha].items())
        )
        return GistRevision(gist_id=gist_id, sha=sha, files=files)

    def gist_history(self, gist_id: str) -> list[str]:
        found = self._gists.get(gist_id)
        return [] if found is None else list(found.revisions)

    # --- writes --------------------------------------------------------------------------------------

    def register(self, hotkey: str) -> Neuron:
        with self._lock:
            _check_hotkey(hotkey)
            if hotkey in self._neurons:
                raise LedgerRefused(
                    f"register: hotkey {hotkey} is already registered as uid {self._neurons[hotkey].uid}"
                )
            taken = {n.uid for n in self._neurons.values()}
            uid = next((u for u in range(MAX_UIDS) if u not in taken), None)
            if uid is None:
                raise LedgerRefused(f"register: all {MAX_UIDS} uids are taken")
            return self._record({"op": "register", "hotkey": hotkey, "uid": uid})

    def deregister(self, hotkey: str) -> Neuron:
        with self._lock:
            neuron = self._registered("deregister", hotkey)
            self._record({"op": "deregister", "hotkey": hotkey})
            return neuron

    def commit(self, hotkey: str, data: str) -> Commitment:
        with self._lock:
            self._registered("commit", hotkey)
            if not isinstance(data, str):
                raise LedgerRefused(f"commit: hotkey {hotkey}: data must be text, got {type(data).__name__}")
            size = len(data.encode("utf-8", errors="surrogatepass"))
            if size > MAX_COMMITMENT_BYTES:
                raise LedgerRefused(
                    f"commit: hotkey {hotkey}: {size} bytes; a commitment holds at most "
                    f"{MAX_COMMITMENT_BYTES} (commit a gist pointer to a longer strategy)"
                )
            return self._record({"op": "commit", "hotkey": hotkey, "data": data})

    def set_weights(self, validator: str, weights: Mapping[int, float]) -> WeightSet:
        with self._lock:
            if validator not in VALIDATORS:
                self._registered("set_weights", validator)
            known = {n.uid for n in self._neurons.values()}
            cleaned: dict[int, float] = {}
            for uid, weight in weights.items():
                if int(uid) not in known:
                    raise LedgerRefused(f"set_weights: uid {uid} is not registered")
                if not isinstance(weight, int | float) or weight < 0:
                    raise LedgerRefused(f"set_weights: uid {uid}: weight {weight!r} is not a number ≥ 0")
                cleaned[int(uid)] = float(weight)
            total = sum(cleaned.values())
            if total <= 0:
                raise LedgerRefused("set_weights: the weights sum to 0")
            normal = {uid: w / total for uid, w in sorted(cleaned.items())}
            return self._record({"op": "weights", "validator": validator, "weights": normal})

    def put_gist(self, files: Mapping[str, str], gist_id: str | None = None) -> GistRevision:
        """Publish a new gist (``gist_id`` None) or a new revision of one; its revision as read back."""
        with self._lock:
            if not files or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
                raise LedgerRefused("put_gist: files must be a non-empty mapping of file names to text")
            if gist_id is not None and gist_id not in self._gists:
                raise LedgerRefused(f"put_gist: gist {gist_id} does not exist")
            parent = self.gist_history(gist_id)[-1] if gist_id is not None else None
            new_id = (
                gist_id
                or hashlib.sha256(
                    json.dumps(dict(sorted(files.items())), sort_keys=True).encode() + str(self._seq).encode()
                ).hexdigest()[:32]
            )
            sha = gist_sha(new_id, files, parent)
            self._record({"op": "gist", "gist": new_id, "sha": sha, "files": dict(files)})
            return self.gist(new_id, sha)

    # --- the log ---------------------------------------------------------------------------------------

    def _registered(self, op: str, hotkey: str) -> Neuron:
        neuron = self._neurons.get(hotkey)
        if neuron is None:
            raise LedgerRefused(f"{op}: hotkey {hotkey!r} is not registered")
        return neuron

    def _record(self, event: dict[str, Any]) -> Any:
        event = {"format": LOG_FORMAT, "seq": self._seq + 1, "block": self.current_block(), **event}
        if self.log is not None:
            self.log.parent.mkdir(parents=True, exist_ok=True)
            with self.log.open("a", encoding="utf-8") as out:
                out.write(json.dumps(event, ensure_ascii=False, sort_keys=True) + "\n")
                out.flush()
                os.fsync(out.fileno())
        return self._apply(event)

    def _apply(self, event: Mapping[str, Any]) -> Any:
        if event.get("format") != LOG_FORMAT:
            raise ValueError(f"format {event.get('format')!r} is not {LOG_FORMAT}")
        self._seq = int(event["seq"])
        op, block = event["op"], int(event["block"])
        self._last_block = max(self._last_block, block)
        if op == "advance":
            self._advanced_s += int(event["seconds"])
            return None
        if op == "register":
            neuron = Neuron(uid=int(event["uid"]), hotkey=event["hotkey"], block_at_registration=block)
            self._neurons[neuron.hotkey] = neuron
            # A new registration of a hotkey starts without a commitment.
            self._commitments.pop(neuron.hotkey, None)
            return neuron
        if op == "deregister":
            self._commitments.pop(event["hotkey"], None)
            return self._neurons.pop(event["hotkey"])
        if op == "commit":
            commitment = Commitment(hotkey=event["hotkey"], block=block, data=event["data"])
            self._commitments[commitment.hotkey] = commitment
            return commitment
        if op == "weights":
            weights = WeightSet(
                validator=event["validator"],
                block=block,
                weights={int(k): float(v) for k, v in event["weights"].items()},
            )
            self._weights.append(weights)
            return weights
        if op == "gist":
            self._gists.setdefault(event["gist"], _Gist()).revisions[event["sha"]] = dict(event["files"])
            return None
        raise ValueError(f"unknown op {op!r}")


def _check_hotkey(hotkey: object) -> None:
    if (
        not isinstance(hotkey, str)
        or not (1 <= len(hotkey) <= 64)
        or not hotkey.isprintable()
        or " " in hotkey
    ):
        raise LedgerRefused(f"register: hotkey {hotkey!r} must be 1–64 printable characters without spaces")


def _cut(content: str) -> str:
    raw = content.encode("utf-8")
    if len(raw) <= GIST_TRUNCATION_BYTES:
        return content
    return raw[:GIST_TRUNCATION_BYTES].decode("utf-8", errors="ignore")
