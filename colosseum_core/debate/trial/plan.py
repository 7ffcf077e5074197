"""A trial's plan (COMPELLE-TRIAL-1): which games it plays, frozen once before the first of them.

The motions are the first ``TRIAL_MOTIONS`` of the latest sealed rotation begun by the trial's start
(in the rotation's order, so a rerun and an auditor draw the same ones); each is argued on both sides
under each house strategy, the model on one side and the house debater on the other, both arguing
the same strategy. Six motions, two sides, two strategies: 24 games, enough for a win rate's 95 %
interval of about ±0.2 and for the model's vote on every game the panel judges. The plan names the
model as it was reached (its protocol, base URL, model id and key variable, never a key) and the
models document whose house debater and panel play, so a rerun plays what was frozen.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, Final

import polars as pl

from colosseum_core.debate.entry.epoch_entries import CALIBRATION
from colosseum_core.debate.game.play import Debater, GameSpec
from colosseum_core.debate.rules import COMPELLE_TRIAL
from colosseum_core.debate.strategy import strategy_hash
from colosseum_core.debate.topics.rotation import rotation_start
from colosseum_core.providers.models import ModelRef
from colosseum_core.record import with_ids

TRIAL_MOTIONS: Final = 6
# Two of the house miners' honest strategies: a plain one, and one that may yield (so a trial sees
# concessions as well as panels). Published here, versioned with COMPELLE-TRIAL-1.
HOUSE_STRATEGIES: Final[tuple[tuple[str, str], ...]] = (
    ("plain", "Answer the strongest claim first, then build your own case in plain words."),
    ("socratic", "Ask the questions your opponent cannot answer; yield only to a better argument."),
)
# The seats' names in the games' rows (``pro_hotkey``, ``con_hotkey``, a turn's ``hotkey``).
MODEL_SEAT, HOUSE_SEAT = "trial-model", "house-debater"
SIDES: Final = ("Pro", "Con")

PLAN_SCHEMA: Final[dict[str, pl.DataType]] = {
    "trial": pl.String(),
    "game_id": pl.String(),
    "round": pl.Int64(),
    "rotation": pl.String(),
    "motion_id": pl.String(),
    "motion": pl.String(),
    "context": pl.String(),
    "strategy_name": pl.String(),
    "strategy_hash": pl.String(),
    "strategy": pl.String(),
    "model_side": pl.String(),
    "model_name": pl.String(),
    "model_protocol": pl.String(),
    "model_id": pl.String(),
    "model_base_url": pl.String(),
    "model_key_env": pl.String(),
    "models_sha256": pl.String(),
    "date": pl.String(),
    "kind": pl.String(),
    "rules": pl.String(),
}


def latest_rotation(sealed: list[str], now: dt.datetime) -> str | None:
    """The latest sealed rotation begun by ``now`` (None: none is)."""
    begun = [key for key in sealed if rotation_start(key) <= now]
    return max(begun) if begun else None


def trial_plan(
    trial: str,
    model: ModelRef,
    *,
    rotation: str,
    motions: pl.DataFrame,
    models_sha256: str,
    date: str,
) -> pl.DataFrame:
    """Every game of the trial, in the order played: by strategy, then motion, the model Pro first."""
    chosen = motions.head(TRIAL_MOTIONS)
    rows: list[dict[str, Any]] = []
    for name, strategy in HOUSE_STRATEGIES:
        for motion in chosen.iter_rows(named=True):
            for side in SIDES:
                rows.append(
                    {
                        "trial": trial,
                        "game_id": f"{trial}-{len(rows) + 1:03d}",
                        "round": len(rows) + 1,
                        "rotation": rotation,
                        "motion_id": motion["motion_id"],
                        "motion": motion["motion"],
                        "context": motion["context"],
                        "strategy_name": name,
                        "strategy_hash": strategy_hash(strategy),
                        "strategy": strategy,
                        "model_side": side,
                        "model_name": model.name,
                        "model_protocol": model.protocol,
                        "model_id": model.model,
                        "model_base_url": model.base_url,
                        "model_key_env": model.key_env,
                        "models_sha256": models_sha256,
                        "date": date,
                        "kind": CALIBRATION,
                        "rules": COMPELLE_TRIAL,
                    }
                )
    return with_ids(pl.DataFrame(rows, schema=PLAN_SCHEMA, orient="row"))


def planned_model(plan: pl.DataFrame) -> ModelRef:
    """The model as the plan froze it."""
    row = plan.row(0, named=True)
    return ModelRef(
        name=row["model_name"],
        protocol=row["model_protocol"],
        model=row["model_id"],
        base_url=row["model_base_url"],
        key_env=row["model_key_env"],
    )


def game_specs(plan: pl.DataFrame) -> list[GameSpec]:
    """The games the plan names, each with its seats: the model on its side, the house on the other."""
    specs = []
    for row in plan.iter_rows(named=True):
        seat = {
            side: Debater(
                MODEL_SEAT if side == row["model_side"] else HOUSE_SEAT,
                row["strategy_hash"],
                row["strategy"],
                None,  # a trial's games move no rating
            )
            for side in SIDES
        }
        specs.append(
            GameSpec(
                game_id=row["game_id"],
                round=row["round"],
                motion_id=row["motion_id"],
                motion=row["motion"],
                context=row["context"],
                pro=seat["Pro"],
                con=seat["Con"],
                date=row["date"],
            )
        )
    return specs


def model_sides(plan: pl.DataFrame) -> Mapping[str, str]:
    """Each game's side the model argued."""
    return dict(plan.select("game_id", "model_side").iter_rows())
