"""The challenge event in Dagster: one asset per phase, each written once, the last sealing the event.

The event is a partition of ``event_partitions``, frozen by the shared ``event_manifests`` asset with
``kind: challenge`` (``challenge_freeze_job``). Then one asset per phase: ``challenge_authored``
(authoring), ``challenge_submissions`` (admission, every program in the sandbox),
``challenge_commitments`` (the salted commitments, signed before anyone solves),
``challenge_replies`` (solving), ``challenge_reviews`` (review), ``challenge_reveals`` with
``challenge_key`` (the reveal, the reference programs run again, the event's key published) and
``challenge_standings`` (scoring; seals the event). Every request is journalled before it is sent, so
a run that stops is resumed without asking again anything answered. Until the reveal the phases'
tables are recorded sealed under the event's key, which waits with the salts in the private key
store (CHALLENGE-COMMIT-2). Each body calls one function of ``colosseum_core.events.challenges.run``.
"""

from collections.abc import Iterator
from typing import Any

import dagster as dg
import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.challenges.kind import ADMISSION_TABLES as CHALLENGE_ADMISSION_TABLES
from colosseum_core.events.challenges.kind import AUTHORED_TABLES as CHALLENGE_AUTHORED_TABLES
from colosseum_core.events.challenges.kind import CLOSING_TABLES as CHALLENGE_CLOSING_TABLES
from colosseum_core.events.challenges.kind import REVEAL_TABLES as CHALLENGE_REVEAL_TABLES
from colosseum_core.events.challenges.kind import REVIEW_TABLES as CHALLENGE_REVIEW_TABLES
from colosseum_core.events.challenges.kind import SOLVING_TABLES as CHALLENGE_SOLVING_TABLES
from colosseum_core.events.challenges.kind import WRITTEN_TABLES as CHALLENGE_WRITTEN_TABLES
from colosseum_dagster.events.manifests import (
    ARENA,
    CHALLENGE,
    SHARED_STEP_WORDS,
    event_partitions,
    key,
    op_name,
    sealed_event,
)
from colosseum_dagster.events.resources import SolveOrObjectResource
from colosseum_dagster.resources import ClockResource, ProviderKeysResource, RecordResource


def _keys(record: RecordResource):  # type: ignore[no-untyped-def]
    from colosseum_core.trust.keys import KeyStore

    return KeyStore.for_data(record.root)


GROUP = "events_challenges"
STEP_WORDS = {
    **SHARED_STEP_WORDS,
    op_name("challenge_authored"): "asking every author for every slot",
    op_name("challenge_submissions"): "verifying every submitted task in the sandbox",
    op_name("challenge_commitments"): "committing every verified task",
    op_name("challenge_replies"): "asking every solver every task",
    op_name("challenge_reviews"): "putting every objection to the judges",
    op_name("challenge_reveals"): "revealing every task and the event's key, running every reference again",
    op_name("challenge_standings"): "scoring and sealing the event",
}


def _frozen(manifest: pl.DataFrame, event: str):  # type: ignore[no-untyped-def]
    from colosseum_core.events.challenges.event import ChallengeError
    from colosseum_core.events.challenges.run import frozen_challenge

    try:
        return frozen_challenge(manifest, event)
    except ChallengeError as exc:
        raise dg.Failure(str(exc)) from exc


def _outputs(frames: dict[str, pl.DataFrame]) -> Iterator[dg.Output[pl.DataFrame]]:
    for name, frame in frames.items():
        yield dg.Output(frame, output_name=name, metadata={"rows": frame.height})


def _recorded(record: RecordResource, event: str, tables: tuple[str, ...]) -> dict[str, pl.DataFrame] | None:
    stored = record.layout.tables(EVENTS)
    if all(stored.exists(t, event) for t in tables):
        return {t: stored.read_checked(t, event) for t in tables}
    return None


def _out(description: str) -> dg.AssetOut:
    return dg.AssetOut(key_prefix=ARENA, description=description, kinds={"polars", "parquet"})


def _ins(*tables: str) -> dict[str, dg.AssetIn]:
    return {
        "manifest": dg.AssetIn(key=key("event_manifests")),
        **{t.removeprefix("challenge_"): dg.AssetIn(key=key(t)) for t in tables},
    }


@dg.asset(
    name="challenge_authored",
    key_prefix=ARENA,
    partitions_def=event_partitions,
    group_name=GROUP,
    ins=_ins(),
    pool="events_challenges",
    kinds={"polars", "parquet"},
    description="Authoring: every contender's reply for every slot (CHALLENGE-AUTHORING-1), with its "
    "receipts; sealed until the reveal (CHALLENGE-COMMIT-2). Written once.",
)
def challenge_authored(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    record: RecordResource,
    provider_keys: ProviderKeysResource,
    solve_or_object: SolveOrObjectResource,
    clock: ClockResource,
) -> pl.DataFrame:
    from colosseum_core.events.challenges.event import ChallengeError
    from colosseum_core.events.challenges.run import author

    event = context.partition_key
    frames = _recorded(record, event, CHALLENGE_AUTHORED_TABLES)
    if frames is not None:
        return frames["challenge_authored"]
    try:
        frozen = _frozen(manifest, event)
        with solve_or_object.provider_slots(context, frozen.document["contenders"]) as held:
            return author(
                frozen,
                record=record.layout,
                keys=_keys(record),
                sparring_url=solve_or_object.sparring(),
                environ=provider_keys.by_variable(),
                clock=clock.now,
                concurrency=solve_or_object.concurrency,
                per_provider=held,
            )
    except ChallengeError as exc:
        raise dg.Failure(str(exc)) from exc


@dg.multi_asset(
    name=op_name("challenge_submissions"),
    partitions_def=event_partitions,
    group_name=GROUP,
    ins=_ins("challenge_authored"),
    outs={
        "challenge_submissions": _out(
            "Admission: every reply parsed into a task, or why it holds none, and whether the task is "
            "verified (COLOSSEUM-TASK-VERIFIED-2) or a copy of another slot's. Written once."
        ),
        "challenge_checker_runs": _out(
            "Every run of admission: the reference produced, the checker on the reference and on each "
            "failure case, each passing program step run three times, with the sandbox's outcome "
            "(COLOSSEUM-SANDBOX-2). Written once."
        ),
    },
)
def challenge_submissions(
    context: dg.AssetExecutionContext, manifest: pl.DataFrame, authored: pl.DataFrame, record: RecordResource
) -> Iterator[dg.Output[pl.DataFrame]]:
    from colosseum_core.events.challenges.event import ChallengeError
    from colosseum_core.events.challenges.run import admit
    from colosseum_core.events.tasks.checking import frozen_runner

    event = context.partition_key
    frames = _recorded(record, event, CHALLENGE_ADMISSION_TABLES)
    if frames is None:
        frozen = _frozen(manifest, event)
        try:
            frames = admit(
                frozen, authored, keys=_keys(record), runner=frozen_runner(frozen.document.get("sandbox"))
            )
        except ChallengeError as exc:
            raise dg.Failure(str(exc)) from exc
    statuses = frames["challenge_submissions"].group_by("status").len().sort("status")
    context.log.info(
        f"event {event}: submissions "
        + ", ".join(f"{r['status']} {r['len']}" for r in statuses.iter_rows(named=True))
    )
    yield from _outputs(frames)


@dg.asset(
    name="challenge_commitments",
    key_prefix=ARENA,
    partitions_def=event_partitions,
    group_name=GROUP,
    ins=_ins("challenge_submissions"),
    kinds={"polars", "parquet"},
    description="Every verified task's salted commitment (COLOSSEUM-COMMIT-1, domain "
    "colosseum/challenge-task) and the SHA-256 of the event's sealing key, signed by the arena key before "
    "any solver is asked; the salts and the key wait, private, for the reveal. Written once.",
)
def challenge_commitments(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    submissions: pl.DataFrame,
    record: RecordResource,
    clock: ClockResource,
) -> pl.DataFrame:
    from colosseum_core.events.challenges.event import ChallengeError
    from colosseum_core.events.challenges.run import commit_tasks

    event = context.partition_key
    frames = _recorded(record, event, ("challenge_commitments",))
    if frames is not None:
        return frames["challenge_commitments"]
    try:
        table = commit_tasks(_frozen(manifest, event), submissions, keys=_keys(record), now=clock.now())
    except ChallengeError as exc:
        raise dg.Failure(str(exc)) from exc
    context.add_output_metadata({"commitments": int(table["commitments"][0]), "sha256": table["sha256"][0]})
    return table


@dg.multi_asset(
    name=op_name("challenge_replies"),
    partitions_def=event_partitions,
    group_name=GROUP,
    ins=_ins("challenge_submissions", "challenge_commitments"),
    pool="events_challenges",
    outs={
        "challenge_replies": _out(
            "Solving: every solver's reply to every task it did not author (CHALLENGE-SOLVING-1), read "
            "(COLOSSEUM-TASK-REPLY-1), its answer checked by the task's checker. Written once."
        ),
        "challenge_solving_runs": _out(
            "Every checker run on a solver's answer, with the sandbox's outcome. Written once."
        ),
    },
)
def challenge_replies(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    record: RecordResource,
    provider_keys: ProviderKeysResource,
    solve_or_object: SolveOrObjectResource,
    clock: ClockResource,
) -> Iterator[dg.Output[pl.DataFrame]]:
    from colosseum_core.events.challenges.event import ChallengeError
    from colosseum_core.events.challenges.run import solve
    from colosseum_core.events.tasks.checking import frozen_runner

    event = context.partition_key
    frames = _recorded(record, event, CHALLENGE_SOLVING_TABLES)
    if frames is None:
        try:
            frozen = _frozen(manifest, event)
            with solve_or_object.provider_slots(context, frozen.document["contenders"]) as held:
                frames = solve(
                    frozen,
                    submissions,
                    commitments,
                    record=record.layout,
                    keys=_keys(record),
                    sparring_url=solve_or_object.sparring(),
                    environ=provider_keys.by_variable(),
                    clock=clock.now,
                    runner=frozen_runner(frozen.document.get("sandbox")),
                    concurrency=solve_or_object.concurrency,
                    per_provider=held,
                )
        except ChallengeError as exc:
            raise dg.Failure(str(exc)) from exc
    yield from _outputs(frames)


@dg.asset(
    name="challenge_reviews",
    key_prefix=ARENA,
    partitions_def=event_partitions,
    group_name=GROUP,
    ins=_ins("challenge_submissions", "challenge_commitments", "challenge_replies"),
    pool="events_challenges",
    kinds={"polars", "parquet"},
    description="Review: every judge's vote on every objection (CHALLENGE-REVIEW-1, blinded), "
    "SUBSTANTIATED or NOT_SUBSTANTIATED and why. Written once.",
)
def challenge_reviews(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    replies: pl.DataFrame,
    record: RecordResource,
    provider_keys: ProviderKeysResource,
    solve_or_object: SolveOrObjectResource,
    clock: ClockResource,
) -> pl.DataFrame:
    from colosseum_core.events.challenges.event import ChallengeError
    from colosseum_core.events.challenges.run import review

    event = context.partition_key
    frames = _recorded(record, event, CHALLENGE_REVIEW_TABLES)
    if frames is not None:
        return frames["challenge_reviews"]
    try:
        frozen = _frozen(manifest, event)
        with solve_or_object.provider_slots(context, frozen.document["judges"]) as held:
            return review(
                frozen,
                submissions,
                commitments,
                replies,
                record=record.layout,
                keys=_keys(record),
                sparring_url=solve_or_object.sparring(),
                environ=provider_keys.by_variable(),
                clock=clock.now,
                concurrency=solve_or_object.concurrency,
                per_provider=held,
            )
    except ChallengeError as exc:
        raise dg.Failure(str(exc)) from exc


@dg.multi_asset(
    name=op_name("challenge_reveals"),
    partitions_def=event_partitions,
    group_name=GROUP,
    ins=_ins("challenge_submissions", "challenge_commitments", "challenge_replies", "challenge_reviews"),
    outs={
        "challenge_reveals": _out(
            "The reveal: every verified task with its salt and commitment, its reference program run "
            "again, and whether it was shown defective (and by what evidence). Written once."
        ),
        "challenge_key": _out(
            "The event's sealing key, published at the reveal (CHALLENGE-COMMIT-2), so anyone can open the "
            "tables recorded sealed before it; its SHA-256 is in the signed commitments. Written once."
        ),
    },
)
def challenge_reveals(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    replies: pl.DataFrame,
    reviews: pl.DataFrame,
    record: RecordResource,
) -> Iterator[dg.Output[pl.DataFrame]]:
    from colosseum_core.events.challenges.event import ChallengeError
    from colosseum_core.events.challenges.run import reveal
    from colosseum_core.events.tasks.checking import frozen_runner

    event = context.partition_key
    frames = _recorded(record, event, CHALLENGE_REVEAL_TABLES)
    if frames is None:
        frozen = _frozen(manifest, event)
        try:
            frames = reveal(
                frozen,
                submissions,
                commitments,
                replies,
                reviews,
                record=record.layout,
                keys=_keys(record),
                runner=frozen_runner(frozen.document.get("sandbox")),
            )
        except ChallengeError as exc:
            raise dg.Failure(str(exc)) from exc
    yield from _outputs(frames)


@dg.multi_asset(
    name=op_name("challenge_standings"),
    partitions_def=event_partitions,
    group_name=GROUP,
    ins=_ins(
        "challenge_submissions",
        "challenge_replies",
        "challenge_reviews",
        "challenge_reveals",
        "challenge_key",
    ),
    outs={
        "challenge_scores": _out(
            "Scoring: every solving and authoring score (CHALLENGE-SCORING-1) with its outcome and evidence: "
            "Verified, Reviewed or Unresolved."
        ),
        "challenge_standings": _out(
            "Solving and authoring ranked apart (CHALLENGE-STANDINGS-1), on the Verified basis and with "
            "Reviewed outcomes: means with 95 % task-clustered intervals, placements and medals. Seals the "
            "event."
        ),
    },
)
def challenge_standings(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    submissions: pl.DataFrame,
    replies: pl.DataFrame,
    reviews: pl.DataFrame,
    reveals: pl.DataFrame,
    key: pl.DataFrame,
    record: RecordResource,
    clock: ClockResource,
) -> Iterator[dg.Output[pl.DataFrame]]:
    from colosseum_core.events.challenges.event import ChallengeError
    from colosseum_core.events.challenges.run import score

    def derive() -> tuple[Any, dict[str, pl.DataFrame], dict[str, int]]:
        frozen = _frozen(manifest, context.partition_key)
        try:
            frames = score(frozen, submissions, replies, reviews, reveals, key)
        except ChallengeError as exc:
            raise dg.Failure(str(exc)) from exc
        return frozen, frames, {"replies": replies.height}

    frames = sealed_event(
        context,
        record,
        outputs=CHALLENGE_CLOSING_TABLES,
        written=CHALLENGE_WRITTEN_TABLES,
        derive=derive,
        clock=clock,
    )
    yield from _outputs(frames)


challenge_event_job = dg.define_asset_job(
    "challenge_event_job",
    selection=dg.AssetSelection.assets(
        *(key(t) for t in (*CHALLENGE_WRITTEN_TABLES, *CHALLENGE_CLOSING_TABLES, "event_bundles"))
    ),
    description="One frozen challenge event end to end: authoring and admission, the commitments, "
    "solving and review, the reveal, the scores and the standings; resumed from its journal if a run "
    "stopped.",
    tags={"colosseum/arena": ARENA},
)
challenge_freeze_job = dg.define_asset_job(
    "challenge_freeze_job",
    selection=dg.AssetSelection.assets(key("event_manifests")),
    description="Freeze a challenge event: the contenders, the two judges and the slots, the manifest "
    "signed.",
    config={"ops": {op_name("event_manifests"): {"config": {"kind": CHALLENGE}}}},
    tags={"colosseum/arena": ARENA},
)
