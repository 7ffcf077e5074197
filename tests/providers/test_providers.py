"""Provider adapters against the sparring server (and a mock transport for what it never does)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from colosseum_core.arenas import sparring_houses
from colosseum_core.forecast.answering.asking import ask_seat
from colosseum_core.providers import OMITTED, PROTOCOLS, CallResult, CallSettings
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.sparring import running_sparring
from tests.standins.test_sparring import QUESTIONS, packet_text

PACKET = packet_text().encode("utf-8")
LABELS = [label for label, _ in QUESTIONS]
FULL_RECORD = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 16384, "timeout_s": 300.0, "seed": 0}


def fixed_clock() -> dt.datetime:
    return dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def sparring() -> Iterator[str]:
    # A stall far longer than any load can stretch a 0.5 s timeout: only the timeout ends the call early.
    with running_sparring(houses=sparring_houses(), stall_s=60.0) as url:
        yield url


@pytest.fixture
def receipts(tmp_path: Path) -> ReceiptStore:
    return ReceiptStore(tmp_path / "receipts")


def call(
    protocol: str,
    base_url: str,
    model: str,
    receipts: ReceiptStore,
    *,
    packet: bytes = PACKET,
    settings: CallSettings | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    api_key: str | None = "sk-test",
) -> CallResult:
    return asyncio.run(
        ask_seat(
            protocol,
            base_url=base_url,
            model=model,
            api_key=api_key,
            packet=packet,
            receipts=receipts,
            settings=settings or CallSettings(),
            clock=fixed_clock,
            transport=transport,
        )
    )


def sent_body(receipts: ReceiptStore, receipt_id: str) -> dict[str, Any]:
    return json.loads(receipts.get(receipt_id).request_body)


def user_messages(protocol: str, body: dict[str, Any]) -> list[str]:
    """The text of every input message, asserting each is a user message."""
    if protocol == "gemini":
        assert all(c["role"] == "user" for c in body["contents"])
        return ["".join(p["text"] for p in c["parts"]) for c in body["contents"]]
    assert all(m["role"] == "user" for m in body["messages"])
    return [m["content"] for m in body["messages"]]


# -- against the sparring server --------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_happy_path(protocol: str, sparring: str, receipts: ReceiptStore) -> None:
    result = call(protocol, sparring, "house-hash", receipts)
    assert result.status == "answered", result.error
    assert result.error is None
    assert (result.model, result.protocol, result.attempts) == ("house-hash", protocol, 1)
    assert [line.split(":")[0] for line in result.text.splitlines()] == LABELS  # type: ignore[union-attr]
    expected = dict(FULL_RECORD, seed=OMITTED) if protocol == "anthropic" else FULL_RECORD
    assert result.settings_record == expected

    (receipt_id,) = result.receipt_ids
    receipt = receipts.get(receipt_id)
    assert receipt.status == 200
    assert receipt.started_at == "2026-06-01T12:00:00.000000Z"
    assert "x-colosseum-sparring" in receipt.headers
    assert b"sk-test" not in receipts.canonical_bytes(receipt_id)
    body = sent_body(receipts, receipt_id)
    assert user_messages(protocol, body) == [PACKET.decode("utf-8")]
    assert not {"system", "systemInstruction", "system_instruction", "tools"} & set(body)
    assert json.loads(receipt.body)  # the response bytes, as received


@pytest.mark.parametrize(("protocol", "first_status"), [("openai", 429), ("anthropic", 529), ("gemini", 503)])
def test_refusal_is_asked_once_more(
    protocol: str, first_status: int, sparring: str, receipts: ReceiptStore
) -> None:
    result = call(protocol, sparring, "house-coin-refuse-once", receipts)
    assert result.status == "answered"
    assert result.attempts == 2 and len(set(result.receipt_ids)) == 2
    assert [receipts.get(r).status for r in result.receipt_ids] == [first_status, 200]
    assert sent_body(receipts, result.receipt_ids[0]) == sent_body(receipts, result.receipt_ids[1])


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_always_refused_after_exactly_two_asks(protocol: str, sparring: str, receipts: ReceiptStore) -> None:
    result = call(protocol, sparring, "house-coin-refuse", receipts)
    assert result.status == "refused" and result.text is None
    assert result.attempts == 2 and len(result.receipt_ids) == 2
    assert all(receipts.get(r).status == 403 for r in result.receipt_ids)
    assert "403" in (result.error or "")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_stall_is_no_response_and_never_re_asked(
    protocol: str, sparring: str, receipts: ReceiptStore
) -> None:
    started = time.monotonic()
    result = call(protocol, sparring, "house-coin-stall", receipts, settings=CallSettings(timeout_s=0.5))
    assert time.monotonic() - started < 30.0  # cut by the timeout, not waited out (the stall is 60 s)
    assert result.status == "no_response" and result.text is None
    assert result.attempts == 1
    receipt = receipts.get(result.receipt_ids[0])
    assert receipt.status is None and receipt.error
    assert user_messages(protocol, sent_body(receipts, result.receipt_ids[0])) == [PACKET.decode("utf-8")]
    assert result.settings_record["timeout_s"] == 0.5


@pytest.mark.parametrize(
    ("protocol", "model", "setting"),
    [
        ("openai", "house-coin-no-seed", "seed"),
        ("openai", "house-coin-no-top-p", "top_p"),
        ("gemini", "house-coin-no-seed", "seed"),
        ("gemini", "house-coin-no-top-p", "top_p"),
        ("anthropic", "house-coin-no-top-p", "top_p"),
    ],
)
def test_refused_setting_is_omitted_and_recorded(
    protocol: str, model: str, setting: str, sparring: str, receipts: ReceiptStore
) -> None:
    result = call(protocol, sparring, model, receipts)
    assert result.status == "answered", result.error
    assert result.attempts == 2
    assert result.settings_record[setting] == OMITTED
    kept = {k: v for k, v in FULL_RECORD.items() if k != setting}
    if protocol == "anthropic":
        kept["seed"] = OMITTED
    assert {k: v for k, v in result.settings_record.items() if k != setting} == kept
    first, second = (json.dumps(sent_body(receipts, r)) for r in result.receipt_ids)
    wire = {"top_p": "topP"}.get(setting, setting) if protocol == "gemini" else setting
    assert f'"{wire}"' in first and f'"{wire}"' not in second
    assert receipts.get(result.receipt_ids[0]).status == 400


def test_anthropic_never_sends_a_seed(sparring: str, receipts: ReceiptStore) -> None:
    result = call("anthropic", sparring, "house-coin-no-seed", receipts)
    assert result.status == "answered" and result.attempts == 1
    assert "seed" not in sent_body(receipts, result.receipt_ids[0])


def test_sloppy_reply_is_passed_through_verbatim(sparring: str, receipts: ReceiptStore) -> None:
    result = call("gemini", sparring, "house-coin-sloppy-table", receipts)
    assert result.status == "answered"
    assert result.text.startswith("| Label |")  # type: ignore[union-attr]


def test_missing_key_is_a_refusal(sparring: str, receipts: ReceiptStore) -> None:
    result = call("openai", sparring, "house-coin", receipts, api_key=None)
    assert result.status == "refused" and result.attempts == 2
    assert "401" in (result.error or "")


# -- misbehaviour the sparring server does not produce ----------------------------------------


def mock(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.MockTransport:
    return httpx.MockTransport(handler)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_non_json_body_never_raises(protocol: str, receipts: ReceiptStore) -> None:
    transport = mock(lambda r: httpx.Response(200, text="M01: YES 7", headers={"content-type": "text/html"}))
    result = call(protocol, "http://provider.test", "m", receipts, transport=transport)
    assert result.status == "answered" and result.text == "M01: YES 7"
    assert "not JSON" in (result.error or "")
    assert receipts.get(result.receipt_ids[0]).body == b"M01: YES 7"


def test_json_with_wrong_content_type_is_read(receipts: ReceiptStore) -> None:
    body = {"choices": [{"message": {"role": "assistant", "content": "M01: NO 2"}}]}
    transport = mock(
        lambda r: httpx.Response(200, text=json.dumps(body), headers={"content-type": "text/plain"})
    )
    result = call("openai", "http://provider.test", "m", receipts, transport=transport)
    assert result.status == "answered" and result.text == "M01: NO 2"
    assert "content-type" in (result.error or "")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_missing_fields_are_not_re_asked(protocol: str, receipts: ReceiptStore) -> None:
    transport = mock(lambda r: httpx.Response(200, json={"promptFeedback": {"blockReason": "SAFETY"}}))
    result = call(protocol, "http://provider.test", "m", receipts, transport=transport)
    assert result.status == "refused" and result.attempts == 1 and result.text is None
    assert "no text" in (result.error or "")


@pytest.mark.parametrize("body", [b"", b"[]", b"null", b'"x"', b"\xff\xfe", b"{" * 5000])
def test_odd_bodies_never_raise(body: bytes, receipts: ReceiptStore) -> None:
    for status in (200, 400, 500):
        transport = mock(lambda r, s=status: httpx.Response(s, content=body))
        result = call("anthropic", "http://provider.test", "m", receipts, transport=transport)
        assert result.status in {"answered", "refused"}
        assert result.error


def test_connection_error_is_no_response(receipts: ReceiptStore) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection reset by peer", request=request)

    result = call("openai", "http://provider.test", "m", receipts, transport=mock(handler))
    assert result.status == "no_response" and result.attempts == 1
    assert "ConnectError" in (result.error or "")
    assert receipts.get(result.receipt_ids[0]).status is None


def test_server_errors_without_body_are_refusals(receipts: ReceiptStore) -> None:
    transport = mock(lambda r: httpx.Response(500))
    result = call("gemini", "http://provider.test", "m", receipts, transport=transport)
    assert result.status == "refused" and result.attempts == 2


def test_when_an_error_names_two_settings_top_p_goes_first(receipts: ReceiptStore) -> None:
    seen: list[dict[str, Any]] = []
    message = "`temperature` and `top_p` cannot both be specified for this model. Please use only one."

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        if "top_p" in body and "temperature" in body:
            error = {"type": "invalid_request_error", "message": message}
            return httpx.Response(400, json={"type": "error", "error": error})
        return httpx.Response(200, json={"content": [{"type": "text", "text": "M01: YES 2"}]})

    result = call("anthropic", "http://provider.test", "m", receipts, transport=mock(handler))
    assert result.status == "answered" and result.attempts == 2
    assert result.settings_record["top_p"] == OMITTED and result.settings_record["temperature"] == 0.0
    assert seen[1]["temperature"] == 0.0 and "top_p" not in seen[1]


def test_a_setting_is_given_up_only_once(receipts: ReceiptStore) -> None:
    error = {"error": {"message": "Unsupported parameter: 'seed'", "param": "seed"}}
    transport = mock(lambda r: httpx.Response(400, json=error))
    result = call("openai", "http://provider.test", "m", receipts, transport=transport)
    # One negotiation (seed), then the error no longer names a sent setting: two refusals.
    assert result.status == "refused" and result.attempts == 3
    assert result.settings_record["seed"] == OMITTED


def test_urls_headers_and_unset_seed(receipts: ReceiptStore) -> None:
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json={"candidates": [{"content": {"parts": [{"text": "ok"}]}}]})

    settings = CallSettings(seed=None)
    result = call(
        "gemini",
        "http://g.test/v1beta/",
        "models/gemini-x",
        receipts,
        transport=mock(handler),
        settings=settings,
    )
    assert result.settings_record["seed"] == OMITTED
    assert str(requests[0].url) == "http://g.test/v1beta/models/gemini-x:generateContent"
    assert requests[0].headers["x-goog-api-key"] == "sk-test"
    assert "seed" not in json.loads(requests[0].content)["generationConfig"]

    call(
        "openai",
        "http://o.test/v1",
        "m",
        receipts,
        transport=mock(lambda r: (requests.append(r), httpx.Response(200, json={}))[1]),
    )
    assert str(requests[1].url) == "http://o.test/v1/chat/completions"
    assert requests[1].headers["authorization"] == "Bearer sk-test"

    call(
        "anthropic",
        "http://a.test",
        "m",
        receipts,
        transport=mock(lambda r: (requests.append(r), httpx.Response(200, json={}))[1]),
    )
    assert str(requests[2].url) == "http://a.test/v1/messages"
    assert requests[2].headers["anthropic-version"] == "2023-06-01"
    assert requests[2].headers["x-api-key"] == "sk-test"


def test_thought_parts_are_not_the_answer(receipts: ReceiptStore) -> None:
    parts = [{"text": "thinking...", "thought": True}, {"text": "M01: YES 3"}]
    transport = mock(lambda r: httpx.Response(200, json={"candidates": [{"content": {"parts": parts}}]}))
    assert call("gemini", "http://g.test", "m", receipts, transport=transport).text == "M01: YES 3"


def test_unknown_protocol_is_a_caller_error(receipts: ReceiptStore) -> None:
    with pytest.raises(ValueError, match="unknown protocol"):
        call("cohere", "http://x.test", "m", receipts)
