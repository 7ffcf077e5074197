"""The platform's one chat call: messages in every protocol's spelling, refusals classified, fallback
chains walked (mock transports for the wire shapes; the sparring server for the walk)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from colosseum_core.arenas import sparring_houses
from colosseum_core.providers import (
    AskingPolicy,
    CallSettings,
    Endpoint,
    Message,
    call_with_fallbacks,
    chat,
    classify_refusal,
)
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.sparring import running_sparring
from tests.standins.test_sparring import packet_text

ONCE = AskingPolicy(max_asks=1)
CONVERSATION = [
    Message("system", "You argue one side of a motion."),
    Message("user", "Opening, please."),
    Message("assistant", "The motion stands."),
    Message("user", "Your rebuttal?"),
]


def _clock() -> dt.datetime:
    return dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def receipts(tmp_path: Path) -> ReceiptStore:
    return ReceiptStore(tmp_path / "receipts")


@pytest.fixture(scope="module")
def sparring() -> Iterator[str]:
    with running_sparring(houses=sparring_houses()) as url:
        yield url


def _sent(protocol: str, receipts: ReceiptStore, status: int = 200, reply: Any = None) -> tuple[Any, dict]:
    bodies: list[dict[str, Any]] = []
    replies = {
        "openai": {"choices": [{"message": {"role": "assistant", "content": "ok"}}]},
        "anthropic": {"content": [{"type": "text", "text": "ok"}]},
        "gemini": {"candidates": [{"content": {"parts": [{"text": "ok"}]}}]},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(status, json=reply if reply is not None else replies[protocol])

    result = asyncio.run(
        chat(
            protocol,
            base_url="http://model.test",
            model="m",
            api_key=None,
            messages=CONVERSATION,
            receipts=receipts,
            policy=ONCE,
            clock=_clock,
            transport=httpx.MockTransport(handler),
        )
    )
    return result, bodies[-1]


def test_openai_sends_every_turn_with_its_role(receipts):
    result, body = _sent("openai", receipts)
    assert result.status == "answered" and result.text == "ok"
    assert body["messages"] == [{"role": m.role, "content": m.content} for m in CONVERSATION]


def test_anthropic_sends_instructions_apart_and_the_turns_in_order(receipts):
    _, body = _sent("anthropic", receipts)
    assert body["system"] == "You argue one side of a motion."
    assert body["messages"] == [
        {"role": "user", "content": "Opening, please."},
        {"role": "assistant", "content": "The motion stands."},
        {"role": "user", "content": "Your rebuttal?"},
    ]


def test_gemini_calls_the_assistant_model_and_sends_a_system_instruction(receipts):
    _, body = _sent("gemini", receipts)
    assert body["systemInstruction"] == {"parts": [{"text": "You argue one side of a motion."}]}
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["contents"][2]["parts"] == [{"text": "Your rebuttal?"}]


def test_one_user_message_is_spelled_as_the_forecast_always_sent_it(receipts):
    """The forecast's seats get one user message; its bytes are the ones every recorded call holds."""
    bodies = {}
    for protocol in ("openai", "anthropic", "gemini"):

        def handler(request: httpx.Request, protocol: str = protocol) -> httpx.Response:
            bodies[protocol] = request.content
            return httpx.Response(500, json={"error": {"message": "no"}})

        asyncio.run(
            chat(
                protocol,
                base_url="http://model.test",
                model="m",
                api_key=None,
                messages=[Message("user", "Q")],
                receipts=receipts,
                policy=ONCE,
                clock=_clock,
                transport=httpx.MockTransport(handler),
            )
        )
    assert bodies["openai"] == (
        b'{"model":"m","messages":[{"role":"user","content":"Q"}],"temperature":0.0,"top_p":1.0,'
        b'"max_tokens":16384,"seed":0}'
    )
    assert bodies["anthropic"] == (
        b'{"model":"m","max_tokens":16384,"messages":[{"role":"user","content":"Q"}],"temperature":0.0,'
        b'"top_p":1.0}'
    )
    assert bodies["gemini"] == (
        b'{"contents":[{"role":"user","parts":[{"text":"Q"}]}],"generationConfig":{"temperature":0.0,'
        b'"topP":1.0,"maxOutputTokens":16384,"seed":0}}'
    )


@pytest.mark.parametrize(
    ("status", "refusal"),
    [
        (429, "rate_limited"),
        (529, "rate_limited"),
        (503, "rate_limited"),
        (404, "model_not_found"),
        (500, "error"),
    ],
)
def test_a_refusal_is_classified(receipts, status, refusal):
    assert classify_refusal(status) == refusal
    result, _ = _sent("openai", receipts, status=status, reply={"error": {"message": "nope"}})
    assert result.status == "refused" and result.refusal == refusal and result.attempts == 1


def test_messages_no_model_can_answer_are_refused_before_anything_is_sent(receipts):
    for messages, words in (
        ([], "at least one user or assistant message"),
        ([Message("system", "only instructions")], "at least one user or assistant message"),
        ([Message("user", "q"), Message("assistant", "a")], "last turn must be the user's"),
    ):
        with pytest.raises(ValueError, match=words):
            asyncio.run(
                chat(
                    "openai",
                    base_url="http://model.test",
                    model="m",
                    api_key=None,
                    messages=messages,
                    receipts=receipts,
                    policy=ONCE,
                    clock=_clock,
                    transport=httpx.MockTransport(lambda r: httpx.Response(200)),
                )
            )
    with pytest.raises(ValueError, match="role 'robot'"):
        Message("robot", "hi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_asks"):
        AskingPolicy(max_asks=0)
    with pytest.raises(ValueError, match="at least one model"):
        asyncio.run(call_with_fallbacks([], messages=CONVERSATION, receipts=receipts, policy=ONCE))


def _walk(chain: list[Endpoint], receipts: ReceiptStore, policy: AskingPolicy = ONCE):
    messages = [Message("user", packet_text())]
    return asyncio.run(
        call_with_fallbacks(
            chain, messages=messages, receipts=receipts, policy=policy, settings=CallSettings(timeout_s=20)
        )
    )


def test_an_unknown_model_falls_back_to_the_next_over_real_http(sparring, receipts):
    walk = _walk(
        [
            Endpoint("openai", sparring, "no-such-model", "sk-test"),
            Endpoint("anthropic", sparring, "house-hash", "sk-test"),
        ],
        receipts,
    )
    first, second = walk.calls
    assert first.status == "refused" and first.refusal == "model_not_found"
    assert second.status == "answered" and second.text and walk.result is second and walk.fell_back
    assert all(receipts.get(r).status for call in walk.calls for r in call.receipt_ids)


def test_a_rate_limited_model_falls_back_and_a_plain_refusal_does_not(sparring, receipts):
    limited = _walk(
        [
            Endpoint("gemini", sparring, "house-coin-refuse-once", "sk-test"),
            Endpoint("openai", sparring, "house-hash", "sk-test"),
        ],
        receipts,
    )
    assert [c.refusal for c in limited.calls] == ["rate_limited", None]
    assert limited.result.status == "answered"
    refused = _walk(
        [
            Endpoint("openai", sparring, "house-hash-refuse", "sk-test"),
            Endpoint("openai", sparring, "house-coin", "sk-test"),
        ],
        receipts,
    )
    assert len(refused.calls) == 1 and refused.result.refusal == "error"
    # A policy that asks twice gets the once-refusing model's answer itself: no fallback needed.
    patient = _walk(
        [
            Endpoint("anthropic", sparring, "house-contrarian-refuse-once", "sk-test"),
            Endpoint("openai", sparring, "house-hash", "sk-test"),
        ],
        receipts,
        AskingPolicy(max_asks=2),
    )
    assert len(patient.calls) == 1 and patient.result.status == "answered" and patient.result.attempts == 2
