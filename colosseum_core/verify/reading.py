"""The record as an audit reads it: a table file that cannot be read is named, once, as the cause.

An arena's audit reads tables through the record's own ``RecordTables`` (and through its rules'
functions, which take the ``Record``): a file whose bytes are not the recorded ones raises a
``LedgerError``, one that no decoder reads a polars ``ComputeError`` that names no file. Given an
``AuditRecord`` instead, every read of a table file that fails raises ``UnreadableTable``, naming
the file (relative to the record), its table and partition and why; ``workers.guarded`` then says
in one line that the check was not done because of that file, whose own problem the runner's file
check reports (it is the cause the report lists this line under).
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import polars as pl
from polars.exceptions import PanicException

from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.ledger import LedgerError
from colosseum_core.record.storage import RecordPath, record_path
from colosseum_core.record.tables import RecordTables

DECODE_ERRORS = (Exception, PanicException)


class UnreadableTable(Exception):
    """A table file an audit needs, whose bytes are not the recorded ones or cannot be decoded."""

    def __init__(self, path: str, what: str, reason: str) -> None:
        self.path, self.what, self.reason = path, what, reason
        super().__init__(f"{what} ({path}) cannot be read: {reason}")


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"


class AuditTables(RecordTables):
    """``RecordTables`` whose reads name the file they could not read (``UnreadableTable``)."""

    def __init__(
        self,
        root: Path | str | RecordPath,
        partition_column: str,
        record_root: RecordPath,
        readable: set[str],
    ) -> None:
        super().__init__(root, partition_column)
        self.record_root = record_root
        # Files already read whole by this audit's task (``scan`` reads each once first).
        self._readable = readable

    def _unreadable(self, table: str, partition: str | None, exc: BaseException) -> UnreadableTable:
        path = self.path(table, partition)
        try:
            relative = path.relative_to(self.record_root).as_posix()
        except ValueError:
            relative = str(path)
        what = f"{table} {self.partition_column} {partition}" if partition else table
        return UnreadableTable(relative, what, _reason(exc))

    def read_bytes(self, table: str, partition: str | None = None) -> bytes:
        try:
            return super().read_bytes(table, partition)
        except LedgerError as exc:
            raise self._unreadable(table, partition, exc) from None

    def read_checked(self, table: str, partition: str | None = None) -> pl.DataFrame:
        data = self.read_bytes(table, partition)
        try:
            return pl.read_parquet(io.BytesIO(data))
        except DECODE_ERRORS as exc:
            raise self._unreadable(table, partition, exc) from None

    def read(self, table: str, partition: str | None = None) -> pl.DataFrame:
        return self.read_checked(table, partition)

    def scan(self, table: str) -> pl.LazyFrame | None:
        """As ``RecordTables.scan``, once every partition's file has been read whole and found as
        recorded: a lazy scan would fail later, naming no file."""
        for partition in self.partitions(table):
            where = str(self.path(table, partition))
            if where not in self._readable:
                self.read_checked(table, partition)
                self._readable.add(where)
        return super().scan(table)


@dataclasses.dataclass(frozen=True)
class AuditRecord(Record):
    """A ``Record`` whose tables are ``AuditTables``."""

    readable: set[str] = dataclasses.field(default_factory=set, compare=False, repr=False)

    def tables(self, arena: ArenaRecord) -> RecordTables:
        return AuditTables(self.warehouse / arena.name, arena.partition, self.root, self.readable)


def audit_record(root: str | Path | RecordPath) -> AuditRecord:
    return AuditRecord(record_path(root))
