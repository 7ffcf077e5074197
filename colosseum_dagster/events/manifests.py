"""Every event's manifest in Dagster: one partition per event, frozen once, whatever its kind.

Each event is a partition of ``event_partitions`` (added by ``colosseum events … event freeze``).
``event_manifest`` freezes it by its kind (run once: the manifest is written once): a chess event
through ``colosseum_core.events.chess.run`` (python-chess, an optional extra, is imported only there,
when the step runs), a Solve-or-Object event through ``colosseum_core.events.solve_or_object.run``.
"""

import datetime as dt
import secrets
from collections.abc import Callable
from typing import Any, Literal

import dagster as dg
import polars as pl
from pydantic import Field

from colosseum_core.events.arena import EVENTS
from colosseum_core.record.sealed_step import Derived, run_sealed_step
from colosseum_core.record.seals import SealError
from colosseum_dagster.events.resources import ChessResource
from colosseum_dagster.resources import ClockResource, ProviderKeysResource, RecordResource

ARENA = "events"
EVENTS_GROUP = "events"
CHESS = "chess"
SOLVE_OR_OBJECT = "solve-or-object"
CHALLENGE = "challenge"
event_partitions = dg.DynamicPartitionsDefinition(name="events")


def key(table: str) -> dg.AssetKey:
    return dg.AssetKey([ARENA, table])


def op_name(name: str) -> str:
    return f"{ARENA}__{name}"


# The steps every event's job shares, as its progress names them.
SHARED_STEP_WORDS = {
    op_name("event_manifests"): "freezing the event's manifest",
    op_name("event_bundles"): "signing the results bundle",
}


class FreezeConfig(dg.Config):
    kind: Literal["chess", "solve-or-object", "challenge"] = Field(
        default=CHESS, description="The kind of event"
    )
    contenders: str | None = Field(
        default=None, description="The contenders registry; default chess.toml or solve_or_object.toml"
    )
    suite: str | None = Field(
        default=None, description="Chess: the opening suite; default COLOSSEUM-CHESS-SUITE-1"
    )
    lines: int = Field(default=12, ge=1, description="Chess: how many of the suite's lines, in its order")
    bank: str | None = Field(
        default=None, description="Solve or Object: the bank; default COLOSSEUM-SOO-BANK-1"
    )
    pairs: int = Field(default=12, ge=1, description="Solve or Object: how many of the bank's pairs to draw")
    slots: int = Field(default=2, ge=1, description="Challenges: each contender's authoring slots")
    only: list[str] = Field(default_factory=list, description="Contender ids to keep (empty: all)")
    seed: int | None = Field(default=None, description="The event's seed; unset: drawn at freeze, recorded")
    replicates: int = Field(default=1999, ge=1, description="Bootstrap replicates")


def _freeze_chess(
    event: str,
    config: FreezeConfig,
    record: RecordResource,
    environ: dict[str, str],
    chess: ChessResource,
    now,
) -> tuple[dict, pl.DataFrame]:
    from colosseum_core.events.chess.contenders import DEFAULT_CONTENDERS, ContendersError
    from colosseum_core.events.chess.event import EventError
    from colosseum_core.events.chess.run import freeze_event
    from colosseum_core.events.chess.suite import DEFAULT_SUITE, SuiteError
    from colosseum_core.trust.keys import KeyStore

    try:
        frozen, frame = freeze_event(
            event=event,
            contenders_path=config.contenders or str(DEFAULT_CONTENDERS),
            environ=environ,
            suite_path=config.suite or DEFAULT_SUITE,
            lines=config.lines,
            seed=config.seed if config.seed is not None else secrets.randbelow(2**32),
            stockfish=chess.stockfish_name(),
            keys=KeyStore.for_data(record.root),
            now=now,
            replicates=config.replicates,
            only=config.only,
        )
    except (ContendersError, SuiteError, EventError) as exc:
        raise dg.Failure(str(exc)) from exc
    document = frozen.document
    summary = {
        "games": document["schedule"]["games"],
        "lines": document["schedule"]["rounds"],
    }
    return {
        "manifest_sha256": frozen.sha256,
        "class": document["class"],
        "contenders": len(document["contenders"]),
        **summary,
    }, frame


def _freeze_solve_or_object(
    event: str, config: FreezeConfig, record: RecordResource, environ: dict[str, str], now: dt.datetime
) -> tuple[dict[str, Any], pl.DataFrame]:
    from colosseum_core.events.contenders import ContendersError
    from colosseum_core.events.solve_or_object.bank import DEFAULT_BANK, BankError
    from colosseum_core.events.solve_or_object.event import SooEventError
    from colosseum_core.events.solve_or_object.run import (
        DEFAULT_CONTENDERS,
        freeze_soo_event,
        manifest_summary,
    )
    from colosseum_core.events.tasks.checking import sandbox_runner
    from colosseum_core.sandbox.bubblewrap import SandboxUnavailable
    from colosseum_core.trust.keys import KeyStore

    try:
        frozen, frame = freeze_soo_event(
            event=event,
            contenders_path=config.contenders or str(DEFAULT_CONTENDERS),
            environ=environ,
            bank_path=config.bank or DEFAULT_BANK,
            pairs=config.pairs,
            seed=config.seed if config.seed is not None else secrets.randbelow(2**32),
            keys=KeyStore.for_data(record.root),
            now=now,
            runner=sandbox_runner(),
            replicates=config.replicates,
            only=config.only,
        )
    except (ContendersError, BankError, SooEventError, SandboxUnavailable) as exc:
        raise dg.Failure(str(exc)) from exc
    return {"manifest_sha256": frozen.sha256, **manifest_summary(frozen.document)}, frame


def _freeze_challenge(
    event: str, config: FreezeConfig, record: RecordResource, environ: dict[str, str], now: dt.datetime
) -> tuple[dict[str, Any], pl.DataFrame]:
    from colosseum_core.events.challenges.event import ChallengeError
    from colosseum_core.events.challenges.run import DEFAULT_CONTENDERS, freeze_challenge_event
    from colosseum_core.events.contenders import ContendersError
    from colosseum_core.trust.keys import KeyStore

    try:
        frozen, frame = freeze_challenge_event(
            event=event,
            contenders_path=config.contenders or str(DEFAULT_CONTENDERS),
            environ=environ,
            slots=config.slots,
            seed=config.seed if config.seed is not None else secrets.randbelow(2**32),
            keys=KeyStore.for_data(record.root),
            now=now,
            replicates=config.replicates,
            only=config.only,
        )
    except (ContendersError, ChallengeError) as exc:
        raise dg.Failure(str(exc)) from exc
    document = frozen.document
    return {
        "manifest_sha256": frozen.sha256,
        "class": document["class"],
        "contenders": len(document["contenders"]),
        "slots": document["slots"],
    }, frame


@dg.asset(
    name="event_manifests",
    key_prefix=ARENA,
    partitions_def=event_partitions,
    group_name=EVENTS_GROUP,
    kinds={"polars", "parquet"},
    description="The event's manifest (COLOSSEUM-EVENT-MANIFEST-1), frozen before anything is asked: its "
    "kind, contenders and their configurations, the rule versions and prompts, the suite or bank and its "
    "SHA-256, the seeds; its canonical bytes, their SHA-256 and the arena key's DSSE signature. "
    "Written once.",
)
def event_manifest(
    context: dg.AssetExecutionContext,
    config: FreezeConfig,
    record: RecordResource,
    provider_keys: ProviderKeysResource,
    chess: ChessResource,
    clock: ClockResource,
) -> pl.DataFrame:
    event = context.partition_key
    tables = record.layout.tables(EVENTS)
    if tables.exists("event_manifests", event):
        context.log.info(f"event {event}: its manifest is frozen already; it is never edited")
        return tables.read_checked("event_manifests", event)
    environ, now = provider_keys.by_variable(), clock.now()
    if config.kind == SOLVE_OR_OBJECT:
        metadata, frame = _freeze_solve_or_object(event, config, record, environ, now)
    elif config.kind == CHALLENGE:
        metadata, frame = _freeze_challenge(event, config, record, environ, now)
    else:
        metadata, frame = _freeze_chess(
            event, config, record, provider_keys.by_variable(), chess, clock.now()
        )
    context.add_output_metadata({"kind": config.kind, **metadata})
    return frame


def sealed_event(
    context: dg.AssetExecutionContext,
    record: RecordResource,
    *,
    outputs: tuple[str, ...],
    written: tuple[str, ...],
    derive: Callable[[], tuple[Any, dict[str, pl.DataFrame], dict[str, int]]],
    clock: ClockResource,
) -> dict[str, pl.DataFrame]:
    """The event's sealed ``outputs`` (its standings): derived by ``derive`` (its frozen manifest, the
    tables, the checks' counts) and sealed over them, its manifest and its ``written`` tables as
    recorded; re-read once sealed, or finished if a run stopped between the seal and its tables
    (``record.sealed_step``)."""
    event = context.partition_key

    def derived(_seal: object) -> Derived:
        frozen, frames, checks = derive()
        return Derived(tables=frames, kind=frozen.document["class"], content_id=frozen.sha256, checks=checks)

    try:
        step = run_sealed_step(
            record.layout.tables(EVENTS),
            record.layout.seals(EVENTS),
            event,
            outputs=outputs,
            vouched=("event_manifests", *written),
            derive=derived,
            sealed_at=lambda: clock.now().astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        )
    except SealError as exc:
        raise dg.Failure(f"event {event}: {exc}") from exc
    context.log.info(step.describe())
    return step.frames


@dg.asset(
    name="event_bundles",
    key_prefix=ARENA,
    partitions_def=event_partitions,
    group_name=EVENTS_GROUP,
    ins={"manifest": dg.AssetIn(key=key("event_manifests"))},
    deps=[key("chess_standings"), key("soo_standings"), key("challenge_standings")],
    kinds={"polars", "parquet"},
    description="The event's signed results bundle (COLOSSEUM-EVENT-BUNDLE-1): every table its seal vouches "
    "for with the SHA-256 of its exact bytes, the manifest's SHA-256 and the seal's instant, as canonical "
    "JSON signed by the arena key (DSSE). Written once, after the seal.",
)
def event_bundle(
    context: dg.AssetExecutionContext, manifest: pl.DataFrame, record: RecordResource
) -> pl.DataFrame:
    from colosseum_core.events.bundle import BUNDLE_TABLE, bundle_frame
    from colosseum_core.events.manifest import read_frozen
    from colosseum_core.trust.keys import ARENA as ARENA_KEY
    from colosseum_core.trust.keys import KeyStore

    event = context.partition_key
    tables = record.layout.tables(EVENTS)
    if tables.exists(BUNDLE_TABLE, event):
        return tables.read_checked(BUNDLE_TABLE, event)
    seal = record.layout.seals(EVENTS).get(event)
    if seal is None:
        raise dg.Failure(f"event {event} is not sealed: its results bundle is signed only after its seal")
    frozen, problems = read_frozen(manifest, event)
    if problems:
        raise dg.Failure(f"event {event}: its manifest is not as frozen: {'; '.join(problems)}")
    keys = KeyStore.for_data(record.root)
    day = dt.datetime.fromisoformat(seal.sealed_at.replace("Z", "+00:00")).date()
    keys.ensure_key(ARENA_KEY, day)
    frame = bundle_frame(
        frozen.document, frozen.sha256, seal.sealed_at, seal.tables, keys.signing_key(ARENA_KEY, day)
    )
    context.add_output_metadata({"artifacts": len(seal.tables), "sha256": frame["sha256"][0]})
    return frame
