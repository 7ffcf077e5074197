"""Record tables: Parquet, one file per (table, partition), written atomically.

Layout, for one arena's warehouse (``<data>/warehouse/<arena>``, ``layout.py``):
``<table>/<partition column>=<key>/data.parquet`` (the forecast's: ``card=2026-11-29-1000``), or
``<table>/data.parquet`` for tables of the whole arena, each with its ledger sidecar
``data.parquet.sha256`` (see ``ledger.py``). The temp name used while writing never matches the
``*.parquet`` glob that readers and the DuckDB views use, so a reader sees the old file or the new
one, never half of one.
"""

from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path

import polars as pl

from colosseum_core.record.crash import crash_point
from colosseum_core.record.ledger import LedgerError, read_entry, write_recorded
from colosseum_core.record.storage import (
    RecordPath,
    is_remote,
    read_bytes,
    read_parquet,
    record_path,
    scan_parquet,
)

PARQUET_NAME = "data.parquet"
_TABLE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_PARTITION_KEY = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_.-]*$")


def parquet_bytes(frame: pl.DataFrame) -> bytes:
    """The Parquet encoding of ``frame``: the same frame always gives the same bytes."""
    buffer = io.BytesIO()
    frame.write_parquet(buffer, compression="zstd", statistics=True)
    return buffer.getvalue()


def check_partition_key(partition: str) -> str:
    """``partition``, if it is safe as a path component; ValueError naming it otherwise."""
    if not _PARTITION_KEY.match(partition):
        raise ValueError(f"partition key {partition!r} is not a safe path component")
    return partition


class RecordTables:
    """One arena's Parquet warehouse under ``root`` (``Record.tables``), partitioned by
    ``partition_column``."""

    def __init__(self, root: Path | str | RecordPath, partition_column: str) -> None:
        if not _TABLE_NAME.match(partition_column):
            raise ValueError(f"partition column {partition_column!r} must be snake_case")
        self.root = record_path(root)
        self.partition_column = partition_column

    def path(self, table: str, partition: str | None = None) -> RecordPath:
        if not _TABLE_NAME.match(table):
            raise ValueError(f"table name {table!r} must be snake_case")
        if partition is None:
            return self.root / table / PARQUET_NAME
        check_partition_key(partition)
        return self.root / table / f"{self.partition_column}={partition}" / PARQUET_NAME

    def glob(self, table: str) -> str:
        """The read glob over every partition of ``table`` (absolute, for DuckDB views; in a bucket,
        its ``s3://`` URL)."""
        root = self.root if is_remote(self.root) else self.root.resolve()
        return str(root / table / f"{self.partition_column}=*" / PARQUET_NAME)

    def write(self, table: str, frame: pl.DataFrame, partition: str | None = None) -> RecordPath:
        self.write_bytes(table, parquet_bytes(frame), partition)
        return self.path(table, partition)

    def write_bytes(self, table: str, data: bytes, partition: str | None = None) -> bool:
        """Write the file and record its hash in the ledger; False if it already held ``data``.

        The caller holds the partition's lock (``locks.py``).
        """
        changed = write_recorded(self.path(table, partition), data)
        crash_point(f"wrote:{table}")
        return changed

    def read_bytes(self, table: str, partition: str | None = None) -> bytes:
        """The file's bytes, refused if they are not the ones its ledger sidecar records.

        A file without a sidecar (written before the ledger existed) is read as it is; ``colosseum
        verify`` names it.
        """
        path = self.path(table, partition)
        if not path.exists():
            where = f"{self.partition_column} {partition}" if partition else "the record"
            raise FileNotFoundError(f"table {table!r} has no file for {where} (expected {path})")
        data = read_bytes(path)
        entry = read_entry(path)
        if entry is not None:
            actual = hashlib.sha256(data).hexdigest()
            if not entry.accepts(actual):
                where = f"{self.partition_column} {partition}" if partition else "the record"
                raise LedgerError(
                    f"table {table} of {where}: {path} hashes to {actual}, not to the recorded "
                    f"{entry.sha256}; it was changed outside the record's writer and is not read"
                )
        return data

    def read_checked(self, table: str, partition: str | None = None) -> pl.DataFrame:
        """``read``, with the file's bytes checked against its ledger sidecar first."""
        return pl.read_parquet(io.BytesIO(self.read_bytes(table, partition)))

    def read(self, table: str, partition: str | None = None) -> pl.DataFrame:
        path = self.path(table, partition)
        if not path.exists():
            where = f"{self.partition_column} {partition}" if partition else "the record"
            raise FileNotFoundError(f"table {table!r} has no file for {where} (expected {path})")
        return read_parquet(path)

    def read_if_present(self, table: str, partition: str | None = None) -> pl.DataFrame | None:
        """The table's file for ``partition``, or None if it has not been written yet."""
        return self.read(table, partition) if self.exists(table, partition) else None

    def scan(self, table: str) -> pl.LazyFrame | None:
        """Every partition of ``table`` as one lazy frame, or None if it has no file yet."""
        if not self.partitions(table):
            return None
        every = self.root / table / f"{self.partition_column}=*" / PARQUET_NAME
        return scan_parquet(every, hive_partitioning=False, missing_columns="insert")

    def exists(self, table: str, partition: str | None = None) -> bool:
        return self.path(table, partition).exists()

    def partitions(self, table: str) -> list[str]:
        prefix = f"{self.partition_column}="
        return sorted(
            p.parent.name.removeprefix(prefix) for p in (self.root / table).glob(f"{prefix}*/{PARQUET_NAME}")
        )

    def tables(self) -> list[str]:
        """Tables with at least one file, in name order."""
        if not self.root.exists():
            return []
        return sorted(
            d.name
            for d in self.root.iterdir()
            if d.is_dir() and _TABLE_NAME.match(d.name) and any(d.glob(f"**/{PARQUET_NAME}"))
        )
