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
store (CHALLENGE-COMMIT-2). The assets and jobs are built by ``wiring``; each phase calls one
function of ``colosseum_core.events.challenges.run``.
"""

from collections.abc import Mapping
from typing import Any, Final

import polars as pl

from colosseum_core.events.challenges.kind import KIND
from colosseum_dagster.events import wiring


def _freeze(f: wiring.Freezing) -> tuple[dict[str, Any], pl.DataFrame]:
    from colosseum_core.events.challenges.run import DEFAULT_CONTENDERS, freeze_challenge_event

    frozen, frame = freeze_challenge_event(**f.keywords(DEFAULT_CONTENDERS), slots=f.config.slots)
    return wiring.frozen_metadata(frozen, slots=frozen.document["slots"]), frame


def _frozen(run: wiring.StepRun) -> Any:
    from colosseum_core.events.challenges.run import frozen_challenge

    return frozen_challenge(run.manifest, run.event)


def _runner(frozen: Any) -> Any:
    from colosseum_core.events.tasks.checking import frozen_runner

    return frozen_runner(frozen.document.get("sandbox"))


def _read(run: wiring.StepRun, *tables: str) -> list[pl.DataFrame]:
    return [run.inputs[t] for t in tables]


def _author(run: wiring.StepRun) -> dict[str, pl.DataFrame]:
    from colosseum_core.events.challenges.run import author

    frozen = _frozen(run)
    with run.asking(frozen.document["contenders"]) as asking:
        authored = author(frozen, record=run.record.layout, keys=run.keys, **asking.keywords())
    return {"challenge_authored": authored}


def _admit(run: wiring.StepRun) -> dict[str, pl.DataFrame]:
    from colosseum_core.events.challenges.run import admit

    frozen = _frozen(run)
    return admit(frozen, run.inputs["challenge_authored"], keys=run.keys, runner=_runner(frozen))


def _submissions_log(frames: Mapping[str, pl.DataFrame]) -> dict[str, dict[str, Any]]:
    statuses = frames["challenge_submissions"].group_by("status").len().sort("status")
    counts = ", ".join(f"{r['status']} {r['len']}" for r in statuses.iter_rows(named=True))
    return {"challenge_submissions": {"statuses": counts}}


def _commit(run: wiring.StepRun) -> dict[str, pl.DataFrame]:
    from colosseum_core.events.challenges.run import commit_tasks

    submissions = run.inputs["challenge_submissions"]
    table = commit_tasks(_frozen(run), submissions, keys=run.keys, now=run.clock.now())
    return {"challenge_commitments": table}


def _commitments_metadata(frames: Mapping[str, pl.DataFrame]) -> dict[str, dict[str, Any]]:
    table = frames["challenge_commitments"]
    return {
        "challenge_commitments": {"commitments": int(table["commitments"][0]), "sha256": table["sha256"][0]}
    }


def _solve(run: wiring.StepRun) -> dict[str, pl.DataFrame]:
    from colosseum_core.events.challenges.run import solve

    frozen = _frozen(run)
    with run.asking(frozen.document["contenders"]) as asking:
        return solve(
            frozen,
            *_read(run, "challenge_submissions", "challenge_commitments"),
            record=run.record.layout,
            keys=run.keys,
            runner=_runner(frozen),
            **asking.keywords(),
        )


def _review(run: wiring.StepRun) -> dict[str, pl.DataFrame]:
    from colosseum_core.events.challenges.run import review

    frozen = _frozen(run)
    with run.asking(frozen.document["judges"]) as asking:
        reviews = review(
            frozen,
            *_read(run, "challenge_submissions", "challenge_commitments", "challenge_replies"),
            record=run.record.layout,
            keys=run.keys,
            **asking.keywords(),
        )
    return {"challenge_reviews": reviews}


def _reveal(run: wiring.StepRun) -> dict[str, pl.DataFrame]:
    from colosseum_core.events.challenges.run import reveal

    frozen = _frozen(run)
    read = _read(
        run, "challenge_submissions", "challenge_commitments", "challenge_replies", "challenge_reviews"
    )
    return reveal(frozen, *read, record=run.record.layout, keys=run.keys, runner=_runner(frozen))


SCORED_FROM: Final = (
    "challenge_submissions",
    "challenge_replies",
    "challenge_reviews",
    "challenge_reveals",
    "challenge_key",
)


def _score(run: wiring.StepRun) -> tuple[Any, dict[str, pl.DataFrame], dict[str, int]]:
    from colosseum_core.events.challenges.run import score

    frozen = _frozen(run)
    frames = score(frozen, *_read(run, *SCORED_FROM))
    return frozen, frames, {"replies": run.inputs["challenge_replies"].height}


ASKING_POOL: Final = "events_challenges"
WIRING: Final = wiring.KindWiring(
    kind=KIND,
    steps=(
        wiring.StepWiring(
            "authoring",
            _author,
            describe={
                "challenge_authored": "Authoring: every contender's reply for every slot "
                "(CHALLENGE-AUTHORING-1), with its receipts; sealed until the reveal (CHALLENGE-COMMIT-2). "
                "Written once."
            },
            words="asking every author for every slot",
            pool=ASKING_POOL,
        ),
        wiring.StepWiring(
            "admission",
            _admit,
            describe={
                "challenge_submissions": "Admission: every reply parsed into a task, or why it holds none, "
                "and whether the task is verified (COLOSSEUM-TASK-VERIFIED-2) or a copy of another slot's. "
                "Written once.",
                "challenge_checker_runs": "Every run of admission: the reference produced, the checker on "
                "the "
                "reference and on each failure case, each passing program step run three times, with the "
                "sandbox's outcome (COLOSSEUM-SANDBOX-2). Written once.",
            },
            words="verifying every submitted task in the sandbox",
            reads=("challenge_authored",),
            metadata=_submissions_log,
        ),
        wiring.StepWiring(
            "commitments",
            _commit,
            describe={
                "challenge_commitments": "Every verified task's salted commitment (COLOSSEUM-COMMIT-1, "
                "domain colosseum/challenge-task) and the SHA-256 of the event's sealing key, signed by the "
                "arena key before any solver is asked; the salts and the key wait, private, for the reveal. "
                "Written once."
            },
            words="committing every verified task",
            reads=("challenge_submissions",),
            metadata=_commitments_metadata,
        ),
        wiring.StepWiring(
            "solving",
            _solve,
            describe={
                "challenge_replies": "Solving: every solver's reply to every task it did not author "
                "(CHALLENGE-SOLVING-1), read (COLOSSEUM-TASK-REPLY-1), its answer checked by the task's "
                "checker. Written once.",
                "challenge_solving_runs": "Every checker run on a solver's answer, with the sandbox's "
                "outcome. Written once.",
            },
            words="asking every solver every task",
            reads=("challenge_submissions", "challenge_commitments"),
            pool=ASKING_POOL,
        ),
        wiring.StepWiring(
            "review",
            _review,
            describe={
                "challenge_reviews": "Review: every judge's vote on every objection (CHALLENGE-REVIEW-1, "
                "blinded), SUBSTANTIATED or NOT_SUBSTANTIATED and why. Written once."
            },
            words="putting every objection to the judges",
            reads=("challenge_submissions", "challenge_commitments", "challenge_replies"),
            pool=ASKING_POOL,
        ),
        wiring.StepWiring(
            "reveal",
            _reveal,
            describe={
                "challenge_reveals": "The reveal: every verified task with its salt and commitment, its "
                "reference program run again, and whether it was shown defective (and by what evidence). "
                "Written once.",
                "challenge_key": "The event's sealing key, published at the reveal (CHALLENGE-COMMIT-2), so "
                "anyone can open the tables recorded sealed before it; its SHA-256 is in the signed "
                "commitments. Written once.",
            },
            words="revealing every task and the event's key, running every reference again",
            reads=(
                "challenge_submissions",
                "challenge_commitments",
                "challenge_replies",
                "challenge_reviews",
            ),
        ),
    ),
    seal=wiring.SealWiring(
        _score,
        describe={
            "challenge_scores": "Scoring: every solving and authoring score (CHALLENGE-SCORING-1) with its "
            "outcome and evidence: Verified, Reviewed or Unresolved.",
            "challenge_standings": "Solving and authoring ranked apart (CHALLENGE-STANDINGS-1), on the "
            "Verified basis and with Reviewed outcomes: means with 95 % task-clustered intervals, "
            "placements and medals. Seals the event.",
        },
        words="scoring and sealing the event",
        reads=SCORED_FROM,
    ),
    freeze=_freeze,
    failures=wiring.Errors(
        "colosseum_core.events.contenders.ContendersError",
        "colosseum_core.events.challenges.event.ChallengeError",
    ),
    event_job="One frozen challenge event end to end: authoring and admission, the commitments, "
    "solving and review, the reveal, the scores and the standings; resumed from its journal if a run "
    "stopped.",
    freeze_job="Freeze a challenge event: the contenders, the two judges and the slots, the manifest signed.",
    prefix="challenge",
    group="events_challenges",
    resource="solve_or_object",
)
