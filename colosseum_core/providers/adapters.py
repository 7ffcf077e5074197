"""The three wire protocols a model speaks: how to ask, where the reply text is, why the reply
ended, what an error names.

Each adapter knows only its protocol's shapes: how a list of chat messages (``Message``: system,
user and assistant turns) is spelled on the wire, where the reply's text is, why the provider says
the reply ended (``Stopped``: its own stop reason, one of a small shared vocabulary, and a refusal's
or a safety block's own words), whether a body has the protocol's reply shape at all, and which
names an error may give a setting. The asking engine (settings negotiation, refusals, silence, fallbacks)
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

_REASON_LIMIT = 100
_DETAIL_LIMIT = 1000


def _one_line(text: str | None, limit: int) -> str | None:
    if text is None:
        return None
    said = " ".join(text.split())
    return said if len(said) <= limit else said[: limit - 1] + "…"


# Why a reply ended, in one vocabulary for every protocol: ``stop`` (the model finished), ``length``
# (cut at the reply budget or the context window), ``refusal`` (the model declined), ``safety`` (the
# provider's filter blocked the prompt or the reply, recitation included), ``tool_call`` (it asked
# for a tool instead of answering), ``other`` (a reason this vocabulary has no word for).
Stop = Literal["stop", "length", "refusal", "safety", "tool_call", "other"]
STOPS: tuple[Stop, ...] = ("stop", "length", "refusal", "safety", "tool_call", "other")


@dataclasses.dataclass(frozen=True)
class Stopped:
    """Why a reply ended, as its body says. ``reason`` is the provider's own value (``length``,
    ``max_tokens``, ``MAX_TOKENS``, ``blockReason SAFETY``); ``detail`` a refusal's or a block's own
    words (the refusal text, its category, the blocked harm categories); ``stop`` is None when the
    body names no reason."""

    stop: Stop | None = None
    reason: str | None = None
    detail: str | None = None
    tool_call: bool = False

    def __post_init__(self) -> None:
        # Both come from the reply, which a contender's server writes: one bounded line each.
        object.__setattr__(self, "reason", _one_line(self.reason, _REASON_LIMIT))
        object.__setattr__(self, "detail", _one_line(self.detail, _DETAIL_LIMIT))

    @property
    def declined(self) -> bool:
        """The model or its provider said no: a refusal or a safety block, whatever text came first."""
        return self.stop in ("refusal", "safety")

    def describe(self) -> str:
        """One line: the provider's reason and, for a refusal or a block, its own words."""
        said = self.reason or "no stop reason"
        return f"{said}: {self.detail}" if self.detail else said


NOT_SAID = Stopped()


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


def _field(doc: Any, *names: str) -> Any:
    """A field by its REST name or the snake_case one proto-JSON readers also accept."""
    if not isinstance(doc, dict):
        return None
    for name in names:
        if name in doc:
            return doc[name]
    return None


def _words(*values: Any) -> str | None:
    """The non-empty strings among ``values``, joined into one line."""
    said = [" ".join(v.split()) for v in values if isinstance(v, str) and v.strip()]
    return "; ".join(said)[:_ERROR_TEXT_LIMIT] if said else None


# The wire names of providers that spell the settings as this module does.
_SAME_NAMES: Mapping[str, tuple[str, ...]] = {setting: (setting,) for setting in NEGOTIABLE}


class Adapter:
    """One protocol. Subclasses fill the class attributes, ``url``, ``body``, ``reply_text``,
    ``stopped`` and ``shaped``."""

    protocol: ClassVar[str]
    # The protocol as a sentence names its servers: "not an OpenAI-compatible server".
    server_kind: ClassVar[str]
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

    def stopped(self, body: Any) -> Stopped:
        """Why the reply in a parsed 2xx body ended (``NOT_SAID`` when the body does not say)."""
        raise NotImplementedError

    def shaped(self, body: Any) -> bool:
        """Whether a parsed 2xx body has this protocol's reply shape (a server of another kind, or a
        web page's JSON, has not)."""
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


_OPENAI_STOPS: Mapping[str, Stop] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "safety",
    "tool_calls": "tool_call",
    "function_call": "tool_call",
}


class OpenAIAdapter(Adapter):
    protocol = "openai"
    server_kind = "OpenAI-compatible"
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

    def stopped(self, body: Any) -> Stopped:
        choices = _field(body, "choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return NOT_SAID
        choice = choices[0]
        message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        reason = choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
        tool_call = bool(message.get("tool_calls") or message.get("function_call"))
        refusal = _words(message.get("refusal"))
        if refusal is not None:
            # The refusal field is the model declining, whatever finish_reason and content say.
            return Stopped("refusal", f"refusal (finish_reason {reason})", refusal, tool_call)
        stop = _OPENAI_STOPS.get(reason, "other") if reason else None
        if tool_call and stop in (None, "stop"):
            stop = "tool_call"
        return Stopped(stop, reason, None, tool_call)

    def shaped(self, body: Any) -> bool:
        return isinstance(_field(body, "choices"), list)


_ANTHROPIC_STOPS: Mapping[str, Stop] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
    "tool_use": "tool_call",
}
_ANTHROPIC_TOOL_BLOCKS = frozenset({"tool_use", "server_tool_use"})


class AnthropicAdapter(Adapter):
    protocol = "anthropic"
    server_kind = "Anthropic Messages"
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

    def stopped(self, body: Any) -> Stopped:
        reason = _field(body, "stop_reason")
        if not isinstance(reason, str):
            return NOT_SAID
        blocks = _field(body, "content")
        tool_call = isinstance(blocks, list) and any(
            isinstance(b, dict) and b.get("type") in _ANTHROPIC_TOOL_BLOCKS for b in blocks
        )
        details = _field(body, "stop_details")
        detail = None
        if isinstance(details, dict):
            category = details.get("category")
            detail = _words(
                f"category {category}" if isinstance(category, str) else None, details.get("explanation")
            )
        return Stopped(_ANTHROPIC_STOPS.get(reason, "other"), reason, detail, tool_call)

    def shaped(self, body: Any) -> bool:
        return isinstance(_field(body, "content"), list) or _field(body, "type") == "message"


_GEMINI_STOPS: Mapping[str, Stop] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "safety",
    "RECITATION": "safety",
    "PROHIBITED_CONTENT": "safety",
    "BLOCKLIST": "safety",
    "SPII": "safety",
    "IMAGE_SAFETY": "safety",
    "IMAGE_PROHIBITED_CONTENT": "safety",
    "IMAGE_RECITATION": "safety",
    "MALFORMED_FUNCTION_CALL": "tool_call",
    "UNEXPECTED_TOOL_CALL": "tool_call",
    "TOO_MANY_TOOL_CALLS": "tool_call",
}


def _blocked_categories(ratings: Any) -> str | None:
    """The harm categories a Gemini safety rating list says were blocked (or rated highest)."""
    if not isinstance(ratings, list):
        return None
    rated = [r for r in ratings if isinstance(r, dict) and isinstance(r.get("category"), str)]
    blocked = [r for r in rated if r.get("blocked") is True] or [
        r for r in rated if r.get("probability") == "HIGH"
    ]
    named = [f"{r['category']} {r.get('probability', '')}".strip() for r in blocked]
    return ", ".join(named) if named else None


class GeminiAdapter(Adapter):
    protocol = "gemini"
    server_kind = "Gemini generateContent"
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

    def stopped(self, body: Any) -> Stopped:
        candidates = _field(body, "candidates")
        candidate = candidates[0] if isinstance(candidates, list) and candidates else None
        if not isinstance(candidate, dict):
            # No candidate: the prompt itself was blocked, if the feedback says so.
            feedback = _field(body, "promptFeedback", "prompt_feedback")
            block = _field(feedback, "blockReason", "block_reason")
            if not isinstance(block, str):
                return NOT_SAID
            detail = _words(
                _field(feedback, "blockReasonMessage", "block_reason_message"),
                _blocked_categories(_field(feedback, "safetyRatings", "safety_ratings")),
            )
            return Stopped("safety", f"blockReason {block}", detail)
        parts = _field(_field(candidate, "content"), "parts")
        tool_call = isinstance(parts, list) and any(
            isinstance(p, dict) and _field(p, "functionCall", "function_call") is not None for p in parts
        )
        reason = _field(candidate, "finishReason", "finish_reason")
        if not isinstance(reason, str):
            return Stopped("tool_call", None, None, True) if tool_call else NOT_SAID
        stop = _GEMINI_STOPS.get(reason, "other")
        if tool_call and stop == "stop":
            stop = "tool_call"
        detail = None
        if stop == "safety":
            detail = _words(
                _field(candidate, "finishMessage", "finish_message"),
                _blocked_categories(_field(candidate, "safetyRatings", "safety_ratings")),
            )
        return Stopped(stop, reason, detail, tool_call)

    def shaped(self, body: Any) -> bool:
        return isinstance(_field(body, "candidates"), list) or isinstance(
            _field(body, "promptFeedback", "prompt_feedback"), dict
        )


ADAPTERS: Mapping[str, Adapter] = {
    a.protocol: a for a in (OpenAIAdapter(), AnthropicAdapter(), GeminiAdapter())
}
PROTOCOLS = tuple(ADAPTERS)


def adapter_for(protocol: str) -> Adapter:
    try:
        return ADAPTERS[protocol]
    except KeyError:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {', '.join(PROTOCOLS)}") from None
