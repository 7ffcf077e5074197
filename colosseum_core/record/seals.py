"""Seals and missed cards: the registry of what can never change again.

Sealing writes a manifest, ``<data>/seals/card=<key>.json``, naming the packet and the SHA-256 of
every sealed table file of the card. It is written *before* the tables it names (by the card's
sealing step, holding the card's lock and its kind's seal lock), so a card never has a selection
without a seal: a crash in between leaves a seal whose tables a re-run writes, byte for byte. From
then on a write of any of those tables either reproduces the exact bytes (a no-op) or is refused
with an error naming the card, the table and both hashes.

A card that can no longer seal, because a later card of its kind sealed first, is *missed*:
``<data>/seals/card=<key>.missed.json`` names the card that overtook it and why. A missed card
never seals, and the tables it already has (its sweep, its copy) are kept exactly as they are.

Tables that are written once per card (its answers, signatures and keys, its status) are never
rewritten either, sealed or not: a second write must reproduce the first.

Every document here is written through the file ledger (``ledger.py``), so its bytes are recorded.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from colosseum_core.record.ledger import file_sha256, write_recorded
from colosseum_core.record.tables import RecordTables

SEAL_FORMAT = "colosseum-seal/1"
MISSED_FORMAT = "colosseum-missed/1"
# Every per-card table that a sealed card has is sealed with it.
SEALED_TABLES = (
    "raw_sweep",
    "sweeps",
    "verbatim_markets",
    "copy_errors",
    "ranked_candidates",
    "card_questions",
    "packet",
    "card_status",
)
SEALING_TABLE = "packet"
# Written by the sealing step and by nothing else: a card has them if and only if it is sealed.
SELECTION_TABLES = ("ranked_candidates", "card_questions", "packet")
# Written once per card, sealed or not; a later write must reproduce the first.
WRITE_ONCE_TABLES = ("answers", "answer_lines", "answer_signatures", "public_keys", "card_status")
_SEAL_NAME = re.compile(r"^card=(.+)\.json$")
_MISSED_NAME = re.compile(r"^card=(.+)\.missed\.json$")


class SealError(Exception):
    """A write or a run that would change a sealed (or missed, or written-once) card's record."""


@dataclasses.dataclass(frozen=True)
class Seal:
    card: str
    kind: str
    packet_id: str
    sealed_at: str
    tables: dict[str, str]
    # The blocking checks run on exactly the sealed bytes, with the problems each found (none, or
    # the card would not have sealed). Empty in seals written before they were recorded.
    checks: dict[str, int] = dataclasses.field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        return {"format": SEAL_FORMAT, **dataclasses.asdict(self)}

    def describe(self) -> str:
        packet = f"packet {self.packet_id[:12]}…"
        return f"card {self.card} is sealed ({self.kind}, {packet}, sealed {self.sealed_at})"


@dataclasses.dataclass(frozen=True)
class Missed:
    """A card that never sealed, because a later card of its kind sealed first."""

    card: str
    kind: str
    overtaken_by: str
    reason: str
    recorded_at: str

    def document(self) -> dict[str, Any]:
        return {"format": MISSED_FORMAT, **dataclasses.asdict(self)}

    def describe(self) -> str:
        return f"card {self.card} was missed ({self.kind}): {self.reason}"


def _encode(document: dict[str, Any]) -> bytes:
    return json.dumps(document, indent=1, sort_keys=True).encode()


def _load(path: Path, fmt: str) -> dict[str, Any] | None:
    if not path.exists():
        return None
    doc = json.loads(path.read_text())
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise SealError(f"{path} has format {found!r}, not {fmt!r}")
    return {k: v for k, v in doc.items() if k != "format"}


class SealRegistry:
    """The seals and missed cards under ``root`` (normally ``<data>/seals``), over the tables they protect."""

    def __init__(self, root: Path | str, tables: RecordTables) -> None:
        self.root = Path(root)
        self.tables = tables

    def path(self, card: str) -> Path:
        return self.root / f"card={card}.json"

    def missed_path(self, card: str) -> Path:
        return self.root / f"card={card}.missed.json"

    def get(self, card: str) -> Seal | None:
        doc = _load(self.path(card), SEAL_FORMAT)
        return None if doc is None else Seal(**doc)

    def missed(self, card: str) -> Missed | None:
        doc = _load(self.missed_path(card), MISSED_FORMAT)
        return None if doc is None else Missed(**doc)

    def _cards(self, pattern: re.Pattern[str]) -> list[str]:
        if not self.root.exists():
            return []
        return sorted(m.group(1) for p in self.root.iterdir() if (m := pattern.match(p.name)))

    def seals(self) -> list[Seal]:
        """Every seal, in card order."""
        return [
            s for card in self._cards(_SEAL_NAME) if not card.endswith(".missed") and (s := self.get(card))
        ]

    def missed_cards(self) -> list[Missed]:
        """Every missed card, in card order."""
        return [m for card in self._cards(_MISSED_NAME) if (m := self.missed(card)) is not None]

    def seal(
        self,
        card: str,
        *,
        kind: str,
        packet_id: str,
        sealed_at: str,
        tables: dict[str, str],
        checks: dict[str, int] | None = None,
    ) -> Seal:
        """Seal ``card`` over ``tables`` (table -> SHA-256 of the bytes that will be its file).

        The tables need not be written yet: the caller writes exactly those bytes next. Sealing twice
        with the same tables is a no-op that keeps the first seal; with other tables it is refused.
        """
        if SEALING_TABLE not in tables:
            raise SealError(f"card {card} cannot be sealed without its {SEALING_TABLE} table")
        missed = self.missed(card)
        if missed is not None:
            raise SealError(f"{missed.describe()}; it can never be sealed")
        existing = self.get(card)
        if existing is not None:
            if existing.packet_id != packet_id or existing.tables != tables:
                raise SealError(f"{existing.describe()}; a second, different seal is refused")
            return existing
        seal = Seal(
            card=card,
            kind=kind,
            packet_id=packet_id,
            sealed_at=sealed_at,
            tables=dict(tables),
            checks=dict(checks or {}),
        )
        write_recorded(self.path(card), _encode(seal.document()))
        return seal

    def record_missed(self, missed: Missed) -> Missed:
        """Record ``missed`` unless the card already has a record (the first one stands)."""
        if self.get(missed.card) is not None:
            raise SealError(f"card {missed.card} is sealed; it cannot be missed")
        existing = self.missed(missed.card)
        if existing is not None:
            return existing
        write_recorded(self.missed_path(missed.card), _encode(missed.document()))
        return missed

    def check_write(self, table: str, card: str, data: bytes) -> None:
        """Raise ``SealError`` if writing ``data`` as ``table`` of ``card`` changes what may not change."""
        new_hash = hashlib.sha256(data).hexdigest()
        seal = self.get(card)
        if seal is not None:
            sealed_hash = seal.tables.get(table)
            if sealed_hash == new_hash:
                return
            if sealed_hash is None:
                if table in SEALED_TABLES:
                    raise SealError(
                        f"{seal.describe()}: it had no {table} table at its seal and gets none now"
                    )
            else:
                raise SealError(
                    f"{seal.describe()}: its {table} table would change (sealed sha256 {sealed_hash[:12]}…, "
                    f"new {new_hash[:12]}…); a sealed card's record is immutable"
                )
        elif table in SELECTION_TABLES:
            raise SealError(f"card {card} is not sealed: its {table} table is written only by its seal")
        path = self.tables.path(table, card)
        if not path.exists():
            return
        missed = self.missed(card)
        if missed is None and table not in WRITE_ONCE_TABLES:
            return
        old_hash = file_sha256(path)
        if old_hash != new_hash:
            why = missed.describe() if missed is not None else f"card {card}'s {table} table is written once"
            raise SealError(
                f"{why}: its {table} table would change (recorded sha256 {old_hash[:12]}…, new "
                f"{new_hash[:12]}…); it is kept as it was"
            )
