"""Resources: where the record lives, which exchange to sweep, and the Parquet IO manager."""

import datetime as dt
import os
from pathlib import Path

import dagster as dg
import polars as pl
from pydantic import Field

from colosseum_core.forecast.sweep import SweepSettings
from colosseum_core.record import ReceiptStore, RecordTables
from colosseum_core.record.catalog import CATALOG_NAME
from colosseum_core.record.seals import SEALING_TABLE, SealRegistry
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.settings import (
    GAMMA_URL_ENV,
    LOCAL_SPARRING_URL,
    SIMULATED_EXCHANGE_URL,
    SPARRING_URL_ENV,
    data_dir,
)

POLYMARKET_GAMMA_URL = "https://gamma-api.polymarket.com"


class RecordResource(dg.ConfigurableResource):
    """The record's root. Unset means $COLOSSEUM_DATA, else ./data."""

    data_dir: str | None = Field(default=None, description="Record root; default $COLOSSEUM_DATA or ./data")

    @property
    def root(self) -> Path:
        return data_dir(self.data_dir)

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


class GladiatorsResource(dg.ConfigurableResource):
    """Who answers: the seats registry, and the sparring server that hosts house gladiators."""

    sparring_url: str | None = Field(
        default=None,
        description=f"House gladiators' server; default ${SPARRING_URL_ENV}, else {LOCAL_SPARRING_URL}",
    )
    seats_path: str | None = Field(default=None, description="seats.toml; default the repository's")
    timeout_s: float = Field(default=300.0, description="Reply budget per call, in seconds")

    def sparring(self) -> str:
        return (self.sparring_url or os.environ.get(SPARRING_URL_ENV) or LOCAL_SPARRING_URL).rstrip("/")


class ClockResource(dg.ConfigurableResource):
    """Time, injected: the wall clock in production, a fixed instant in tests if configured."""

    fixed_instant: str | None = None

    def now(self) -> dt.datetime:
        if self.fixed_instant:
            return dt.datetime.fromisoformat(self.fixed_instant).astimezone(dt.UTC)
        return dt.datetime.now(dt.UTC)


class ParquetRecordIOManager(dg.ConfigurableIOManager):
    """Each asset partition is one Parquet file of the record, written atomically.

    A sealed card's tables are never rewritten: a write reproducing the sealed bytes is skipped,
    any other is refused. Writing a card's packet table seals the card.
    """

    data_dir: str | None = None

    def _record(self) -> RecordResource:
        return RecordResource(data_dir=self.data_dir)

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
        if partition is not None and not record.seals.admit_write(table, partition, data):
            context.log.info(f"card {partition} is sealed; {table} reproduced its sealed bytes exactly")
        else:
            record.tables.write_bytes(table, data, partition)
        if partition is not None and table == SEALING_TABLE:
            row = obj.row(0, named=True)
            # The moment of sealing is a fact about this write, kept in the seal manifest only, so
            # the card's tables stay reproducible byte for byte.
            sealed_at = dt.datetime.now(dt.UTC).isoformat().replace("+00:00", "Z")
            seal = record.seals.seal(
                partition, kind=row["kind"], packet_id=row["packet_id"], sealed_at=sealed_at
            )
            context.add_output_metadata({"sealed": seal.describe()})
        context.add_output_metadata({"rows": obj.height, "path": dg.MetadataValue.path(str(path))})

    def load_input(self, context: dg.InputContext) -> pl.DataFrame:
        tables = self._tables()
        table = self._table(context)
        if not context.has_asset_partitions:
            return tables.read(table)
        return pl.concat(
            [tables.read(table, key) for key in context.asset_partition_keys], how="diagonal_relaxed"
        )
