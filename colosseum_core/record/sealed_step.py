"""A sealing step, for any arena: seal first, then write; a crash anywhere finishes on the next run.

Every arena decides some of its tables once and seals them (a forecast card's selection, a debate
epoch's close, a topic rotation's motions, an event's standings). The seal is written *before* the
tables it names, so a partition never has a decision without a seal, and a crash between the seal
and the last of its tables leaves a seal whose tables are missing. This is the one place that makes
such a crash harmless, whatever the arena:

* **not sealed**: the step derives its tables from what is recorded (``derive``), the seal names the
  SHA-256 of those exact bytes and of the tables written before it that it vouches for
  (``vouched``), and only then are the tables written;
* **sealed, every table in place**: the tables are read back (their bytes checked against the seal
  and the file ledger), and nothing is derived or written;
* **sealed, a table missing** (the crash): the step derives the tables again from the recorded
  inputs, receipts and journals, and writes exactly the bytes the seal names, or refuses, naming the
  partition, the table and both hashes. A table present with other bytes than the seal's is refused
  the same way, never rewritten.

``derive`` must be a function of the record alone (the step's recorded inputs), never of the
clock or of a service: that is what lets a re-run reproduce the sealed bytes. It receives the seal
when there is one, so a step can keep what a seal fixed that its tables do not (its kind, its
instant), and it may raise ``SealError`` to refuse.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
from collections.abc import Callable, Iterable, Mapping

import polars as pl

from colosseum_core.record.crash import crash_point
from colosseum_core.record.seals import Seal, SealError, SealRegistry
from colosseum_core.record.tables import RecordTables, parquet_bytes

# What a sealing step did: sealed the partition now, found it complete, or finished a seal a crash
# had left without some of its tables.
SEALED = "sealed"
RE_READ = "re-read"
COMPLETED = "completed"


@dataclasses.dataclass(frozen=True)
class Derived:
    """What a sealing step derived: the tables it writes, and what its seal says of them."""

    tables: Mapping[str, pl.DataFrame]
    kind: str
    content_id: str
    # The blocking checks run on the derived tables, with the problems each found (recorded in the seal).
    checks: Mapping[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class SealedStep:
    """The outcome of a sealing step: the partition's sealed tables and how the step got them."""

    frames: dict[str, pl.DataFrame]
    seal: Seal
    outcome: str  # SEALED, RE_READ or COMPLETED
    written: tuple[str, ...]  # the tables this run wrote
    derived: Derived | None = None  # None when the sealed tables were only read back

    def describe(self) -> str:
        if self.outcome == SEALED:
            return f"{self.seal.noun} {self.seal.partition} sealed ({self.seal.content_id[:12]}…)"
        if self.outcome == COMPLETED:
            return (
                f"{self.seal.noun} {self.seal.partition} was sealed but its {', '.join(self.written)} "
                "had not been written (the run that sealed it stopped): re-derived and written, byte for "
                "byte as sealed"
            )
        return f"{self.seal.noun} {self.seal.partition} is sealed ({self.seal.content_id[:12]}…): re-read"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def vouched_hashes(tables: RecordTables, partition: str, names: Iterable[str]) -> dict[str, str]:
    """The SHA-256 of each of ``names`` the partition has a file for, its bytes checked against the
    file ledger: the tables written before a seal, which the seal vouches for."""
    return {t: _sha256(tables.read_bytes(t, partition)) for t in names if tables.exists(t, partition)}


def refuse_changes(seal: Seal, hashes: Mapping[str, str], *, why: str) -> None:
    """Raise ``SealError`` unless ``hashes`` are exactly the tables ``seal`` names, with the bytes it
    names, naming each table that differs (or is missing on either side) with both hashes."""
    changed = sorted(t for t in set(hashes) | set(seal.tables) if seal.tables.get(t) != hashes.get(t))
    if changed:

        def short(sha: str | None) -> str:
            return f"{sha[:12]}…" if sha else "none"

        raise SealError(
            f"{seal.describe()}: {why} does not reproduce its "
            + ", ".join(
                f"{t} table (sealed sha256 {short(seal.tables.get(t))}, now {short(hashes.get(t))})"
                for t in changed
            )
            + f"; a sealed {seal.noun}'s record is immutable"
        )


def write_sealed(
    tables: RecordTables, seals: SealRegistry, partition: str, outputs: Mapping[str, bytes]
) -> tuple[str, ...]:
    """Write each of ``outputs`` whose file is not already its bytes (each checked against the seal
    first); the tables written, in order."""
    written = []
    for table, data in outputs.items():
        seals.check_write(table, partition, data)
        if tables.write_bytes(table, data, partition):
            written.append(table)
    return tuple(written)


def seal_then_write(
    tables: RecordTables,
    seals: SealRegistry,
    partition: str,
    *,
    outputs: Mapping[str, bytes],
    vouched: Mapping[str, str],
    kind: str,
    content_id: str,
    sealed_at: str,
    checks: Mapping[str, int] | None = None,
) -> tuple[Seal, tuple[str, ...]]:
    """Seal ``partition`` over ``outputs`` (their bytes) and the ``vouched`` tables (their hashes),
    then write ``outputs``: the seal first, so that a crash in between leaves a seal a re-run finishes."""
    hashes = {**vouched, **{t: _sha256(data) for t, data in outputs.items()}}
    seal = seals.seal(
        partition,
        kind=kind,
        content_id=content_id,
        sealed_at=sealed_at,
        tables=hashes,
        checks=dict(checks or {}),
    )
    crash_point("sealed")
    return seal, write_sealed(tables, seals, partition, outputs)


def _recorded(tables: RecordTables, seal: Seal, names: tuple[str, ...]) -> dict[str, pl.DataFrame] | None:
    """The sealed ``names`` as recorded, if every one is in place with the bytes the seal names."""
    if not all(tables.exists(t, seal.partition) for t in names):
        return None
    frames = {}
    for table in names:
        data = tables.read_bytes(table, seal.partition)
        if _sha256(data) != seal.tables.get(table):
            return None  # re-derived below, and refused with both hashes
        frames[table] = pl.read_parquet(io.BytesIO(data))
    return frames


def run_sealed_step(
    tables: RecordTables,
    seals: SealRegistry,
    partition: str,
    *,
    outputs: tuple[str, ...],
    vouched: Iterable[str],
    derive: Callable[[Seal | None], Derived],
    sealed_at: Callable[[], str],
) -> SealedStep:
    """Seal ``partition`` over the ``outputs`` that ``derive`` makes, or re-read or finish its seal.

    ``vouched``: the tables written before the seal that it names with their recorded bytes (those
    the partition has). The caller holds the partition's lock. See the module's doc.
    """
    vouched = tuple(vouched)
    seal = seals.get(partition)
    if seal is not None:
        recorded = _recorded(tables, seal, outputs)
        if recorded is not None:
            return SealedStep(recorded, seal, RE_READ, ())
        derived = _checked(derive(seal), outputs, partition)
        data = {t: parquet_bytes(derived.tables[t]) for t in outputs}
        refuse_changes(
            seal,
            {**vouched_hashes(tables, partition, vouched), **{t: _sha256(b) for t, b in data.items()}},
            why="re-deriving it from its recorded inputs",
        )
        written = write_sealed(tables, seals, partition, data)
        return SealedStep(dict(derived.tables), seal, COMPLETED, written, derived)
    derived = _checked(derive(None), outputs, partition)
    data = {t: parquet_bytes(derived.tables[t]) for t in outputs}
    seal, written = seal_then_write(
        tables,
        seals,
        partition,
        outputs=data,
        vouched=vouched_hashes(tables, partition, vouched),
        kind=derived.kind,
        content_id=derived.content_id,
        sealed_at=sealed_at(),
        checks=derived.checks,
    )
    return SealedStep(dict(derived.tables), seal, SEALED, written, derived)


def _checked(derived: Derived, outputs: tuple[str, ...], partition: str) -> Derived:
    if set(derived.tables) != set(outputs):
        raise ValueError(
            f"partition {partition}: a sealing step derived {sorted(derived.tables)}, not its outputs "
            f"{sorted(outputs)}"
        )
    return derived
