"""The sparring server: the three provider protocols on one Starlette app, answered by house gladiators.

Paths, success shapes (``id``, ``model``, ``usage``) and error envelopes follow the real APIs:

- ``POST /v1/chat/completions`` (OpenAI): ``Authorization: Bearer``; errors
  ``{"error": {"message", "type", "param", "code"}}``.
- ``POST /v1/messages`` (Anthropic): the key as ``x-api-key`` or ``Authorization: Bearer`` (what the
  official SDK 2.x sends), and ``anthropic-version``; errors ``{"type": "error", "error": {"type",
  "message"}}``; ``max_tokens`` required, unknown fields (``seed``) refused with "Extra inputs are not
  permitted", as the real API does. Under ``anthropic-version`` 2026-10-21 or later (the SDK 2.x's)
  ``temperature``, ``top_p`` and ``top_k`` are such unknown fields too, as the API removed them then;
  under an older version (the platform's adapter sends 2023-06-01) they are read.
- ``POST /v1/models/{model}:generateContent`` and ``/v1beta/…`` (Gemini; the google-genai SDK asks
  ``v1`` by default): ``x-goog-api-key`` or ``?key=``; errors ``{"error": {"code", "message",
  "status"}}``; unknown ``generationConfig`` fields refused.
- ``GET /status``: the house families, behaviours and seed suffix on offer, the requests served and
  the quota's state.

Who answers is the model name's family (``providers/house_models.py``), among those the arenas
bring (``houses``, which the wiring hands in from ``colosseum_core.arenas.sparring_houses``; the
server knows no arena): the forecast's gladiators, the debate's intent panel, debaters, judges and
live search (OpenAI protocol only, as xAI's API is: the other two answer its names with their 404),
and every kind of event's players. A family reads the user turns' text or the whole conversation
(every dialect's ``messages``); a name no family brought is answered with the protocol's 404.

A quota (``build_app(quota=(N, SECONDS))``) admits at most N authenticated chat requests per fixed
window of SECONDS on the injected clock, windows aligned to multiples of SECONDS since the epoch;
the rest are answered 429 in the protocol's rate-limit envelope (OpenAI ``rate_limit_exceeded``,
Anthropic ``rate_limit_error``, Gemini ``RESOURCE_EXHAUSTED``) with ``Retry-After``: the whole
seconds until the window resets, at least 1. A request without a key is answered 401 and not
counted, as a provider's quota is its keys'. The behaviour ``-ratelimit`` answers every request so,
with ``Retry-After: 1``.

The arenas never stream: ``"stream": true`` (OpenAI, Anthropic) and Gemini's
``:streamGenerateContent`` are answered 400 in the protocol's envelope, naming the field, rather than
with a whole reply a streaming client would read as an empty stream.

Any non-empty key is accepted (the arenas send ``house``), except a key beginning ``bad-key``
(:data:`BAD_KEY`), which is refused as each provider refuses a wrong key: OpenAI 401
``invalid_api_key``, Anthropic 401 ``authentication_error`` "invalid x-api-key", Gemini 400
``INVALID_ARGUMENT`` ``API_KEY_INVALID``. A missing key is a 401 in the protocol's envelope
(Gemini's real API answers a keyless call with 403 PERMISSION_DENIED; 401 UNAUTHENTICATED is its
envelope for a missing credential and is what the arena tests against). Neither is counted by the
quota.

Besides the errors, the server's behaviours include the odd replies a provider sends inside a 200:
a reply longer than the ``max_tokens`` sent is cut there (OpenAI ``finish_reason: "length"``,
Anthropic ``stop_reason: "max_tokens"``, Gemini ``MAX_TOKENS``); ``-declines``, a policy refusal
(OpenAI ``content: null`` and ``refusal``; Anthropic no content, ``stop_reason: "refusal"`` and
``stop_details``; Gemini no candidates, ``promptFeedback.blockReason: "SAFETY"``); ``-filtered``, the
provider's filter stops the reply (OpenAI the first half of the text, ``finish_reason:
"content_filter"``; Anthropic the first half, then ``stop_reason: "refusal"``; Gemini a candidate
without content, ``finishReason: "SAFETY"``); ``-tool-call``, a call of ``house_tool`` with the reply
as its ``answer`` argument and no text (OpenAI ``tool_calls``, ``finish_reason: "tool_calls"``;
Anthropic a ``tool_use`` block, ``stop_reason: "tool_use"``; Gemini a ``functionCall`` part).

Ids are derived from the protocol, model and packet (real ids are random) and ``created`` comes from
the injected clock, so the same request gets the same bytes. Token counts are estimates (UTF-8 bytes
/ 4). Every response carries ``x-colosseum-sparring: house`` so a receipt shows it came from here,
not a provider.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import math
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any, ClassVar

import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from colosseum_core.providers.house_models import (
    Cited,
    HouseAsk,
    HouseFamily,
    Persona,
    Turn,
    behaviours_of,
    parse_model,
)
from colosseum_standins.loopback import running_app, uvicorn_config

SPARRING_HEADER = "x-colosseum-sparring"
# A key beginning so is refused as a wrong key, so a client can be tested against a bad key as well
# as a missing one; every other non-empty key is accepted.
BAD_KEY = "bad-key"
# The first Anthropic API version without ``temperature``, ``top_p`` and ``top_k`` (versions are
# dates, so they order as strings).
ANTHROPIC_NO_SAMPLING = "2026-10-21"
_SAMPLING = frozenset({"temperature", "top_p", "top_k"})
# The server's behaviours that shape a 200's body; the first a name asks for wins.
_ODD = ("declines", "filtered", "tool-call")
# What the odd replies call, and what a declining model says.
HOUSE_TOOL = "house_tool"
DECLINED = "I'm sorry, but I can't help with that."
NO_STREAMING = (
    "stream: streaming is not served by the sparring server (the arenas never stream); "
    "send stream: false or leave it out"
)
# How often a stalled request checks whether its client has gone, so a stall ends with its caller
# instead of holding the server's shutdown for the full stall.
_STALL_POLL_S = 0.05

Clock = Callable[[], dt.datetime]
Sleep = Callable[[float], Awaitable[None]]
# The house families the arenas bring, by name. The server knows no arena; the wiring hands these in.
Houses = Mapping[str, HouseFamily]
# (at most N chat requests, per window of SECONDS)
Quota = tuple[int, float]


def _wall_clock() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / 4)


def _user_text(contents: Any, *, role_key: str, text_of: Callable[[Any], str]) -> str:
    if not isinstance(contents, list):
        return ""
    texts = [text_of(m) for m in contents if isinstance(m, dict) and m.get(role_key, "user") == "user"]
    return "\n".join(t for t in texts if t)


def _turns(
    contents: Any, *, role_of: Callable[[Any], str | None], text_of: Callable[[Any], str]
) -> list[Turn]:
    if not isinstance(contents, list):
        return []
    turns = []
    for message in contents:
        if isinstance(message, dict) and (role := role_of(message)) is not None:
            turns.append((role, text_of(message)))
    return turns


def _parts_text(parts: Any, key: str = "text") -> str:
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    return "".join(p[key] for p in parts if isinstance(p, dict) and isinstance(p.get(key), str))


def _bearer(request: Request) -> str:
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    return key.strip() if scheme.lower() == "bearer" else ""


def _masked(key: str) -> str:
    """A key as OpenAI names a wrong one: its ends, the middle starred."""
    shown = 4 if len(key) > 12 else 2
    return key[:shown] + "*" * max(0, len(key) - 2 * shown) + key[-shown:]


@dataclasses.dataclass(frozen=True)
class _Reply:
    model: str
    text: str
    prompt_tokens: int
    output_tokens: int
    truncated: bool
    reply_id: str
    created: int
    # Live search's sources (xAI's top-level ``citations``); None for every other family.
    citations: tuple[str, ...] | None = None
    sources_used: int = 0
    # The odd reply asked for (``declines``, ``filtered``, ``tool-call``); None for a plain one.
    odd: str | None = None

    @property
    def half(self) -> str:
        """The first half of the text: what a filter lets through before it stops the reply."""
        return self.text[: len(self.text) // 2]


class _Dialect:
    name: str
    # Canonical setting -> wire name in this protocol's request.
    wire: Mapping[str, str]

    # What a request without a key is told, and the kind of error that is.
    missing_key: str
    missing_key_kind: str

    def error(self, status: int, message: str, *, kind: str, param: str | None = None) -> JSONResponse:
        return JSONResponse(self.error_body(status, message, kind=kind, param=param), status_code=status)

    def error_body(self, status: int, message: str, *, kind: str, param: str | None) -> dict[str, Any]:
        """An error as this protocol's body carries it."""
        raise NotImplementedError

    def key(self, request: Request) -> str:
        """The key where this protocol carries one; empty when there is none."""
        raise NotImplementedError

    def auth_error(self, request: Request) -> JSONResponse | None:
        key = self.key(request)
        if not key:
            return self.error(401, self.missing_key, kind=self.missing_key_kind)
        return self.bad_key(key) if key.startswith(BAD_KEY) else None

    def bad_key(self, key: str) -> JSONResponse:
        """A wrong key, refused as this provider refuses one."""
        raise NotImplementedError

    def invalid(self, request: Request, body: dict[str, Any]) -> JSONResponse | None:
        return None

    def no_streaming(self) -> JSONResponse:
        return self.error(400, NO_STREAMING, kind="invalid_request", param="stream")

    def settings(self, body: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def user_text(self, body: dict[str, Any]) -> str:
        raise NotImplementedError

    def messages(self, body: dict[str, Any]) -> list[Turn]:
        """The whole conversation in order, system instructions first, in the canonical roles."""
        raise NotImplementedError

    def reply(self, reply: _Reply) -> dict[str, Any]:
        raise NotImplementedError

    def bad_json(self) -> JSONResponse:
        return self.error(400, "The request body is not valid JSON.", kind="invalid_request")

    def not_found(self, model: str) -> JSONResponse:
        raise NotImplementedError

    def unsupported(self, setting: str) -> JSONResponse:
        raise NotImplementedError

    def refusal(self, model: str) -> JSONResponse:
        raise NotImplementedError

    def overloaded(self) -> JSONResponse:
        raise NotImplementedError

    def rate_limited(self, retry_after: int) -> JSONResponse:
        raise NotImplementedError


class _OpenAI(_Dialect):
    name = "openai"
    wire: Mapping[str, str] = {"temperature": "temperature", "top_p": "top_p", "max_tokens": "max_tokens"}

    missing_key = (
        "You didn't provide an API key. You need to provide your API key in an Authorization header "
        "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
    )
    missing_key_kind = "invalid_request"

    def error_body(self, status: int, message: str, *, kind: str, param: str | None) -> dict[str, Any]:
        code = {"invalid_request": None, "unsupported": "unsupported_parameter"}.get(kind, kind)
        kind_type = "requests" if kind == "rate_limit_exceeded" else "invalid_request_error"
        return {"error": {"message": message, "type": kind_type, "param": param, "code": code}}

    def key(self, request: Request) -> str:
        return _bearer(request)

    def bad_key(self, key: str) -> JSONResponse:
        message = (
            f"Incorrect API key provided: {_masked(key)}. "
            "You can find your API key at https://platform.openai.com/account/api-keys."
        )
        return self.error(401, message, kind="invalid_api_key")

    def no_streaming(self) -> JSONResponse:
        return self.error(400, NO_STREAMING, kind="unsupported_value", param="stream")

    def settings(self, body: dict[str, Any]) -> dict[str, Any]:
        found = {k: body[w] for k, w in self.wire.items() if w in body}
        if "max_tokens" not in found and "max_completion_tokens" in body:
            found["max_tokens"] = body["max_completion_tokens"]
        if "seed" in body:
            found["seed"] = body["seed"]
        return found

    def user_text(self, body: dict[str, Any]) -> str:
        return _user_text(
            body.get("messages"), role_key="role", text_of=lambda m: _parts_text(m.get("content"))
        )

    _roles: ClassVar[Mapping[str, str]] = {
        "system": "system",
        # The newer name for system instructions on OpenAI's reasoning models.
        "developer": "system",
        "user": "user",
        "assistant": "assistant",
    }

    def messages(self, body: dict[str, Any]) -> list[Turn]:
        # Tool turns carry no prose of the conversation's, so they are left out.
        return _turns(
            body.get("messages"),
            role_of=lambda m: self._roles.get(m.get("role", "user")),
            text_of=lambda m: _parts_text(m.get("content")),
        )

    def invalid(self, request: Request, body: dict[str, Any]) -> JSONResponse | None:
        search = body.get("search_parameters")
        if search is None:
            return None
        if not isinstance(search, dict):
            return self.error(
                400, "search_parameters: must be an object", kind="invalid_request", param="search_parameters"
            )
        if search.get("mode", "auto") not in ("on", "off", "auto"):
            message = "search_parameters.mode: must be one of 'on', 'off', 'auto'"
            return self.error(400, message, kind="invalid_request", param="search_parameters.mode")
        limit = search.get("max_search_results", 20)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 50:
            message = "search_parameters.max_search_results: must be a whole number from 1 to 50"
            return self.error(
                400, message, kind="invalid_request", param="search_parameters.max_search_results"
            )
        return None

    def reply(self, reply: _Reply) -> dict[str, Any]:
        doc = self._completion(reply)
        if reply.odd is not None:
            choice = doc["choices"][0]
            message = choice["message"]
            if reply.odd == "declines":
                message.update(content=None, refusal=DECLINED)
                choice["finish_reason"] = "stop"
                doc["usage"].update(completion_tokens=0, total_tokens=reply.prompt_tokens)
            elif reply.odd == "filtered":
                message["content"] = reply.half
                choice["finish_reason"] = "content_filter"
            else:
                arguments = json.dumps({"answer": reply.text})
                call = {
                    "id": f"call_{reply.reply_id}",
                    "type": "function",
                    "function": {"name": HOUSE_TOOL, "arguments": arguments},
                }
                message.update(content=None, tool_calls=[call])
                choice["finish_reason"] = "tool_calls"
        if reply.citations is not None:
            # As xAI's live search answers: the sources beside the choices, and their count in usage.
            doc["citations"] = list(reply.citations)
            doc["usage"]["num_sources_used"] = reply.sources_used
        return doc

    def _completion(self, reply: _Reply) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{reply.reply_id}",
            "object": "chat.completion",
            "created": reply.created,
            "model": reply.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "length" if reply.truncated else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.output_tokens,
                "total_tokens": reply.prompt_tokens + reply.output_tokens,
            },
            "system_fingerprint": "fp_colosseum_house",
        }

    def not_found(self, model: str) -> JSONResponse:
        message = f"The model `{model}` does not exist or you do not have access to it."
        return self.error(404, message, kind="model_not_found")

    def unsupported(self, setting: str) -> JSONResponse:
        wire = self.wire.get(setting, setting)
        message = f"Unsupported parameter: '{wire}' is not supported with this model."
        return self.error(400, message, kind="unsupported", param=wire)

    def refusal(self, model: str) -> JSONResponse:
        return self.error(403, f"Project does not have access to model `{model}`.", kind="model_not_found")

    def overloaded(self) -> JSONResponse:
        message = "Rate limit reached for requests. Please try again in 1s."
        return self.error(429, message, kind="rate_limit_exceeded")

    def rate_limited(self, retry_after: int) -> JSONResponse:
        message = f"Rate limit reached for requests. Please try again in {retry_after}s."
        response = self.error(429, message, kind="rate_limit_exceeded")
        response.headers["retry-after"] = str(retry_after)
        return response


class _Anthropic(_Dialect):
    name = "anthropic"
    wire: Mapping[str, str] = {"temperature": "temperature", "top_p": "top_p", "max_tokens": "max_tokens"}
    _fields = frozenset(
        {
            "model",
            "messages",
            "max_tokens",
            "temperature",
            "top_p",
            "top_k",
            "system",
            "stop_sequences",
            "stream",
            "metadata",
            "tools",
            "tool_choice",
            "thinking",
            "service_tier",
            # What the official SDK 2.17 can send besides.
            "cache_control",
            "container",
            "diagnostics",
            "inference_geo",
            "output_config",
            "speed",
            "user_profile_id",
            "workspace_id",
        }
    )
    _types: ClassVar[Mapping[str, str]] = {
        "invalid_request": "invalid_request_error",
        "unsupported": "invalid_request_error",
        "auth": "authentication_error",
        "permission": "permission_error",
        "not_found": "not_found_error",
        "overloaded": "overloaded_error",
        "rate_limit": "rate_limit_error",
    }

    missing_key = "x-api-key header is required"
    missing_key_kind = "auth"

    def error_body(self, status: int, message: str, *, kind: str, param: str | None) -> dict[str, Any]:
        return {"type": "error", "error": {"type": self._types.get(kind, kind), "message": message}}

    def key(self, request: Request) -> str:
        # The real API reads either; the official SDK 2.x sends the key as a bearer token.
        return request.headers.get("x-api-key", "").strip() or _bearer(request)

    def bad_key(self, key: str) -> JSONResponse:
        return self.error(401, "invalid x-api-key", kind="auth")

    def invalid(self, request: Request, body: dict[str, Any]) -> JSONResponse | None:
        version = request.headers.get("anthropic-version", "").strip()
        if not version:
            return self.error(400, "anthropic-version: header is required", kind="invalid_request")
        fields = self._fields - _SAMPLING if version >= ANTHROPIC_NO_SAMPLING else self._fields
        for field in sorted(body):
            if field not in fields:
                return self.error(400, f"{field}: Extra inputs are not permitted", kind="invalid_request")
        for field in ("max_tokens", "messages"):
            if field not in body:
                return self.error(400, f"{field}: Field required", kind="invalid_request")
        return None

    def settings(self, body: dict[str, Any]) -> dict[str, Any]:
        return {k: body[w] for k, w in self.wire.items() if w in body}

    def user_text(self, body: dict[str, Any]) -> str:
        return _user_text(
            body.get("messages"), role_key="role", text_of=lambda m: _parts_text(m.get("content"))
        )

    def messages(self, body: dict[str, Any]) -> list[Turn]:
        # Instructions travel apart, as ``system`` (a string or text blocks), never as a turn.
        system = _parts_text(body.get("system"))
        turns = _turns(
            body.get("messages"),
            role_of=lambda m: m.get("role") if m.get("role") in ("user", "assistant") else None,
            text_of=lambda m: _parts_text(m.get("content")),
        )
        return [("system", system), *turns] if system else turns

    def reply(self, reply: _Reply) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "id": f"msg_{reply.reply_id}",
            "type": "message",
            "role": "assistant",
            "model": reply.model,
            "content": [{"type": "text", "text": reply.text}],
            "stop_reason": "max_tokens" if reply.truncated else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.output_tokens},
        }
        if reply.odd in ("declines", "filtered"):
            # A refusal stops the reply where the classifier intervened: at once, or after some text.
            doc["content"] = [{"type": "text", "text": reply.half}] if reply.odd == "filtered" else []
            doc["stop_reason"] = "refusal"
            doc["stop_details"] = {"type": "refusal", "category": "general_harms", "explanation": DECLINED}
            if reply.odd == "declines":
                doc["usage"]["output_tokens"] = 0
        elif reply.odd == "tool-call":
            block = {
                "type": "tool_use",
                "id": f"toolu_{reply.reply_id}",
                "name": HOUSE_TOOL,
                "input": {"answer": reply.text},
            }
            doc.update(content=[block], stop_reason="tool_use")
        return doc

    def not_found(self, model: str) -> JSONResponse:
        return self.error(404, f"model: {model}", kind="not_found")

    def unsupported(self, setting: str) -> JSONResponse:
        wire = self.wire.get(setting, setting)
        return self.error(400, f"`{wire}` is not supported for this model.", kind="unsupported")

    def refusal(self, model: str) -> JSONResponse:
        message = "Your API key does not have permission to use the specified resource."
        return self.error(403, message, kind="permission")

    def overloaded(self) -> JSONResponse:
        return self.error(529, "Overloaded", kind="overloaded")

    def rate_limited(self, retry_after: int) -> JSONResponse:
        message = "This request would exceed your organization's rate limit. Please try again later."
        response = self.error(429, message, kind="rate_limit")
        response.headers["retry-after"] = str(retry_after)
        return response


class _Gemini(_Dialect):
    name = "gemini"

    def __init__(self, version: str) -> None:
        # The API version of the path asked (v1 or v1beta), which the real API names in its 404.
        self.version = version

    wire: Mapping[str, str] = {
        "temperature": "temperature",
        "top_p": "topP",
        "max_tokens": "maxOutputTokens",
        "seed": "seed",
    }
    _config_fields = frozenset(
        {
            "temperature",
            "topP",
            "topK",
            "maxOutputTokens",
            "seed",
            "candidateCount",
            "stopSequences",
            "responseMimeType",
            "responseSchema",
            "presencePenalty",
            "frequencyPenalty",
            "responseLogprobs",
            "logprobs",
            "thinkingConfig",
        }
    )
    _statuses: ClassVar[Mapping[int, str]] = {
        400: "INVALID_ARGUMENT",
        401: "UNAUTHENTICATED",
        403: "PERMISSION_DENIED",
        404: "NOT_FOUND",
        429: "RESOURCE_EXHAUSTED",
        503: "UNAVAILABLE",
    }

    @staticmethod
    def _camel(name: str) -> str:
        # The real API reads proto JSON, which accepts snake_case and lowerCamelCase alike.
        head, *rest = name.split("_")
        return head + "".join(p.title() for p in rest)

    missing_key = (
        "Request is missing required authentication credential. Expected OAuth 2 access token, "
        "login cookie or other valid authentication credential."
    )
    missing_key_kind = "auth"

    def error_body(self, status: int, message: str, *, kind: str, param: str | None) -> dict[str, Any]:
        return {
            "error": {"code": status, "message": message, "status": self._statuses.get(status, "UNKNOWN")}
        }

    def key(self, request: Request) -> str:
        return (
            request.headers.get("x-goog-api-key", "").strip() or request.query_params.get("key", "").strip()
        )

    def bad_key(self, key: str) -> JSONResponse:
        message = "API key not valid. Please pass a valid API key."
        payload = {
            "error": {
                "code": 400,
                "message": message,
                "status": "INVALID_ARGUMENT",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                        "domain": "googleapis.com",
                        "metadata": {"service": "generativelanguage.googleapis.com"},
                    },
                    {
                        "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                        "locale": "en-US",
                        "message": message,
                    },
                ],
            }
        }
        return JSONResponse(payload, status_code=400)

    def no_streaming(self) -> JSONResponse:
        message = (
            "streamGenerateContent is not served by the sparring server (the arenas never stream); "
            "call generateContent"
        )
        return self.error(400, message, kind="invalid_request")

    def _config(self, body: dict[str, Any]) -> dict[str, Any]:
        config = body.get("generationConfig", body.get("generation_config"))
        return {self._camel(k): v for k, v in config.items()} if isinstance(config, dict) else {}

    def _unknown_field(self, name: str) -> JSONResponse:
        message = (
            f"Invalid JSON payload received. Unknown name \"{name}\" at 'generation_config': "
            "Cannot find field."
        )
        return self.error(400, message, kind="invalid_request")

    def invalid(self, request: Request, body: dict[str, Any]) -> JSONResponse | None:
        for name in sorted(self._config(body)):
            if name not in self._config_fields:
                return self._unknown_field(name)
        if not isinstance(body.get("contents"), list) or not body["contents"]:
            return self.error(
                400, "* GenerateContentRequest.contents: contents is not specified", kind="invalid"
            )
        return None

    def settings(self, body: dict[str, Any]) -> dict[str, Any]:
        config = self._config(body)
        return {k: config[w] for k, w in self.wire.items() if w in config}

    def user_text(self, body: dict[str, Any]) -> str:
        return _user_text(
            body.get("contents"), role_key="role", text_of=lambda c: _parts_text(c.get("parts"))
        )

    def messages(self, body: dict[str, Any]) -> list[Turn]:
        instruction = body.get("systemInstruction", body.get("system_instruction"))
        system = _parts_text(instruction.get("parts")) if isinstance(instruction, dict) else ""
        # Gemini calls the assistant "model"; a content without a role is the user's.
        roles = {"user": "user", "model": "assistant"}
        turns = _turns(
            body.get("contents"),
            role_of=lambda c: roles.get(c.get("role", "user")),
            text_of=lambda c: _parts_text(c.get("parts")),
        )
        return [("system", system), *turns] if system else turns

    _SAFETY: ClassVar[Mapping[str, Any]] = {
        "category": "HARM_CATEGORY_DANGEROUS_CONTENT",
        "probability": "HIGH",
        "blocked": True,
    }

    def reply(self, reply: _Reply) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "candidates": [
                {
                    "content": {"parts": [{"text": reply.text}], "role": "model"},
                    "finishReason": "MAX_TOKENS" if reply.truncated else "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": reply.prompt_tokens,
                "candidatesTokenCount": reply.output_tokens,
                "totalTokenCount": reply.prompt_tokens + reply.output_tokens,
            },
            "modelVersion": reply.model,
            "responseId": reply.reply_id,
        }
        if reply.odd == "declines":
            # The prompt itself is blocked: no candidate at all, the reason in the prompt's feedback.
            del doc["candidates"]
            doc["promptFeedback"] = {"blockReason": "SAFETY", "safetyRatings": [dict(self._SAFETY)]}
            doc["usageMetadata"] = {
                "promptTokenCount": reply.prompt_tokens,
                "totalTokenCount": reply.prompt_tokens,
            }
        elif reply.odd == "filtered":
            doc["candidates"][0] = {
                "finishReason": "SAFETY",
                "index": 0,
                "safetyRatings": [dict(self._SAFETY)],
            }
        elif reply.odd == "tool-call":
            call = {"functionCall": {"name": HOUSE_TOOL, "args": {"answer": reply.text}}}
            doc["candidates"][0]["content"]["parts"] = [call]
        return doc

    def not_found(self, model: str) -> JSONResponse:
        message = (
            f"models/{model} is not found for API version {self.version}, or is not supported for "
            "generateContent. "
            "Call ListModels to see the list of available models and their supported methods."
        )
        return self.error(404, message, kind="not_found")

    def unsupported(self, setting: str) -> JSONResponse:
        return self._unknown_field(self.wire.get(setting, setting))

    def refusal(self, model: str) -> JSONResponse:
        return self.error(
            403, "Permission denied: Consumer does not have access to this model.", kind="denied"
        )

    def overloaded(self) -> JSONResponse:
        return self.error(503, "The model is overloaded. Please try again later.", kind="unavailable")

    def rate_limited(self, retry_after: int) -> JSONResponse:
        payload = {
            "error": {
                "code": 429,
                "message": "Resource has been exhausted (e.g. check quota).",
                "status": "RESOURCE_EXHAUSTED",
                # Where the real API says when to come back; the header says the same for any client.
                "details": [
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_after}s"}
                ],
            }
        }
        return JSONResponse(payload, status_code=429, headers={"retry-after": str(retry_after)})


class _Sparring:
    def __init__(
        self, *, clock: Clock, stall_s: float, sleep: Sleep, quota: Quota | None = None, houses: Houses
    ) -> None:
        if quota is not None and (quota[0] < 0 or not quota[1] > 0):
            raise ValueError(f"quota {quota}: at least 0 requests per a window longer than 0 s")
        self._houses = dict(houses)
        self._behaviours = behaviours_of(self._houses.values())
        self._clock = clock
        self._stall_s = stall_s
        self._sleep = sleep
        self._quota = quota
        # The quota's current window (its index since the epoch) and the chat requests counted in it.
        self._window: int | None = None
        self._window_count = 0
        self.quota_refused = 0
        # (protocol, model, packet sha256) already refused once; per app instance by design.
        self._refused_once: set[tuple[str, str, str]] = set()
        self.requests = 0

    def _window_of(self, now: float) -> int:
        assert self._quota is not None
        return math.floor(now / self._quota[1])

    def _quota_status(self) -> dict[str, Any] | None:
        if self._quota is None:
            return None
        limit, window_s = self._quota
        now = self._clock().timestamp()
        window = self._window_of(now)
        counted = self._window_count if window == self._window else 0
        start = dt.datetime.fromtimestamp(window * window_s, dt.UTC)
        return {
            "limit": limit,
            "window_s": window_s,
            "window_start": start.isoformat().replace("+00:00", "Z"),
            "counted": counted,
            "refused": self.quota_refused,
        }

    async def status(self, request: Request) -> Response:
        return JSONResponse(
            {
                "ok": True,
                "service": "colosseum-sparring",
                "protocols": ["openai", "anthropic", "gemini"],
                "families": sorted(self._houses),
                "behaviours": list(self._behaviours),
                "seed_suffix": "-s<N> (house-hash-s7): a persona of the gladiator's own",
                "requests": self.requests,
                "quota": self._quota_status(),
            }
        )

    def _over_quota(self) -> int | None:
        """Count one chat request against the quota; the Retry-After seconds if it is over."""
        if self._quota is None:
            return None
        limit, window_s = self._quota
        now = self._clock().timestamp()
        window = self._window_of(now)
        if window != self._window:
            self._window, self._window_count = window, 0
        self._window_count += 1
        if self._window_count <= limit:
            return None
        self.quota_refused += 1
        # Whole seconds, rounded up, so a client that waits that long lands in the next window.
        return max(1, math.ceil((window + 1) * window_s - now))

    async def _stall(self, request: Request) -> bool:
        """Wait ``stall_s``; True if the client went away first."""
        remaining = self._stall_s
        while remaining > 0:
            step = min(_STALL_POLL_S, remaining)
            await self._sleep(step)
            remaining -= step
            if await request.is_disconnected():
                return True
        return False

    async def handle(
        self, request: Request, dialect: _Dialect, model: str | None = None, *, streaming: bool = False
    ) -> Response:
        self.requests += 1
        try:
            response = await self._answer(request, dialect, model, streaming)
        except ClientDisconnect:
            # The asker went away mid-request (a Ctrl-C, a kill): nobody to answer, nothing to report.
            return Response(status_code=499)
        response.headers[SPARRING_HEADER] = "house"
        return response

    async def _answer(
        self, request: Request, dialect: _Dialect, path_model: str | None, streaming: bool
    ) -> Response:
        denied = dialect.auth_error(request)
        if denied is not None:
            return denied
        retry_after = self._over_quota()
        if retry_after is not None:
            return dialect.rate_limited(retry_after)
        try:
            body = json.loads(await request.body())
        except (ValueError, RecursionError):
            return dialect.bad_json()
        if not isinstance(body, dict):
            return dialect.bad_json()
        model = path_model if path_model is not None else body.get("model")
        if not isinstance(model, str) or not model:
            return dialect.error(400, "model: Field required", kind="invalid_request", param="model")
        persona = parse_model(model, self._houses.values())
        family = self._houses[persona.gladiator] if persona is not None else None
        if persona is None or family is None or dialect.name not in family.protocols:
            # Live search is an OpenAI-compatible API (xAI's); the other protocols have no such model.
            return dialect.not_found(model)
        if "ratelimit" in persona.behaviours:
            return dialect.rate_limited(1)
        invalid = dialect.invalid(request, body)
        if invalid is not None:
            return invalid
        if streaming or body.get("stream") is True:
            return dialect.no_streaming()
        sent = dialect.settings(body)
        for setting, behaviour in (("seed", "no-seed"), ("top_p", "no-top-p")):
            if behaviour in persona.behaviours and setting in sent:
                return dialect.unsupported(setting)
        conversation: list[Turn] = []
        if family.keyed_by_user_text:
            # What every recorded forecast reply was keyed and identified by: it must not change.
            text = dialect.user_text(body)
            packet_sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        else:
            # A debate's turns differ by what the assistant said too, so the whole conversation is the key.
            conversation = dialect.messages(body)
            text = "\n".join(t for _, t in conversation)
            packet_sha = hashlib.sha256(json.dumps(conversation).encode("utf-8")).hexdigest()
        if "refuse" in persona.behaviours:
            return dialect.refusal(model)
        key = (dialect.name, model, packet_sha)
        if "refuse-once" in persona.behaviours and key not in self._refused_once:
            self._refused_once.add(key)
            return dialect.overloaded()
        if "stall" in persona.behaviours and await self._stall(request):
            # Nobody is listening; uvicorn drops whatever is returned.
            return Response(status_code=499)
        reply = self._reply(family, persona, model, text, conversation, packet_sha, sent, body)
        odd = next((b for b in _ODD if b in persona.behaviours), None)
        if odd is not None:
            reply = dataclasses.replace(reply, odd=odd)
        return JSONResponse(dialect.reply(reply))

    def _reply(
        self,
        family: HouseFamily,
        persona: Persona,
        model: str,
        text: str,
        conversation: list[Turn],
        packet_sha: str,
        sent: Mapping[str, Any],
        body: Mapping[str, Any],
    ) -> _Reply:
        """The house player's reply, with live search's citations (None for the other families)."""
        search = body.get("search_parameters")
        answer = family.reply(
            HouseAsk(
                persona=persona,
                model=model,
                text=text,
                conversation=conversation,
                settings=sent,
                search=search if isinstance(search, dict) else {},
                clock=self._clock,
            )
        )
        reply_text, citations = (
            (answer.text, answer.citations) if isinstance(answer, Cited) else (answer, None)
        )
        budget = sent.get("max_tokens")
        truncated = isinstance(budget, int) and budget >= 0 and _tokens(reply_text) > budget
        if truncated:
            reply_text = reply_text.encode("utf-8")[: 4 * int(budget)].decode("utf-8", errors="ignore")
        reply_id = hashlib.sha256(f"{persona.gladiator}\n{model}\n{packet_sha}".encode()).hexdigest()[:24]
        return _Reply(
            model=model,
            text=reply_text,
            prompt_tokens=_tokens(text),
            output_tokens=_tokens(reply_text),
            truncated=truncated,
            reply_id=reply_id,
            created=int(self._clock().timestamp()),
            citations=citations,
            sources_used=len(citations or ()),
        )


def build_app(
    *,
    clock: Clock | None = None,
    stall_s: float = 600.0,
    sleep: Sleep = asyncio.sleep,
    quota: Quota | None = None,
    houses: Houses | None = None,
) -> Starlette:
    """The sparring server. ``clock`` stamps ``created``, dates live search and runs the quota's windows;
    ``sleep`` paces stalls (both injectable); ``quota``: at most N chat requests per SECONDS;
    ``houses``: the house families the arenas bring (``colosseum_core.arenas.sparring_houses()``);
    without them, every model name is answered 404."""
    sparring = _Sparring(
        clock=clock or _wall_clock, stall_s=stall_s, sleep=sleep, quota=quota, houses=houses or {}
    )
    openai, anthropic = _OpenAI(), _Anthropic()
    gemini = {version: _Gemini(version) for version in ("v1", "v1beta")}

    async def chat_completions(request: Request) -> Response:
        return await sparring.handle(request, openai)

    async def messages(request: Request) -> Response:
        return await sparring.handle(request, anthropic)

    async def generate_content(request: Request) -> Response:
        version = request.url.path.split("/")[1]
        return await sparring.handle(request, gemini[version], request.path_params["model"])

    async def stream_generate_content(request: Request) -> Response:
        version = request.url.path.split("/")[1]
        return await sparring.handle(request, gemini[version], request.path_params["model"], streaming=True)

    app = Starlette(
        routes=[
            Route("/status", sparring.status),
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
            Route("/v1/messages", messages, methods=["POST"]),
            *(
                route
                for version in gemini
                for route in (
                    Route(f"/{version}/models/{{model}}:generateContent", generate_content, methods=["POST"]),
                    Route(
                        f"/{version}/models/{{model}}:streamGenerateContent",
                        stream_generate_content,
                        methods=["POST"],
                    ),
                )
            ),
        ]
    )
    app.state.sparring = sparring
    return app


@contextlib.contextmanager
def running_sparring(
    *,
    clock: Clock | None = None,
    stall_s: float = 600.0,
    host: str = "127.0.0.1",
    quota: Quota | None = None,
    houses: Houses | None = None,
    join_on_exit: bool = True,
) -> Iterator[str]:
    """Run the sparring server on a free loopback port in a background thread; yield its base URL
    (``join_on_exit``: see ``loopback.running_app``)."""
    app = build_app(clock=clock, stall_s=stall_s, quota=quota, houses=houses)
    with running_app(app, host=host, join_on_exit=join_on_exit) as url:
        yield url


def serve(
    host: str, port: int, *, stall_s: float = 600.0, quota: Quota | None = None, houses: Houses | None = None
) -> None:
    """Serve the sparring server until interrupted (blocking)."""
    uvicorn.Server(uvicorn_config(build_app(stall_s=stall_s, quota=quota, houses=houses), host, port)).run()
