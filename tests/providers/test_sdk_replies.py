"""Our adapters reading replies built with the providers' own SDK types (``openai`` ChatCompletion,
``anthropic`` Message, ``google-genai`` GenerateContentResponse), serialised as each SDK serialises
them and served over real loopback HTTP: why each reply ended (``stop``), and how each reply rule
reads it. COLOSSEUM-REPLY-1 (every arena's today) must read every reply exactly as before; REPLY-2
names refusals, safety blocks, tool calls and empty replies.

The SDKs are client-conformance dependencies (the dev extra), never imported by ``colosseum_core``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from colosseum_core.providers import (
    REPLY_1,
    REPLY_2,
    AskingPolicy,
    CallResult,
    CallSettings,
    Message,
    chat,
    replay_call,
    stop_in_receipt,
)
from colosseum_core.providers.call import answer_in_receipt
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.loopback import running_app

openai_types = pytest.importorskip(
    "openai.types.chat", reason="the openai SDK (dev extra) reads these replies"
)
anthropic_types = pytest.importorskip("anthropic.types", reason="the anthropic SDK (dev extra)")
genai_types = pytest.importorskip("google.genai.types", reason="the google-genai SDK (dev extra)")

ONCE_1 = AskingPolicy(max_asks=1)
ONCE_2 = AskingPolicy(max_asks=1, replies=REPLY_2)
MESSAGES = [Message("system", "Answer briefly."), Message("user", "Capital of France?")]


def _clock() -> dt.datetime:
    return dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.UTC)


# -- replies, built and validated by each SDK's own types -------------------------------------


def openai_reply(message: dict[str, Any], finish_reason: str | None, *, choices: bool = True) -> bytes:
    doc = {
        "id": "chatcmpl-x",
        "object": "chat.completion",
        "created": 1796468502,
        "model": "gpt-x",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", **message},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ]
        if choices
        else [],
        "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
    }
    typed = openai_types.ChatCompletion.model_validate(doc)
    # ``to_json``: "as it would be received from or sent to the API", by the SDK's own words.
    return typed.to_json(indent=None).encode("utf-8")


def anthropic_reply(content: list[dict[str, Any]], stop_reason: str, details: dict | None = None) -> bytes:
    doc: dict[str, Any] = {
        "id": "msg_x",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 7},
    }
    if details is not None:
        doc["stop_details"] = details
    return anthropic_types.Message.model_validate(doc).to_json(indent=None).encode("utf-8")


def gemini_reply(doc: dict[str, Any]) -> bytes:
    typed = genai_types.GenerateContentResponse.model_validate(doc)
    # The REST wire spells fields in camelCase: the SDK's aliases.
    return typed.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8")


def candidate(parts: list[dict] | None = None, finish: str = "STOP", **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"finish_reason": finish, "index": 0, **extra}
    if parts is not None:
        out["content"] = {"role": "model", "parts": parts}
    return out


TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "answer", "arguments": '{"p": 0.7}'}}
TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "answer", "input": {"p": 0.7}}
REFUSAL_DETAILS = {
    "type": "refusal",
    "category": "cyber",
    "explanation": "The request could enable cyber harm.",
}
HARM = [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True}]


@dataclasses.dataclass(frozen=True)
class Case:
    """One SDK-typed reply, what REPLY-1 and REPLY-2 make of it, and why it ended."""

    protocol: str
    name: str
    body: bytes
    v1: tuple[str, str | None]  # status, text (REPLY-1: as before this change)
    v2: tuple[str, str | None, str | None]  # status, text, refusal class
    stop: tuple[str | None, str | None]  # stop, the provider's own reason
    says: tuple[str, ...] = ()  # words REPLY-2's error must hold
    detail: str | None = None  # words the stop detail must hold


CASES = [
    # OpenAI chat completions
    Case(
        "openai",
        "text",
        openai_reply({"content": "Paris.", "refusal": None}, "stop"),
        ("answered", "Paris."),
        ("answered", "Paris.", None),
        ("stop", "stop"),
    ),
    Case(
        "openai",
        "finish_reason length",
        openai_reply({"content": "The answer is"}, "length"),
        ("answered", "The answer is"),
        ("answered", "The answer is", None),
        ("length", "length"),
    ),
    Case(
        "openai",
        "refusal field, content null",
        openai_reply({"content": None, "refusal": "I can't help with that."}, "stop"),
        ("refused", None),
        ("refused", None, "declined"),
        ("refusal", "refusal (finish_reason stop)"),
        ("the model refused", "I can't help with that."),
        "I can't help with that.",
    ),
    Case(
        "openai",
        "refusal field beside content",
        openai_reply({"content": "Sorry.", "refusal": "I can't help with that."}, "stop"),
        ("answered", "Sorry."),
        ("refused", None, "declined"),
        ("refusal", "refusal (finish_reason stop)"),
        ("after 6 characters",),
        "I can't help with that.",
    ),
    Case(
        "openai",
        "tool call only",
        openai_reply({"content": None, "tool_calls": [TOOL_CALL]}, "tool_calls"),
        ("refused", None),
        ("refused", None, "error"),
        ("tool_call", "tool_calls"),
        ("a tool call",),
    ),
    Case(
        "openai",
        "empty content",
        openai_reply({"content": ""}, "stop"),
        ("answered", ""),
        ("answered", "", None),
        ("stop", "stop"),
        ("is empty", "stop"),
    ),
    Case(
        "openai",
        "content filter",
        openai_reply({"content": None}, "content_filter"),
        ("refused", None),
        ("refused", None, "declined"),
        ("safety", "content_filter"),
        ("the provider blocked", "content_filter"),
    ),
    Case(
        "openai",
        "length before any text",
        openai_reply({"content": None}, "length"),
        ("refused", None),
        ("refused", None, "error"),
        ("length", "length"),
        ("budget ran out",),
    ),
    Case(
        "openai",
        "no choices",
        openai_reply({}, None, choices=False),
        ("refused", None),
        ("refused", None, "error"),
        (None, None),
        ("names no stop reason",),
    ),
    # Anthropic messages
    Case(
        "anthropic",
        "text",
        anthropic_reply([{"type": "text", "text": "Paris."}], "end_turn"),
        ("answered", "Paris."),
        ("answered", "Paris.", None),
        ("stop", "end_turn"),
    ),
    Case(
        "anthropic",
        "max_tokens",
        anthropic_reply([{"type": "text", "text": "The answer is"}], "max_tokens"),
        ("answered", "The answer is"),
        ("answered", "The answer is", None),
        ("length", "max_tokens"),
    ),
    Case(
        "anthropic",
        "refusal, no content",
        anthropic_reply([], "refusal", REFUSAL_DETAILS),
        ("refused", None),
        ("refused", None, "declined"),
        ("refusal", "refusal"),
        ("the model refused", "category cyber"),
        "category cyber; The request could enable cyber harm.",
    ),
    Case(
        "anthropic",
        "refusal after partial text",
        anthropic_reply(
            [{"type": "text", "text": "Here is how to"}],
            "refusal",
            {"type": "refusal", "category": None, "explanation": None},
        ),
        ("answered", "Here is how to"),
        ("refused", None, "declined"),
        ("refusal", "refusal"),
        ("the model refused after 14 characters",),
    ),
    Case(
        "anthropic",
        "tool_use only",
        anthropic_reply([TOOL_USE], "tool_use"),
        ("refused", None),
        ("refused", None, "error"),
        ("tool_call", "tool_use"),
        ("a tool call",),
    ),
    Case(
        "anthropic",
        "empty content list",
        anthropic_reply([], "end_turn"),
        ("refused", None),
        ("refused", None, "error"),
        ("stop", "end_turn"),
        ("end_turn",),
    ),
    Case(
        "anthropic",
        "model_context_window_exceeded",
        anthropic_reply([{"type": "text", "text": "The answ"}], "model_context_window_exceeded"),
        ("answered", "The answ"),
        ("answered", "The answ", None),
        ("length", "model_context_window_exceeded"),
    ),
    Case(
        "anthropic",
        "pause_turn",
        anthropic_reply([{"type": "text", "text": "Searching"}], "pause_turn"),
        ("answered", "Searching"),
        ("answered", "Searching", None),
        ("other", "pause_turn"),
    ),
    # Gemini generateContent
    Case(
        "gemini",
        "text",
        gemini_reply({"candidates": [candidate([{"text": "Paris."}])]}),
        ("answered", "Paris."),
        ("answered", "Paris.", None),
        ("stop", "STOP"),
    ),
    Case(
        "gemini",
        "MAX_TOKENS",
        gemini_reply({"candidates": [candidate([{"text": "The answer is"}], "MAX_TOKENS")]}),
        ("answered", "The answer is"),
        ("answered", "The answer is", None),
        ("length", "MAX_TOKENS"),
    ),
    Case(
        "gemini",
        "MAX_TOKENS, thinking ate the budget",
        gemini_reply(
            {"candidates": [{"content": {"role": "model"}, "finish_reason": "MAX_TOKENS", "index": 0}]}
        ),
        ("refused", None),
        ("refused", None, "error"),
        ("length", "MAX_TOKENS"),
        ("budget ran out",),
    ),
    Case(
        "gemini",
        "SAFETY, no content",
        gemini_reply({"candidates": [candidate(None, "SAFETY", safety_ratings=HARM)]}),
        ("refused", None),
        ("refused", None, "declined"),
        ("safety", "SAFETY"),
        ("the provider blocked", "HARM_CATEGORY_DANGEROUS_CONTENT"),
        "HARM_CATEGORY_DANGEROUS_CONTENT HIGH",
    ),
    Case(
        "gemini",
        "SAFETY after partial text",
        gemini_reply({"candidates": [candidate([{"text": "Step one"}], "SAFETY", safety_ratings=HARM)]}),
        ("answered", "Step one"),
        ("refused", None, "declined"),
        ("safety", "SAFETY"),
        ("after 8 characters",),
    ),
    Case(
        "gemini",
        "prompt blocked",
        gemini_reply(
            {
                "prompt_feedback": {
                    "block_reason": "SAFETY",
                    "safety_ratings": [
                        {"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": True}
                    ],
                }
            }
        ),
        ("refused", None),
        ("refused", None, "declined"),
        ("safety", "blockReason SAFETY"),
        ("blockReason SAFETY",),
        "HARM_CATEGORY_HARASSMENT HIGH",
    ),
    Case(
        "gemini",
        "prompt blocked: PROHIBITED_CONTENT",
        gemini_reply({"prompt_feedback": {"block_reason": "PROHIBITED_CONTENT"}}),
        ("refused", None),
        ("refused", None, "declined"),
        ("safety", "blockReason PROHIBITED_CONTENT"),
        ("PROHIBITED_CONTENT",),
    ),
    Case(
        "gemini",
        "RECITATION",
        gemini_reply({"candidates": [candidate(None, "RECITATION")]}),
        ("refused", None),
        ("refused", None, "declined"),
        ("safety", "RECITATION"),
        ("RECITATION",),
    ),
    Case(
        "gemini",
        "functionCall only",
        gemini_reply(
            {"candidates": [candidate([{"function_call": {"name": "answer", "args": {"p": 0.7}}}])]}
        ),
        ("refused", None),
        ("refused", None, "error"),
        ("tool_call", "STOP"),
        ("a tool call",),
    ),
    Case(
        "gemini",
        "MALFORMED_FUNCTION_CALL",
        gemini_reply({"candidates": [candidate(None, "MALFORMED_FUNCTION_CALL")]}),
        ("refused", None),
        ("refused", None, "error"),
        ("tool_call", "MALFORMED_FUNCTION_CALL"),
        ("a tool call",),
    ),
    Case(
        "gemini",
        "thought then text",
        gemini_reply({"candidates": [candidate([{"text": "Hmm.", "thought": True}, {"text": "Paris."}])]}),
        ("answered", "Paris."),
        ("answered", "Paris.", None),
        ("stop", "STOP"),
    ),
    Case(
        "gemini",
        "empty candidates",
        gemini_reply({"candidates": []}),
        ("refused", None),
        ("refused", None, "error"),
        (None, None),
        ("names no stop reason",),
    ),
]


@pytest.fixture(scope="module")
def replies() -> Iterator[str]:
    """A loopback server answering ``/case/{i}/…`` with case i's bytes, whatever the protocol's path."""

    async def serve(request: Request) -> Response:
        body = CASES[int(request.path_params["index"])].body
        return Response(body, media_type="application/json")

    async def status(request: Request) -> Response:
        return PlainTextResponse("ok")

    app = Starlette(
        routes=[Route("/status", status), Route("/case/{index:int}/{rest:path}", serve, methods=["POST"])]
    )
    with running_app(app) as url:
        yield url


def ask(url: str, index: int, receipts: ReceiptStore, policy: AskingPolicy) -> CallResult:
    return asyncio.run(
        chat(
            CASES[index].protocol,
            base_url=f"{url}/case/{index}",
            model="m",
            api_key="k",
            messages=MESSAGES,
            receipts=receipts,
            policy=policy,
            settings=CallSettings(max_tokens=64, timeout_s=30.0),
            clock=_clock,
        )
    )


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c.protocol}: {c.name}" for c in CASES])
def test_an_sdk_typed_reply_is_read_as_its_stop_reason_says(replies: str, index: int, tmp_path: Path) -> None:
    case, receipts = CASES[index], ReceiptStore(tmp_path)
    old, new = ask(replies, index, receipts, ONCE_1), ask(replies, index, receipts, ONCE_2)
    # REPLY-1 reads as this engine always has: a refusal after partial text is still an answer there.
    assert (old.status, old.text) == case.v1
    assert (new.status, new.text, new.refusal) == case.v2
    for result in (old, new):
        assert (result.stop, result.stop_reason) == case.stop
        assert result.attempts == 1  # a 2xx is never re-asked, whatever it says
        if case.detail is not None:
            assert case.detail in (result.stop_detail or "")
    for words in case.says:
        assert words in (new.error or ""), (new.error, words)
    # The diagnosis does not depend on the reply rules: REPLY-1's kept text is still a refusal there.
    assert old.diagnosis == new.diagnosis
    if case.v2[0] == "answered" and case.v2[1]:
        assert new.error is None and new.diagnosis is None
    else:
        kind = "declined" if case.v2[2] == "declined" else "no_text"
        assert new.diagnosis is not None and new.diagnosis.kind == kind


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c.protocol}: {c.name}" for c in CASES])
def test_the_stop_reason_and_the_reading_re_derive_from_the_receipt(
    replies: str, index: int, tmp_path: Path
) -> None:
    case, receipts = CASES[index], ReceiptStore(tmp_path)
    for policy in (ONCE_1, ONCE_2):
        result = ask(replies, index, receipts, policy)
        receipt = receipts.get(result.receipt_ids[-1])
        assert receipt.body == case.body  # the SDK's bytes, stored before anything parsed them
        stopped = stop_in_receipt(case.protocol, receipt)
        assert (stopped.stop, stopped.reason, stopped.detail) == (
            result.stop,
            result.stop_reason,
            result.stop_detail,
        )
        assert answer_in_receipt(case.protocol, receipt, policy.replies) == (result.status, result.text)
        replayed = replay_call(case.protocol, result.receipt_ids, receipts, policy)
        assert (replayed.status, replayed.text, replayed.error) == (result.status, result.text, result.error)
        assert replayed.stopped == stopped


def test_what_the_sdks_read_is_what_we_read() -> None:
    """The stop reasons the SDKs' own accessors give are the ones our adapters report."""
    from colosseum_core.providers import adapter_for

    for case in CASES:
        doc = json.loads(case.body)
        ours = adapter_for(case.protocol).stopped(doc)
        if case.protocol == "openai":
            typed = openai_types.ChatCompletion.model_validate(doc)
            theirs = typed.choices[0].finish_reason if typed.choices else None
            refusal = typed.choices[0].message.refusal if typed.choices else None
            assert (
                (ours.reason or "").endswith(f"finish_reason {theirs})") if refusal else ours.reason == theirs
            )
        elif case.protocol == "anthropic":
            assert ours.reason == anthropic_types.Message.model_validate(doc).stop_reason
        else:
            typed = genai_types.GenerateContentResponse.model_validate(doc)
            if typed.candidates:
                assert ours.reason == typed.candidates[0].finish_reason.value  # type: ignore[union-attr]
            elif typed.prompt_feedback is not None:
                assert ours.reason == f"blockReason {typed.prompt_feedback.block_reason.value}"  # type: ignore[union-attr]


def test_gemini_read_in_snake_case_as_in_camel_case() -> None:
    """Proto-JSON readers take both spellings; the SDK's own ``to_json_dict`` writes snake_case."""
    from colosseum_core.providers import adapter_for

    gemini = adapter_for("gemini")
    for case in CASES:
        if case.protocol != "gemini":
            continue
        snake = genai_types.GenerateContentResponse.model_validate(json.loads(case.body)).to_json_dict()
        assert gemini.stopped(snake) == gemini.stopped(json.loads(case.body)), case.name


def test_the_reply_rules_are_named_and_checked() -> None:
    assert AskingPolicy(max_asks=1).replies == REPLY_1
    with pytest.raises(ValueError, match="COLOSSEUM-REPLY-9"):
        AskingPolicy(max_asks=1, replies="COLOSSEUM-REPLY-9")


# -- replies a contender's server writes to hurt -----------------------------------------------

LONG = "no\n" * 100_000
HOSTILE: list[tuple[str, Any]] = [
    ("openai", {"choices": [{"message": {"content": None, "refusal": LONG}, "finish_reason": LONG}]}),
    ("openai", {"choices": [{"message": {"content": "x", "refusal": {"a": 1}}, "finish_reason": ["stop"]}]}),
    ("openai", {"choices": [None, {"message": "x"}]}),
    ("openai", {"choices": [{"message": [], "finish_reason": 7}]}),
    (
        "anthropic",
        {"content": "text", "stop_reason": LONG, "stop_details": {"category": ["x"], "explanation": LONG}},
    ),
    (
        "anthropic",
        {"content": [{"type": "tool_use"}, None, 3], "stop_reason": "refusal", "stop_details": "x"},
    ),
    ("anthropic", {"content": [{"type": "text", "text": "ok"}], "stop_reason": {"nested": True}}),
    (
        "gemini",
        {"candidates": [{"content": {"parts": "x"}, "finishReason": "SAFETY", "safetyRatings": [None, 5]}]},
    ),
    (
        "gemini",
        {"candidates": [{"content": {"parts": [None, {"functionCall": None}]}, "finishReason": LONG}]},
    ),
    ("gemini", {"candidates": None, "promptFeedback": {"blockReason": LONG, "safetyRatings": {"x": 1}}}),
    ("gemini", {"candidates": [None], "promptFeedback": []}),
    (
        "gemini",
        {"candidates": [{"safetyRatings": [{"category": LONG, "blocked": True}], "finishReason": "SAFETY"}]},
    ),
]


@pytest.mark.parametrize(("protocol", "body"), HOSTILE, ids=[f"{p} {i}" for i, (p, _) in enumerate(HOSTILE)])
def test_a_hostile_reply_says_why_in_one_bounded_line(protocol: str, body: Any, tmp_path: Path) -> None:
    from colosseum_core.providers import adapter_for

    stopped = adapter_for(protocol).stopped(body)
    for said in (stopped.reason, stopped.detail):
        assert said is None or ("\n" not in said and len(said) <= 1000)
    content = json.dumps(body).encode("utf-8")
    receipts = ReceiptStore(tmp_path)

    async def serve(request: Request) -> Response:
        return Response(content, media_type="application/json")

    async def status(request: Request) -> Response:
        return PlainTextResponse("ok")

    app = Starlette(routes=[Route("/status", status), Route("/{rest:path}", serve, methods=["POST"])])
    with running_app(app) as url:
        for policy in (ONCE_1, ONCE_2):
            result = asyncio.run(
                chat(
                    protocol,
                    base_url=url,
                    model="m",
                    api_key="k",
                    messages=MESSAGES,
                    receipts=receipts,
                    policy=policy,
                )
            )
            assert result.status in ("answered", "refused") and result.attempts == 1
            assert result.stop_reason == stopped.reason and result.stop_detail == stopped.detail
            if result.diagnosis is not None:
                assert "\n" not in result.diagnosis.reason and len(result.diagnosis.reason) < 700
            if policy is ONCE_2 and result.status == "refused":
                assert result.error and "\n" not in result.error and len(result.error) < 700
