"""Seals: once a card is sealed, its record is immutable.

Sealing writes a manifest, ``<data>/seals/card=<key>.json``, naming the packet and the SHA-256 of
every sealed table file of the card at that moment. From then on a write of any of those tables
for that card either reproduces the exact bytes (a no-op) or is refused with an error naming the
card, the table and both hashes. Nothing ever rewrites a sealed card.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from colosseum_core.record.atomic import write_bytes_atomic
from colosseum_core.record.tables import RecordTables

SEAL_FORMAT = "colosseum-seal/1"
# Every per-card table that exists at the seal is sealed with the card.
SEALED_TABLES = (
    "raw_sweep",
    "sweeps",
    "verbatim_markets",
    "copy_errors",
    "ranked_candidates",
    "card_questions",
    "packet",
)
SEALING_TABLE = "packet"
_KEY = re.compile(r"^card=(.+)\.json$")


class SealError(Exception):
    """A write or a run that would change a sealed card, or a seal out of time order."""


@dataclasses.dataclass(frozen=True)
class Seal:
    card: str
    kind: str
    packet_id: str
    sealed_at: str
    tables: dict[str, str]

    def document(self) -> dict[str, Any]:
        return {"format": SEAL_FORMAT, **dataclasses.asdict(self)}

    def describe(self) -> str:
        packet = f"packet {self.packet_id[:12]}…"
        return f"card {self.card} is sealed ({self.kind}, {packet}, sealed {self.sealed_at})"


def file_sha256(path: Path) -> str:
    """SHA-256 hex of a file, read in chunks (published files can be large)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class SealRegistry:
    """The seals under ``root`` (normally ``<data>/seals``), over the tables they protect."""

    def __init__(self, root: Path | str, tables: RecordTables) -> None:
        self.root = Path(root)
        self.tables = tables

    def path(self, card: str) -> Path:
        return self.root / f"card={card}.json"

    def get(self, card: str) -> Seal | None:
        path = self.path(card)
        if not path.exists():
            return None
        doc = json.loads(path.read_text())
        if doc.get("format") != SEAL_FORMAT:
            raise SealError(f"seal {path} has format {doc.get('format')!r}, not {SEAL_FORMAT!r}")
        return Seal(**{k: v for k, v in doc.items() if k != "format"})

    def seals(self) -> list[Seal]:
        """Every seal, in card order."""
        if not self.root.exists():
            return []
        cards = sorted(m.group(1) for p in self.root.iterdir() if (m := _KEY.match(p.name)))
        return [seal for card in cards if (seal := self.get(card)) is not None]

    def seal(self, card: str, *, kind: str, packet_id: str, sealed_at: str) -> Seal:
        """Seal ``card`` over the sealed tables it has now. Sealing twice identically is a no-op."""
        tables = {
            table: file_sha256(self.tables.path(table, card))
            for table in SEALED_TABLES
            if self.tables.exists(table, card)
        }
        if SEALING_TABLE not in tables:
            raise SealError(f"card {card} cannot be sealed: its {SEALING_TABLE} table is not written")
        existing = self.get(card)
        if existing is not None:
            if existing.packet_id != packet_id or existing.tables != tables:
                raise SealError(f"{existing.describe()}; a second, different seal is refused")
            return existing
        seal = Seal(card=card, kind=kind, packet_id=packet_id, sealed_at=sealed_at, tables=tables)
        write_bytes_atomic(self.path(card), json.dumps(seal.document(), indent=1, sort_keys=True).encode())
        return seal

    def admit_write(self, table: str, card: str, data: bytes) -> bool:
        """May ``data`` be written as ``table`` of ``card``? False: it is already there, byte for byte.

        Raises ``SealError`` when the card is sealed and the bytes differ from the sealed ones.
        """
        seal = self.get(card)
        if seal is None:
            return True
        sealed_hash = seal.tables.get(table)
        new_hash = hashlib.sha256(data).hexdigest()
        if sealed_hash == new_hash:
            return False
        if sealed_hash is None:
            if table in SEALED_TABLES:
                raise SealError(f"{seal.describe()}: it had no {table} table at its seal and gets none now")
            return True
        raise SealError(
            f"{seal.describe()}: its {table} table would change (sealed sha256 {sealed_hash[:12]}…, "
            f"new {new_hash[:12]}…); a sealed card's record is immutable"
        )
