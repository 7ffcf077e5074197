"""COLOSSEUM-EVENTS-TRIAL-1: who plays a model maker's trial event (``events.trial``): the model, as
its name resolved (``providers.models.ModelRef``), beside the house field of the kind's own registry
resolved as a CALIBRATION event resolves it, with no key read, so no real model but the one on trial
ever plays and the event is never FIGHT.

The model plays itself under the registry's equal settings; only its key variable's name enters the
manifest, never the key. The chess trial's field is the Stockfish anchors alone (the house chess
players are deliberately broken, and the anchors are the scale a rating is read against); a task
event's field is every house player. The manifest's ``trial`` names the trial, the model and this
rule, so the record alone says which events are a trial's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from colosseum_core.events.contenders import CALIBRATION, CONTENDER_ID, ContendersError

EVENTS_TRIAL: Final = "COLOSSEUM-EVENTS-TRIAL-1"
# No key is read when the house field is resolved: every [[model]] is then its house stand-in.
NO_KEYS: Final[Mapping[str, str]] = {}


def model_contender_id(trial: str) -> str:
    """The model's contender id in its trial's events: the trial's id, within a contender id's length."""
    contender = f"trial-{trial}"[:48].rstrip("-_")
    if not CONTENDER_ID.match(contender):
        raise ContendersError(f"trial {trial!r}: {contender!r} is not a contender id")
    return contender


def trial_record(trial: str, model: Mapping[str, Any]) -> dict[str, Any]:
    """What a trial event's manifest says of its trial (``model``: ``ModelRef.record()``)."""
    return {"id": trial, "model": dict(model), "rules": EVENTS_TRIAL}


def with_trial_model(
    house: Mapping[str, Any],
    trial: Mapping[str, Any],
    *,
    keep: Callable[[Mapping[str, Any]], bool] = lambda contender: True,
) -> dict[str, Any]:
    """``house`` (a registry resolved with no keys: CALIBRATION) with the contenders ``keep`` keeps,
    after the trial's model (``trial``: ``trial_record``'s), asked with the field's settings."""
    if house["class"] != CALIBRATION:
        raise ContendersError(
            f"trial {trial['id']}: its house field resolved {house['class']}, not CALIBRATION"
        )
    field = [dict(c) for c in house["contenders"] if keep(c)]
    models = [c for c in house["contenders"] if c["kind"] == "model"]
    if not models:
        raise ContendersError(f"trial {trial['id']}: its registry has no model to take the settings of")
    model = trial["model"]
    entry = {
        "id": model_contender_id(trial["id"]),
        "kind": "model",
        "protocol": model["protocol"],
        "model": model["model"],
        "base_url": model["base_url"],
        "key_env": model["key_env"],
        "settings": dict(models[0]["settings"]),
    }
    if entry["id"] in {c["id"] for c in field}:
        raise ContendersError(f"trial {trial['id']}: contender id {entry['id']} is the house field's")
    return {"class": CALIBRATION, "contenders": [entry, *field], "missing_keys": [], "trial": dict(trial)}
