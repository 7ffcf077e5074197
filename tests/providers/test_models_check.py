"""``colosseum models check`` as a user meets it, against real loopback servers: the sparring server
(house players, their refusals, a stall, a setting refused, a bad key), a web server that is no model
server, a port where nothing listens; and bad names and a broken models.toml, one line each."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from colosseum_core.arenas import sparring_houses
from colosseum_core.providers.check import check_model
from colosseum_core.providers.models import parse_model
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.settings import SPARRING_URL_ENV
from colosseum_standins.loopback import free_port, running_app
from colosseum_standins.sparring import running_sparring
from tests.support import run_colosseum


@pytest.fixture(scope="module")
def sparring() -> Iterator[str]:
    with running_sparring(houses=sparring_houses(), stall_s=30.0) as url:
        yield url


@pytest.fixture(scope="module")
def web() -> Iterator[str]:
    """A web server that is no model server: a page for every path."""

    async def page(request: Request) -> Response:
        return HTMLResponse("<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>")

    with running_app(Starlette(routes=[Route("/{rest:path}", page, methods=["GET", "POST"])])) as url:
        yield url


def check(*argv: str, sparring: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith("COLOSSEUM_") and not k.endswith("_API_KEY")
    }
    if sparring is not None:
        environ[SPARRING_URL_ENV] = sparring
    return run_colosseum("models", "check", *argv, env={**environ, **env}, timeout=120)


def lines(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    out = done.stdout.strip().splitlines()
    assert all(": " in line for line in out), done.stdout
    return {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in out}


def test_house_players_each_say_what_became_of_one_request(sparring: str) -> None:
    done = check(
        "house/house-hash",
        "house/anthropic/house-hash",
        "house/house-hash-refuse",
        "house/house-hash-stall",
        "house/house-hash-no-seed",
        "house/gemini/house-hash-no-top-p",
        "house/no-such-player",
        "--timeout",
        "1.5",
        sparring=sparring,
    )
    assert done.returncode == 1, done.stderr
    said = lines(done)
    assert len(said) == 7 and len(done.stdout.strip().splitlines()) == 7
    assert said["house/house-hash"].startswith("reachable in ")
    assert "honoured temperature, top_p, max_tokens, seed; OMITTED: none" in said["house/house-hash"]
    # Anthropic's protocol takes no seed: omitted before asking, recorded OMITTED as the arenas do.
    assert "OMITTED: seed" in said["house/anthropic/house-hash"]
    assert said["house/house-hash-no-seed"].startswith("reachable")
    assert "honoured temperature, top_p, max_tokens; OMITTED: seed" in said["house/house-hash-no-seed"]
    assert "OMITTED: top_p" in said["house/gemini/house-hash-no-top-p"]
    assert said["house/house-hash-refuse"].startswith("FAILED in ")
    assert "refused: HTTP 403: " in said["house/house-hash-refuse"]
    assert "timeout: " in said["house/house-hash-stall"] and "within 1.5 s" in said["house/house-hash-stall"]
    assert "unknown model 'no-such-player': HTTP 404" in said["house/no-such-player"]


def test_only_good_models_exit_zero_and_json_is_a_list(sparring: str, tmp_path: Path) -> None:
    done = check("house/house-coin", "--json", "--receipts", str(tmp_path / "r"), sparring=sparring)
    assert done.returncode == 0, done.stderr
    (report,) = json.loads(done.stdout)
    assert report["reachable"] is True and report["check"] == "COLOSSEUM-MODELS-CHECK-1"
    assert report["omitted"] == [] and report["latency_s"] > 0
    # The receipts were kept where asked, with the request's exact bytes.
    stored = ReceiptStore(tmp_path / "r").get(report["receipt_ids"][0])
    assert b'"max_tokens":16' in stored.request_body and b'"seed":0' in stored.request_body


def test_an_endpoint_that_is_not_there_says_why(sparring: str, web: str) -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"
    done = check("openai/qwen3-8b", "--base-url", closed)
    assert done.returncode == 1
    assert lines(done)["openai/qwen3-8b"].startswith("FAILED in ")
    assert "connection refused: " in done.stdout and closed in done.stdout
    page = check("openai/qwen3-8b", "--base-url", web)
    assert "not an OpenAI-compatible server at " in page.stdout and "text/html" in page.stdout, page.stdout
    # A house player when no sparring server is where the line looks.
    down = check("house/house-hash", sparring=f"http://127.0.0.1:{free_port()}")
    assert "the sparring server is not running at http://127.0.0.1:" in down.stdout


def test_keys_missing_and_wrong(sparring: str) -> None:
    unset = check("openai/gpt-5.1")
    assert unset.returncode == 1
    assert unset.stdout.strip() == (
        "openai/gpt-5.1: FAILED: no key set: $OPENAI_API_KEY is not set (openai 'gpt-5.1' at https://api.openai.com)"
    )
    bad = check("openai/house-hash", "--base-url", sparring, "--key-env", "MY_KEY", MY_KEY="bad-key-7")
    assert "refused: HTTP 401: Incorrect API key" in bad.stdout and bad.returncode == 1
    # No key sent to a server that wants one.
    none = check("openai/house-hash", "--base-url", sparring)
    assert "no key set: the server asks for one: HTTP 401" in none.stdout


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (("acme/x",), "provider 'acme' is not one of"),
        (("gpt-5.1",), "'gpt-5.1' is not provider/model"),
        (("openai/x", "--base-url", "ftp://h"), "base_url 'ftp://h' is not an http(s) URL"),
        (("openai/x", "--key-env", "BAD-NAME"), "key_env 'BAD-NAME' is not an environment variable's name"),
        (("openai/x", "--timeout", "0"), "--timeout: 0.0 is not a positive number of seconds"),
        (("house/house-hash", "openai/x", "--base-url", "http://h/v1"), "--base-url says where one model"),
        (("openai/x", "openai/y", "--key-env", "K"), "--key-env says where one model is served"),
    ],
)
def test_a_bad_name_is_one_line(argv: tuple[str, ...], says: str) -> None:
    done = check(*argv)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("colosseum models check: ") and says in line


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("registry = [", "not valid TOML"),
        ('[models."openai/x"]\nbase = "http://h"', "[models.'openai/x'] field base: not a field of a model"),
        ('[models."openai/x"]\nprotocol = "grpc"', "field protocol: 'grpc' is not one of"),
    ],
)
def test_a_broken_registry_is_one_line_naming_the_file(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "models.toml"
    path.write_text(text, encoding="utf-8")
    done = check("openai/x", "--models", str(path))
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert str(path) in line and says in line
    missing = check("openai/x", "--models", str(tmp_path / "none.toml"))
    assert f"--models: {tmp_path / 'none.toml'} is not a file" in missing.stderr


def test_latency_is_measured_on_the_injected_clock(sparring: str, tmp_path: Path) -> None:
    import asyncio

    ticks = iter([10.0, 12.5])
    result = asyncio.run(
        check_model(
            parse_model("house/house-hash"),
            environ={},
            sparring_url=sparring,
            receipts=ReceiptStore(tmp_path),
            clock=lambda: dt.datetime(2026, 12, 5, tzinfo=dt.UTC),
            monotonic=lambda: next(ticks),
        )
    )
    assert result.reachable and result.latency_s == 2.5
    assert "reachable in 2.50 s" in result.line()
