"""One seat, one packet, one reply: the asking rules of §6 and the equal settings of §8.

- The packet is the whole input: one user message, no system prompt, no tools.
- Settings are temperature 0, top_p 1, 16,384 reply tokens, 300 s and seed 0. A setting the
  protocol documents as unsupported (seed on Anthropic) is omitted up front; a 400/422 whose
  error names a sent setting is answered by sending the same request once more without it.
  That is negotiation, not a re-ask. Every omitted setting is recorded as ``OMITTED``.
- An HTTP error response (after negotiation) is a refusal, proof no answer existed, so the packet is
  asked once more; a second refusal ends the call as ``refused``.
- A timeout, reset or dropped connection is ``no_response`` and is never re-asked: a silent model
  may already have answered, and a second sample would not be the seat's one reply.
- A 2xx is never re-asked either. If its text can not be found (not JSON, fields missing) the call
  keeps what can be read and says why in ``error``; a 2xx body that is not JSON at all is kept as
  the answer text, so the judge's recovery (§7) decides what it means.

Every attempt's request and response bytes are stored as a receipt before anything parses them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

import httpx

from colosseum_core.exchanges.polymarket.timestamps import format_receipt_time
from colosseum_core.providers.adapters import NEGOTIABLE, Adapter, adapter_for, error_text
from colosseum_core.record.http import exchange_receipt, store_off_loop
from colosseum_core.record.receipts import Receipt, ReceiptStore

OMITTED = "OMITTED"
# A refusal is asked once more: two asks in all.
MAX_ASKS = 2
_ERROR_SNIPPET = 300

Status = Literal["answered", "refused", "no_response"]
Clock = Callable[[], dt.datetime]


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
    """What became of one seat's call. ``receipt_ids`` holds every attempt, in order."""

    status: Status
    text: str | None
    receipt_ids: tuple[str, ...]
    attempts: int
    settings_record: dict[str, Any]
    error: str | None
    model: str
    protocol: str


@dataclasses.dataclass(frozen=True)
class _Exchange:
    receipt_id: str
    status: int | None
    content_type: str
    body: bytes
    error: str | None


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


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
            # trickles bytes can not hold a seat past its budget.
            async with asyncio.timeout(self._timeout_s):
                response = await self._client.send(request)
        except TimeoutError:
            error = f"no complete response within {self._timeout_s:g} s"
        except httpx.RequestError as exc:
            error = _describe(exc)
        ended = self._now()
        receipt = exchange_receipt(
            request,
            response,
            params=(),
            started_at=format_receipt_time(started),
            ended_at=format_receipt_time(ended),
            error=error,
        )
        headers_out = response.headers if response is not None else httpx.Headers()
        receipt_id = await store_off_loop(self._receipts, receipt)
        return _Exchange(
            receipt_id=receipt_id,
            status=receipt.status,
            content_type=headers_out.get("content-type", ""),
            body=receipt.body,
            error=error,
        )


def _settings_record(settings: CallSettings, omitted: set[str]) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for name, value in dataclasses.asdict(settings).items():
        sendable = name in NEGOTIABLE
        record[name] = OMITTED if sendable and (value is None or name in omitted) else value
    return record


def _read_reply(adapter: Adapter, exchange: _Exchange) -> tuple[Status, str | None, str | None]:
    notes: list[str] = []
    status = exchange.status
    if "json" not in exchange.content_type.lower():
        notes.append(f"HTTP {status} content-type is {exchange.content_type or 'absent'!r}, not JSON")
    try:
        body = json.loads(exchange.body)
    except (ValueError, RecursionError):
        raw = exchange.body.decode("utf-8", errors="replace")
        if not raw.strip():
            return "refused", None, "; ".join([*notes, f"HTTP {status} with an empty body"])
        notes.append(f"HTTP {status} body is not JSON; its raw text is kept as the answer")
        return "answered", raw, "; ".join(notes)
    text = adapter.reply_text(body)
    if text is None:
        notes.append(f"HTTP {status} reply has no text at {adapter.reply_path}")
        return "refused", None, "; ".join(notes)
    return "answered", text, "; ".join(notes) or None


@dataclasses.dataclass
class _CallState:
    """Where one seat's call stands after the exchanges so far: the asking rules' whole memory."""

    omitted: set[str]
    receipt_ids: list[str] = dataclasses.field(default_factory=list)
    refusals: int = 0

    def advance(
        self, adapter: Adapter, exchange: _Exchange, sent: dict[str, Any]
    ) -> tuple[Status, str | None, str | None] | None:
        """Apply one exchange (the request carried ``sent``): the call's outcome, or None to ask again."""
        self.receipt_ids.append(exchange.receipt_id)
        if exchange.status is None:
            return "no_response", None, exchange.error
        if 200 <= exchange.status < 300:
            return _read_reply(adapter, exchange)
        named = adapter.refused_setting(exchange.status, exchange.body, sent)
        if named is not None:
            self.omitted.add(named)
            return None
        self.refusals += 1
        if self.refusals >= MAX_ASKS:
            reason = _snippet(error_text(exchange.body)) or "(empty body)"
            return "refused", None, f"refused {self.refusals} times; last HTTP {exchange.status}: {reason}"
        return None


def exchange_of(receipt_id: str, receipt: Receipt) -> _Exchange:
    """An exchange as its receipt recorded it: what the asking rules saw of it."""
    return _Exchange(
        receipt_id=receipt_id,
        status=receipt.status,
        content_type=receipt.headers.get("content-type", ""),
        body=receipt.body,
        error=receipt.error,
    )


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
    """A recorded request is not the one the call would make now: the seat was asked otherwise."""


async def call_model(
    protocol: str,
    *,
    base_url: str,
    model: str,
    api_key: str | None,
    packet: bytes,
    receipts: ReceiptStore,
    settings: CallSettings = CallSettings(),  # frozen, so one shared default is safe
    clock: Clock = _utc_now,
    transport: httpx.AsyncBaseTransport | None = None,
    journal: CallJournal | None = None,
) -> CallResult:
    """Send ``packet`` to ``model`` over ``protocol`` and return the seat's one reply (never raises on
    provider misbehaviour). ``clock`` returns aware UTC instants for the receipts; ``transport``
    replaces the network (tests). With a ``journal``, every request is journalled before it is
    sent, and requests the journal already holds are replayed from their receipts, not sent again:
    one asked without a stored reply ends the call as ``no_response``. Raises ``ValueError`` for an
    unknown protocol or a packet that is not UTF-8, both caller errors, and ``ReplayError`` when a
    journalled request differs from the one this call would send.
    """
    adapter = adapter_for(protocol)
    text = packet.decode("utf-8")
    state = _CallState(omitted=set(adapter.unsupported))
    timeout = httpx.Timeout(settings.timeout_s)

    def result(outcome: tuple[Status, str | None, str | None]) -> CallResult:
        status, text_out, error = outcome
        return CallResult(
            status=status,
            text=text_out,
            receipt_ids=tuple(state.receipt_ids),
            attempts=len(state.receipt_ids),
            settings_record=_settings_record(settings, state.omitted),
            error=error,
            model=model,
            protocol=protocol,
        )

    def next_request() -> tuple[str, dict[str, str], dict[str, Any], dict[str, Any]]:
        sent = {k: v for k, v in settings.sendable().items() if k not in state.omitted}
        url, headers, payload = adapter.request(
            base_url=base_url, model=model, api_key=api_key, text=text, settings=sent
        )
        return url, headers, payload, sent

    for request, receipt_id in journal.prior() if journal is not None else []:
        if receipt_id is None:
            return result(("no_response", None, no_reply_error(request)))
        receipt = receipts.get(receipt_id)
        _, _, payload, sent = next_request()
        if receipt.request_body != _body_bytes(payload):
            raise ReplayError(
                f"request {request} to {model} ({protocol}), receipt {receipt_id}, is not the request this "
                "call would send now: the seat was asked with another model, packet or settings"
            )
        outcome = state.advance(adapter, exchange_of(receipt_id, receipt), sent)
        if outcome is not None:
            return result(outcome)

    async with httpx.AsyncClient(transport=transport, timeout=timeout, follow_redirects=False) as client:
        caller = _Caller(client, receipts, clock, settings.timeout_s)
        # Each pass either ends the call, omits one more setting, or counts a refusal, so the
        # loop runs at most len(NEGOTIABLE) + MAX_ASKS times.
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
                return result(outcome)


@dataclasses.dataclass(frozen=True)
class Replayed:
    """A call re-read from its receipts alone: what the asking rules made of them."""

    status: Status | None  # None: the rules would have asked again after the last receipt
    text: str | None
    error: str | None
    omitted: frozenset[str]
    sent: tuple[dict[str, Any], ...]  # the settings each request carried, read from its bytes


def replay_call(protocol: str, receipt_ids: Sequence[str], receipts: ReceiptStore) -> Replayed:
    """Re-run the asking rules over a call's receipts, reading what each request sent from its bytes.

    This is how an auditor re-derives a seat's outcome without any configuration: the settings
    each request carried are in the request itself. Raises ``ReceiptError`` for a missing receipt.
    """
    adapter = adapter_for(protocol)
    state = _CallState(omitted=set(adapter.unsupported))
    sent_all: list[dict[str, Any]] = []
    outcome: tuple[Status, str | None, str | None] | None = None
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
    status, text, error = outcome if outcome is not None else (None, None, None)
    return Replayed(status, text, error, frozenset(state.omitted), tuple(sent_all))
