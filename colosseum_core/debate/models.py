"""Which models play, judge and sit on the intent panel: one configuration document, never code.

The document (``compelle-models/1``, JSON) has the three slots of the intent panel, the debater's
slot (every miner's strategy is played by the one debate model), the two judges' slots and,
optionally, the topics' web-search slot. It names each slot's fallback chain: an ordered list of
endpoints (``protocol``, ``model``, ``base_url``, and ``key_env``, the environment variable holding
its key), or, naming the model as ``models.toml`` does, ``{"model": "openai/gpt-5.1"}`` (with
``base_url`` and ``key_env`` overriding what the name resolves to), which is resolved into those
four when the document is read: the document's bytes, and so its SHA-256, are what was published.
A link without a key variable is asked without a key (a local server that needs none).
``base_url`` ``"sparring"`` means the local sparring server, wherever it runs. The
document is identified by the SHA-256 of its bytes, read at an epoch's start and recorded with
everything the epoch produces, so a verdict can be traced to the exact model set that returned it.
``house_models.json`` is the offline default.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Final

from colosseum_core.providers.adapters import adapter_for
from colosseum_core.providers.call import Endpoint
from colosseum_core.providers.check import ModelCheckError
from colosseum_core.providers.house_models import HOUSE_KEY
from colosseum_core.providers.models import ModelNameError, named_model, names_a_model

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
        if house and self.key_env is None:
            return Endpoint(self.protocol, sparring_url, self.model, HOUSE_KEY)
        if self.key_env is None:
            # A server that needs no key (a local vLLM or Ollama a name points at) is asked without one.
            return Endpoint(self.protocol, self.base_url, self.model, None)
        key = keys.get(self.key_env)
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

    def keyed_links(self, keys: Mapping[str, str]) -> list[dict[str, Any]]:
        """Every real model the document would ask with ``keys`` (not a house player, and its key set
        or none needed), each named by its slot: what a check of the models asks once."""
        keyed = []
        for slot in self.slots():
            for link in slot.chain:
                if link.base_url != SPARRING and link.endpoint("", keys) is not None:
                    keyed.append({"id": slot.name, **dataclasses.asdict(link)})
        return keyed


def check_models(
    config: ModelsConfig, keys: Mapping[str, str], check: Callable[[list[dict[str, Any]]], object]
) -> ModelsConfig:
    """``config``, once every real model it would ask with ``keys`` answered ``check``
    (``providers.check``): one that did not refuses in one line, before anything is asked or sealed.
    House players are the project's own sparring server's: not asked."""
    try:
        check(config.keyed_links(keys))
    except ModelCheckError as exc:
        raise ModelsError(f"{config.source}: {exc}; nothing is asked") from None
    return config


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
        if names_a_model(link):
            try:
                ref = named_model(link, at)
            except ModelNameError as exc:
                raise ModelsError(str(exc)) from None
            links.append(ChainLink(ref.protocol, ref.model, ref.base_url, ref.key_env))
            continue
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
