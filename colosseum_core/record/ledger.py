"""The file ledger: the SHA-256 of every file the record's writer wrote, kept beside the file.

Rows can be re-derived and identifiers recomputed, but some bytes of a file carry no row: a
Parquet file's statistics, say, which DuckDB and polars use to skip row groups. Change a column's
minimum and a filter returns nothing, while every decoded row still checks. So each file the record
writes (table files, seals, missed-card records) gets a sidecar, ``<file>.sha256``, holding its
hash and size, and ``colosseum verify`` compares the file's bytes with it *before* decoding them.
A file whose bytes are not the recorded ones is named and never handed to a decoder.

A write is two renames, the file's and its sidecar's, so it is journalled in the sidecar itself:

1. the sidecar is rewritten with the new hash as ``pending`` beside the current one;
2. the file is renamed into place;
3. the sidecar is rewritten with the new hash alone.

A crash between any two steps leaves a file whose hash is the recorded one or the pending one,
which ``verify`` accepts with a note, and the next write under the same lock completes or replaces.
A sidecar is canonical JSON (sorted keys, no spaces): any other bytes are a change, so a flipped
bit in a sidecar is named too.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from colosseum_core.record.atomic import write_bytes_atomic
from colosseum_core.record.storage import RecordPath, is_remote, read_bytes

LEDGER_SUFFIX = ".sha256"
LEDGER_FORMAT = "colosseum-file/1"


class LedgerError(Exception):
    """A sidecar that is missing, unreadable, or not in its canonical form."""


def file_sha256(path: RecordPath) -> str:
    """SHA-256 hex of a file, read in chunks (published files can be large)."""
    if is_remote(path):
        return hashlib.sha256(read_bytes(path)).hexdigest()
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def sidecar_path(path: RecordPath) -> RecordPath:
    return path.with_name(path.name + LEDGER_SUFFIX)


def is_sidecar(path: RecordPath) -> bool:
    return path.name.endswith(LEDGER_SUFFIX)


@dataclasses.dataclass(frozen=True)
class FileEntry:
    """What the writer recorded of one file: its bytes' hash and size, and a write in flight."""

    sha256: str | None
    size: int | None
    pending_sha256: str | None = None
    pending_size: int | None = None

    def document(self) -> dict[str, Any]:
        return {
            "format": LEDGER_FORMAT,
            "sha256": self.sha256,
            "size": self.size,
            "pending_sha256": self.pending_sha256,
            "pending_size": self.pending_size,
        }

    def encode(self) -> bytes:
        return json.dumps(self.document(), sort_keys=True, separators=(",", ":")).encode() + b"\n"

    @classmethod
    def decode(cls, data: bytes, where: str) -> FileEntry:
        try:
            doc = json.loads(data)
        except (UnicodeDecodeError, ValueError) as exc:
            raise LedgerError(f"{where}: not JSON ({exc})") from None
        if not isinstance(doc, dict) or doc.get("format") != LEDGER_FORMAT:
            raise LedgerError(f"{where}: not a {LEDGER_FORMAT} document")
        try:
            entry = cls(
                sha256=doc["sha256"],
                size=doc["size"],
                pending_sha256=doc["pending_sha256"],
                pending_size=doc["pending_size"],
            )
        except KeyError as exc:
            raise LedgerError(f"{where}: has no field {exc}") from None
        if entry.encode() != data:
            raise LedgerError(f"{where}: its bytes are not the canonical form of its content")
        for name in ("sha256", "pending_sha256"):
            value = getattr(entry, name)
            if value is not None and not (
                isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
            ):
                raise LedgerError(f"{where}: {name} {value!r} is not a SHA-256")
        return entry

    def accepts(self, sha256: str) -> bool:
        return sha256 in (self.sha256, self.pending_sha256)


def read_entry(path: RecordPath) -> FileEntry | None:
    """The recorded entry of ``path``; None if it has no sidecar. Raises ``LedgerError`` if unreadable."""
    side = sidecar_path(path)
    try:
        data = read_bytes(side)
    except FileNotFoundError:
        return None
    return FileEntry.decode(data, str(side))


def write_recorded(path: RecordPath, data: bytes, *, create_only: bool = False) -> bool:
    """Write ``data`` to ``path`` and record its hash; False (and nothing written) if it is already so.

    The caller holds the lock of whatever ``path`` belongs to: the ledger orders one writer's
    steps, it does not arbitrate between writers. ``create_only`` (a seal): the file is written once
    and never replaced; in a bucket its PUT is conditional, so even a writer without the lock is
    refused (``FileExistsError``) rather than replacing it.
    """
    new = hashlib.sha256(data).hexdigest()
    try:
        entry = read_entry(path)
    except LedgerError:
        entry = None  # the writer's own sidecar, unreadable: the write below replaces it
    if (
        entry is not None
        and entry.sha256 == new
        and entry.pending_sha256 is None
        and path.exists()
        and file_sha256(path) == new
    ):
        return False
    current = entry.sha256 if entry is not None and path.exists() else None
    current_size = entry.size if entry is not None and path.exists() else None
    side = sidecar_path(path)
    write_bytes_atomic(side, FileEntry(current, current_size, new, len(data)).encode())
    if not (create_only and path.exists() and file_sha256(path) == new):  # else: a retry's own bytes
        write_bytes_atomic(path, data, create_only=create_only)
    write_bytes_atomic(side, FileEntry(new, len(data)).encode())
    return True


@dataclasses.dataclass(frozen=True)
class FileCheck:
    """The outcome of comparing one file with its sidecar: a problem, a note, or neither."""

    sha256: str | None
    problem: str | None = None
    note: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


def check_file(path: RecordPath, name: str | None = None) -> FileCheck:
    """``path``'s bytes against its recorded hash. ``name`` is how messages call the file."""
    name = name or str(path)
    try:
        entry = read_entry(path)
    except LedgerError as exc:
        return FileCheck(None, problem=f"{name}: its recorded hash cannot be read ({exc})")
    exists = path.exists()
    if entry is None:
        if not exists:
            return FileCheck(None, problem=f"{name}: missing")
        return FileCheck(
            file_sha256(path),
            problem=f"{name}: no recorded SHA-256 ({sidecar_path(path).name} is missing): it was not "
            "written by the record's writer, or its sidecar was removed",
        )
    if not exists:
        if entry.sha256 is None and entry.pending_sha256 is not None:
            return FileCheck(None, note=f"{name}: its first write was interrupted before the file appeared")
        return FileCheck(None, problem=f"{name}: missing, though its sidecar records SHA-256 {entry.sha256}")
    actual, size = file_sha256(path), path.stat().st_size
    if (actual, size) == (entry.sha256, entry.size) and entry.pending_sha256 is None:
        return FileCheck(actual)
    if entry.pending_sha256 is not None and (actual, size) in (
        (entry.sha256, entry.size),
        (entry.pending_sha256, entry.pending_size),
    ):
        return FileCheck(actual, note=f"{name}: a write was interrupted; the file holds a recorded version")
    recorded = entry.sha256 if entry.pending_sha256 is None else f"{entry.sha256} or {entry.pending_sha256}"
    if actual in (entry.sha256, entry.pending_sha256):
        return FileCheck(
            actual, problem=f"{name}: {size} bytes, but its sidecar records another size for SHA-256 {actual}"
        )
    return FileCheck(
        actual,
        problem=f"{name}: its bytes hash to {actual}, not to the recorded {recorded}: the file was changed "
        "outside the record's writer",
    )
