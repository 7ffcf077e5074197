"""The record's layout: one ``Record(root)`` owns every path, for every arena.

::

    <root>/
      receipts/sha256/ab/cdef….json.gz                      every HTTP exchange, content-addressed
      warehouse/<arena>/<table>/<partition>=<key>/data.parquet   a partitioned table's file
      warehouse/<arena>/<table>/data.parquet                  a table of the whole arena
      seals/<arena>/<partition>=<key>.json                    seals (and .missed.json records)
      journal/<arena>/<journal>/<partition>=<key>.jsonl       journals of intentions
      keys/<name>/<valid-from>.key                            private keys, never published
      locks/                                                  writers' locks, not the record
      cache/                                                  disposable copies, not the record
      colosseum.duckdb                                        views, one schema per arena
      site/                                                   the built public site

Every file the writer writes has its ledger sidecar (``<file>.sha256``). The platform knows no arena
by name: an arena describes its own record with an ``ArenaRecord`` (its name, its partition noun,
its sealing policy and the views analysts know it by) and the record lays it out under its name.

A record written before the arenas had folders (``warehouse/<table>/…``, ``seals/card=….json``) is
refused with ``LegacyLayoutError``, which says how to move it: ``colosseum record migrate``.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from colosseum_core.record.locks import LOCKS_DIRNAME, RecordLocks, WriterLocks
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.record.seals import SealingPolicy, SealRegistry
from colosseum_core.record.storage import ObjectStoreError, RecordPath, is_remote, record_path
from colosseum_core.record.tables import PARQUET_NAME, RecordTables, check_partition_key
from colosseum_core.settings import LOCAL_DIR_ENV, POSTGRES_URL_ENV

WAREHOUSE = "warehouse"
RECEIPTS = "receipts"
SEALS = "seals"
JOURNAL = "journal"
KEYS = "keys"
CACHE = "cache"
SITE = "site"
CATALOG_NAME = "colosseum.duckdb"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class RemoteRecordError(ObjectStoreError):
    """A record on object storage asked for what only the production profile provides."""


class LegacyLayoutError(ValueError):
    """A record in the layout before arenas had folders: it must be moved before it is used."""


@dataclasses.dataclass(frozen=True)
class ArenaRecord:
    """What the record needs to know of an arena: where its files go and which of them seal.

    ``partition`` is the arena's partition noun (``card``, ``epoch``, ``event``): the column of its
    partitioned tables and the prefix of its partition folders and seal files. ``views`` are the
    names analysts know some of its tables by, as DuckDB views in the arena's schema.

    An arena whose tables are partitioned two ways (the debate's epochs, and its topic rotations
    every six hours) describes each way as a record of its own, each with its own partition noun and
    sealing policy; ``schema_name`` puts their views in one DuckDB schema (default: the record's name).
    """

    name: str
    partition: str
    sealing: SealingPolicy
    views: Mapping[str, str] = dataclasses.field(default_factory=dict)
    schema_name: str | None = None

    @property
    def schema(self) -> str:
        """The DuckDB schema of the record's views."""
        return self.schema_name or self.name

    def __post_init__(self) -> None:
        for what, value in (("name", self.name), ("partition", self.partition), ("schema", self.schema)):
            if not _NAME.match(value):
                raise ValueError(f"arena {what} {value!r} must be snake_case")
        object.__setattr__(self, "views", MappingProxyType(dict(self.views)))


@dataclasses.dataclass(frozen=True)
class Record:
    """The record at ``root``: every path of it, and the stores over them.

    ``root`` is a directory, or an ``s3://`` URL (``storage.py``): a record on a bucket keeps there
    what is published (receipts, tables, seals, journals) and keeps this host's own files (the
    DuckDB catalog, disposable caches, the private keys, the site as built) in a local directory,
    ``$COLOSSEUM_LOCAL_DIR`` (default ``~/.cache/colosseum/<bucket>/<prefix>``).
    """

    root: RecordPath

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", record_path(self.root))

    @property
    def on_object_store(self) -> bool:
        return is_remote(self.root)

    @property
    def local_dir(self) -> Path:
        """Where this host keeps its own files of the record: the root itself when it is local."""
        if not is_remote(self.root):
            return self.root  # type: ignore[return-value]
        configured = os.environ.get(LOCAL_DIR_ENV)
        if configured:
            return Path(configured).resolve()
        return Path.home() / ".cache" / "colosseum" / str(self.root).split("://", 1)[1]

    @property
    def receipts(self) -> ReceiptStore:
        return ReceiptStore(self.root / RECEIPTS)

    @property
    def warehouse(self) -> Path:
        return self.root / WAREHOUSE

    def holds_a_table(self) -> bool:
        """Whether any arena has written a table: a warehouse/ with none (empty, or only empty arena
        folders) is not a record yet, to ``verify`` and ``board build`` alike."""
        return next(iter(self.warehouse.rglob(PARQUET_NAME)), None) is not None

    def tables(self, arena: ArenaRecord) -> RecordTables:
        return RecordTables(self.warehouse / arena.name, partition_column=arena.partition)

    def seals(self, arena: ArenaRecord) -> SealRegistry:
        return SealRegistry(self.root / SEALS / arena.name, self.tables(arena), arena.sealing)

    def journal_path(self, arena: ArenaRecord, journal: str, partition: str) -> Path:
        """A partition's journal of intentions (the forecast's answers journal: who was asked, who
        replied)."""
        if not _NAME.match(journal):
            raise ValueError(f"journal name {journal!r} must be snake_case")
        check_partition_key(partition)
        return self.root / JOURNAL / arena.name / journal / f"{arena.partition}={partition}.jsonl"

    @property
    def locks(self) -> WriterLocks:
        """The writers' locks: files on this disk, or, in the production profile
        (``COLOSSEUM_POSTGRES_URL`` set), advisory locks in its database, which hold across hosts."""
        url = os.environ.get(POSTGRES_URL_ENV)
        if url:
            from colosseum_core.record.locks_postgres import PostgresLocks

            return PostgresLocks(url)
        if self.on_object_store:
            raise RemoteRecordError(
                f"the record at {self.root} is on object storage, shared between hosts, and a lock "
                f"file on one host's disk would not keep another host out: set {POSTGRES_URL_ENV} "
                "(the production profile's database holds the writers' locks)"
            )
        return RecordLocks(self.root / LOCKS_DIRNAME)

    @property
    def keys_dir(self) -> Path:
        """Private keys, never published: on this host (on a record on a bucket, mount them here)."""
        return self.local_dir / KEYS

    @property
    def cache_root(self) -> Path:
        """Disposable copies made for speed (the scores archive); never part of the record."""
        return self.local_dir / CACHE

    @property
    def catalog_path(self) -> Path:
        """The DuckDB catalog: views over the tables, wherever they are; a file on this host."""
        return self.local_dir / CATALOG_NAME

    @property
    def site_dir(self) -> Path:
        """Where the site is built: in the record, or for a record on a bucket on this host."""
        return self.local_dir / SITE

    @property
    def published_site(self) -> RecordPath:
        """Where the public reads the site: ``site_dir``, or for a record on a bucket its ``site/``."""
        return self.root / SITE

    def arenas(self) -> list[str]:
        """The arenas with a folder in the warehouse, in name order."""
        if not self.warehouse.is_dir():
            return []
        return sorted(d.name for d in self.warehouse.iterdir() if d.is_dir() and _NAME.match(d.name))

    def legacy_layout(self) -> list[str]:
        """What in this record is laid out as before arenas had folders (relative paths); [] if nothing."""
        found: list[str] = []
        if self.warehouse.is_dir():
            for folder in sorted(self.warehouse.iterdir()):
                # An arena's folder holds table folders; a table's holds its files or partitions.
                holds_files = folder.is_dir() and (
                    (folder / PARQUET_NAME).exists()
                    or any(p.is_dir() and "=" in p.name for p in folder.iterdir())
                )
                if holds_files:
                    found.append(folder.relative_to(self.root).as_posix())
        seals = self.root / SEALS
        if seals.is_dir():
            found += sorted(p.relative_to(self.root).as_posix() for p in seals.iterdir() if p.is_file())
        journal = self.root / JOURNAL
        if journal.is_dir():
            for folder in sorted(journal.iterdir()):
                if folder.is_dir() and any(p.is_file() for p in folder.iterdir()):
                    found.append(folder.relative_to(self.root).as_posix())
        return found

    def check_layout(self) -> None:
        """Raise ``LegacyLayoutError`` if any of the record is still in the layout before arenas."""
        legacy = self.legacy_layout()
        if legacy:
            shown = ", ".join(legacy[:4]) + (f" and {len(legacy) - 4} more" if len(legacy) > 4 else "")
            raise LegacyLayoutError(
                f"the record at {self.root} is in the layout from before arenas had folders ({shown}); "
                f"move it with `colosseum record migrate --data {self.root}` (it renames folders, "
                "changes no byte, and can be run again if interrupted)"
            )
