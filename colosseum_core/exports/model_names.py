"""How the exports name a model: as Inspect AI names it, ``provider/model``.

The record keeps a model's protocol (``openai``, ``anthropic``, ``gemini``), the provider's own model
name and, in an event's manifest, its base URL. Inspect's provider for Gemini is ``google``; a model
behind any other OpenAI-compatible server (vLLM, Ollama, llama.cpp, SGLang, the project's sparring
server) is ``openai-api/<service>/<model>``, the service named by its host; a house player is
``openai-api/colosseum-house/<model>`` (the sparring server); an engine, no model, is Inspect's
``none/<engine>``.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from colosseum_core.providers.models import PROVIDERS

_PROVIDER_OF_PROTOCOL = {"openai": "openai", "anthropic": "anthropic", "gemini": "google"}
_DEFAULT_HOSTS = {urlsplit(p.base_url).hostname for p in PROVIDERS.values() if "://" in p.base_url}
HOUSE_SERVICE = "colosseum-house"


def _service(base_url: str) -> str:
    host = urlsplit(base_url).hostname or base_url
    return re.sub(r"[^a-z0-9-]+", "-", host.lower()).strip("-") or "local"


def field_name(
    protocol: str | None, model: str, *, base_url: str | None = None, kind: str | None = None
) -> str:
    """``openai/gpt-5.1``, ``google/gemini-3-pro``, ``openai-api/<service>/<model>``, ``none/<engine>``."""
    if kind == "engine":
        return f"none/{model.split()[0].lower()}"
    if model.startswith("house-") or base_url == "sparring":
        return f"openai-api/{HOUSE_SERVICE}/{model}"
    if base_url and "://" in base_url and urlsplit(base_url).hostname not in _DEFAULT_HOSTS:
        return f"openai-api/{_service(base_url)}/{model}"
    return f"{_PROVIDER_OF_PROTOCOL.get(protocol or '', protocol or 'unknown')}/{model}"


def bare(name: str) -> str:
    """What Inspect puts in a reply's ``model``: the provider's own name, no prefix."""
    return name.rsplit("/", 1)[-1]
