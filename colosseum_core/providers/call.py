"""One chat call for every arena: a list of messages in, one reply and its receipts out.

The engine every arena asks models through; an arena's asking rules are its ``AskingPolicy`` (the
forecast's seats: ``colosseum_core/forecast/answering/asking.py``), and they stay the arena's.

- Settings use one vocabulary (temperature, top_p, max_tokens, seed, a timeout). A setting the
  protocol documents as unsupported (seed on Anthropic) is omitted up front; a 400/422 whose error
  names a sent setting is answered by sending the same request once more without it. That is
  negotiation, not a re-ask. Every omitted setting is recorded as ``OMITTED`` in the settings record.
- An HTTP error response (after negotiation) is a refusal, classified: ``rate_limited`` (429, and
  the overloaded 529 and 503), ``model_not_found`` (404), or ``error``. The policy says how many
  asks a refusal allows in all; the last refusal's class is the result's ``refusal``.
- A timeout, reset or dropped connection is ``no_response`` and is never re-asked: a silent model
  may already have answered, and a second sample would not be the one reply.
- A 2xx is never re-asked either. If its text can not be found (not JSON, fields missing) the call
  keeps what can be read and says why in ``error``; a 2xx body that is not JSON at all is kept as
  the answer text, for the arena's reading rules to judge.
- Every result carries why the reply ended (``stop``: one of ``adapters.STOPS``, ``stop_reason``: the
  provider's own value, ``stop_detail``: a refusal's or a block's own words), read from the stored
  reply, so a record made before these fields existed re-derives them from its receipts.
- How a 2xx reply is read is versioned, per policy (``AskingPolicy.replies``). COLOSSEUM-REPLY-1
  (every arena's until it records ``stop``): text wherever it is, a reply without text refused with
  "no text at …". COLOSSEUM-REPLY-2: a refusal or a safety block is ``refused`` as ``declined``
  with the provider's words, even after partial text; a reply without text says why (a tool call,
  the budget spent before any text, the reason the provider gave), and an empty text is noted.
- ``diagnosis`` says, in one line, what a call that did not answer cleanly ran into (no key set,
  refused, unknown model, not a server of the protocol, timeout, connection refused, …): what
  ``models check`` prints. It changes nothing the asking rules decide.
- ``call_with_fallbacks`` walks a chain of models: on to the next when one refuses as rate-limited
  or unknown (the classes a policy names), and every call of the walk is kept.

Every attempt's request and response bytes are stored as a receipt before anything parses them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import functools
import json
import ssl
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

import httpx

from colosseum_core.providers.adapters import (
    NEGOTIABLE,
    NOT_SAID,
    Adapter,
    Message,
    Stop,
    Stopped,
    adapter_for,
    error_text,
)
from colosseum_core.record.http import retry_after_seconds, store_exchange
from colosseum_core.record.receipts import Receipt, ReceiptStore

OMITTED = "OMITTED"
_ERROR_SNIPPET = 300

Status = Literal["answered", "refused", "no_response"]
# ``declined``: a 2xx in which the model refused or its provider blocked the reply (REPLY-2 only).
Refusal = Literal["rate_limited", "model_not_found", "error", "declined"]
Clock = Callable[[], dt.datetime]
# Statuses that say "not now" (too many requests, overloaded) rather than "no".
RATE_LIMIT_STATUSES = frozenset({429, 503, 529})
MODEL_NOT_FOUND_STATUSES = frozenset({404})
AUTH_STATUSES = frozenset({401, 403})

# How a 2xx reply is read (see the module's docstring); a policy names one, and a record sealed
# under one keeps it.
REPLY_1 = "COLOSSEUM-REPLY-1"
REPLY_2 = "COLOSSEUM-REPLY-2"
REPLY_RULES = (REPLY_1, REPLY_2)

# What a call that did not answer cleanly ran into, for ``models check`` (see ``diagnose``).
Failure = Literal[
    "no_key",
    "refused",
    "unknown_model",
    "not_protocol_server",
    "rate_limited",
    "timeout",
    "connection_refused",
    "unreachable",
    "dropped",
    "declined",
    "no_text",
    "error",
]


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every call's client: building one reads the CA bundle (~40 ms), which
    was most of a house game's time when each call built its own."""
    return httpx.create_ssl_context()


def classify_refusal(status: int) -> Refusal:
    """What an HTTP error (one that names no sent setting) says about the model."""
    if status in RATE_LIMIT_STATUSES:
        return "rate_limited"
    if status in MODEL_NOT_FOUND_STATUSES:
        return "model_not_found"
    return "error"


@dataclasses.dataclass(frozen=True)
class AskingPolicy:
    """An arena's asking rules, as the engine needs them: asks allowed when the model refuses (the
    first ask included), and the refusals that move a fallback chain on to its next model."""

    max_asks: int
    fall_back_on: frozenset[Refusal] = frozenset({"rate_limited", "model_not_found"})
    # Whether a model that fell silent (a timeout, a dropped connection) moves the chain on too: not
    # where one reply per question is the rule (it may have answered), yes where a vote must be had.
    fall_back_on_silence: bool = False
    # How a 2xx reply is read: one of REPLY_RULES.
    replies: str = REPLY_1

    def __post_init__(self) -> None:
        if self.max_asks < 1:
            raise ValueError(f"max_asks must be at least 1, not {self.max_asks!r}")
        if self.replies not in REPLY_RULES:
            raise ValueError(f"reply rules {self.replies!r} are not one of {', '.join(REPLY_RULES)}")


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclasses.dataclass(frozen=True)
class CallSettings:
    """The equal settings of §8. ``seed=None`` sends no seed (recorded ``OMITTED``)."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 16384
    timeout_s: float = 300.0
    seed: int | None = 0

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be positive, got {self.timeout_s!r}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens!r}")

    def sendable(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }
        return {k: v for k, v in values.items() if v is not None}


@dataclasses.dataclass(frozen=True)
class CallResult:
    """What became of one call. ``receipt_ids`` holds every attempt, in order; ``refusal`` is the
    class of the last refusal (None unless the call ended ``refused``)."""

    status: Status
    text: str | None
    receipt_ids: tuple[str, ...]
    attempts: int
    settings_record: dict[str, Any]
    error: str | None
    model: str
    protocol: str
    refusal: Refusal | None = None
    # A rate-limited call's wait before the provider's quota resets, from the last refusal's
    # Retry-After header (None when it sent none, or the call was not rate-limited).
    retry_after_s: float | None = None
    # Why the last 2xx reply ended (None without one): the shared word, the provider's own value,
    # and a refusal's or a block's own words. Read from the reply's receipt, like everything here.
    stop: Stop | None = None
    stop_reason: str | None = None
    stop_detail: str | None = None
    # What the call ran into, in one line, when it did not answer cleanly (None when it did).
    diagnosis: Diagnosis | None = None


@dataclasses.dataclass(frozen=True)
class Diagnosis:
    """What one call ran into: its class and the exact reason, in one line."""

    kind: Failure
    reason: str

    def __str__(self) -> str:
        return self.reason


@dataclasses.dataclass(frozen=True)
class _Exchange:
    receipt_id: str
    status: int | None
    content_type: str
    body: bytes
    error: str | None
    retry_after: str | None = None
    url: str = ""


def _os_cause(exc: BaseException) -> OSError | None:
    """The operating system's own error under a transport error, if any (the deepest one)."""
    found, seen = None, 0
    cause: BaseException | None = exc
    while cause is not None and seen < 16:
        if isinstance(cause, OSError) and cause.errno is not None:
            found = cause
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return found


def _describe(exc: BaseException) -> str:
    text = str(exc)
    said = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    # httpx says "All connection attempts failed" for a refused connection and an unknown host
    # alike; the OS's error under it tells them apart, and the receipt keeps it.
    cause = _os_cause(exc)
    if cause is not None and str(cause) not in said:
        said += f" ({type(cause).__name__}: {cause})"
    return said


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _ERROR_SNIPPET else text[: _ERROR_SNIPPET - 1] + "…"


def _body_bytes(payload: dict[str, Any]) -> bytes:
    # The receipt must hold the exact bytes sent, so the body is serialised in exactly one way.
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class _Caller:
    def __init__(self, client: httpx.AsyncClient, receipts: ReceiptStore, clock: Clock, timeout_s: float):
        self._client = client
        self._receipts = receipts
        self._clock = clock
        self._timeout_s = timeout_s

    def _now(self) -> dt.datetime:
        return self._clock()

    async def exchange(self, url: str, headers: dict[str, str], payload: dict[str, Any]) -> _Exchange:
        content = _body_bytes(payload)
        request = self._client.build_request("POST", url, headers=headers, content=content)
        started = self._now()
        response: httpx.Response | None = None
        error: str | None = None
        try:
            # httpx's timeout bounds each phase; this bounds the whole reply, so a server that
            # trickles bytes can not hold a call past its budget.
            async with asyncio.timeout(self._timeout_s):
                response = await self._client.send(request)
        except TimeoutError:
            error = f"no complete response within {self._timeout_s:g} s"
        except httpx.RequestError as exc:
            error = _describe(exc)
        ended = self._now()
        receipt, receipt_id = await store_exchange(
            self._receipts, request, response, params=(), started=started, ended=ended, error=error
        )
        headers_out = response.headers if response is not None else httpx.Headers()
        return _Exchange(
            receipt_id=receipt_id,
            status=receipt.status,
            content_type=headers_out.get("content-type", ""),
            body=receipt.body,
            error=error,
            retry_after=headers_out.get("retry-after"),
            url=url,
        )


def _settings_record(settings: CallSettings, omitted: set[str]) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for name, value in dataclasses.asdict(settings).items():
        sendable = name in NEGOTIABLE
        record[name] = OMITTED if sendable and (value is None or name in omitted) else value
    return record


@dataclasses.dataclass(frozen=True)
class _Outcome:
    """How a call ended: what the asking rules decided, and why the last reply ended."""

    status: Status
    text: str | None
    error: str | None
    stopped: Stopped = NOT_SAID
    # The class a 2xx reply's own refusal gets (REPLY-2); None leaves the call's last HTTP refusal.
    refusal: Refusal | None = None
    # What a 2xx body was: JSON with the protocol's reply shape, JSON without it, or not JSON.
    shape: Literal["shaped", "unshaped", "not_json"] = "not_json"


def _parsed(exchange: _Exchange) -> Any:
    """A reply body's JSON, or None when it is not JSON."""
    try:
        return json.loads(exchange.body)
    except (ValueError, RecursionError):
        return None


def _stop_of(adapter: Adapter, body: Any) -> Stopped:
    """Why a 2xx reply ended, as its parsed body says (None: not JSON)."""
    try:
        return adapter.stopped(body) if body is not None else NOT_SAID
    except (AttributeError, TypeError):  # a hostile body of odd types says nothing
        return NOT_SAID


def _without_text(adapter: Adapter, status: int | None, stopped: Stopped) -> str:
    """Why a REPLY-2 reply has no text at the protocol's place, naming what the provider said."""
    where = f"HTTP {status} reply has no text at {adapter.reply_path}"
    said = _snippet(stopped.describe())
    if stopped.tool_call or stopped.stop == "tool_call":
        return f"{where}: it is a tool call ({said}), and no tools were offered"
    if stopped.stop == "length":
        return f"{where}: the reply budget ran out before any text ({said})"
    if stopped.reason is not None:
        return f"{where} (the provider's stop reason: {said})"
    return f"{where}, and names no stop reason"


def _read_reply(adapter: Adapter, exchange: _Exchange, replies: str = REPLY_1) -> _Outcome:
    notes: list[str] = []
    status = exchange.status
    if "json" not in exchange.content_type.lower():
        notes.append(f"HTTP {status} content-type is {exchange.content_type or 'absent'!r}, not JSON")
    try:
        body = json.loads(exchange.body)
    except (ValueError, RecursionError):
        raw = exchange.body.decode("utf-8", errors="replace")
        if not raw.strip():
            return _Outcome("refused", None, "; ".join([*notes, f"HTTP {status} with an empty body"]))
        notes.append(f"HTTP {status} body is not JSON; its raw text is kept as the answer")
        return _Outcome("answered", raw, "; ".join(notes))
    stopped = _stop_of(adapter, body)
    shape: Literal["shaped", "unshaped"] = "shaped" if adapter.shaped(body) else "unshaped"
    text = adapter.reply_text(body)
    if replies == REPLY_1:
        if text is None:
            notes.append(f"HTTP {status} reply has no text at {adapter.reply_path}")
            return _Outcome("refused", None, "; ".join(notes), stopped, shape=shape)
        return _Outcome("answered", text, "; ".join(notes) or None, stopped, shape=shape)
    if stopped.declined:
        # A refusal after partial text is still a refusal: the text is its start, not an answer.
        said = "the model refused" if stopped.stop == "refusal" else "the provider blocked the reply"
        kept = f" after {len(text)} characters of text" if text else ""
        notes.append(f"HTTP {status}: {said}{kept} ({_snippet(stopped.describe())})")
        return _Outcome("refused", None, "; ".join(notes), stopped, "declined", shape)
    if text is None:
        notes.append(_without_text(adapter, status, stopped))
        return _Outcome("refused", None, "; ".join(notes), stopped, "error", shape)
    if not text:
        notes.append(
            f"HTTP {status} reply's text at {adapter.reply_path} is empty ({_snippet(stopped.describe())})"
        )
    return _Outcome("answered", text, "; ".join(notes) or None, stopped, shape=shape)


@dataclasses.dataclass
class _CallState:
    """Where one call stands after the exchanges so far: the asking rules' whole memory."""

    omitted: set[str]
    policy: AskingPolicy
    receipt_ids: list[str] = dataclasses.field(default_factory=list)
    refusals: int = 0
    refusal: Refusal | None = None
    retry_after: str | None = None

    def advance(self, adapter: Adapter, exchange: _Exchange, sent: dict[str, Any]) -> _Outcome | None:
        """Apply one exchange (the request carried ``sent``): the call's outcome, or None to ask again."""
        self.receipt_ids.append(exchange.receipt_id)
        if exchange.status is None:
            return _Outcome("no_response", None, exchange.error)
        if 200 <= exchange.status < 300:
            return _read_reply(adapter, exchange, self.policy.replies)
        named = adapter.refused_setting(exchange.status, exchange.body, sent)
        if named is not None:
            self.omitted.add(named)
            return None
        self.refusals += 1
        self.refusal = classify_refusal(exchange.status)
        self.retry_after = exchange.retry_after
        if self.refusals >= self.policy.max_asks:
            reason = _snippet(error_text(exchange.body)) or "(empty body)"
            return _Outcome(
                "refused", None, f"refused {self.refusals} times; last HTTP {exchange.status}: {reason}"
            )
        return None

    def refusal_of(self, outcome: _Outcome) -> Refusal | None:
        """The refusal class a call that ended with ``outcome`` reports."""
        if outcome.status != "refused":
            return None
        return outcome.refusal or self.refusal


def exchange_of(receipt_id: str, receipt: Receipt) -> _Exchange:
    """An exchange as its receipt recorded it: what the asking rules saw of it."""
    return _Exchange(
        receipt_id=receipt_id,
        status=receipt.status,
        content_type=receipt.headers.get("content-type", ""),
        body=receipt.body,
        error=receipt.error,
        retry_after=receipt.headers.get("retry-after"),
        url=receipt.url,
    )


# ----------------------------------------------------------------------------------------------
# Diagnosis: what a call ran into, for ``models check`` and any one-line report of a failure.

# httpx's timeout exceptions, as ``_describe`` names them in a receipt's error.
_TIMEOUT_ERRORS = ("ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "TimeoutException")
_NO_RESPONSE_WITHIN = "no complete response within"


def _error_envelope(body: Any) -> bool:
    """Whether a parsed error body is a model API's error envelope (OpenAI's and Gemini's ``error``
    object, Anthropic's ``{"type": "error", …}``, Ollama's ``{"error": "…"}``, vLLM's ``{"object":
    "error", …}``) rather than a web framework's or a proxy's page."""
    if not isinstance(body, dict):
        return False
    if isinstance(body.get("error"), dict | str):
        return True
    return body.get("object") == "error" or body.get("type") == "error"


def _names_a_model(body: Any, text: str) -> bool:
    """Whether an error envelope says a model is unknown (rather than, say, the path)."""
    error = body.get("error") if isinstance(body, dict) else None
    codes = [error.get(k) for k in ("code", "type", "status")] if isinstance(error, dict) else []
    if "model_not_found" in codes:
        return True
    return "model" in text.lower()


def _body_said(exchange: _Exchange) -> str:
    """The body of a reply, in a few words, for a reason line."""
    kind = exchange.content_type.split(";")[0].strip() or "no content-type"
    said = _snippet(exchange.body.decode("utf-8", errors="replace"))
    return f"a {kind} body {said!r}" if said else f"an empty {kind} body"


def _diagnose(
    adapter: Adapter, exchange: _Exchange, outcome: _Outcome, *, model: str, key_sent: bool
) -> Diagnosis | None:
    status, url = exchange.status, exchange.url or "(no URL)"
    not_server = f"not an {adapter.server_kind} server at {url}"
    if status is None:
        error = exchange.error or "no response"
        if error.startswith(_NO_RESPONSE_WITHIN) or error.startswith(_TIMEOUT_ERRORS):
            return Diagnosis("timeout", f"timeout: {url}: {error}")
        if error.startswith("ConnectError"):
            if "ConnectionRefusedError" in error or "connection refused" in error.lower():
                return Diagnosis("connection_refused", f"connection refused: {url}: {error}")
            return Diagnosis("unreachable", f"unreachable: {url}: {error}")
        return Diagnosis("dropped", f"no response: {url}: {error}")
    if 200 <= status < 300:
        if outcome.shape != "shaped":
            what = (
                _body_said(exchange)
                if outcome.shape == "not_json"
                else "JSON without the protocol's reply shape"
            )
            return Diagnosis("not_protocol_server", f"{not_server}: HTTP {status} with {what}")
        stopped = outcome.stopped
        if stopped.declined:
            return Diagnosis("declined", f"the model declined: {_snippet(stopped.describe())}")
        if outcome.status != "answered":
            return Diagnosis("no_text", f"no text: {_without_text(adapter, status, stopped)}")
        if not outcome.text:
            return Diagnosis(
                "no_text", f"no text: HTTP {status} reply's text is empty ({_snippet(stopped.describe())})"
            )
        return None
    body = _parsed(exchange)
    text = _snippet(error_text(exchange.body)) or "(empty body)"
    enveloped = _error_envelope(body)
    # Gemini answers a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
    key_rejected = status == 400 and ("API_KEY_INVALID" in text or "api key not valid" in text.lower())
    if status in AUTH_STATUSES or key_rejected:
        if not key_sent:
            return Diagnosis("no_key", f"no key set: the server asks for one: HTTP {status}: {text}")
        return Diagnosis("refused", f"refused: HTTP {status}: {text}")
    if status in RATE_LIMIT_STATUSES:
        return Diagnosis("rate_limited", f"rate limited: HTTP {status}: {text}")
    if status in (400, 404) and enveloped and _names_a_model(body, text):
        return Diagnosis("unknown_model", f"unknown model {model!r}: HTTP {status}: {text}")
    if status in (404, 405) or 300 <= status < 400 or (status == 400 and not enveloped):
        said = _body_said(exchange) if not enveloped else f"an error that names no model: {text}"
        return Diagnosis("not_protocol_server", f"{not_server}: HTTP {status} with {said}")
    return Diagnosis("error", f"HTTP {status}: {text}")


def diagnose(protocol: str, receipt: Receipt, *, model: str, key_sent: bool) -> Diagnosis | None:
    """What a call whose last exchange is ``receipt`` ran into, in one line (None: it answered
    cleanly). ``key_sent`` says whether the request carried a key (receipts never store keys).
    The same under every reply rule: a refusal is ``declined`` even where REPLY-1 kept its text."""
    adapter = adapter_for(protocol)
    exchange = exchange_of("", receipt)
    ok = exchange.status is not None and 200 <= exchange.status < 300
    outcome = _read_reply(adapter, exchange, REPLY_2) if ok else _Outcome("refused", None, None)
    return _diagnose(adapter, exchange, outcome, model=model, key_sent=key_sent)


class CallJournal(Protocol):
    """Where a call writes down each request before it is sent, and each reply once it is stored.

    ``prior()`` lists the requests already made, in order, each with its reply's receipt id or None
    (asked, and no reply was ever stored). A call resumed after a crash replays those, and never
    sends a request again that may have reached the model.
    """

    def prior(self) -> list[tuple[int, str | None]]: ...

    async def asked(self, request: int) -> None: ...

    async def replied(self, request: int, receipt_id: str) -> None: ...


def no_reply_error(request: int) -> str:
    """Why a call that a crash interrupted is ``no_response``: the journal's request had no reply."""
    return (
        f"request {request} was sent and no reply was stored; a call that may have reached the model "
        "is never made again"
    )


class ReplayError(Exception):
    """A recorded request is not the one the call would make now: it was asked otherwise."""


async def chat(
    protocol: str,
    *,
    base_url: str,
    model: str,
    api_key: str | None,
    messages: Sequence[Message],
    receipts: ReceiptStore,
    policy: AskingPolicy,
    settings: CallSettings = CallSettings(),  # frozen, so one shared default is safe
    clock: Clock = _utc_now,
    transport: httpx.AsyncBaseTransport | None = None,
    journal: CallJournal | None = None,
) -> CallResult:
    """Send ``messages`` to ``model`` over ``protocol`` and return its one reply (never raises on
    provider misbehaviour), asking by ``policy``. ``clock`` returns aware UTC instants for the
    receipts; ``transport`` replaces the network (tests). With a ``journal``, every request is
    journalled before it is sent, and requests the journal already holds are replayed from their
    receipts, not sent again: one asked without a stored reply ends the call as ``no_response``.
    Raises ``ValueError`` for an unknown protocol or messages no model can answer, both caller
    errors, and ``ReplayError`` when a journalled request differs from the one this call would send.
    """
    adapter = adapter_for(protocol)
    conversation = list(messages)
    state = _CallState(omitted=set(adapter.unsupported), policy=policy)
    timeout = httpx.Timeout(settings.timeout_s)

    def result(outcome: _Outcome, last: _Exchange | None) -> CallResult:
        refusal = state.refusal_of(outcome)
        limited = refusal == "rate_limited"
        stopped = outcome.stopped
        return CallResult(
            status=outcome.status,
            text=outcome.text,
            receipt_ids=tuple(state.receipt_ids),
            attempts=len(state.receipt_ids),
            settings_record=_settings_record(settings, state.omitted),
            error=outcome.error,
            model=model,
            protocol=protocol,
            refusal=refusal,
            retry_after_s=retry_after_seconds(state.retry_after, clock()) if limited else None,
            stop=stopped.stop,
            stop_reason=stopped.reason,
            stop_detail=stopped.detail,
            diagnosis=None
            if last is None
            else _diagnose(adapter, last, outcome, model=model, key_sent=bool(api_key)),
        )

    def next_request() -> tuple[str, dict[str, str], dict[str, Any], dict[str, Any]]:
        sent = {k: v for k, v in settings.sendable().items() if k not in state.omitted}
        url, headers, payload = adapter.request(
            base_url=base_url, model=model, api_key=api_key, messages=conversation, settings=sent
        )
        return url, headers, payload, sent

    for request, receipt_id in journal.prior() if journal is not None else []:
        if receipt_id is None:
            return result(_Outcome("no_response", None, no_reply_error(request)), None)
        receipt = receipts.get(receipt_id)
        _, _, payload, sent = next_request()
        if receipt.request_body != _body_bytes(payload):
            raise ReplayError(
                f"request {request} to {model} ({protocol}), receipt {receipt_id}, is not the request this "
                "call would send now: it was asked with another model, other messages or other settings"
            )
        replayed = exchange_of(receipt_id, receipt)
        outcome = state.advance(adapter, replayed, sent)
        if outcome is not None:
            return result(outcome, replayed)

    async with httpx.AsyncClient(
        transport=transport, timeout=timeout, follow_redirects=False, verify=_tls_context()
    ) as client:
        caller = _Caller(client, receipts, clock, settings.timeout_s)
        # Each pass either ends the call, omits one more setting, or counts a refusal, so the
        # loop runs at most len(NEGOTIABLE) + policy.max_asks times.
        while True:
            url, headers, payload, sent = next_request()
            request = len(state.receipt_ids) + 1
            if journal is not None:
                await journal.asked(request)
            exchange = await caller.exchange(url, headers, payload)
            if journal is not None:
                await journal.replied(request, exchange.receipt_id)
            outcome = state.advance(adapter, exchange, sent)
            if outcome is not None:
                return result(outcome, exchange)


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """One model of a fallback chain: where it is served and how to reach it."""

    protocol: str
    base_url: str
    model: str
    api_key: str | None = None


@dataclasses.dataclass(frozen=True)
class FallbackResult:
    """The reply a chain gave (``result``: the last call made) and every call of the walk, in order."""

    result: CallResult
    calls: tuple[CallResult, ...]

    @property
    def fell_back(self) -> bool:
        return len(self.calls) > 1


async def call_with_fallbacks(
    chain: Sequence[Endpoint],
    *,
    messages: Sequence[Message],
    receipts: ReceiptStore,
    policy: AskingPolicy,
    settings: CallSettings = CallSettings(),
    clock: Clock = _utc_now,
    transport: httpx.AsyncBaseTransport | None = None,
) -> FallbackResult:
    """Ask ``chain[0]``; while a model refuses in a class the policy falls back on (or, if the policy
    says so, falls silent), ask the next.

    The walk stops at the first call that answers, is silent, or refuses otherwise, or at the end of
    the chain (whose last refusal is then the result).
    """
    if not chain:
        raise ValueError("a fallback chain needs at least one model")
    calls: list[CallResult] = []
    for endpoint in chain:
        result = await chat(
            endpoint.protocol,
            base_url=endpoint.base_url,
            model=endpoint.model,
            api_key=endpoint.api_key,
            messages=messages,
            receipts=receipts,
            policy=policy,
            settings=settings,
            clock=clock,
            transport=transport,
        )
        calls.append(result)
        # A refusal of no class (a 2xx without text) is an error like any other.
        refused = result.status == "refused" and (result.refusal or "error") in policy.fall_back_on
        silent = result.status == "no_response" and policy.fall_back_on_silence
        if not (refused or silent):
            break
    return FallbackResult(result=calls[-1], calls=tuple(calls))


def answer_in_receipt(
    protocol: str, receipt: Receipt, replies: str = REPLY_1
) -> tuple[Status | None, str | None]:
    """What one recorded 2xx exchange answered, read as a call reads it (status and text); (None,
    None) for an exchange that did not answer. An auditor compares it with the text a record keeps."""
    if receipt.status is None or not 200 <= receipt.status < 300:
        return None, None
    outcome = _read_reply(adapter_for(protocol), exchange_of("", receipt), replies)
    return outcome.status, outcome.text


def stop_in_receipt(protocol: str, receipt: Receipt) -> Stopped:
    """Why one recorded 2xx reply ended (``NOT_SAID`` for an exchange that did not answer): how a
    record made before it kept ``stop`` re-derives it."""
    if receipt.status is None or not 200 <= receipt.status < 300:
        return NOT_SAID
    return _stop_of(adapter_for(protocol), _parsed(exchange_of("", receipt)))


@dataclasses.dataclass(frozen=True)
class Replayed:
    """A call re-read from its receipts alone: what the asking rules made of them."""

    status: Status | None  # None: the rules would have asked again after the last receipt
    text: str | None
    error: str | None
    omitted: frozenset[str]
    sent: tuple[dict[str, Any], ...]  # the settings each request carried, read from its bytes
    stopped: Stopped = NOT_SAID  # why the last reply ended, as the call's result says


def replay_call(
    protocol: str, receipt_ids: Sequence[str], receipts: ReceiptStore, policy: AskingPolicy
) -> Replayed:
    """Re-run the asking rules (``policy``) over a call's receipts, reading what each request sent
    from its bytes.

    This is how an auditor re-derives a call's outcome without any configuration: the settings
    each request carried are in the request itself. Raises ``ReceiptError`` for a missing receipt.
    """
    adapter = adapter_for(protocol)
    state = _CallState(omitted=set(adapter.unsupported), policy=policy)
    sent_all: list[dict[str, Any]] = []
    outcome: _Outcome | None = None
    for index, receipt_id in enumerate(receipt_ids):
        receipt = receipts.get(receipt_id)
        try:
            sent = adapter.sent_settings(json.loads(receipt.request_body))
        except (ValueError, TypeError, AttributeError):
            sent = {}
        sent_all.append(sent)
        outcome = state.advance(adapter, exchange_of(receipt_id, receipt), sent)
        if outcome is not None and index != len(receipt_ids) - 1:
            # The rules ended the call here; a later receipt is a request they never allowed.
            error = f"receipt {receipt_ids[index + 1]} follows the end of the call"
            return Replayed(None, None, error, frozenset(state.omitted), tuple(sent_all))
    if outcome is None:
        return Replayed(None, None, None, frozenset(state.omitted), tuple(sent_all))
    return Replayed(
        outcome.status,
        outcome.text,
        outcome.error,
        frozenset(state.omitted),
        tuple(sent_all),
        outcome.stopped,
    )
