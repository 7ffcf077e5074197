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
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path

import dagster as dg
import polars as pl
from pydantic import Field

from colosseum_core.arenas import ARENAS
from colosseum_core.exchanges.polymarket.client import SweepSettings
from colosseum_core.record import ReceiptStore, RecordTables
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.locks import WriterLocks, partition_lock
from colosseum_core.record.seals import SealRegistry
from colosseum_core.record.storage import data_dir
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.settings import (
    GAMMA_URL_ENV,
    SIMULATED_EXCHANGE_URL,
)

POLYMARKET_GAMMA_URL = "https://gamma-api.polymarket.com"
# The boards and the catalog are recomputed from the whole record; their runs take turns.
RECORD_WIDE_LOCK = "record-wide"
RECORD_WIDE_WAIT_S = 600.0
ARENAS_BY_NAME = {arena.name: arena for arena in ARENAS}


# Every arena's jobs carry it, so a run's lock is its arena's partition lock.
ARENA_TAG = "colosseum/arena"


def lock_for(arena: ArenaRecord | None, partition: str | None) -> tuple[str, float]:
    """The lock a writer of ``arena``'s ``partition`` (None: a record-wide table) holds, and how long
    it waits."""
    if partition is not None:
        if arena is None:
            raise dg.Failure(f"partition {partition} of no arena: the record cannot say who may write it")
        return partition_lock(arena.partition, partition), 0.0
    return RECORD_WIDE_LOCK, RECORD_WIDE_WAIT_S


def run_arena(run: dg.DagsterRun) -> ArenaRecord | None:
    """The arena a run writes: its job's tag, else the arena of the assets it was launched for (a
    materialization or a backfill from the UI). None if it names none, or more than one."""
    tagged = run.tags.get(ARENA_TAG)
    if tagged is not None:
        return ARENAS_BY_NAME.get(tagged)
    named = {k.path[0] for k in run.asset_selection or () if len(k.path) == 2}
    return ARENAS_BY_NAME.get(named.pop()) if len(named) == 1 else None


# Who started a run, as the CLI tags its own (with its pid and host, to tell a live run from one whose
# process died); Dagster tags a sensor's, a schedule's and a backfill's runs itself.
STARTED_BY_TAG = "colosseum/started_by"
PID_TAG = "colosseum/pid"
HOST_TAG = "colosseum/host"
IN_PROGRESS = {
    dg.DagsterRunStatus.QUEUED: "queued",
    dg.DagsterRunStatus.NOT_STARTED: "about to start",
    dg.DagsterRunStatus.STARTING: "starting",
    dg.DagsterRunStatus.STARTED: "running",
    dg.DagsterRunStatus.CANCELING: "being canceled",
}


def cli_run_tags(command: str) -> dict[str, str]:
    """The tags of a run the CLI starts: the command, this process and its host."""
    return {STARTED_BY_TAG: command, PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()}


def started_by(tags: Mapping[str, str]) -> str:
    """Who started a run, from its tags, as one reads it in a refusal."""
    if STARTED_BY_TAG in tags:
        return f"`{tags[STARTED_BY_TAG]}` (pid {tags.get(PID_TAG)} on {tags.get(HOST_TAG)})"
    for tag, what in (
        ("dagster/sensor_name", "the daemon's sensor"),
        ("dagster/schedule_name", "the daemon's schedule"),
        ("dagster/backfill", "backfill"),
    ):
        if tag in tags:
            return f"{what} {tags[tag]}"
    return "the UI"


def cli_run_gone(tags: Mapping[str, str]) -> bool:
    """A CLI run whose process is no longer alive on this host (killed): it writes nothing any more."""
    pid = tags.get(PID_TAG)
    if tags.get(HOST_TAG) != socket.gethostname() or not (pid or "").isdigit():
        return False
    try:
        os.kill(int(pid), 0)  # type: ignore[arg-type]
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def partition_in_flight(
    instance: dg.DagsterInstance, arena: ArenaRecord, partition: str, root: Path
) -> str | None:
    """Who is writing ``arena``'s ``partition`` now, in one phrase naming the run and who started it:
    a run of it in progress on the instance (queued, starting or started, from the CLI, the UI, a
    sensor or a schedule), else the holder of the record's lock for it (a writer on another instance
    or host); None when nobody is."""
    runs = instance.get_runs(
        filters=dg.RunsFilter(tags={"dagster/partition": partition}, statuses=list(IN_PROGRESS))
    )
    for run in runs:
        if run_arena(run) in (arena, None) and not cli_run_gone(run.tags):
            return (
                f"{run.job_name} run {run.run_id} (started by {started_by(run.tags)}, "
                f"{IN_PROGRESS[run.status]})"
            )
    holder = Record(root).locks.holder(partition_lock(arena.partition, partition))
    return holder.describe() if holder is not None else None


def partitions_being_written(instance: dg.DagsterInstance, own_run_id: str) -> list[str]:
    """The runs other than ``own_run_id`` writing a partition of some arena's record at this moment
    (starting or started; a command's run whose process is gone writes nothing), each as
    "<job> for <partition>"."""
    statuses = [dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED]
    return [
        f"{run.job_name} for {run.tags['dagster/partition']}"
        for run in instance.get_runs(filters=dg.RunsFilter(statuses=statuses))
        if run.run_id != own_run_id and "dagster/partition" in run.tags and not cli_run_gone(run.tags)
    ]


@contextlib.contextmanager
def run_lock(context: dg.InitResourceContext, root: Path) -> Iterator[None]:
    """Hold the run's record lock while its resources live; nothing outside a run (sensors) locks."""
    run = context.run
    if run is None:
        yield
        return
    partition = run.tags.get("dagster/partition")
    name, wait_s = lock_for(run_arena(run) if partition is not None else None, partition)
    purpose = f"{run.job_name} run started by {started_by(run.tags)}"
    with Record(root).locks.hold(name, owner=run.run_id, purpose=purpose, wait_s=wait_s):
        yield


class RecordResource(dg.ConfigurableResource):
    """The record's root (unset: $COLOSSEUM_DATA, else ./data) and every arena's stores in it."""

    data_dir: str | None = Field(default=None, description="Record root; default $COLOSSEUM_DATA or ./data")

    @property
    def root(self) -> Path:
        return data_dir(self.data_dir)

    @property
    def layout(self) -> Record:
        """The record's every path (``colosseum_core.record.layout``)."""
        return Record(self.root)

    @property
    def locks(self) -> WriterLocks:
        return self.layout.locks

    @property
    def receipts(self) -> ReceiptStore:
        return self.layout.receipts

    def tables(self, arena: ArenaRecord) -> RecordTables:
        return self.layout.tables(arena)

    def seals(self, arena: ArenaRecord) -> SealRegistry:
        return self.layout.seals(arena)

    def journal_path(self, arena: ArenaRecord, journal: str, partition: str) -> Path:
        """A partition's journal of intentions (the forecast's answers: who was asked, who replied)."""
        return self.layout.journal_path(arena, journal, partition)

    @property
    def cache_root(self) -> Path:
        """Disposable copies made for speed (the scores archive); never part of the record."""
        return self.layout.cache_root

    @property
    def catalog_path(self) -> Path:
        return self.layout.catalog_path


# Every step that sends requests to the exchange takes this pool (limit 1 by default): the request
# budget is the account's, not the run's, so two sweeps at once would each get half of it.
EXCHANGE_POOL = "exchange_requests"


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
        root = self._record().root
        # A record in the layout before arenas had folders would be written beside, not into: refuse.
        Record(root).check_layout()
        with run_lock(context, root):
            yield self

    @staticmethod
    def _arena_and_table(context: dg.OutputContext | dg.InputContext) -> tuple[ArenaRecord, str]:
        """An asset ``<arena>/<table>``: the arena's record and the table's name."""
        path = context.asset_key.path
        arena = ARENAS_BY_NAME.get(path[0]) if len(path) == 2 else None
        if arena is None:
            raise dg.Failure(
                f"asset {context.asset_key.to_user_string()} is not an arena's table (<arena>/<table>, "
                f"arenas: {', '.join(sorted(ARENAS_BY_NAME))}); the record has no place for it"
            )
        return arena, path[1]

    def handle_output(self, context: dg.OutputContext, obj: pl.DataFrame) -> None:
        partition = context.asset_partition_key if context.has_asset_partitions else None
        arena, table = self._arena_and_table(context)
        record = self._record()
        tables = record.tables(arena)
        data = parquet_bytes(obj)
        path = tables.path(table, partition)
        name, wait_s = lock_for(arena, partition)
        with record.locks.hold(name, owner=context.run_id, purpose=f"writing {table}", wait_s=wait_s):
            if partition is not None:
                record.seals(arena).check_write(table, partition, data)
            changed = tables.write_bytes(table, data, partition)
        if not changed:
            context.log.info(f"{table} of {partition or 'the record'}: the record already holds these bytes")
        context.add_output_metadata(
            {"rows": obj.height, "path": dg.MetadataValue.path(str(path)), "unchanged": not changed}
        )

    def load_input(self, context: dg.InputContext) -> pl.DataFrame:
        arena, table = self._arena_and_table(context)
        tables = self._record().tables(arena)
        if not context.has_asset_partitions:
            return tables.read_checked(table)
        return pl.concat(
            [tables.read_checked(table, key) for key in context.asset_partition_keys], how="diagonal_relaxed"
        )


# The model providers' conventional key variables: every arena's real contenders are reached with one.
PROVIDER_KEY_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "COHERE_API_KEY",
    "DASHSCOPE_API_KEY",
    "DEEPSEEK_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
    "MOONSHOT_API_KEY",
    "OPENAI_API_KEY",
    "TOGETHER_API_KEY",
    "XAI_API_KEY",
)


class ProviderKeysResource(dg.ConfigurableResource):
    """The model providers' API keys, each a secret from its environment variable (``dg.EnvVar``), so the
    UI shows which variable a key comes from and never its value. A key left unset means that
    provider's contenders are not reachable: an arena seats its house player instead."""

    anthropic_api_key: str | None = None
    cohere_api_key: str | None = None
    dashscope_api_key: str | None = None
    deepseek_api_key: str | None = None
    gemini_api_key: str | None = None
    mistral_api_key: str | None = None
    moonshot_api_key: str | None = None
    openai_api_key: str | None = None
    together_api_key: str | None = None
    xai_api_key: str | None = None
    # A model named with a key variable of its own (``providers.models``: a local server's, a trial's):
    # only the names are config (a run's config is stored), the values are read when the run asks.
    variables: list[str] = Field(
        default_factory=list, description="Further key variables a run may read, by name (never the key)"
    )

    def by_variable(self) -> dict[str, str]:
        """The keys that are set, by their environment variable's name (what a registry names)."""
        values = {variable: getattr(self, variable.lower()) for variable in PROVIDER_KEY_VARIABLES}
        values |= {variable: os.environ.get(variable) for variable in self.variables}
        return {variable: value for variable, value in values.items() if value}


def provider_keys_set(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The provider keys set in ``environ``, by variable: what a command outside a Dagster run asks with
    (the resource's ``EnvVar`` values are read only inside a run)."""
    return {variable: environ[variable] for variable in PROVIDER_KEY_VARIABLES if environ.get(variable)}


def provider_keys_from_environment(environ: Mapping[str, str] = os.environ) -> ProviderKeysResource:
    """The resource with an ``EnvVar`` for every provider variable set when the definitions load (an
    ``EnvVar`` of an unset variable would fail every run); set a key, then reload the code location."""
    return ProviderKeysResource(
        **{
            variable.lower(): dg.EnvVar(variable)
            for variable in PROVIDER_KEY_VARIABLES
            if environ.get(variable)
        }
    )
