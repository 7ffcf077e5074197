"""What a call ran into, in one line (``CallResult.diagnosis``, what ``models check`` prints), against
real loopback servers: the sparring server (the protocols' own errors), a small server answering as
things that are not model servers do (web pages, a framework's 404s), a stalled one and a port where
nothing listens. The asking rules' own outcome (status, refusal class) is unchanged by any of it."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from colosseum_core.arenas import sparring_houses
from colosseum_core.providers import (
    PROTOCOLS,
    AskingPolicy,
    CallResult,
    CallSettings,
    Message,
    chat,
    diagnose,
)
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.loopback import free_port, running_app
from colosseum_standins.sparring import running_sparring
from tests.standins.test_sparring import packet_text

ONCE = AskingPolicy(max_asks=1)
PAGE = "<!doctype html><html><head><title>Welcome</title></head><body>It works!</body></html>"


def _clock() -> dt.datetime:
    return dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def sparring() -> Iterator[str]:
    with running_sparring(houses=sparring_houses(), stall_s=60.0) as url:
        yield url


# Bodies as the servers named answer them: a proxy's or a web UI's page, web frameworks' 404s, the
# real OpenAI API for a mistyped path, and Ollama's and vLLM's own unknown-model errors.
ODD: dict[str, tuple[int, str, str]] = {
    "html-404": (404, "text/html", "<html><body><h1>404 Not Found</h1><hr>nginx</body></html>"),
    "page-200": (200, "text/html; charset=utf-8", PAGE),
    "text-200": (200, "text/plain", "Hello from a web server"),
    "json-200": (200, "application/json", json.dumps({"status": "ok", "version": "1.2"})),
    "detail-404": (404, "application/json", json.dumps({"detail": "Not Found"})),
    "method-405": (405, "text/plain", "Method Not Allowed"),
    "invalid-url-404": (
        404,
        "application/json",
        json.dumps(
            {
                "error": {
                    "message": "Invalid URL (POST /v1/chat/completion)",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": None,
                }
            }
        ),
    ),
    "ollama-404": (
        404,
        "application/json",
        json.dumps({"error": 'model "mystery" not found, try pulling it first'}),
    ),
    "vllm-404": (
        404,
        "application/json",
        json.dumps(
            {
                "object": "error",
                "message": "The model `mystery` does not exist.",
                "type": "NotFoundError",
                "param": None,
                "code": 404,
            }
        ),
    ),
    # Gemini's answer to a key it does not know (a 400, not a 401).
    "gemini-bad-key-400": (
        400,
        "application/json",
        json.dumps(
            {
                "error": {
                    "code": 400,
                    "message": "API key not valid. Please pass a valid API key.",
                    "status": "INVALID_ARGUMENT",
                    "details": [
                        {
                            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                            "reason": "API_KEY_INVALID",
                            "domain": "googleapis.com",
                        }
                    ],
                }
            }
        ),
    ),
}


@pytest.fixture(scope="module")
def odd() -> Iterator[str]:
    async def serve(request: Request) -> Response:
        status, media, body = ODD[request.path_params["kind"]]
        return Response(body, status_code=status, media_type=media)

    async def slow(request: Request) -> Response:
        await asyncio.sleep(10.0)
        return JSONResponse({})

    async def status(request: Request) -> Response:
        return PlainTextResponse("ok")

    app = Starlette(
        routes=[
            Route("/status", status),
            Route("/slow/{rest:path}", slow, methods=["POST"]),
            Route("/{kind}/{rest:path}", serve, methods=["POST"]),
        ]
    )
    with running_app(app) as url:
        yield url


def ask(
    protocol: str,
    base_url: str,
    model: str,
    receipts: ReceiptStore,
    *,
    api_key: str | None = "sk-test",
    timeout_s: float = 30.0,
) -> CallResult:
    return asyncio.run(
        chat(
            protocol,
            base_url=base_url,
            model=model,
            api_key=api_key,
            messages=[Message("user", packet_text())],
            receipts=receipts,
            policy=ONCE,
            settings=CallSettings(timeout_s=timeout_s),
            clock=_clock,
        )
    )


@pytest.fixture
def receipts(tmp_path: Path) -> ReceiptStore:
    return ReceiptStore(tmp_path / "receipts")


def _one_line(result: CallResult) -> str:
    assert result.diagnosis is not None, result
    reason = result.diagnosis.reason
    assert "\n" not in reason and len(reason) < 500
    return reason


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_house_model_that_answers_has_no_diagnosis(
    protocol: str, sparring: str, receipts: ReceiptStore
) -> None:
    result = ask(protocol, sparring, "house-coin", receipts)
    assert result.status == "answered" and result.diagnosis is None
    assert result.stop == "stop"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_unknown_model_in_the_protocols_own_error(
    protocol: str, sparring: str, receipts: ReceiptStore
) -> None:
    result = ask(protocol, sparring, "no-such-model", receipts)
    assert (result.status, result.refusal) == ("refused", "model_not_found")
    assert result.diagnosis is not None and result.diagnosis.kind == "unknown_model"
    assert _one_line(result).startswith("unknown model 'no-such-model': HTTP 404: ")
    assert "no-such-model" in result.diagnosis.reason.split(": HTTP 404: ", 1)[1]


@pytest.mark.parametrize(
    ("protocol", "suffix"), [("openai", "/api"), ("anthropic", "/api"), ("gemini", "/v1")]
)
def test_a_path_the_server_does_not_serve_is_not_a_protocol_server(
    protocol: str, suffix: str, sparring: str, receipts: ReceiptStore
) -> None:
    """The wrong base URLs of the research: each a 404 from the web framework, not the protocol."""
    result = ask(protocol, sparring + suffix, "house-coin", receipts)
    # The asking rules still see a 404 (a fallback chain moves on as before); the diagnosis tells it apart.
    assert (result.status, result.refusal) == ("refused", "model_not_found")
    assert result.diagnosis is not None and result.diagnosis.kind == "not_protocol_server"
    url = receipts.get(result.receipt_ids[-1]).url
    assert _one_line(result).startswith(
        f"not an {_kind(protocol)} server at {url}: HTTP 404 with a text/plain body"
    )


def _kind(protocol: str) -> str:
    return {
        "openai": "OpenAI-compatible",
        "anthropic": "Anthropic Messages",
        "gemini": "Gemini generateContent",
    }[protocol]


@pytest.mark.parametrize(
    ("kind", "status", "words"),
    [
        ("html-404", "refused", "HTTP 404 with a text/html body '<html><body><h1>404 Not Found"),
        ("page-200", "answered", "HTTP 200 with a text/html body '<!doctype html>"),
        ("text-200", "answered", "HTTP 200 with a text/plain body 'Hello from a web server'"),
        ("json-200", "refused", "HTTP 200 with JSON without the protocol's reply shape"),
        ("detail-404", "refused", 'HTTP 404 with a application/json body \'{"detail": "Not Found"}\''),
        ("method-405", "refused", "HTTP 405 with a text/plain body 'Method Not Allowed'"),
        (
            "invalid-url-404",
            "refused",
            "an error that names no model: Invalid URL (POST /v1/chat/completion)",
        ),
    ],
)
def test_what_is_not_an_openai_compatible_server(
    kind: str, status: str, words: str, odd: str, receipts: ReceiptStore
) -> None:
    result = ask("openai", f"{odd}/{kind}", "mystery", receipts)
    assert result.status == status  # what the arenas' rules made of it before: unchanged
    assert result.diagnosis is not None and result.diagnosis.kind == "not_protocol_server"
    assert _one_line(result).startswith(
        f"not an OpenAI-compatible server at {odd}/{kind}/v1/chat/completions: "
    )
    assert words in result.diagnosis.reason


@pytest.mark.parametrize("kind", ["ollama-404", "vllm-404"])
def test_open_model_servers_own_unknown_model_errors(kind: str, odd: str, receipts: ReceiptStore) -> None:
    result = ask("openai", f"{odd}/{kind}", "mystery", receipts)
    assert result.diagnosis is not None and result.diagnosis.kind == "unknown_model"
    assert _one_line(result).startswith("unknown model 'mystery': HTTP 404: ")
    assert "mystery" in result.diagnosis.reason.split("HTTP 404: ", 1)[1]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_no_key_set_and_refused_are_told_apart(protocol: str, sparring: str, receipts: ReceiptStore) -> None:
    keyless = ask(protocol, sparring, "house-coin", receipts, api_key=None)
    assert keyless.diagnosis is not None and keyless.diagnosis.kind == "no_key"
    assert _one_line(keyless).startswith("no key set: the server asks for one: HTTP 401: ")
    refused = ask(protocol, sparring, "house-coin-refuse", receipts)
    assert refused.diagnosis is not None and refused.diagnosis.kind == "refused"
    assert _one_line(refused).startswith("refused: HTTP 403: ")


def test_a_key_gemini_does_not_know_is_refused(odd: str, receipts: ReceiptStore) -> None:
    result = ask("gemini", f"{odd}/gemini-bad-key-400", "gemini-x", receipts)
    assert result.diagnosis is not None and result.diagnosis.kind == "refused"
    assert _one_line(result).startswith("refused: HTTP 400: API key not valid. Please pass a valid API key.")


def test_a_rate_limited_model(sparring: str, receipts: ReceiptStore) -> None:
    result = ask("anthropic", sparring, "house-coin-ratelimit", receipts)
    assert result.diagnosis is not None and result.diagnosis.kind == "rate_limited"
    assert _one_line(result).startswith("rate limited: HTTP 429: ")


def test_a_timeout(odd: str, receipts: ReceiptStore) -> None:
    result = ask("openai", f"{odd}/slow", "mystery", receipts, timeout_s=0.5)
    assert result.status == "no_response"
    assert result.diagnosis is not None and result.diagnosis.kind == "timeout"
    assert _one_line(result).startswith(f"timeout: {odd}/slow/v1/chat/completions: ")


def test_a_refusing_socket(receipts: ReceiptStore) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    result = ask("openai", url, "mystery", receipts)
    assert result.status == "no_response"
    assert result.diagnosis is not None and result.diagnosis.kind == "connection_refused"
    assert _one_line(result).startswith(f"connection refused: {url}/v1/chat/completions: ConnectError")
    assert "ConnectionRefusedError" in (result.error or "")  # the OS's own words, kept in the receipt
    assert "ConnectionRefusedError" in (receipts.get(result.receipt_ids[0]).error or "")


def test_the_diagnosis_re_derives_from_the_receipt(sparring: str, odd: str, receipts: ReceiptStore) -> None:
    for protocol, base, model in [
        ("openai", sparring, "no-such-model"),
        ("gemini", sparring + "/v1", "house-coin"),
        ("openai", f"{odd}/page-200", "mystery"),
        ("anthropic", sparring, "house-coin-refuse"),
    ]:
        result = ask(protocol, base, model, receipts)
        receipt = receipts.get(result.receipt_ids[-1])
        assert diagnose(protocol, receipt, model=model, key_sent=True) == result.diagnosis


def test_a_host_that_does_not_resolve(receipts: ReceiptStore) -> None:
    url = "http://no-such-host.invalid"  # RFC 6761: never resolves
    result = ask("openai", url, "mystery", receipts, timeout_s=10.0)
    assert result.status == "no_response"
    assert result.diagnosis is not None and result.diagnosis.kind == "unreachable"
    assert _one_line(result).startswith(f"unreachable: {url}/v1/chat/completions: ConnectError")
