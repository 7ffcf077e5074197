"""The archive: a compacted, disposable copy of a per-card table for reading it whole.

A per-card table (``scores``) is the record: one Parquet file per card, each written atomically
and never read any other way by the audit. Reading ten years of it whole (about 11,000 files)
costs about 3 s in per-file overhead alone, while the same rows in a few hundred files read in a
tenth of that. The archive keeps those few files: one *segment* per month of cards, holding the
rows of every card of the month in card order, under ``<data>/cache/archive/<table>/``.

A segment is used only while every file it was built from is unchanged: the index records each
card file's (size, mtime_ns, ctime_ns, inode) and a segment whose cards differ in any of them, or
gained or lost a card, is rebuilt from the card files before it is read. Record files are only
ever replaced by rename, which gives the replacement a new inode and ctime, so a changed card is
always seen (this is the stat check git's index relies on). Anything wrong with the archive (a
missing or unreadable segment, another index format, a read-only disk) falls back to the card
files; deleting the whole directory is always safe.

An archive may keep only some ``columns`` (the boards read thirteen of the scores' twenty-eight).
Columns named ``categorical`` are stored as polars Categorical, so a reader gets dictionary codes
without building them (the boards aggregate over codes, see ``forecast/tallies``), and integer
columns named in ``narrow`` in the smaller type given when every value fits: less to read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Final

import polars as pl

from colosseum_core.record.atomic import atomic_target, write_bytes_atomic
from colosseum_core.record.storage import is_remote, object_signatures, scan_parquet
from colosseum_core.record.tables import PARQUET_NAME, RecordTables

ARCHIVE_FORMAT: Final = "COLOSSEUM-ARCHIVE-1"
INDEX_NAME: Final = "index.json"

Signature = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


def month_of(key: str) -> str:
    """A date-keyed partition's segment: the month its key begins with (``2026-11-29-1000`` →
    ``2026-11``); an arena whose keys are not dates passes its own ``segment_of``."""
    return key[:7]


@dataclasses.dataclass(frozen=True)
class ArchivedRead:
    """A whole table as read through the archive, and what the read did."""

    frame: pl.DataFrame
    partitions: int
    segments_reused: int
    segments_rebuilt: int
    archive_written: bool  # False when the archive could not be updated (the frame is still whole)


class TableArchive:
    """Read every partition of ``table`` whole, through a compacted copy kept under ``root``."""

    def __init__(
        self,
        tables: RecordTables,
        table: str,
        root: Path | str,
        *,
        columns: Sequence[str] | None = None,
        categorical: Sequence[str] = (),
        narrow: Mapping[str, pl.DataType] | None = None,
        segment_of: Callable[[str], str] = month_of,
    ) -> None:
        self.tables = tables
        self.table = table
        self.root = Path(root) / table
        self.columns = None if columns is None else list(columns)
        self.categorical = tuple(categorical)
        self.narrow = dict(narrow or {})
        self.segment_of = segment_of

    # ----------------------------------------------------------------------------------------

    def signatures(self) -> dict[str, Signature]:
        """Every card file of the table with its stat signature, in card order."""
        folder = self.tables.root / self.table
        prefix = f"{self.tables.partition_column}="
        if is_remote(folder):  # a record on a bucket: each object's size, time and ETag
            listed = object_signatures(folder, PARQUET_NAME)
            return {k.removeprefix(prefix): v for k, v in sorted(listed.items()) if k.startswith(prefix)}
        found: dict[str, Signature] = {}
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            return found
        for entry in entries:
            if not entry.name.startswith(prefix):
                continue
            try:
                st = os.stat(os.path.join(entry.path, PARQUET_NAME))
            except (FileNotFoundError, NotADirectoryError):
                continue
            found[entry.name.removeprefix(prefix)] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        return dict(sorted(found.items()))

    def _header(self) -> dict[str, object]:
        """What the segments were made as: an index with another header is not reused."""
        return {
            "format": ARCHIVE_FORMAT,
            "table": self.table,
            "columns": self.columns,
            "categorical": list(self.categorical),
            "narrow": {column: str(dtype) for column, dtype in sorted(self.narrow.items())},
        }

    def _index(self) -> dict[str, dict]:
        try:
            index = json.loads((self.root / INDEX_NAME).read_text())
        except (OSError, ValueError):
            return {}
        header = self._header()
        same = isinstance(index, dict) and all(index.get(key) == value for key, value in header.items())
        return index.get("segments", {}) if same else {}

    def _segment_file(self, segment: str, cards: dict[str, Signature]) -> str:
        digest = hashlib.sha256(json.dumps(cards, sort_keys=True).encode()).hexdigest()[:16]
        return f"{segment}.{digest}.parquet"

    def _read_cards(self, cards: Sequence[str]) -> pl.DataFrame:
        paths = [self.tables.path(self.table, card) for card in cards]
        return self.encode(scan_parquet(paths, hive_partitioning=False, missing_columns="insert").collect())

    def encode(self, frame: pl.DataFrame) -> pl.DataFrame:
        """``frame`` (rows of the table) as a segment holds them: the archive's columns, dictionary
        codes and narrow types. What a read returns."""
        frame = frame if self.columns is None else frame.select(self.columns)
        frame = frame.with_columns(
            pl.col(c).cast(pl.String).cast(pl.Categorical) for c in self.categorical if c in frame.columns
        )
        for column, dtype in self.narrow.items():
            if column in frame.columns:
                # Only where every value fits: a value out of range keeps the column as it was.
                with contextlib.suppress(pl.exceptions.PolarsError):
                    frame = frame.with_columns(pl.col(column).cast(dtype, strict=True))
        return frame

    def _read_segments(self, entries: list[dict]) -> list[pl.DataFrame | None]:
        """Each indexed segment's rows, None for one that cannot be read or has other than its
        recorded row count. One parallel read when all share a schema (the usual case); one by one
        otherwise, to find the bad ones."""
        if not entries:
            return []
        try:
            together = pl.read_parquet([self.root / entry["file"] for entry in entries])
        except (OSError, pl.exceptions.PolarsError):
            together = None
        if together is not None and together.height == sum(entry["rows"] for entry in entries):
            out, offset = [], 0
            for entry in entries:
                out.append(together.slice(offset, entry["rows"]))
                offset += entry["rows"]
            return out
        return [self._read_segment(entry) for entry in entries]

    def _read_segment(self, entry: dict) -> pl.DataFrame | None:
        try:
            frame = pl.read_parquet(self.root / entry["file"])
        except (OSError, pl.exceptions.PolarsError):
            return None
        return frame if frame.height == entry["rows"] else None

    def read(self) -> ArchivedRead | None:
        """The whole table (card order, as a scan of every card file gives it), or None if empty."""
        current = self.signatures()
        if not current:
            return None
        by_segment: dict[str, dict[str, Signature]] = {}
        for card, signature in current.items():
            by_segment.setdefault(self.segment_of(card), {})[card] = signature
        known = self._index()
        index = {
            segment: {"file": self._segment_file(segment, cards), "cards": cards}
            for segment, cards in by_segment.items()
        }
        unchanged = [
            segment
            for segment, cards in by_segment.items()
            if segment in known
            and known[segment].get("file") == index[segment]["file"]
            and isinstance(known[segment].get("rows"), int)
            and {k: tuple(v) for k, v in known[segment].get("cards", {}).items()} == cards
        ]
        frames = dict(zip(unchanged, self._read_segments([known[s] for s in unchanged]), strict=True))
        rebuilt = {
            segment: self._read_cards(list(cards))
            for segment, cards in by_segment.items()
            if frames.get(segment) is None
        }
        for segment, entry in index.items():
            entry["rows"] = (rebuilt[segment] if segment in rebuilt else frames[segment]).height
        written = not rebuilt or self._write(index, rebuilt)
        parts = [rebuilt[s] if s in rebuilt else frames[s] for s in by_segment]
        whole = pl.concat(parts, how="diagonal_relaxed", rechunk=True)
        return ArchivedRead(whole, len(current), len(by_segment) - len(rebuilt), len(rebuilt), written)

    def _write(self, index: dict[str, dict], rebuilt: dict[str, pl.DataFrame]) -> bool:
        try:
            for segment, frame in rebuilt.items():
                with atomic_target(self.root / index[segment]["file"]) as tmp:
                    frame.write_parquet(tmp, compression="lz4", statistics=False)
            document = {**self._header(), "segments": index}
            write_bytes_atomic(self.root / INDEX_NAME, json.dumps(document, sort_keys=True).encode())
        except OSError:
            return False  # a read-only record still reads whole, from the card files
        keep = {entry["file"] for entry in index.values()} | {INDEX_NAME}
        for stale in self.root.glob("*.parquet"):
            if stale.name not in keep:
                with contextlib.suppress(OSError):
                    stale.unlink()
        return True
