"""The providers' own clients against the sparring server: the official ``openai``, ``anthropic`` and
``google-genai`` SDKs, each as it comes (only its base URL and key pointed at the server, retries off),
doing every protocol feature the arenas use. Our adapters and the server are both ours and could agree
while both being wrong; the SDKs are the providers' word on the wire and on the replies' types.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from anthropic import _constants as anthropic_constants
from google import genai
from google.genai import _api_client as genai_api_client
from google.genai import errors as genai_errors
from google.genai import types as gt

from colosseum_core.arenas import sparring_houses
from colosseum_core.providers import AskingPolicy, CallSettings, Message, chat
from colosseum_core.providers.adapters import AnthropicAdapter
from colosseum_core.providers.house_models import HOUSE_KEY
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.sparring import BAD_KEY, running_sparring
from colosseum_standins.sparring.server import ANTHROPIC_NO_SAMPLING, DECLINED, HOUSE_TOOL, NO_STREAMING
from tests.standins.test_sparring import PACKET

SYSTEM = "You answer every question on the card."
# A forecast gladiator (keyed by the packet), a debater and a judge (keyed by the whole conversation).
HOUSE_MODELS = ("house-hash", "house-debater", "house-judge")
BUDGET = 1024
# The equal settings the arenas send (CallSettings' defaults, with this budget).
SETTINGS = CallSettings(max_tokens=BUDGET)


def _clock() -> dt.datetime:
    return dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    # One server for the module, on a fixed clock so the same request gets the same bytes; each
    # ``-refuse-once`` below is asked once per protocol, so its per-server state is fresh.
    with running_sparring(houses=sparring_houses(), clock=_clock, stall_s=0.0) as base:
        yield base


def _ours(protocol: str, url: str, model: str, tmp_path: Path) -> tuple[str | None, bytes]:
    """What the platform's own engine gets for the arenas' request: its text and the reply's bytes."""
    receipts = ReceiptStore(tmp_path / f"receipts-{protocol}-{model}")
    result = asyncio.run(
        chat(
            protocol,
            base_url=url,
            model=model,
            api_key=HOUSE_KEY,
            messages=[Message("system", SYSTEM), Message("user", PACKET)],
            receipts=receipts,
            policy=AskingPolicy(max_asks=1),
            settings=SETTINGS,
            clock=_clock,
        )
    )
    assert result.status == "answered", result.error
    (receipt_id,) = result.receipt_ids
    return result.text, receipts.get(receipt_id).body


def _raises(kind: type[Exception], call: Callable[[], Any]) -> Any:
    with pytest.raises(kind) as caught:
        call()
    return caught.value


# --- openai --------------------------------------------------------------------------------------


def _openai(url: str, key: str = HOUSE_KEY, **options: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0, **options)


def _openai_ask(client: openai.OpenAI, model: str, **extra: Any) -> Any:
    return client.chat.completions.create(
        model=model,
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": PACKET}],
        **extra,
    )


OPENAI_SETTINGS = {"temperature": 0.0, "top_p": 1.0, "max_tokens": BUDGET, "seed": 0}


@pytest.mark.parametrize("model", HOUSE_MODELS)
def test_openai_sdk_gets_the_bytes_our_adapter_gets(url: str, model: str, tmp_path: Path) -> None:
    raw = _openai(url).chat.completions.with_raw_response.create(
        model=model,
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": PACKET}],
        **OPENAI_SETTINGS,
    )
    completion = raw.parse()
    text, body = _ours("openai", url, model, tmp_path)
    assert completion.choices[0].message.content == text and text
    assert raw.http_response.content == body
    assert completion.choices[0].finish_reason == "stop" and completion.model == model
    assert completion.usage is not None and completion.usage.completion_tokens > 0


def test_openai_sdk_budget_cut_and_newer_names(url: str) -> None:
    cut = _openai_ask(_openai(url), "house-debater-huge", max_completion_tokens=16)
    assert cut.choices[0].finish_reason == "length"
    assert len(cut.choices[0].message.content.encode()) <= 4 * 16
    developer = _openai(url).chat.completions.create(
        model="house-hash",
        messages=[{"role": "developer", "content": SYSTEM}, {"role": "user", "content": PACKET}],
        **OPENAI_SETTINGS,
    )
    assert (
        developer.choices[0].message.content
        == _openai_ask(_openai(url), "house-hash").choices[0].message.content
    )


def test_openai_sdk_odd_replies(url: str) -> None:
    client = _openai(url)
    declined = _openai_ask(client, "house-hash-declines").choices[0]
    assert declined.message.content is None and declined.message.refusal == DECLINED
    assert declined.finish_reason == "stop"
    plain = _openai_ask(client, "house-hash").choices[0].message.content
    filtered = _openai_ask(client, "house-hash-filtered").choices[0]
    assert filtered.finish_reason == "content_filter"
    assert filtered.message.content == plain[: len(plain) // 2]
    tool = _openai_ask(client, "house-hash-tool-call").choices[0]
    assert tool.finish_reason == "tool_calls" and tool.message.content is None
    (call,) = tool.message.tool_calls
    assert call.function.name == HOUSE_TOOL and json.loads(call.function.arguments) == {"answer": plain}


OPENAI_ERRORS = [
    # (case, key, model, extra, the SDK's exception, status, error code or param)
    ("unknown model", HOUSE_KEY, "gpt-unheard-of", {}, openai.NotFoundError, 404, "model_not_found"),
    ("bad key", BAD_KEY, "house-hash", {}, openai.AuthenticationError, 401, "invalid_api_key"),
    ("stream", HOUSE_KEY, "house-hash", {"stream": True}, openai.BadRequestError, 400, "stream"),
    ("refused", HOUSE_KEY, "house-hash-refuse", {}, openai.PermissionDeniedError, 403, "model_not_found"),
    (
        "overloaded",
        HOUSE_KEY,
        "house-hash-refuse-once",
        {},
        openai.RateLimitError,
        429,
        "rate_limit_exceeded",
    ),
    ("rate limit", HOUSE_KEY, "house-hash-ratelimit", {}, openai.RateLimitError, 429, "rate_limit_exceeded"),
    ("no seed", HOUSE_KEY, "house-hash-no-seed", OPENAI_SETTINGS, openai.BadRequestError, 400, "seed"),
    ("no top_p", HOUSE_KEY, "house-hash-no-top-p", OPENAI_SETTINGS, openai.BadRequestError, 400, "top_p"),
]


@pytest.mark.parametrize(
    ("key", "model", "extra", "kind", "status", "names"),
    [c[1:] for c in OPENAI_ERRORS],
    ids=[c[0] for c in OPENAI_ERRORS],
)
def test_openai_sdk_errors(
    url: str,
    key: str,
    model: str,
    extra: dict[str, Any],
    kind: type[openai.APIStatusError],
    status: int,
    names: str,
) -> None:
    error = _raises(kind, lambda: _openai_ask(_openai(url, key), model, **extra))
    assert error.status_code == status
    assert names in (error.code, error.param)
    assert error.body["message"]


def test_openai_sdk_without_a_key_and_with_a_stream(url: str) -> None:
    keyless = {"extra_headers": {"Authorization": openai.Omit()}}
    error = _raises(openai.AuthenticationError, lambda: _openai_ask(_openai(url), "house-hash", **keyless))
    assert error.status_code == 401 and error.code is None and "API key" in error.message
    # Before, a stream was answered with a whole completion, and the SDK's stream yielded nothing.
    streamed = _raises(
        openai.BadRequestError, lambda: list(_openai_ask(_openai(url), "house-hash", stream=True))
    )
    assert streamed.body["message"] == NO_STREAMING and streamed.param == "stream"


# --- anthropic -----------------------------------------------------------------------------------


def _anthropic(url: str, key: str = HOUSE_KEY, **options: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key=key, max_retries=0, **options)


def _anthropic_ask(client: anthropic.Anthropic, model: str, max_tokens: int = BUDGET, **extra: Any) -> Any:
    return client.messages.create(
        model=model,
        max_tokens=max_tokens,
        system=SYSTEM,
        messages=[{"role": "user", "content": PACKET}],
        **extra,
    )


def test_the_sdk_sends_the_version_that_removed_sampling() -> None:
    # A drift guard: a newer SDK speaking a newer version is this test's failure, not a silent pass.
    assert anthropic_constants.ANTHROPIC_API_VERSION >= ANTHROPIC_NO_SAMPLING
    # Our adapter speaks the older version, which still takes temperature and top_p.
    assert AnthropicAdapter.version < ANTHROPIC_NO_SAMPLING


@pytest.mark.parametrize("model", HOUSE_MODELS)
def test_anthropic_sdk_as_it_comes_gets_the_bytes_our_adapter_gets(
    url: str, model: str, tmp_path: Path
) -> None:
    # The SDK sends its key as a bearer token under anthropic-version 2026-10-21, without temperature
    # or top_p; our adapter sends x-api-key under 2023-06-01 with both. These players read neither.
    raw = _anthropic(url).messages.with_raw_response.create(
        model=model, max_tokens=BUDGET, system=SYSTEM, messages=[{"role": "user", "content": PACKET}]
    )
    sent = raw.http_request.headers
    assert sent["authorization"] == f"Bearer {HOUSE_KEY}" and "x-api-key" not in sent
    assert sent["anthropic-version"] == anthropic_constants.ANTHROPIC_API_VERSION
    message = raw.parse()
    text, body = _ours("anthropic", url, model, tmp_path)
    assert [block.type for block in message.content] == ["text"]
    assert message.content[0].text == text and text
    assert raw.http_response.content == body
    assert message.stop_reason == "end_turn" and message.model == model


@pytest.mark.parametrize(("field", "value"), [("temperature", 0.0), ("top_p", 1.0), ("top_k", 1)])
def test_anthropic_sdk_sampling_refused_under_the_new_version(url: str, field: str, value: float) -> None:
    client = _anthropic(url)
    error = _raises(
        anthropic.BadRequestError, lambda: _anthropic_ask(client, "house-hash", extra_body={field: value})
    )
    assert error.status_code == 400
    assert error.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": f"{field}: Extra inputs are not permitted"},
    }


def test_anthropic_sdk_sampling_read_under_the_old_version(url: str) -> None:
    client = _anthropic(url)
    # Under the version our adapter sends, the same settings are read, and the reply is the plain one.
    older = _anthropic(url, default_headers={"anthropic-version": AnthropicAdapter.version})
    sampled = _anthropic_ask(older, "house-hash", extra_body={"temperature": 0.0, "top_p": 1.0})
    assert sampled.content[0].text == _anthropic_ask(client, "house-hash").content[0].text
    # -hedge reads the temperature: cool under the old version, the default 1.0 under the new one.
    hedged = _anthropic_ask(older, "house-judge-hedge", extra_body={"temperature": 0.0})
    unhedged = _anthropic_ask(client, "house-judge-hedge")
    assert hedged.content[0].text != unhedged.content[0].text


def test_anthropic_sdk_with_x_api_key_and_budget(url: str) -> None:
    with_header = _anthropic(url, default_headers={"x-api-key": HOUSE_KEY, "Authorization": anthropic.Omit()})
    assert (
        _anthropic_ask(with_header, "house-hash").content[0].text
        == _anthropic_ask(_anthropic(url), "house-hash").content[0].text
    )
    cut = _anthropic_ask(_anthropic(url), "house-debater-huge", max_tokens=16)
    assert cut.stop_reason == "max_tokens" and len(cut.content[0].text.encode()) <= 4 * 16


def test_anthropic_sdk_odd_replies(url: str) -> None:
    client = _anthropic(url)
    plain = _anthropic_ask(client, "house-hash").content[0].text
    declined = _anthropic_ask(client, "house-hash-declines")
    assert declined.content == [] and declined.stop_reason == "refusal"
    assert declined.stop_details is not None and declined.stop_details.category == "general_harms"
    filtered = _anthropic_ask(client, "house-hash-filtered")
    assert filtered.stop_reason == "refusal" and filtered.content[0].text == plain[: len(plain) // 2]
    tool = _anthropic_ask(client, "house-hash-tool-call")
    assert tool.stop_reason == "tool_use"
    (block,) = tool.content
    assert block.type == "tool_use" and block.name == HOUSE_TOOL and block.input == {"answer": plain}


ANTHROPIC_ERRORS = [
    # (case, key, model, extra, the SDK's exception, status, the error's type)
    ("unknown model", HOUSE_KEY, "claude-unheard-of", {}, anthropic.NotFoundError, 404, "not_found_error"),
    ("bad key", BAD_KEY, "house-hash", {}, anthropic.AuthenticationError, 401, "authentication_error"),
    (
        "stream",
        HOUSE_KEY,
        "house-hash",
        {"stream": True},
        anthropic.BadRequestError,
        400,
        "invalid_request_error",
    ),
    (
        "seed",
        HOUSE_KEY,
        "house-hash",
        {"extra_body": {"seed": 0}},
        anthropic.BadRequestError,
        400,
        "invalid_request_error",
    ),
    ("refused", HOUSE_KEY, "house-hash-refuse", {}, anthropic.PermissionDeniedError, 403, "permission_error"),
    (
        "overloaded",
        HOUSE_KEY,
        "house-hash-refuse-once",
        {},
        anthropic.OverloadedError,
        529,
        "overloaded_error",
    ),
    ("rate limit", HOUSE_KEY, "house-hash-ratelimit", {}, anthropic.RateLimitError, 429, "rate_limit_error"),
]


@pytest.mark.parametrize(
    ("key", "model", "extra", "kind", "status", "error_type"),
    [c[1:] for c in ANTHROPIC_ERRORS],
    ids=[c[0] for c in ANTHROPIC_ERRORS],
)
def test_anthropic_sdk_errors(
    url: str,
    key: str,
    model: str,
    extra: dict[str, Any],
    kind: type[anthropic.APIStatusError],
    status: int,
    error_type: str,
) -> None:
    error = _raises(kind, lambda: _anthropic_ask(_anthropic(url, key), model, **extra))
    assert error.status_code == status
    assert error.body["type"] == "error" and error.body["error"]["type"] == error_type


def test_anthropic_sdk_tells_a_missing_key_from_a_bad_one(url: str) -> None:
    keyless = _anthropic(url, default_headers={"Authorization": anthropic.Omit()})
    missing = _raises(anthropic.AuthenticationError, lambda: _anthropic_ask(keyless, "house-hash"))
    bad = _raises(
        anthropic.AuthenticationError, lambda: _anthropic_ask(_anthropic(url, BAD_KEY), "house-hash")
    )
    assert missing.body["error"]["message"] == "x-api-key header is required"
    assert bad.body["error"]["message"] == "invalid x-api-key"


# --- google-genai --------------------------------------------------------------------------------


def _gemini(url: str, key: str = HOUSE_KEY, **options: Any) -> genai.Client:
    return genai.Client(api_key=key, http_options=gt.HttpOptions(base_url=url, **options))


GEMINI_CONFIG = gt.GenerateContentConfig(
    system_instruction=SYSTEM, temperature=0.0, top_p=1.0, max_output_tokens=BUDGET, seed=0
)


def _gemini_ask(client: genai.Client, model: str, config: gt.GenerateContentConfig = GEMINI_CONFIG) -> Any:
    return client.models.generate_content(model=model, contents=PACKET, config=config)


def test_the_sdk_asks_the_api_version_served(url: str) -> None:
    # A drift guard: google-genai 3.6 moved its default from v1beta to v1; the server serves both, and
    # its 404 names the version the path asked, so the SDK's own default is seen on the wire.
    default = genai_api_client.GOOGLE_AI_API_DEFAULT_VERSION
    assert default in ("v1", "v1beta")
    client = _gemini(url)
    missing = _raises(genai_errors.ClientError, lambda: _gemini_ask(client, "gemini-unheard-of"))
    assert f"for API version {default}," in missing.message


@pytest.mark.parametrize("model", HOUSE_MODELS)
@pytest.mark.parametrize("version", [None, "v1beta"])
def test_gemini_sdk_gets_the_bytes_our_adapter_gets(
    url: str, model: str, version: str | None, tmp_path: Path
) -> None:
    client = _gemini(url, **({"api_version": version} if version else {}))
    response = _gemini_ask(client, model)
    text, body = _ours("gemini", url, model, tmp_path)
    assert response.text == text and text
    assert response.candidates[0].finish_reason == gt.FinishReason.STOP
    assert response.model_version == model
    # Asked for the raw reply, the SDK hands back the body unparsed.
    raw = _gemini_ask(client, model, GEMINI_CONFIG.model_copy(update={"should_return_http_response": True}))
    assert raw.sdk_http_response.body.encode() == body


def test_gemini_sdk_budget_cut(url: str) -> None:
    small = gt.GenerateContentConfig(system_instruction=SYSTEM, max_output_tokens=16)
    cut = _gemini_ask(_gemini(url), "house-debater-huge", small)
    assert cut.candidates[0].finish_reason == gt.FinishReason.MAX_TOKENS
    assert len(cut.text.encode()) <= 4 * 16


def test_gemini_sdk_odd_replies(url: str) -> None:
    client = _gemini(url)
    plain = _gemini_ask(client, "house-hash").text
    declined = _gemini_ask(client, "house-hash-declines")
    assert not declined.candidates and declined.text is None
    assert declined.prompt_feedback.block_reason == gt.BlockedReason.SAFETY
    filtered = _gemini_ask(client, "house-hash-filtered")
    assert filtered.candidates[0].finish_reason == gt.FinishReason.SAFETY and filtered.text is None
    assert filtered.candidates[0].safety_ratings[0].blocked is True
    tool = _gemini_ask(client, "house-hash-tool-call")
    (call,) = tool.function_calls
    assert call.name == HOUSE_TOOL and call.args == {"answer": plain}


GEMINI_ERRORS = [
    # (case, key, model, the SDK's exception, status, the error's status)
    ("unknown model", HOUSE_KEY, "gemini-unheard-of", genai_errors.ClientError, 404, "NOT_FOUND"),
    ("bad key", BAD_KEY, "house-hash", genai_errors.ClientError, 400, "INVALID_ARGUMENT"),
    ("refused", HOUSE_KEY, "house-hash-refuse", genai_errors.ClientError, 403, "PERMISSION_DENIED"),
    ("overloaded", HOUSE_KEY, "house-hash-refuse-once", genai_errors.ServerError, 503, "UNAVAILABLE"),
    ("rate limit", HOUSE_KEY, "house-hash-ratelimit", genai_errors.ClientError, 429, "RESOURCE_EXHAUSTED"),
    ("no seed", HOUSE_KEY, "house-hash-no-seed", genai_errors.ClientError, 400, "INVALID_ARGUMENT"),
]


@pytest.mark.parametrize(
    ("key", "model", "kind", "status", "error_status"),
    [c[1:] for c in GEMINI_ERRORS],
    ids=[c[0] for c in GEMINI_ERRORS],
)
def test_gemini_sdk_errors(
    url: str, key: str, model: str, kind: type[genai_errors.APIError], status: int, error_status: str
) -> None:
    client = _gemini(url, key)
    error = _raises(kind, lambda: _gemini_ask(client, model))
    assert error.code == status and error.status == error_status and error.message


@pytest.mark.parametrize("version", ["v1", "v1beta"])
def test_gemini_sdk_names_the_version_asked_and_refuses_a_stream(url: str, version: str) -> None:
    client = _gemini(url, api_version=version)
    missing = _raises(genai_errors.ClientError, lambda: _gemini_ask(client, "gemini-unheard-of"))
    assert f"for API version {version}," in missing.message
    streamed = _raises(
        genai_errors.ClientError,
        lambda: list(client.models.generate_content_stream(model="house-hash", contents=PACKET)),
    )
    assert (streamed.code, streamed.status) == (400, "INVALID_ARGUMENT")
    assert "streamGenerateContent" in streamed.message


def test_gemini_sdk_tells_a_missing_key_from_a_bad_one(url: str) -> None:
    keyless = _gemini(url, headers={"x-goog-api-key": ""})
    missing = _raises(genai_errors.ClientError, lambda: _gemini_ask(keyless, "house-hash"))
    assert (missing.code, missing.status) == (401, "UNAUTHENTICATED")
    bad_client = _gemini(url, BAD_KEY)
    bad = _raises(genai_errors.ClientError, lambda: _gemini_ask(bad_client, "house-hash"))
    assert (bad.code, bad.status) == (400, "INVALID_ARGUMENT")
    assert bad.details["error"]["details"][0]["reason"] == "API_KEY_INVALID"
