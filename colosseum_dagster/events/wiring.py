"""One factory for every event kind's Dagster wiring: its steps' assets, its seal, its jobs.

A kind (``colosseum_core.events.kind``) names its steps and tables; its wiring (``KindWiring``, the
``WIRING`` of the module its ``EventKind.wiring`` names) adds what Dagster needs: each step's body,
what it reads, its descriptions and words, its freeze and its seal. ``kind_assets`` builds from that
one multi-asset per step, each written once: if the step's tables are recorded they are read, else
the body runs; a body that asks contenders gets the asking settings as one value (``Asking``). The
last asset derives the standings and seals the event (``manifests.sealed_event``). The asset keys
are ``events/<table>``, the op names ``events__<a step's first table>`` (the seal's: its sealing
table), the jobs ``<prefix>_freeze_job`` and
``<prefix>_event_job``, as they were when each kind was wired by hand.
"""

import contextlib
import dataclasses
import datetime as dt
import importlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import dagster as dg
import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.kind import EventKind
from colosseum_dagster.events.manifests import (
    ARENA,
    SHARED_STEP_WORDS,
    FreezeConfig,
    event_partitions,
    key,
    op_name,
    sealed_event,
)
from colosseum_dagster.events.resources import AskingResource
from colosseum_dagster.resources import ClockResource, ProviderKeysResource, RecordResource
from colosseum_dagster.wiring import recorded as recorded_tables

Frames = dict[str, pl.DataFrame]
# What ``dg.define_asset_job`` returns (an unresolved job; its class is not in dagster's public API).
AssetJob = Any
# Metadata by output table, from a step's frames.
Metadata = Callable[[Mapping[str, pl.DataFrame]], Mapping[str, Mapping[str, Any]]]


@dataclasses.dataclass(frozen=True)
class Asking:
    """How a step asks contenders or judges, as one value: the sparring server for house players,
    the providers' keys, the clock, how many at once, and the provider slots held for the step."""

    sparring_url: str
    environ: Mapping[str, str]
    clock: Callable[[], dt.datetime]
    concurrency: int
    per_provider: Mapping[str, int] | int

    def keywords(self) -> dict[str, Any]:
        """The settings as the kinds' run functions take them."""
        # Not ``dataclasses.asdict``: it would deep-copy the clock (a resource's bound method).
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclasses.dataclass(frozen=True)
class StepRun:
    """What a step's body is handed: the event, its manifest, the tables it reads (by name), the
    record and the kind's resource (its sparring server, its concurrency)."""

    context: dg.AssetExecutionContext
    event: str
    manifest: pl.DataFrame
    inputs: Mapping[str, pl.DataFrame]
    record: RecordResource
    clock: ClockResource
    provider_keys: ProviderKeysResource
    resource: AskingResource

    @property
    def keys(self) -> Any:
        """The record's key store (``trust.keys.KeyStore``)."""
        from colosseum_core.trust.keys import KeyStore

        return KeyStore.for_data(self.record.root)

    @contextlib.contextmanager
    def asking(self, asked: Sequence[Mapping[str, Any]]) -> Iterator[Asking]:
        """The asking settings for ``asked`` (contenders or judges), their providers' slots held."""
        with self.resource.provider_slots(self.context, asked) as held:
            yield Asking(
                sparring_url=self.resource.sparring(),
                environ=self.provider_keys.by_variable(),
                clock=self.clock.now,
                concurrency=self.resource.concurrency,
                per_provider=held,
            )


@dataclasses.dataclass(frozen=True)
class Freezing:
    """What a kind's freeze is handed: the event, the freeze's config, the record, the providers'
    keys by variable, the instant and the kind's resource."""

    event: str
    config: FreezeConfig
    record: RecordResource
    environ: dict[str, str]
    now: dt.datetime
    resource: AskingResource

    @property
    def keys(self) -> Any:
        from colosseum_core.trust.keys import KeyStore

        return KeyStore.for_data(self.record.root)

    def seed(self) -> int:
        """The config's seed, else one drawn now (and recorded in the manifest)."""
        import secrets

        return self.config.seed if self.config.seed is not None else secrets.randbelow(2**32)

    def keywords(self, default_contenders: object) -> dict[str, Any]:
        """What every kind's freeze is handed, as one value: the event, the contenders' registry (the
        config's, else ``default_contenders``), the providers' keys, the seed, the key store, the
        instant, the bootstrap's replicates, the contenders kept, the check of a FIGHT event's models
        and the trial's record (None but in a model maker's trial)."""
        return {
            "event": self.event,
            "contenders_path": self.config.contenders or str(default_contenders),
            "environ": self.environ,
            "seed": self.seed(),
            "keys": self.keys,
            "now": self.now,
            "replicates": self.config.replicates,
            "only": self.config.only,
            "check": self.check_models,
            "trial": json.loads(self.config.trial) if self.config.trial else None,
        }

    def check_models(self, entries: Sequence[Mapping[str, Any]]) -> object:
        """A FIGHT event's models, each asked once before it is frozen (``providers.check``): the
        receipts go to a scratch folder, never the record."""
        import time

        from colosseum_core.providers.check import require_entries_reachable

        return require_entries_reachable(
            entries,
            environ=self.environ,
            sparring_url=self.resource.sparring(),
            clock=lambda: self.now,
            monotonic=time.monotonic,
        )


def frozen_metadata(frozen: Any, **summary: Any) -> dict[str, Any]:
    """A frozen manifest as its asset's metadata: its SHA-256, class and contenders, and ``summary``."""
    document = frozen.document
    return {
        "manifest_sha256": frozen.sha256,
        "class": document["class"],
        "contenders": len(document["contenders"]),
        **summary,
    }


class Errors:
    """A kind's own errors by their dotted names, imported only when one is raised (a kind's rules,
    and python-chess with the chess event's, stay unimported until a step runs)."""

    def __init__(self, *names: str) -> None:
        self.names = names

    def __call__(self) -> tuple[type[Exception], ...]:
        return tuple(
            getattr(importlib.import_module(module), name)
            for module, _, name in (n.rpartition(".") for n in self.names)
        )


@dataclasses.dataclass(frozen=True)
class StepWiring:
    """One step of a kind in Dagster: ``step`` is the kind's step's name; ``run`` computes its tables
    (only when they are not recorded); ``reads``, the earlier tables it is handed; ``describe``, each
    of its tables' description; ``words``, how a run's progress names it."""

    step: str
    run: Callable[[StepRun], Mapping[str, pl.DataFrame]]
    describe: Mapping[str, str]
    words: str
    reads: tuple[str, ...] = ()
    pool: str | None = None
    metadata: Metadata | None = None


@dataclasses.dataclass(frozen=True)
class SealWiring:
    """The kind's standings in Dagster: ``derive`` computes them from what the event wrote (its
    frozen manifest, the tables, the checks' counts); they seal the event."""

    derive: Callable[[StepRun], tuple[Any, Frames, dict[str, int]]]
    describe: Mapping[str, str]
    words: str
    reads: tuple[str, ...]
    metadata: Metadata | None = None


@dataclasses.dataclass(frozen=True)
class KindWiring:
    """A kind of event as Dagster runs it. ``prefix`` names its jobs; ``resource``, the resource its
    steps ask through (its sparring server and concurrency); ``failures``, the kind's own errors
    (imported when one is raised), which fail a step with their message."""

    kind: EventKind
    prefix: str
    group: str
    resource: str
    steps: tuple[StepWiring, ...]
    seal: SealWiring
    freeze: Callable[[Freezing], tuple[Mapping[str, Any], pl.DataFrame]]
    failures: Callable[[], tuple[type[Exception], ...]]
    event_job: str
    freeze_job: str

    def __post_init__(self) -> None:
        named = tuple(s.name for s in self.kind.steps)
        if tuple(s.step for s in self.steps) != named:
            raise ValueError(
                f"event kind {self.kind.name}: its wiring's steps {[s.step for s in self.steps]} are not "
                f"its steps {list(named)}"
            )
        known: set[str] = set()
        for step, tables in [
            *((s, self.tables_of(s.step)) for s in self.steps),
            (self.seal, self.kind.standings),
        ]:
            if set(step.describe) != set(tables):
                raise ValueError(
                    f"event kind {self.kind.name}: the descriptions of {tables} are of {list(step.describe)}"
                )
            if unknown := [t for t in step.reads if t not in known]:
                raise ValueError(
                    f"event kind {self.kind.name}: a step reads {unknown}, not written before it"
                )
            known.update(tables)

    def tables_of(self, step: str) -> tuple[str, ...]:
        """The tables the kind's step ``step`` writes."""
        return next(s.tables for s in self.kind.steps if s.name == step)

    @property
    def step_words(self) -> dict[str, str]:
        """How a run's progress names each step of the kind's jobs."""
        steps = [(self.tables_of(s.step)[0], s.words) for s in self.steps]
        return {
            **SHARED_STEP_WORDS,
            **{op_name(t): w for t, w in (*steps, (self.kind.sealing, self.seal.words))},
        }


@contextlib.contextmanager
def _failing(wiring: KindWiring) -> Iterator[None]:
    """The kind's own errors fail the step with their message (the clause is evaluated only when one
    is raised, so a kind's rules are imported only then)."""
    try:
        yield
    except Exception as exc:
        if isinstance(exc, wiring.failures()):
            raise dg.Failure(str(exc)) from exc
        raise


def _outputs(
    frames: Mapping[str, pl.DataFrame], metadata: Metadata | None
) -> Iterator[dg.Output[pl.DataFrame]]:
    extra = metadata(frames) if metadata else {}
    for name, frame in frames.items():
        yield dg.Output(frame, output_name=name, metadata={"rows": frame.height, **extra.get(name, {})})


def _ins(reads: Sequence[str]) -> dict[str, dg.AssetIn]:
    return {"manifest": dg.AssetIn(key=key("event_manifests")), **{t: dg.AssetIn(key=key(t)) for t in reads}}


def _outs(describe: Mapping[str, str], tables: Sequence[str]) -> dict[str, dg.AssetOut]:
    return {
        t: dg.AssetOut(key_prefix=ARENA, description=describe[t], kinds={"polars", "parquet"}) for t in tables
    }


def _step_run(context: dg.AssetExecutionContext, wiring: KindWiring, inputs: dict[str, Any]) -> StepRun:
    resources = context.resources
    manifest = inputs.pop("manifest")
    return StepRun(
        context=context,
        event=context.partition_key,
        manifest=manifest,
        inputs=inputs,
        record=resources.record,
        clock=resources.clock,
        provider_keys=resources.provider_keys,
        resource=getattr(resources, wiring.resource),
    )


def recorded(record: RecordResource, event: str, tables: Sequence[str]) -> Frames | None:
    """The event's ``tables`` as recorded (their bytes checked), or None unless every one is."""
    return recorded_tables(record.layout.tables(EVENTS), event, tables)


def _step_asset(wiring: KindWiring, step: StepWiring) -> dg.AssetsDefinition:
    tables = wiring.tables_of(step.step)

    @dg.multi_asset(
        name=op_name(tables[0]),
        partitions_def=event_partitions,
        group_name=wiring.group,
        ins=_ins(step.reads),
        outs=_outs(step.describe, tables),
        pool=step.pool,
        required_resource_keys={"record", "clock", "provider_keys", wiring.resource},
    )
    def _asset(context: dg.AssetExecutionContext, **inputs: Any) -> Iterator[dg.Output[pl.DataFrame]]:
        run = _step_run(context, wiring, inputs)
        frames = recorded(run.record, run.event, tables)
        if frames is not None:
            context.log.info(f"event {run.event}: its {step.step} is recorded (written once); not run again")
        else:
            with _failing(wiring):
                frames = dict(step.run(run))
        if sorted(frames) != sorted(tables):
            raise dg.Failure(
                f"event {run.event}: step {step.step} wrote {sorted(frames)}, not {list(tables)}"
            )
        yield from _outputs({t: frames[t] for t in tables}, step.metadata)

    return _asset


def _seal_asset(wiring: KindWiring) -> dg.AssetsDefinition:
    seal, standings = wiring.seal, wiring.kind.standings

    @dg.multi_asset(
        name=op_name(wiring.kind.sealing),
        partitions_def=event_partitions,
        group_name=wiring.group,
        ins=_ins(seal.reads),
        outs=_outs(seal.describe, standings),
        required_resource_keys={"record", "clock", "provider_keys", wiring.resource},
    )
    def _asset(context: dg.AssetExecutionContext, **inputs: Any) -> Iterator[dg.Output[pl.DataFrame]]:
        run = _step_run(context, wiring, inputs)

        def derive() -> tuple[Any, Frames, dict[str, int]]:
            with _failing(wiring):
                return seal.derive(run)

        frames = sealed_event(
            context,
            run.record,
            outputs=standings,
            written=wiring.kind.written,
            derive=derive,
            clock=run.clock,
        )
        yield from _outputs(frames, seal.metadata)

    return _asset


def kind_assets(wiring: KindWiring) -> list[dg.AssetsDefinition]:
    """The kind's steps' assets and its seal's, in order."""
    return [*(_step_asset(wiring, step) for step in wiring.steps), _seal_asset(wiring)]


def kind_jobs(wiring: KindWiring) -> list[AssetJob]:
    """Its freeze job (the shared manifest asset, configured with its kind) and its event job (every
    step, the seal and the results bundle)."""
    tables = (*wiring.kind.tables, "event_bundles")
    return [
        dg.define_asset_job(
            f"{wiring.prefix}_freeze_job",
            selection=dg.AssetSelection.assets(key("event_manifests")),
            description=wiring.freeze_job,
            config={"ops": {op_name("event_manifests"): {"config": {"kind": wiring.kind.name}}}},
            tags={"colosseum/arena": ARENA},
        ),
        dg.define_asset_job(
            f"{wiring.prefix}_event_job",
            selection=dg.AssetSelection.assets(*(key(t) for t in tables)),
            description=wiring.event_job,
            tags={"colosseum/arena": ARENA},
        ),
    ]


def manifest_asset(wirings: Sequence[KindWiring]) -> dg.AssetsDefinition:
    """The shared ``event_manifests`` asset: each event frozen once by its kind's freeze."""
    by_name = {w.kind.name: w for w in wirings}

    @dg.asset(
        name="event_manifests",
        key_prefix=ARENA,
        partitions_def=event_partitions,
        group_name="events",
        kinds={"polars", "parquet"},
        required_resource_keys={"record", "clock", "provider_keys", *(w.resource for w in wirings)},
        description="The event's manifest (COLOSSEUM-EVENT-MANIFEST-1), frozen before anything is asked: "
        "its kind, contenders and their configurations, the rule versions and prompts, the suite or bank "
        "and its SHA-256, the seeds; its canonical bytes, their SHA-256 and the arena key's DSSE "
        "signature. Written once.",
    )
    def event_manifest(context: dg.AssetExecutionContext, config: FreezeConfig) -> pl.DataFrame:
        event, resources = context.partition_key, context.resources
        record: RecordResource = resources.record
        tables = record.layout.tables(EVENTS)
        if tables.exists("event_manifests", event):
            context.log.info(f"event {event}: its manifest is frozen already; it is never edited")
            return tables.read_checked("event_manifests", event)
        wiring = by_name.get(config.kind)
        if wiring is None:
            raise dg.Failure(f"event {event}: kind {config.kind!r} is none of {', '.join(by_name)}")
        freezing = Freezing(
            event=event,
            config=config,
            record=record,
            environ=resources.provider_keys.by_variable(),
            now=resources.clock.now(),
            resource=getattr(resources, wiring.resource),
        )
        with _failing(wiring):
            metadata, frame = wiring.freeze(freezing)
        context.add_output_metadata({"kind": config.kind, **metadata})
        return frame

    return event_manifest


def events_assets_and_jobs(
    wirings: Sequence[KindWiring],
) -> tuple[list[dg.AssetsDefinition], list[AssetJob]]:
    """Every kind's assets and jobs, with the shared manifest and results bundle."""
    from colosseum_dagster.events.manifests import bundle_asset

    assets = [manifest_asset(wirings), bundle_asset([key(w.kind.sealing) for w in wirings])]
    jobs: list[AssetJob] = []
    for wiring in wirings:
        assets.extend(kind_assets(wiring))
        jobs.extend(kind_jobs(wiring))
    return assets, jobs
