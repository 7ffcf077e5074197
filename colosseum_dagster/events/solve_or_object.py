"""The Solve-or-Object event in Dagster: its manifest frozen, every item asked, its standings sealed.

The event is a partition of ``event_partitions``, frozen by the shared ``event_manifests`` asset with
``kind: solve-or-object`` (``soo_freeze_job``). ``soo_replies`` asks every contender every item once
(resumed from its journal if a run stopped: nothing answered is asked again), reads and scores every reply;
``soo_standings`` computes the standings and seals the event. The assets and jobs are built by
``wiring``; each body calls one function of ``colosseum_core.events.solve_or_object.run``.
"""

from collections import Counter
from collections.abc import Mapping
from typing import Any, Final

import polars as pl

from colosseum_core.events.solve_or_object.kind import KIND
from colosseum_dagster.events import wiring


def _freeze(f: wiring.Freezing) -> tuple[dict[str, Any], pl.DataFrame]:
    from colosseum_core.events.solve_or_object.bank import DEFAULT_BANK
    from colosseum_core.events.solve_or_object.run import (
        DEFAULT_CONTENDERS,
        freeze_soo_event,
        manifest_summary,
    )
    from colosseum_core.events.tasks.checking import sandbox_runner

    frozen, frame = freeze_soo_event(
        **f.keywords(DEFAULT_CONTENDERS),
        bank_path=f.config.bank or DEFAULT_BANK,
        pairs=f.config.pairs,
        runner=sandbox_runner(),
    )
    return {"manifest_sha256": frozen.sha256, **manifest_summary(frozen.document)}, frame


def _ask(run: wiring.StepRun) -> dict[str, pl.DataFrame]:
    from colosseum_core.events.solve_or_object.run import ask_frozen_event, frozen_manifest
    from colosseum_core.events.tasks.checking import sandbox_runner

    frozen = frozen_manifest(run.manifest, run.event, KIND.name)
    total = len(frozen.document["bank"]["items"])
    done: Counter[str] = Counter()

    def on_asked(asked: object) -> None:  # an events.asking.Asked
        contender = str(getattr(asked, "who", ""))
        done[contender] += 1
        if done[contender] == total:
            run.context.log.info(f"event {run.event}: {contender} has replied to all {total} items")

    with run.asking(frozen.document["contenders"]) as asking:
        replies = ask_frozen_event(
            frozen, record=run.record.layout, runner=sandbox_runner(), on_asked=on_asked, **asking.keywords()
        )
    return {"soo_replies": replies}


def _replies_metadata(frames: Mapping[str, pl.DataFrame]) -> dict[str, dict[str, Any]]:
    replies = frames["soo_replies"]
    outcomes = replies.group_by("outcome").len().sort("outcome")
    return {
        "soo_replies": {
            "replies": replies.height,
            "outcomes": ", ".join(f"{r['outcome']} {r['len']}" for r in outcomes.iter_rows(named=True)),
        }
    }


def _standings(run: wiring.StepRun) -> tuple[Any, dict[str, pl.DataFrame], dict[str, int]]:
    from colosseum_core.events.solve_or_object.run import frozen_manifest, soo_event_standings

    frozen = frozen_manifest(run.manifest, run.event, KIND.name)
    replies = run.inputs["soo_replies"]
    return frozen, soo_event_standings(frozen, replies), {"replies": replies.height}


def _standings_metadata(frames: Mapping[str, pl.DataFrame]) -> dict[str, dict[str, Any]]:
    top = [
        f"{r['placement']}. {r['contender']} {r['score']:+.3f}"
        for r in frames["soo_standings"].head(3).iter_rows(named=True)
    ]
    return {"soo_standings": {"top": "; ".join(top)}}


WIRING: Final = wiring.KindWiring(
    kind=KIND,
    steps=(
        wiring.StepWiring(
            "replies",
            _ask,
            describe={
                "soo_replies": "Every contender's reply to every item (SOO-PROMPT-1), each in a conversation "
                "of its own: the reply and its receipts, its reading (COLOSSEUM-TASK-REPLY-1: a verdict, an "
                "answer or an objection with its class and quoted words, P(defective)), its outcome, points "
                "and Brier term (SOO-SCORING-1). Written once."
            },
            words="asking every contender every item",
            pool="events_solve_or_object",
            metadata=_replies_metadata,
        ),
    ),
    seal=wiring.SealWiring(
        _standings,
        describe={
            "soo_standings": "The event's standings (SOO-STANDINGS-1): mean points with 95 % intervals from "
            "a bootstrap that resamples pairs (a twin and its original are one cluster), placements and "
            "medals, the outcome counts, and the mean Brier score of P(defective) with its interval. Seals "
            "the event."
        },
        words="scoring the event and sealing it",
        reads=("soo_replies",),
        metadata=_standings_metadata,
    ),
    freeze=_freeze,
    failures=wiring.Errors(
        "colosseum_core.events.contenders.ContendersError",
        "colosseum_core.events.solve_or_object.bank.BankError",
        "colosseum_core.events.solve_or_object.event.SooEventError",
        "colosseum_core.sandbox.bubblewrap.SandboxUnavailable",
    ),
    event_job="One frozen Solve-or-Object event end to end: every contender asked every item (resumed "
    "from its journal if a run stopped), every reply read and scored, the standings computed and the "
    "event sealed.",
    freeze_job="Freeze a Solve-or-Object event: the contenders resolved, the bank checked in the sandbox, "
    "the pairs drawn, the manifest signed.",
    prefix="soo",
    group="events_solve_or_object",
    resource="solve_or_object",
)
