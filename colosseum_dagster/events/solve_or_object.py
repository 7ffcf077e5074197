"""The Solve-or-Object event in Dagster: its manifest frozen, every item asked, its standings sealed.

The event is a partition of ``event_partitions``, frozen by the shared ``event_manifests`` asset with
``kind: solve-or-object`` (``soo_freeze_job``). ``soo_replies`` asks every contender every item once
(resumed from its journal if a run stopped: nothing answered is asked again), reads and scores every reply;
``soo_standings`` computes the standings and seals the event. Each body calls one function of
``colosseum_core.events.solve_or_object.run``.
"""

from collections import Counter
from typing import Any

import dagster as dg
import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.solve_or_object.kind import REPLY_TABLES as SOO_REPLY_TABLES
from colosseum_core.events.solve_or_object.kind import STANDING_TABLES as SOO_STANDING_TABLES
from colosseum_dagster.events.manifests import (
    ARENA,
    SHARED_STEP_WORDS,
    SOLVE_OR_OBJECT,
    event_partitions,
    key,
    op_name,
    sealed_event,
)
from colosseum_dagster.events.resources import SolveOrObjectResource
from colosseum_dagster.resources import ClockResource, ProviderKeysResource, RecordResource

SOO_GROUP = "events_solve_or_object"
STEP_WORDS = {
    **SHARED_STEP_WORDS,
    op_name("soo_replies"): "asking every contender every item",
    op_name("soo_standings"): "scoring the event and sealing it",
}


@dg.asset(
    name="soo_replies",
    key_prefix=ARENA,
    partitions_def=event_partitions,
    group_name=SOO_GROUP,
    ins={"manifest": dg.AssetIn(key=key("event_manifests"))},
    pool="events_solve_or_object",
    kinds={"polars", "parquet"},
    description="Every contender's reply to every item (SOO-PROMPT-1), each in a conversation of its own: "
    "the reply and its receipts, its reading (COLOSSEUM-TASK-REPLY-1: a verdict, an answer or an "
    "objection with its class and quoted words, P(defective)), its outcome, points and Brier term "
    "(SOO-SCORING-1). "
    "Written once.",
)
def soo_replies(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    record: RecordResource,
    provider_keys: ProviderKeysResource,
    solve_or_object: SolveOrObjectResource,
    clock: ClockResource,
) -> pl.DataFrame:
    from colosseum_core.events.solve_or_object.bank import BankError
    from colosseum_core.events.solve_or_object.event import SooEventError
    from colosseum_core.events.solve_or_object.run import ask_frozen_event, frozen_manifest
    from colosseum_core.events.tasks.checking import sandbox_runner

    event = context.partition_key
    tables = record.layout.tables(EVENTS)
    if tables.exists("soo_replies", event):
        context.log.info(f"event {event}: its replies are recorded (written once); nobody is asked again")
        replies = tables.read_checked("soo_replies", event)
    else:
        try:
            frozen = frozen_manifest(manifest, event, SOLVE_OR_OBJECT)
            total = len(frozen.document["bank"]["items"])
            done: Counter[str] = Counter()

            def on_asked(asked: object) -> None:  # an events.asking.Asked
                contender = str(getattr(asked, "who", ""))
                done[contender] += 1
                if done[contender] == total:
                    context.log.info(f"event {event}: {contender} has replied to all {total} items")

            with solve_or_object.provider_slots(context, frozen.document["contenders"]) as held:
                replies = ask_frozen_event(
                    frozen,
                    record=record.layout,
                    sparring_url=solve_or_object.sparring(),
                    environ=provider_keys.by_variable(),
                    clock=clock.now,
                    runner=sandbox_runner(),
                    concurrency=solve_or_object.concurrency,
                    per_provider=held,
                    on_asked=on_asked,
                )
        except (SooEventError, BankError) as exc:
            raise dg.Failure(str(exc)) from exc
    outcomes = replies.group_by("outcome").len().sort("outcome")
    context.add_output_metadata(
        {
            "replies": replies.height,
            "outcomes": ", ".join(f"{r['outcome']} {r['len']}" for r in outcomes.iter_rows(named=True)),
        }
    )
    return replies


@dg.asset(
    name="soo_standings",
    key_prefix=ARENA,
    partitions_def=event_partitions,
    group_name=SOO_GROUP,
    ins={"manifest": dg.AssetIn(key=key("event_manifests")), "replies": dg.AssetIn(key=key("soo_replies"))},
    kinds={"polars", "parquet"},
    description="The event's standings (SOO-STANDINGS-1): mean points with 95 % intervals from a bootstrap "
    "that resamples pairs (a twin and its original are one cluster), placements and medals, the outcome "
    "counts, and the mean Brier score of P(defective) with its interval. Seals the event.",
)
def soo_standings(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    replies: pl.DataFrame,
    record: RecordResource,
    clock: ClockResource,
) -> pl.DataFrame:
    from colosseum_core.events.solve_or_object.event import SooEventError
    from colosseum_core.events.solve_or_object.run import frozen_manifest, soo_event_standings

    def derive() -> tuple[Any, dict[str, pl.DataFrame], dict[str, int]]:
        try:
            frozen = frozen_manifest(manifest, context.partition_key, SOLVE_OR_OBJECT)
        except SooEventError as exc:
            raise dg.Failure(str(exc)) from exc
        return frozen, soo_event_standings(frozen, replies), {"replies": replies.height}

    frames = sealed_event(
        context,
        record,
        outputs=SOO_STANDING_TABLES,
        written=SOO_REPLY_TABLES,
        derive=derive,
        clock=clock,
    )
    standing = frames[SOO_STANDING_TABLES[0]]
    top = [
        f"{r['placement']}. {r['contender']} {r['score']:+.3f}"
        for r in standing.head(3).iter_rows(named=True)
    ]
    context.add_output_metadata({"top": "; ".join(top)})
    return standing


soo_event_job = dg.define_asset_job(
    "soo_event_job",
    selection=dg.AssetSelection.assets(key("soo_replies"), key("soo_standings"), key("event_bundles")),
    description="One frozen Solve-or-Object event end to end: every contender asked every item (resumed "
    "from its journal if a run stopped), every reply read and scored, the standings computed and the "
    "event sealed.",
    tags={"colosseum/arena": ARENA},
)
soo_freeze_job = dg.define_asset_job(
    "soo_freeze_job",
    selection=dg.AssetSelection.assets(key("event_manifests")),
    description="Freeze a Solve-or-Object event: the contenders resolved, the bank checked in the sandbox, "
    "the pairs drawn, the manifest signed.",
    config={"ops": {op_name("event_manifests"): {"config": {"kind": SOLVE_OR_OBJECT}}}},
    tags={"colosseum/arena": ARENA},
)
