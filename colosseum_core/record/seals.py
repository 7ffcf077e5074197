"""Seals and missed partitions: the registry of what can never change again, for any arena.

Each arena declares its sealing policy (``SealingPolicy``): which of its tables a seal covers, the
table without which nothing seals, the tables only its sealing step writes, and the tables written
once per partition. The forecast's: a card's sweep, copy, selection and packet seal; its answers
are written once.

Sealing writes a manifest, ``<data>/seals/<arena>/<partition>=<key>.json``, naming the SHA-256 of
every sealed table file of the partition. It is written *before* the tables it names (by the
arena's sealing step, holding the partition's lock), so a partition never has a selection without
a seal: a crash in between leaves a seal whose tables a re-run writes, byte for byte. From then on a
write of any of those tables either reproduces the exact bytes (a no-op) or is refused with an
error naming the partition, the table and both hashes.

A partition that can no longer seal (a forecast card overtaken by a later card of its kind) is
*missed*: ``<partition>=<key>.missed.json`` names what overtook it and why. A missed partition never
seals, and the tables it already has (a card's sweep, its copy) are kept exactly as they are.

Tables that are written once per partition (a card's answers, signatures and keys, its status) are
never rewritten either, sealed or not: a second write must reproduce the first.

Every document here is written through the file ledger (``ledger.py``), so its bytes are recorded.
The partition's key is stored under the arena's partition noun (``"card": "2026-11-29-1000"``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from colosseum_core.record.ledger import file_sha256, write_recorded
from colosseum_core.record.storage import RecordPath, record_path
from colosseum_core.record.tables import RecordTables

SEAL_FORMAT = "colosseum-seal/1"
MISSED_FORMAT = "colosseum-missed/1"


@dataclasses.dataclass(frozen=True)
class SealingPolicy:
    """Which of an arena's per-partition tables seal, and which are written only once."""

    # Every per-partition table that a sealed partition has is sealed with it.
    sealed_tables: tuple[str, ...]
    # Nothing seals without one of them (the forecast's packet; an event's standings, by its kind).
    sealing_tables: tuple[str, ...]
    # Written by the sealing step and by nothing else: a partition has them iff it is sealed.
    selection_tables: tuple[str, ...]
    # Written once per partition, sealed or not; a later write must reproduce the first.
    write_once_tables: tuple[str, ...]
    # What a seal vouches for, by its identifier: the seal document's key for it (the forecast's
    # ``packet_id``) and what messages call it (``packet``).
    content_id_field: str
    content_noun: str

    def __post_init__(self) -> None:
        if (
            not self.sealing_tables
            or not set(self.sealing_tables) <= set(self.selection_tables)
            or not set(self.selection_tables) <= set(self.sealed_tables)
        ):
            raise ValueError(
                f"a sealing policy's sealing tables ({self.sealing_tables}) must be among its selection "
                f"tables {self.selection_tables}, and those must all be sealed {self.sealed_tables}"
            )


class SealError(Exception):
    """A write or a run that would change a sealed (or missed, or written-once) partition's record."""


@dataclasses.dataclass(frozen=True)
class Seal:
    partition: str
    kind: str
    # The identifier of what the seal vouches for (the forecast's packet id); the document names it
    # by the arena's ``SealingPolicy.content_id_field``.
    content_id: str
    sealed_at: str
    tables: dict[str, str]
    # The blocking checks run on exactly the sealed bytes, with the problems each found (none, or
    # the card would not have sealed). Empty in seals written before they were recorded.
    checks: dict[str, int] = dataclasses.field(default_factory=dict)
    # The arena's partition noun: the document's key for ``partition``, and how messages name it.
    noun: str = dataclasses.field(kw_only=True, compare=False)
    content_id_field: str = dataclasses.field(kw_only=True, compare=False)
    content_noun: str = dataclasses.field(kw_only=True, compare=False)

    def document(self) -> dict[str, Any]:
        document = _document(SEAL_FORMAT, self)
        document[self.content_id_field] = document.pop("content_id")
        return document

    def describe(self) -> str:
        content = f"{self.content_noun} {self.content_id[:12]}…"
        return f"{self.noun} {self.partition} is sealed ({self.kind}, {content}, sealed {self.sealed_at})"


@dataclasses.dataclass(frozen=True)
class Missed:
    """A partition that never sealed (a card overtaken by a later card of its kind that sealed first)."""

    partition: str
    kind: str
    overtaken_by: str
    reason: str
    recorded_at: str
    noun: str = dataclasses.field(kw_only=True, compare=False)

    def document(self) -> dict[str, Any]:
        return _document(MISSED_FORMAT, self)

    def describe(self) -> str:
        return f"{self.noun} {self.partition} was missed ({self.kind}): {self.reason}"


def _document(fmt: str, record: Seal | Missed) -> dict[str, Any]:
    kept = ("partition", "noun", "content_id_field", "content_noun")
    fields = {k: v for k, v in dataclasses.asdict(record).items() if k not in kept}
    return {"format": fmt, record.noun: record.partition, **fields}


def _encode(document: dict[str, Any]) -> bytes:
    return json.dumps(document, indent=1, sort_keys=True).encode()


def _load(path: RecordPath, fmt: str, noun: str) -> dict[str, Any] | None:
    if not path.exists():
        return None
    doc = json.loads(path.read_text())
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise SealError(f"{path} has format {found!r}, not {fmt!r}")
    if noun not in doc:
        raise SealError(f"{path} names no {noun}: its keys are {sorted(doc)}")
    fields = {k: v for k, v in doc.items() if k not in ("format", noun)}
    return {"partition": doc[noun], "noun": noun, **fields}


class SealRegistry:
    """The seals and missed partitions of one arena under ``root`` (``<data>/seals/<arena>``), over the
    tables they protect, by that arena's ``policy``. Files are named by the tables' partition noun."""

    def __init__(self, root: Path | str | RecordPath, tables: RecordTables, policy: SealingPolicy) -> None:
        self.root = record_path(root)
        self.tables = tables
        self.policy = policy
        self.noun = tables.partition_column
        self._seal_name = re.compile(rf"^{re.escape(self.noun)}=(.+)\.json$")
        self._missed_name = re.compile(rf"^{re.escape(self.noun)}=(.+)\.missed\.json$")

    def path(self, partition: str) -> RecordPath:
        return self.root / f"{self.noun}={partition}.json"

    def missed_path(self, partition: str) -> RecordPath:
        return self.root / f"{self.noun}={partition}.missed.json"

    def get(self, partition: str) -> Seal | None:
        doc = _load(self.path(partition), SEAL_FORMAT, self.noun)
        if doc is None:
            return None
        field = self.policy.content_id_field
        if field not in doc:
            raise SealError(f"{self.path(partition)} names no {field}: its keys are {sorted(doc)}")
        doc["content_id"] = doc.pop(field)
        return Seal(**doc, content_id_field=field, content_noun=self.policy.content_noun)

    def missed(self, partition: str) -> Missed | None:
        doc = _load(self.missed_path(partition), MISSED_FORMAT, self.noun)
        return None if doc is None else Missed(**doc)

    def _partitions(self, pattern: re.Pattern[str]) -> list[str]:
        if not self.root.exists():
            return []
        return sorted(m.group(1) for p in self.root.iterdir() if (m := pattern.match(p.name)))

    def seals(self) -> list[Seal]:
        """Every seal, in partition order."""
        return [
            s
            for key in self._partitions(self._seal_name)
            if not key.endswith(".missed") and (s := self.get(key))
        ]

    def missed_partitions(self) -> list[Missed]:
        """Every missed partition, in partition order."""
        return [m for key in self._partitions(self._missed_name) if (m := self.missed(key)) is not None]

    def seal(
        self,
        partition: str,
        *,
        kind: str,
        content_id: str,
        sealed_at: str,
        tables: dict[str, str],
        checks: dict[str, int] | None = None,
    ) -> Seal:
        """Seal ``partition`` over ``tables`` (table -> SHA-256 of the bytes that will be its file).

        The tables need not be written yet: the caller writes exactly those bytes next. Sealing twice
        with the same tables is a no-op that keeps the first seal; with other tables it is refused.
        """
        sealing = self.policy.sealing_tables
        if not set(sealing) & set(tables):
            raise SealError(
                f"{self.noun} {partition} cannot be sealed without its {' or '.join(sealing)} table"
            )
        missed = self.missed(partition)
        if missed is not None:
            raise SealError(f"{missed.describe()}; it can never be sealed")
        existing = self.get(partition)
        if existing is not None:
            if existing.content_id != content_id or existing.tables != tables:
                raise SealError(f"{existing.describe()}; a second, different seal is refused")
            return existing
        seal = Seal(
            partition=partition,
            kind=kind,
            content_id=content_id,
            sealed_at=sealed_at,
            tables=dict(tables),
            checks=dict(checks or {}),
            noun=self.noun,
            content_id_field=self.policy.content_id_field,
            content_noun=self.policy.content_noun,
        )
        write_recorded(self.path(partition), _encode(seal.document()), create_only=True)
        return seal

    def record_missed(self, missed: Missed) -> Missed:
        """Record ``missed`` unless the partition already has a record (the first one stands)."""
        if missed.noun != self.noun:
            raise ValueError(f"a missed {missed.noun} recorded among {self.noun}s")
        if self.get(missed.partition) is not None:
            raise SealError(f"{self.noun} {missed.partition} is sealed; it cannot be missed")
        existing = self.missed(missed.partition)
        if existing is not None:
            return existing
        write_recorded(self.missed_path(missed.partition), _encode(missed.document()), create_only=True)
        return missed

    def check_write(self, table: str, partition: str, data: bytes) -> None:
        """Raise ``SealError`` if writing ``data`` as ``table`` of ``partition`` changes what may not."""
        new_hash = hashlib.sha256(data).hexdigest()
        noun, policy = self.noun, self.policy
        seal = self.get(partition)
        if seal is not None:
            sealed_hash = seal.tables.get(table)
            if sealed_hash == new_hash:
                return
            if sealed_hash is None:
                if table in policy.sealed_tables:
                    raise SealError(
                        f"{seal.describe()}: it had no {table} table at its seal and gets none now"
                    )
            else:
                raise SealError(
                    f"{seal.describe()}: its {table} table would change (sealed sha256 {sealed_hash[:12]}…, "
                    f"new {new_hash[:12]}…); a sealed {noun}'s record is immutable"
                )
        elif table in policy.selection_tables:
            raise SealError(
                f"{noun} {partition} is not sealed: its {table} table is written only by its seal"
            )
        path = self.tables.path(table, partition)
        if not path.exists():
            return
        missed = self.missed(partition)
        if missed is None and table not in policy.write_once_tables:
            return
        old_hash = file_sha256(path)
        if old_hash != new_hash:
            why = (
                missed.describe()
                if missed is not None
                else f"{noun} {partition}'s {table} table is written once"
            )
            raise SealError(
                f"{why}: its {table} table would change (recorded sha256 {old_hash[:12]}…, new "
                f"{new_hash[:12]}…); it is kept as it was"
            )
