"""Which models play, judge and sit on the intent panel: one configuration document, never code.

The document (``compelle-models/1``, JSON) has the three slots of the intent panel, the debater's
slot (every miner's strategy is played by the one debate model), the two judges' slots and,
optionally, the topics' web-search slot. It names each slot's fallback chain: an ordered list of
endpoints (``protocol``, ``model``, ``base_url``, and ``key_env``, the environment variable holding
its key). ``base_url`` ``"sparring"`` means the local sparring server, wherever it runs. The
document is identified by the SHA-256 of its bytes, read at an epoch's start and recorded with
everything the epoch produces, so a verdict can be traced to the exact model set that returned it.
``house_models.json`` is the offline default.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Final

from colosseum_core.providers.adapters import adapter_for
from colosseum_core.providers.call import Endpoint
from colosseum_core.providers.house_models import HOUSE_KEY

MODELS_FORMAT: Final = "compelle-models/1"
SPARRING: Final = "sparring"
# The seats the document fills: the intent panel's (check 3 of COMPELLE-ENTRY-1, ``entry.intent``)
# and the judges' (COMPELLE-JUDGING-1, ``judging.panel``), whose rules count votes by them.
PANEL_SIZE: Final = 3
JUDGES: Final = 2


class ModelsError(ValueError):
    """A models document that cannot be used: the message names the document, the field and the value."""


@dataclasses.dataclass(frozen=True)
class ChainLink:
    protocol: str
    model: str
    base_url: str
    key_env: str | None = None

    def endpoint(self, sparring_url: str, keys: Mapping[str, str]) -> Endpoint | None:
        """Where to ask it, or None when its key is not set (the chain moves on without it)."""
        house = self.base_url == SPARRING
        key = HOUSE_KEY if house and self.key_env is None else keys.get(self.key_env or "")
        if not key:
            return None
        return Endpoint(self.protocol, sparring_url if house else self.base_url, self.model, key)


@dataclasses.dataclass(frozen=True)
class Slot:
    """One seat of a panel (or the debater's): its name and its fallback chain."""

    name: str
    chain: tuple[ChainLink, ...]

    def endpoints(self, sparring_url: str, keys: Mapping[str, str]) -> list[Endpoint]:
        return [e for link in self.chain if (e := link.endpoint(sparring_url, keys)) is not None]


@dataclasses.dataclass(frozen=True)
class ModelsConfig:
    intent_panel: tuple[Slot, ...]
    debater: Slot
    judges: tuple[Slot, ...]
    # The web-search source of the topics; None: the rotation has no search items.
    search: Slot | None
    sha256: str
    source: str

    def slots(self) -> tuple[Slot, ...]:
        return (*self.intent_panel, self.debater, *self.judges, *((self.search,) if self.search else ()))


def _field(document: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in document:
        raise ModelsError(f"{where}: no field {name!r}")
    return document[name]


def _slot(item: Any, where: str) -> Slot:
    if not isinstance(item, dict):
        raise ModelsError(f"{where}: expected an object, got {item!r:.60}")
    name = _field(item, "slot", where)
    chain = _field(item, "chain", where)
    if not isinstance(name, str) or not name:
        raise ModelsError(f"{where} field slot: expected a name, got {name!r}")
    if not isinstance(chain, list) or not chain:
        raise ModelsError(f"{where} slot {name} field chain: expected a non-empty list of endpoints")
    links = []
    for i, link in enumerate(chain):
        at = f"{where} slot {name} chain[{i}]"
        if not isinstance(link, dict):
            raise ModelsError(f"{at}: expected an object, got {link!r:.60}")
        values = {k: _field(link, k, at) for k in ("protocol", "model", "base_url")}
        for key, value in values.items():
            if not isinstance(value, str) or not value:
                raise ModelsError(f"{at} field {key}: expected text, got {value!r}")
        try:
            adapter_for(values["protocol"])
        except ValueError as exc:
            raise ModelsError(f"{at} field protocol: {exc}") from None
        key_env = link.get("key_env")
        if key_env is not None and (not isinstance(key_env, str) or not key_env):
            raise ModelsError(f"{at} field key_env: expected a variable name, got {key_env!r}")
        links.append(ChainLink(key_env=key_env, **values))
    return Slot(name, tuple(links))


def parse_models(data: bytes, source: str) -> ModelsConfig:
    """The document in ``data`` (from ``source``, for messages)."""
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ModelsError(f"{source}: not JSON ({exc})") from None
    if not isinstance(document, dict):
        raise ModelsError(f"{source}: expected a JSON object")
    found = document.get("format")
    if found != MODELS_FORMAT:
        raise ModelsError(f"{source} field format: {found!r}, not {MODELS_FORMAT!r}")
    panel = _field(document, "intent_panel", source)
    if not isinstance(panel, list) or len(panel) != PANEL_SIZE:
        raise ModelsError(f"{source} field intent_panel: expected {PANEL_SIZE} slots, got {panel!r:.80}")
    slots = tuple(_slot(item, f"{source} intent_panel[{i}]") for i, item in enumerate(panel))
    debater = _slot(_field(document, "debater", source), f"{source} debater")
    judges = _field(document, "judges", source)
    if not isinstance(judges, list) or len(judges) != JUDGES:
        raise ModelsError(f"{source} field judges: expected {JUDGES} slots, got {judges!r:.80}")
    judge_slots = tuple(_slot(item, f"{source} judges[{i}]") for i, item in enumerate(judges))
    search = document.get("search")
    search_slot = None if search is None else _slot(search, f"{source} search")
    config = ModelsConfig(
        intent_panel=slots,
        debater=debater,
        judges=judge_slots,
        search=search_slot,
        sha256=hashlib.sha256(data).hexdigest(),
        source=source,
    )
    names = [s.name for s in config.slots()]
    if len(set(names)) != len(names):
        raise ModelsError(f"{source}: slot names repeat ({', '.join(names)})")
    return config


def house_models() -> ModelsConfig:
    data = resources.files(__package__).joinpath("house_models.json").read_bytes()
    return parse_models(data, "colosseum_core/debate/house_models.json")


def load_models(path: Path | None) -> ModelsConfig:
    """The document at ``path`` (None: the offline default)."""
    if path is None:
        return house_models()
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ModelsError(f"{path}: cannot be read ({exc.strerror})") from None
    return parse_models(data, str(path))
