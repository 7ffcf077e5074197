"""What every event shares in Dagster, whatever its kind: one partition per event, its freeze's
config, its seal and its signed results bundle.

Each event is a partition of ``event_partitions`` (added by ``colosseum events … event freeze``).
The ``event_manifests`` asset freezes it by its kind's freeze, once (``wiring.manifest_asset``);
``sealed_event`` seals it over its standings; ``bundle_asset`` signs its results after the seal.
"""

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

import dagster as dg
import polars as pl
from pydantic import Field

from colosseum_core.events.arena import EVENTS
from colosseum_core.record.sealed_step import Derived, run_sealed_step
from colosseum_core.record.seals import SealError
from colosseum_dagster.resources import ClockResource, RecordResource
from colosseum_dagster.wiring import ArenaNames

ARENA = "events"
EVENTS_GROUP = "events"
CHESS = "chess"
event_partitions = dg.DynamicPartitionsDefinition(name="events")


NAMES = ArenaNames(ARENA)
key, op_name = NAMES.key, NAMES.op_name


# The steps every event's job shares, as its progress names them.
SHARED_STEP_WORDS = {
    op_name("event_manifests"): "freezing the event's manifest",
    op_name("event_bundles"): "signing the results bundle",
}


class FreezeConfig(dg.Config):
    kind: str = Field(
        default=CHESS,
        description="The kind of event: chess, solve-or-object, challenge or another registered",
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
    trial: str | None = Field(
        default=None,
        description="A model maker's trial (events.trial_field): its record as JSON, the trial's id and "
        "the model as its name resolved; unset, the registry's contenders",
    )


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


def bundle_asset(sealing: Sequence[dg.AssetKey]) -> dg.AssetsDefinition:
    """The shared ``event_bundles`` asset, after every kind's ``sealing`` table."""

    @dg.asset(
        name="event_bundles",
        key_prefix=ARENA,
        partitions_def=event_partitions,
        group_name=EVENTS_GROUP,
        ins={"manifest": dg.AssetIn(key=key("event_manifests"))},
        deps=list(sealing),
        kinds={"polars", "parquet"},
        description="The event's signed results bundle (COLOSSEUM-EVENT-BUNDLE-1): every table its seal "
        "vouches for with the SHA-256 of its exact bytes, the manifest's SHA-256 and the seal's instant, as "
        "canonical JSON signed by the arena key (DSSE). Written once, after the seal.",
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

    return event_bundle
