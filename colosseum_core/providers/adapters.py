"""The three wire protocols a model speaks: how to ask, where the reply text is, what an error names.

Each adapter knows only its protocol's shapes: how a list of chat messages (``Message``: system,
user and assistant turns) is spelled on the wire, where the reply's text is, and which names an
error may give a setting. The asking engine (settings negotiation, refusals, silence, fallbacks)
lives in :mod:`colosseum_core.providers.call` and is the same for every protocol.

Settings use one vocabulary across protocols (``temperature``, ``top_p``, ``max_tokens``, ``seed``);
each adapter maps them to its wire names and knows which names a provider may use for them in an
error message (Gemini reports ``topP`` or ``generation_config.top_p``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal
from urllib.parse import quote

# The settings sent to a provider, in the order they are given up when an error names several at
# once: a seed and top_p=1 change nothing a provider promises (top_p=1 is every provider's default),
# so losing them costs least; temperature 0 and the reply budget are the settings that matter.
NEGOTIABLE = ("seed", "top_p", "temperature", "max_tokens")

_ERROR_TEXT_LIMIT = 4000
ROLES = ("system", "user", "assistant")
Role = Literal["system", "user", "assistant"]


@dataclasses.dataclass(frozen=True)
class Message:
    """One chat turn: ``system`` (instructions), ``user`` or ``assistant``."""

    role: Role
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"message role {self.role!r} is not one of {', '.join(ROLES)}")
        if not isinstance(self.content, str):
            raise ValueError(
                f"a {self.role} message's content must be text, not {type(self.content).__name__}"
            )


def _apart(messages: Sequence[Message]) -> tuple[list[Message], list[Message]]:
    return [m for m in messages if m.role == "system"], [m for m in messages if m.role != "system"]


def check_messages(messages: Sequence[Message]) -> tuple[list[Message], list[Message]]:
    """The system messages and the conversation, in order; ValueError if there is no turn to answer."""
    system, turns = _apart(messages)
    if not turns:
        raise ValueError("a chat needs at least one user or assistant message, not only system ones")
    if turns[-1].role != "user":
        raise ValueError("a chat's last turn must be the user's: the model answers it")
    return system, turns


def _endpoint(base_url: str, version: str, path: str) -> str:
    """``{base}/{version}{path}``; a base that already ends in the version segment is not doubled.

    OpenAI-compatible hosts are usually configured as ``https://host/v1`` (OpenRouter, vLLM,
    Together document it that way), so both spellings of a base must reach the same endpoint.
    """
    base = base_url.rstrip("/")
    if not base.endswith("/" + version):
        base = f"{base}/{version}"
    return base + path


def error_text(body: bytes) -> str:
    """The part of an error body that explains it: message, param and field violations if JSON, else the text.

    Searching only the explanation (not an echo of the request some gateways include) keeps a
    setting's name in the request from being mistaken for a complaint about it.
    """
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):
        return body.decode("utf-8", errors="replace")[:_ERROR_TEXT_LIMIT]
    parts: list[str] = []
    error = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(error, dict):
        for key in ("message", "param", "type", "code", "status"):
            value = error.get(key)
            if isinstance(value, str):
                parts.append(value)
        details = error.get("details")
        if details:
            parts.append(json.dumps(details, ensure_ascii=False))
    elif isinstance(error, str):
        parts.append(error)
    elif isinstance(doc, dict):
        for key in ("message", "detail", "error_message"):
            value = doc.get(key)
            if isinstance(value, str):
                parts.append(value)
    if not parts:
        return body.decode("utf-8", errors="replace")[:_ERROR_TEXT_LIMIT]
    return " | ".join(parts)[:_ERROR_TEXT_LIMIT]


def _join_text_parts(parts: Any, *, skip_thoughts: bool = False) -> str | None:
    if not isinstance(parts, list):
        return None
    texts: list[str] = []
    for part in parts:
        if not isinstance(part, dict) or (skip_thoughts and part.get("thought") is True):
            continue
        if part.get("type", "text") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "".join(texts) if texts else None


# The wire names of providers that spell the settings as this module does.
_SAME_NAMES: Mapping[str, tuple[str, ...]] = {setting: (setting,) for setting in NEGOTIABLE}


class Adapter:
    """One protocol. Subclasses fill the class attributes, ``url``, ``body`` and ``reply_text``."""

    protocol: ClassVar[str]
    # Canonical setting -> names a provider may use for it in an error message.
    wire_names: ClassVar[Mapping[str, tuple[str, ...]]]
    # Documented as not accepted at all: omitted before the first request.
    unsupported: ClassVar[frozenset[str]] = frozenset()
    # The API rejects a request without it, so omitting it can never help.
    required: ClassVar[frozenset[str]] = frozenset()
    reply_path: ClassVar[str]
    # Headers every request carries after the content type, then the one carrying the key as
    # ``key_format`` spells it: a header, never the URL, which is stored in every receipt.
    headers: ClassVar[Mapping[str, str]] = {}
    key_header: ClassVar[str]
    key_format: ClassVar[str] = "{}"

    def request(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None,
        messages: Sequence[Message],
        settings: Mapping[str, Any],
    ) -> tuple[str, dict[str, str], dict[str, Any]]:
        """The URL, headers and JSON body asking ``model`` to answer ``messages``."""
        check_messages(messages)
        headers = {"content-type": "application/json", **self.headers}
        if api_key:
            headers[self.key_header] = self.key_format.format(api_key)
        return self.url(base_url, model), headers, self.body(model, messages, settings)

    def url(self, base_url: str, model: str) -> str:
        raise NotImplementedError

    def body(self, model: str, messages: Sequence[Message], settings: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON body for messages ``check_messages`` passed."""
        raise NotImplementedError

    def reply_text(self, body: Any) -> str | None:
        raise NotImplementedError

    def sent_settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The settings a request body carried, in the canonical vocabulary (the inverse of ``request``)."""
        return {name: body[name] for name in NEGOTIABLE if name in body}

    def refused_setting(self, status: int, body: bytes, sent: Mapping[str, Any]) -> str | None:
        """The sent setting a 400/422 error names, if any (the one to give up first if several)."""
        if status not in (400, 422):
            return None
        text = error_text(body)
        for setting in NEGOTIABLE:
            if setting not in sent or setting in self.required:
                continue
            for name in self.wire_names[setting]:
                if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text):
                    return setting
        return None


class OpenAIAdapter(Adapter):
    protocol = "openai"
    wire_names = _SAME_NAMES
    reply_path = "choices[0].message.content"
    key_header = "authorization"
    key_format = "Bearer {}"

    def url(self, base_url: str, model: str) -> str:
        return _endpoint(base_url, "v1", "/chat/completions")

    def body(self, model: str, messages: Sequence[Message], settings: Mapping[str, Any]) -> dict[str, Any]:
        wire = [{"role": m.role, "content": m.content} for m in messages]
        return {"model": model, "messages": wire, **settings}

    def reply_text(self, body: Any) -> str | None:
        try:
            message = body["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            return None
        if not isinstance(message, dict):
            return None
        content = message.get("content")
        if isinstance(content, str):
            return content
        # Some OpenAI-compatible servers return content as a list of typed parts.
        return _join_text_parts(content)


class AnthropicAdapter(Adapter):
    protocol = "anthropic"
    wire_names = _SAME_NAMES
    # The Messages API has no seed parameter; sending one is a 400 ("Extra inputs are not permitted").
    unsupported = frozenset({"seed"})
    required = frozenset({"max_tokens"})
    reply_path = "content[].text"
    version = "2023-06-01"
    headers: ClassVar[Mapping[str, str]] = {"anthropic-version": version}
    key_header = "x-api-key"

    def url(self, base_url: str, model: str) -> str:
        return _endpoint(base_url, "v1", "/messages")

    def body(self, model: str, messages: Sequence[Message], settings: Mapping[str, Any]) -> dict[str, Any]:
        system, turns = _apart(messages)
        body: dict[str, Any] = {"model": model}
        if "max_tokens" in settings:
            body["max_tokens"] = settings["max_tokens"]
        if system:
            # The Messages API takes instructions apart from the turns.
            body["system"] = "\n\n".join(m.content for m in system)
        body["messages"] = [{"role": m.role, "content": m.content} for m in turns]
        body.update({k: v for k, v in settings.items() if k != "max_tokens"})
        return body

    def reply_text(self, body: Any) -> str | None:
        return _join_text_parts(body.get("content")) if isinstance(body, dict) else None


class GeminiAdapter(Adapter):
    protocol = "gemini"
    wire_names: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "temperature": ("temperature",),
        "top_p": ("topP", "top_p"),
        "max_tokens": ("maxOutputTokens", "max_output_tokens"),
        "seed": ("seed",),
    }
    reply_path = "candidates[0].content.parts[].text"
    # Not ``?key=``: the URL is stored in every receipt, headers that carry secrets are not.
    key_header = "x-goog-api-key"
    _wire: ClassVar[Mapping[str, str]] = {setting: names[0] for setting, names in wire_names.items()}

    def url(self, base_url: str, model: str) -> str:
        name = quote(model.removeprefix("models/"), safe="")
        return _endpoint(base_url, "v1beta", f"/models/{name}:generateContent")

    def body(self, model: str, messages: Sequence[Message], settings: Mapping[str, Any]) -> dict[str, Any]:
        system, turns = _apart(messages)
        # Gemini calls the assistant "model"; instructions go apart, as systemInstruction.
        contents = [
            {"role": "model" if m.role == "assistant" else "user", "parts": [{"text": m.content}]}
            for m in turns
        ]
        body: dict[str, Any] = {"contents": contents}
        if system:
            body["systemInstruction"] = {"parts": [{"text": m.content} for m in system]}
        config = {self._wire[k]: v for k, v in settings.items()}
        if config:
            body["generationConfig"] = config
        return body

    def sent_settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        config = body.get("generationConfig") or {}
        return {name: config[wire] for name, wire in self._wire.items() if wire in config}

    def reply_text(self, body: Any) -> str | None:
        try:
            parts = body["candidates"][0]["content"]["parts"]
        except (KeyError, IndexError, TypeError):
            return None
        # Thought summaries (thinking models with includeThoughts) are not the answer.
        return _join_text_parts(parts, skip_thoughts=True)


ADAPTERS: Mapping[str, Adapter] = {
    a.protocol: a for a in (OpenAIAdapter(), AnthropicAdapter(), GeminiAdapter())
}
PROTOCOLS = tuple(ADAPTERS)


def adapter_for(protocol: str) -> Adapter:
    try:
        return ADAPTERS[protocol]
    except KeyError:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {', '.join(PROTOCOLS)}") from None
