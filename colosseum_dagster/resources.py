"""Resources: where the record lives, which exchange to sweep, and the Parquet IO manager.

Every run holds its record lock from its first step to its last: the IO manager, which every step
that writes the record uses, takes it when the run's resources start and drops it when they stop.
A card-partitioned run holds its card's lock and is refused at once if another writer holds it; an
unpartitioned run (the boards) holds the record-wide lock, waiting its turn. Steps that write the
record themselves (the seal) take the same lock again, re-entrantly, as the run's owner.
"""

import contextlib
import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import polars as pl
from pydantic import Field

from colosseum_core.forecast.sealing import CardRecord
from colosseum_core.forecast.sweep import SweepSettings
from colosseum_core.record import ReceiptStore, RecordTables
from colosseum_core.record.catalog import CATALOG_NAME
from colosseum_core.record.locks import LOCKS_DIRNAME, RecordLocks, card_lock
from colosseum_core.record.seals import SealRegistry
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.settings import (
    GAMMA_URL_ENV,
    SIMULATED_EXCHANGE_URL,
    data_dir,
)

POLYMARKET_GAMMA_URL = "https://gamma-api.polymarket.com"
# The boards and the catalog are recomputed from the whole record; their runs take turns.
RECORD_WIDE_LOCK = "record-wide"
RECORD_WIDE_WAIT_S = 600.0


def lock_for(partition: str | None) -> tuple[str, float]:
    """The lock a writer of ``partition`` (None: a record-wide table) holds, and how long it waits."""
    if partition is not None:
        return card_lock(partition), 0.0
    return RECORD_WIDE_LOCK, RECORD_WIDE_WAIT_S


@contextlib.contextmanager
def run_lock(context: dg.InitResourceContext, root: Path) -> Iterator[None]:
    """Hold the run's record lock while its resources live; nothing outside a run (sensors) locks."""
    run = context.run
    if run is None:
        yield
        return
    name, wait_s = lock_for(run.tags.get("dagster/partition"))
    with RecordLocks(root / LOCKS_DIRNAME).hold(
        name, owner=run.run_id, purpose=f"{run.job_name} run", wait_s=wait_s
    ):
        yield


class RecordResource(dg.ConfigurableResource):
    """The record's root. Unset means $COLOSSEUM_DATA, else ./data."""

    data_dir: str | None = Field(default=None, description="Record root; default $COLOSSEUM_DATA or ./data")

    @property
    def root(self) -> Path:
        return data_dir(self.data_dir)

    @property
    def locks(self) -> RecordLocks:
        return RecordLocks(self.root / LOCKS_DIRNAME)

    @property
    def receipts(self) -> ReceiptStore:
        return ReceiptStore(self.root / "receipts")

    @property
    def tables(self) -> RecordTables:
        return RecordTables(self.root / "warehouse")

    @property
    def seals(self) -> SealRegistry:
        return SealRegistry(self.root / "seals", self.tables)

    @property
    def card_record(self) -> CardRecord:
        return CardRecord(tables=self.tables, receipts=self.receipts, seals=self.seals, locks=self.locks)

    def journal_path(self, journal: str, card: str) -> Path:
        """A card's journal of intentions (the answers journal: who was asked, who replied)."""
        return self.root / "journal" / journal / f"card={card}.jsonl"

    @property
    def cache_root(self) -> Path:
        """Disposable copies made for speed (the scores archive); never part of the record."""
        return self.root / "cache"

    @property
    def catalog_path(self) -> Path:
        return self.root / CATALOG_NAME


class ExchangeResource(dg.ConfigurableResource):
    """The Gamma-compatible exchange a card sweeps: the simulated exchange unless told otherwise."""

    gamma_url: str | None = Field(
        default=None,
        description=f"Gamma base URL; default ${GAMMA_URL_ENV}, else the simulated exchange at "
        f"{SIMULATED_EXCHANGE_URL}. The real one is {POLYMARKET_GAMMA_URL}.",
    )
    shards: int = Field(default=4, description="End-date slices paged concurrently")
    max_in_flight: int = Field(default=4, description="Requests in flight at once (Polymarket asks ≤ 4)")
    timeout_s: float = 30.0
    page_cap: int = 2000

    def settings(self) -> SweepSettings:
        url = self.gamma_url or os.environ.get(GAMMA_URL_ENV) or SIMULATED_EXCHANGE_URL
        return SweepSettings(
            base_url=url.rstrip("/"),
            shards=self.shards,
            max_in_flight=self.max_in_flight,
            timeout_s=self.timeout_s,
            page_cap=self.page_cap,
        )


class ClockResource(dg.ConfigurableResource):
    """Time, injected: the wall clock in production, a fixed instant in tests if configured."""

    fixed_instant: str | None = None

    def now(self) -> dt.datetime:
        if self.fixed_instant:
            return dt.datetime.fromisoformat(self.fixed_instant).astimezone(dt.UTC)
        return dt.datetime.now(dt.UTC)


class ParquetRecordIOManager(dg.ConfigurableIOManager):
    """Each asset partition is one Parquet file of the record, written atomically with its ledger entry.

    Every write holds the partition's lock (the run's own, re-entrantly). A sealed card's tables are
    never rewritten, nor a missed card's, nor a table written once per card: a write reproducing the
    recorded bytes is a no-op, any other is refused. Inputs are read only if their bytes are the
    recorded ones. Sealing is not a side effect of a write: the card's sealing step seals.
    """

    data_dir: str | None = None

    def _record(self) -> RecordResource:
        return RecordResource(data_dir=self.data_dir)

    @contextlib.contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator["ParquetRecordIOManager"]:
        with run_lock(context, self._record().root):
            yield self

    def _tables(self) -> RecordTables:
        return self._record().tables

    @staticmethod
    def _table(context: dg.OutputContext | dg.InputContext) -> str:
        return context.asset_key.path[-1]

    def handle_output(self, context: dg.OutputContext, obj: pl.DataFrame) -> None:
        partition = context.asset_partition_key if context.has_asset_partitions else None
        table = self._table(context)
        record = self._record()
        data = parquet_bytes(obj)
        path = record.tables.path(table, partition)
        name, wait_s = lock_for(partition)
        with record.locks.hold(name, owner=context.run_id, purpose=f"writing {table}", wait_s=wait_s):
            if partition is not None:
                record.seals.check_write(table, partition, data)
            changed = record.tables.write_bytes(table, data, partition)
        if not changed:
            context.log.info(f"{table} of {partition or 'the record'}: the record already holds these bytes")
        context.add_output_metadata(
            {"rows": obj.height, "path": dg.MetadataValue.path(str(path)), "unchanged": not changed}
        )

    def load_input(self, context: dg.InputContext) -> pl.DataFrame:
        tables = self._tables()
        table = self._table(context)
        if not context.has_asset_partitions:
            return tables.read_checked(table)
        return pl.concat(
            [tables.read_checked(table, key) for key in context.asset_partition_keys], how="diagonal_relaxed"
        )
