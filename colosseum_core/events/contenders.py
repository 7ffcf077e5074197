"""Who takes part in an event, read from its registry (``chess.toml``, ``solve_or_object.toml``) and
resolved once: the model contenders every event shares. An event adds sections of its own (the chess
event's Stockfish levels) through ``resolve_models``' ``extra_sections``.

An entry names its model as ``models.toml`` does (``model = "openai/gpt-5.1"``), resolved into the
protocol, model id, base URL and key variable the manifest records, which are the same whichever
form the entry took. Resolution is the freeze's: a contender's configuration goes into the frozen
manifest exactly as resolved, and nothing about it is read again. When every ``[[model]]``'s key
variable is set, the event is FIGHT: those models and the engines play. Otherwise it is CALIBRATION:
each model is played by its house stand-in on the sparring server, the ``[[house]]`` players join,
and no real model plays, so a house stand-in's games are never passed off as its model's. Secrets
never enter the manifest, only the names of the variables that hold them.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from colosseum_core.providers.adapters import PROTOCOLS
from colosseum_core.providers.call import CallSettings
from colosseum_core.providers.check import ModelCheckError
from colosseum_core.providers.models import ModelNameError, named_model, names_a_model

SPARRING: Final = "sparring"
FIGHT: Final = "FIGHT"
CALIBRATION: Final = "CALIBRATION"
CONTENDER_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")
_SETTINGS = ("temperature", "top_p", "max_tokens", "timeout_s", "seed")


# Asks each real model of a FIGHT event once before it is frozen (``providers.check``); raises
# ``ModelCheckError`` with the first failure's line. The wiring injects it; None checks nothing.
ModelCheck = Callable[[Sequence[Mapping[str, Any]]], object]


class ContendersError(ValueError):
    """A registry that breaks its rules; the message names the file, the contender and the field."""


def required_text(where: str, raw: Mapping[str, Any], field: str) -> str:
    value = raw.get(field)
    if not isinstance(value, str) or not value:
        raise ContendersError(f"{where}: {field} is {value!r}, not a non-empty string")
    return value


def _settings(where: str, raw: Any) -> dict[str, Any]:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict) or set(raw) - set(_SETTINGS):
        raise ContendersError(f"{where}: [settings] may set only {', '.join(_SETTINGS)}, not {raw!r}")
    try:
        settings = CallSettings(**raw)
    except (TypeError, ValueError) as exc:
        raise ContendersError(f"{where}: [settings]: {exc}") from None
    return {name: getattr(settings, name) for name in _SETTINGS}


def entry_id(where: str, raw: Any, section: str) -> str:
    """The id of a registry's ``[[section]]`` entry, which must be a table, its id a contender's."""
    if not isinstance(raw, dict):
        article = "an" if section[0] in "aeiou" else "a"
        raise ContendersError(f"{where}: {article} [[{section}]] entry is not a table")
    contender = required_text(where, raw, "id")
    if not CONTENDER_ID.match(contender):
        raise ContendersError(
            f"{where}: [[{section}]] id {contender!r} is not lower-case letters, digits, - or _"
        )
    return contender


def model_fields(where: str, raw: Mapping[str, Any], *, house: bool = False) -> dict[str, Any]:
    """An entry's ``protocol``, ``model``, ``base_url`` and ``key_env``: resolved from the model's name
    (``model = "openai/gpt-5.1"``, through ``models.toml``; ``base_url`` and ``key_env`` override
    it), or as spelled out by an entry with a ``protocol`` (the form before names). A ``[[house]]``
    entry (``house``) names a house player (``house/<protocol>/<player>``) or spells out its
    protocol and player, and is on the sparring server."""
    if names_a_model(raw):
        try:
            ref = named_model(raw, where)
        except ModelNameError as exc:
            raise ContendersError(str(exc)) from None
        if house and not ref.house:
            raise ContendersError(f"{where} field model: {ref.name!r} is not a house player (house/…)")
        return {
            "protocol": ref.protocol,
            "model": ref.model,
            "base_url": ref.base_url,
            "key_env": ref.key_env,
        }
    protocol = required_text(where, raw, "protocol")
    if protocol not in PROTOCOLS:
        raise ContendersError(f"{where}: protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}")
    fields = {"protocol": protocol, "model": required_text(where, raw, "model")}
    if house:
        return {**fields, "base_url": SPARRING, "key_env": None}
    return {
        **fields,
        "base_url": required_text(where, raw, "base_url"),
        "key_env": required_text(where, raw, "key_env"),
    }


def _model_entry(where: str, raw: Any, section: str) -> dict[str, Any]:
    contender = entry_id(where, raw, section)
    where = f"{where} [[{section}]] {contender}"
    return {"id": contender, **model_fields(where, raw, house=section == "house"), "raw": raw, "where": where}


def resolve_models(
    path: Path | str, environ: Mapping[str, str], *, extra_sections: tuple[str, ...] = ()
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The event's class, its model contenders as the manifest records them and the keys that were
    missing; and the registry as read, for the event's own ``extra_sections``.

    ``environ`` is where keys are looked up (the process environment, injected).
    """
    path = Path(path)
    where = f"contenders {path}"
    try:
        registry = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ContendersError(f"{where}: cannot be read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ContendersError(f"{where}: not TOML ({exc})") from None
    sections = ("settings", "model", "house", *extra_sections)
    unknown = set(registry) - set(sections)
    if unknown:
        raise ContendersError(f"{where}: unknown sections {sorted(unknown)} ({', '.join(sections)})")
    settings = _settings(where, registry.get("settings"))
    models = [_model_entry(where, raw, "model") for raw in registry.get("model", [])]
    for model in models:
        model["house"] = required_text(model["where"], model["raw"], "house")
    houses = [_model_entry(where, raw, "house") for raw in registry.get("house", [])]
    # A model without a key variable (a local server that needs none) is never missing one.
    missing = sorted({m["key_env"] for m in models if m["key_env"] and not environ.get(m["key_env"])})
    fight = bool(models) and not missing
    contenders: list[dict[str, Any]] = []
    for model in models:
        entry = {"id": model["id"], "kind": "model", "protocol": model["protocol"], "settings": settings}
        if fight:
            entry |= {"model": model["model"], "base_url": model["base_url"], "key_env": model["key_env"]}
        else:
            entry |= {
                "model": model["house"],
                "base_url": SPARRING,
                "key_env": None,
                "stands_in_for": model["model"],
            }
        contenders.append(entry)
    if not fight:
        for house in houses:
            own = dict(settings)
            timeout = house["raw"].get("timeout_s")
            if timeout is not None:
                own = _settings(house["where"], {**settings, "timeout_s": timeout})
            contenders.append(
                {
                    "id": house["id"],
                    "kind": "model",
                    "protocol": house["protocol"],
                    "model": house["model"],
                    "base_url": SPARRING,
                    "key_env": None,
                    "settings": own,
                }
            )
    resolved = {"class": FIGHT if fight else CALIBRATION, "contenders": contenders, "missing_keys": missing}
    return resolved, registry


def checked(path: Path | str, resolved: dict[str, Any]) -> dict[str, Any]:
    """``resolved``, once its contender ids are known to be distinct and at least two."""
    where = f"contenders {Path(path)}"
    ids = [c["id"] for c in resolved["contenders"]]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ContendersError(f"{where}: contender ids repeat: {', '.join(repeated)}")
    if len(ids) < 2:
        raise ContendersError(f"{where}: an event needs at least two contenders, not {len(ids)}")
    return resolved


def resolve_contenders(path: Path | str, environ: Mapping[str, str]) -> dict[str, Any]:
    """The model contenders of an event with no sections of its own."""
    resolved, _ = resolve_models(path, environ)
    return checked(path, resolved)


def keep_only(
    resolved: dict[str, Any], only: Sequence[str], *, event: str, path: Path | str
) -> dict[str, Any]:
    """``resolved`` with only the contenders ``only`` names, in the registry's order (empty keeps all)."""
    if not only:
        return resolved
    known = [c["id"] for c in resolved["contenders"]]
    unknown = [c for c in only if c not in known]
    if unknown:
        raise ContendersError(
            f"event {event}: no contender {', '.join(unknown)} in {path} for this event's "
            f"class ({resolved['class']}); its contenders: {', '.join(known)}"
        )
    kept = [c for c in resolved["contenders"] if c["id"] in only]
    if len(kept) < 2:
        raise ContendersError(f"event {event}: an event needs at least two contenders, not {list(only)}")
    return {**resolved, "contenders": kept}


def check_fight(
    event: str, resolved: Mapping[str, Any], check: ModelCheck | None, *also: Mapping[str, Any]
) -> None:
    """Before a FIGHT event is frozen, each real model it names (its contenders, and ``also``: its
    judges) is asked once through ``check``; one that fails refuses the freeze in one line. A
    CALIBRATION event names only house players on the project's own sparring server: not asked."""
    if check is None or resolved["class"] != FIGHT:
        return
    asked = [
        entry
        for entry in (*resolved["contenders"], *also)
        if entry.get("kind", "model") == "model" and entry["base_url"] != SPARRING
    ]
    try:
        check(asked)
    except ModelCheckError as exc:
        raise ContendersError(f"event {event}: {exc}; nothing is frozen") from None
