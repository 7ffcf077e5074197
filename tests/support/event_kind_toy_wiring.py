"""The toy kind of ``event_kind_toy`` in Dagster, built by the events' one factory
(``colosseum_dagster.events.wiring``): a freeze, one step (each contender's round against the house
player, drawn from the event's seed) and a seal (its standings). No file outside ``tests/`` names it."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from typing import Any, Final

import polars as pl

from colosseum_core.events.manifest import freeze, manifest_frame, read_frozen
from colosseum_core.record import with_ids
from colosseum_core.trust.keys import ARENA
from colosseum_dagster.events.wiring import Freezing, KindWiring, SealWiring, StepRun, StepWiring
from tests.support.event_kind_toy import KIND, toy_reply

RULE: Final = "TOY-RPS-1"
# What beats what; the house plays toy_reply's move.
BEATS: Final = {"rock": "scissors", "paper": "rock", "scissors": "paper"}


class ToyError(ValueError):
    pass


def play(contender: str, seed: int, house: str) -> tuple[str, float]:
    """TOY-RPS-1: a contender's move is drawn from the event's seed and its name; a win is 1 point, a
    draw a half."""
    move = random.Random(f"{seed}:{contender}").choice(sorted(BEATS))
    return move, 1.0 if BEATS[move] == house else 0.5 if move == house else 0.0


def _freeze(f: Freezing) -> tuple[dict[str, Any], pl.DataFrame]:
    contenders = f.config.only or ["a", "b", "c"]
    if any(not c.isidentifier() for c in contenders):
        raise ToyError(f"event {f.event}: contenders {contenders}: each a plain name")
    document = {
        "event": f.event,
        "kind": KIND.name,
        "class": "calibration",
        "frozen_at": f.now.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        "contenders": [{"id": c} for c in contenders],
        "rules": {"standings": RULE, "scoring": RULE},
        "seeds": {"rounds": f.seed()},
    }
    day = f.now.astimezone(dt.UTC).date()
    f.keys.ensure_key(ARENA, day)
    frozen = freeze(document, f.keys.signing_key(ARENA, day))
    return {"manifest_sha256": frozen.sha256, "contenders": len(contenders)}, manifest_frame(frozen)


def _frozen(run: StepRun) -> Any:
    frozen, problems = read_frozen(run.manifest, run.event)
    if problems:
        raise ToyError("; ".join(problems))
    return frozen


def _rounds(run: StepRun) -> dict[str, pl.DataFrame]:
    frozen = _frozen(run)
    house = toy_reply(None, [])  # type: ignore[arg-type]
    seed, contenders = frozen.document["seeds"]["rounds"], [c["id"] for c in frozen.document["contenders"]]
    played = [(c, *play(c, seed, house)) for c in contenders]
    rounds = pl.DataFrame(
        {
            "event": [run.event] * len(played),
            "contender": [p[0] for p in played],
            "move": [p[1] for p in played],
            "points": [p[2] for p in played],
            "manifest_sha256": [frozen.sha256] * len(played),
        }
    )
    return {"toy_rounds": with_ids(rounds)}


def _standings(run: StepRun) -> tuple[Any, dict[str, pl.DataFrame], dict[str, int]]:
    frozen, rounds = _frozen(run), run.inputs["toy_rounds"]
    standings = (
        rounds.select("event", "contender", "points", "manifest_sha256")
        .sort(["points", "contender"], descending=[True, False])
        .with_columns(
            placement=pl.col("points").rank("min", descending=True).cast(pl.Int64),
            rule=pl.lit(RULE),
        )
        .with_columns(
            medal=pl.col("placement").replace_strict({1: "gold", 2: "silver", 3: "bronze"}, default=None)
        )
    )
    return frozen, {"toy_standings": with_ids(standings)}, {"rounds": rounds.height}


def _top(frames: Mapping[str, pl.DataFrame]) -> dict[str, dict[str, Any]]:
    return {"toy_standings": {"leader": str(frames["toy_standings"]["contender"][0])}}


WIRING: Final = KindWiring(
    kind=KIND,
    prefix="toy",
    group="events_toy",
    resource="solve_or_object",
    steps=(
        StepWiring(
            "rounds",
            _rounds,
            describe={"toy_rounds": "Each contender's round against the house (TOY-RPS-1). Written once."},
            words="playing every round",
        ),
    ),
    seal=SealWiring(
        _standings,
        describe={"toy_standings": "The rounds ranked. Seals the event."},
        words="ranking and sealing",
        reads=("toy_rounds",),
        metadata=_top,
    ),
    freeze=_freeze,
    failures=lambda: (ToyError,),
    event_job="A toy event end to end.",
    freeze_job="Freeze a toy event.",
)
