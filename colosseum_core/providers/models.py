"""Model names (COLOSSEUM-MODELS-1): a model is named as the field names it, ``provider/model``,
with an optional base URL and key variable, and one small registry (``models.toml``) holds the names
the project knows.

``openai/gpt-5.1`` is OpenAI's own API with ``$OPENAI_API_KEY``; ``openai/qwen3-8b`` with a base URL
is any OpenAI-compatible server (vLLM, Ollama, llama.cpp's server, SGLang), which may need no key;
``anthropic/…`` and ``google/…`` are the Messages and ``generateContent`` protocols; ``house/…`` is a
house player on the local sparring server. A name the registry holds resolves to its entry (which may
point anywhere); any other ``provider/model`` resolves by its provider's defaults. The arenas' own
files name models this way, and what a name resolved to is copied into what they freeze, so a
frozen unit never depends on the registry again.

Imported by: the arenas' contender files' readers, ``models check`` and the trial (``cli``), the
tests. Knows no arena.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from colosseum_core.providers.adapters import PROTOCOLS
from colosseum_core.providers.house_models import HOUSE_KEY

MODEL_NAMES: Final = "COLOSSEUM-MODELS-1"
# The project's registry, beside the arenas' own files at the repository's root.
DEFAULT_MODELS: Final = Path(__file__).resolve().parents[2] / "models.toml"
# A house player's base URL until a run says where the sparring server listens.
SPARRING: Final = "sparring"


@dataclasses.dataclass(frozen=True)
class Provider:
    """Where a provider serves its protocol and which variable holds its key by default."""

    protocol: str
    base_url: str
    key_env: str | None


# The base URLs are spelled as the arenas' files spelled them before names existed (the version
# segment is the adapter's), so a unit frozen from a name freezes the same endpoint as before.
PROVIDERS: Final[Mapping[str, Provider]] = {
    "openai": Provider("openai", "https://api.openai.com", "OPENAI_API_KEY"),
    "anthropic": Provider("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY"),
    "google": Provider("gemini", "https://generativelanguage.googleapis.com", "GEMINI_API_KEY"),
    "xai": Provider("openai", "https://api.x.ai", "XAI_API_KEY"),
    "deepseek": Provider("openai", "https://api.deepseek.com", "DEEPSEEK_API_KEY"),
    "mistral": Provider("openai", "https://api.mistral.ai", "MISTRAL_API_KEY"),
    "moonshot": Provider("openai", "https://api.moonshot.ai", "MOONSHOT_API_KEY"),
    "together": Provider("openai", "https://api.together.xyz", "TOGETHER_API_KEY"),
    "cohere": Provider("openai", "https://api.cohere.ai/compatibility", "COHERE_API_KEY"),
    "dashscope": Provider(
        "openai", "https://dashscope-intl.aliyuncs.com/compatible-mode", "DASHSCOPE_API_KEY"
    ),
    "openrouter": Provider("openai", "https://openrouter.ai/api", "OPENROUTER_API_KEY"),
    # The house players answer every protocol; a name picks one with house/<protocol>/<model>.
    "house": Provider("openai", SPARRING, None),
}
# ``gemini/…`` is what the protocol is called in the arenas' files; the field says ``google/…``.
PROVIDER_ALIASES: Final[Mapping[str, str]] = {"gemini": "google"}

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[^\s/][^\s]*$")
_KEY_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ENTRY_FIELDS: Final = frozenset({"provider", "protocol", "model", "base_url", "key_env", "about"})


class ModelNameError(ValueError):
    """A model name, a registry entry or an override that cannot be resolved, named with the field."""


@dataclasses.dataclass(frozen=True)
class ModelRef:
    """One resolved model: the name it was asked by and how to reach it.

    ``base_url`` is :data:`SPARRING` for a house player; ``key_env`` is None where no key is sent
    (a house player, or a local server that needs none)."""

    name: str
    protocol: str
    model: str
    base_url: str
    key_env: str | None

    @property
    def house(self) -> bool:
        return self.base_url == SPARRING

    def endpoint(self, sparring_url: str) -> str:
        """Where the model is asked: the sparring server's URL for a house player, else its own."""
        return sparring_url.rstrip("/") if self.house else self.base_url

    def key(self, environ: Mapping[str, str]) -> str | None:
        """The key to send: the house key, the variable's value, or None (unset, or none needed)."""
        if self.house:
            return HOUSE_KEY
        if self.key_env is None:
            return None
        return environ.get(self.key_env) or None

    def missing_key(self, environ: Mapping[str, str]) -> str | None:
        """The variable that must be set and is not (None when the model can be asked)."""
        if self.house or self.key_env is None:
            return None
        return None if environ.get(self.key_env) else self.key_env

    def record(self) -> dict[str, Any]:
        """What a frozen unit copies: every field, the registry's version beside them."""
        return {**dataclasses.asdict(self), "names": MODEL_NAMES}


def _provider(name: str, where: str) -> tuple[str, Provider]:
    provider = PROVIDER_ALIASES.get(name, name)
    if provider not in PROVIDERS:
        known = ", ".join(sorted(PROVIDERS))
        raise ModelNameError(f"{where}: provider {name!r} is not one of {known}")
    return provider, PROVIDERS[provider]


def _check_base_url(base_url: str, where: str) -> str:
    if base_url == SPARRING:
        return base_url
    if not re.match(r"^https?://[^\s/]+", base_url) or any(c.isspace() for c in base_url):
        raise ModelNameError(f"{where}: base_url {base_url!r} is not an http(s) URL")
    return base_url.rstrip("/")


def _check_key_env(key_env: str | None, where: str) -> str | None:
    if key_env is not None and not _KEY_ENV.match(key_env):
        raise ModelNameError(f"{where}: key_env {key_env!r} is not an environment variable's name")
    return key_env


def parse_model(
    name: str, *, base_url: str | None = None, key_env: str | None = None, where: str = "model name"
) -> ModelRef:
    """``provider/model`` by its provider's defaults, with a base URL and key variable overriding them.

    A base URL given without a key variable sends no key: a local server is usually open, and a key
    meant for the provider's own host must not travel to another one."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ModelNameError(f"{where}: {name!r} is not provider/model (e.g. openai/gpt-5.1)")
    provider_name, model = name.split("/", 1)
    provider, defaults = _provider(provider_name, where)
    protocol = defaults.protocol
    if provider == "house":
        first, _, rest = model.partition("/")
        if rest and first in PROTOCOLS:
            protocol, model = first, rest
    if base_url is None:
        url, env = defaults.base_url, defaults.key_env if key_env is None else key_env
    else:
        url, env = base_url, key_env
    return ModelRef(
        name=name,
        protocol=protocol,
        model=model,
        base_url=_check_base_url(url, where),
        key_env=_check_key_env(env, where),
    )


@dataclasses.dataclass(frozen=True)
class Registry:
    """The named models the project knows (``models.toml``), and how any other name resolves."""

    entries: Mapping[str, ModelRef]
    source: str = "models.toml"

    def resolve(self, name: str, *, base_url: str | None = None, key_env: str | None = None) -> ModelRef:
        """The registry's entry for ``name`` (overrides applied), else ``name`` by its provider."""
        entry = self.entries.get(name)
        if entry is None:
            return parse_model(name, base_url=base_url, key_env=key_env)
        if base_url is None and key_env is None:
            return entry
        return dataclasses.replace(
            entry,
            base_url=entry.base_url if base_url is None else _check_base_url(base_url, name),
            # A new base URL without a key variable sends no key, as parse_model does.
            key_env=_check_key_env(key_env, name),
        )


def _entry(name: str, fields: Any, where: str) -> ModelRef:
    at = f"{where} [models.{name!r}]"
    if not isinstance(fields, dict):
        raise ModelNameError(f"{at}: expected a table, got {type(fields).__name__}")
    unknown = sorted(set(fields) - _ENTRY_FIELDS)
    if unknown:
        raise ModelNameError(
            f"{at} field {unknown[0]}: not a field of a model (fields: {', '.join(sorted(_ENTRY_FIELDS))})"
        )
    for field in ("provider", "protocol", "model", "base_url", "key_env"):
        if field in fields and not (isinstance(fields[field], str) and fields[field]):
            raise ModelNameError(f"{at} field {field}: expected a non-empty string, got {fields[field]!r}")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ModelNameError(f"{at}: {name!r} is not provider/model (e.g. openai/gpt-5.1)")
    # An entry that names its provider may call itself anything: the name's prefix is then a label.
    spelled = f"{fields['provider']}/{name.split('/', 1)[1]}" if "provider" in fields else name
    ref = parse_model(spelled, base_url=fields.get("base_url"), key_env=fields.get("key_env"), where=at)
    ref = dataclasses.replace(ref, name=name)
    if "protocol" in fields:
        if fields["protocol"] not in PROTOCOLS:
            raise ModelNameError(
                f"{at} field protocol: {fields['protocol']!r} is not one of {', '.join(PROTOCOLS)}"
            )
        ref = dataclasses.replace(ref, protocol=fields["protocol"])
    if "model" in fields:
        ref = dataclasses.replace(ref, model=fields["model"])
    return ref


def read_registry(text: str, *, source: str = "models.toml") -> Registry:
    """Parse a registry's TOML: ``[models."<name>"]`` tables, each optionally overriding the
    provider's protocol, model id, base URL and key variable."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ModelNameError(f"{source}: not valid TOML ({exc})") from exc
    if document.get("registry", MODEL_NAMES) != MODEL_NAMES:
        raise ModelNameError(f"{source} field registry: {document['registry']!r} is not {MODEL_NAMES}")
    unknown = sorted(set(document) - {"registry", "models"})
    if unknown:
        raise ModelNameError(
            f"{source} field {unknown[0]}: not a field of the registry (fields: models, registry)"
        )
    models = document.get("models", {})
    if not isinstance(models, dict):
        raise ModelNameError(f"{source} field models: expected tables of models, got {type(models).__name__}")
    return Registry({name: _entry(name, fields, source) for name, fields in models.items()}, source=source)


def load_registry(path: Path) -> Registry:
    """The registry at ``path``; no file is an empty registry (every name by its provider)."""
    if not path.exists():
        return Registry({}, source=str(path))
    return read_registry(path.read_text(encoding="utf-8"), source=str(path))


def default_registry() -> Registry:
    """The project's ``models.toml`` (read each time: a long-running process sees an edit)."""
    return load_registry(DEFAULT_MODELS)


# The fields an arena's entry may give beside the name: the same overrides a command line takes.
_NAMED_FIELDS: Final = ("base_url", "key_env")


def names_a_model(raw: Mapping[str, Any]) -> bool:
    """Whether an arena's entry names its model (``model = "openai/gpt-5.1"``) rather than spelling
    out its protocol, model id, base URL and key variable (the form before names, which an entry
    with a ``protocol`` field still is)."""
    return "protocol" not in raw


def named_model(raw: Mapping[str, Any], where: str, registry: Registry | None = None) -> ModelRef:
    """An arena's entry that names its model: ``model`` resolved through ``registry`` (the project's
    by default), ``base_url`` and ``key_env`` overriding it as ``--base-url`` and ``--key-env`` do."""
    name = raw.get("model")
    if not isinstance(name, str) or not name:
        raise ModelNameError(
            f"{where} field model: expected a model's name (e.g. openai/gpt-5.1), got {name!r}"
        )
    overrides = {}
    for field in _NAMED_FIELDS:
        value = raw.get(field)
        if value is not None and not (isinstance(value, str) and value):
            raise ModelNameError(f"{where} field {field}: expected a non-empty string, got {value!r}")
        overrides[field] = value
    registry = default_registry() if registry is None else registry
    try:
        return registry.resolve(name, **overrides)
    except ModelNameError as exc:
        raise ModelNameError(f"{where}: {exc}") from None
