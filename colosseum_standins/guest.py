"""The guest model server: a small OpenAI-compatible server on loopback that serves ONE model name,
none of the house players', as a model maker's vLLM or llama.cpp server would, and answers at house
speed by asking the sparring server.

Each ``POST /v1/chat/completions`` for the guest's name is forwarded to the sparring server with the
model replaced by the house player whose route matches the prompt (a regular expression searched in
the system and user turns' text, the routes tried in order, the first match wins; else the default),
and the reply comes back under the guest's name: a chess prompt can be answered by a house chess
player, a debate's by a house debater, all through one name. This is what ``colosseum trial``'s
end-to-end test and its benchmark try, as "a model served on loopback by a small OpenAI-compatible
server".

- ``GET /v1/models`` lists the one model; ``GET /status`` says what is routed where.
- Another model name is a 404 in OpenAI's envelope (``model_not_found``); a body that is not a JSON
  object, or messages that are not a list of messages, a 400; ``"stream": true`` a 400 naming the
  field, as the sparring server refuses it (the arenas never stream).
- With a key (``key=``), a request without ``Authorization: Bearer <key>`` is a 401 as OpenAI's;
  without one, any key or none is taken, as a local server usually does.
- The sparring server's errors come back as it sent them (status and body), its replies with the
  guest's name in ``model``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any, Final

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from colosseum_core.providers.house_models import HOUSE_KEY
from colosseum_standins.sparring.server import NO_STREAMING

GUEST_HEADER: Final = "x-colosseum-guest"
FORWARD_TIMEOUT_S: Final = 600.0


@dataclasses.dataclass(frozen=True)
class GuestRoute:
    """Prompts whose text ``pattern`` finds go to ``house`` (a house player's model name)."""

    pattern: re.Pattern[str]
    house: str


@dataclasses.dataclass(frozen=True)
class GuestConfig:
    """The one model name served, the routes in order, the default house player, the sparring
    server's base URL and the key a request must bring (None: any or none)."""

    name: str
    routes: tuple[GuestRoute, ...]
    default: str
    sparring_url: str
    key: str | None = None


def parse_route(text: str) -> GuestRoute:
    """``REGEX=HOUSE_MODEL``: the last ``=`` splits, so the pattern may hold one."""
    pattern, equals, house = text.rpartition("=")
    if not equals or not pattern or not house:
        raise ValueError(f"route {text!r}: not REGEX=HOUSE_MODEL")
    try:
        return GuestRoute(re.compile(pattern), house)
    except re.error as exc:
        raise ValueError(f"route {text!r}: {pattern!r} is not a regular expression ({exc})") from None


def route_for(config: GuestConfig, text: str) -> str:
    """The house player a prompt's text goes to: the first route whose pattern it holds, else the default."""
    return next((r.house for r in config.routes if r.pattern.search(text)), config.default)


def _error(
    status: int, message: str, *, kind: str, param: str | None = None, code: str | None = None
) -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": kind, "param": param, "code": code}}, status_code=status
    )


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return None if content is not None else ""


def prompt_text(messages: Any) -> str | None:
    """The system (or developer) and user turns' text, in order; None when ``messages`` is not a
    list of messages with text."""
    if not isinstance(messages, list) or not messages:
        return None
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            return None
        text = _text_of(message.get("content"))
        if text is None:
            return None
        if message["role"] in ("system", "developer", "user"):
            texts.append(text)
    return "\n".join(texts)


def build_app(config: GuestConfig, *, transport: httpx.AsyncBaseTransport | None = None) -> Starlette:
    client = httpx.AsyncClient(
        base_url=config.sparring_url.rstrip("/"), timeout=FORWARD_TIMEOUT_S, transport=transport
    )
    served = {"requests": 0, "routed": {}}

    def denied(request: Request) -> JSONResponse | None:
        if config.key is None:
            return None
        if request.headers.get("authorization", "") != f"Bearer {config.key}":
            return _error(
                401, "Incorrect API key provided.", kind="invalid_request_error", code="invalid_api_key"
            )
        return None

    async def chat_completions(request: Request) -> Response:
        served["requests"] += 1
        refused = denied(request)
        if refused is not None:
            return refused
        try:
            body = json.loads(await request.body())
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict):
            return _error(
                400, "We could not parse the JSON body of your request.", kind="invalid_request_error"
            )
        model = body.get("model")
        if model != config.name:
            return _error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                kind="invalid_request_error",
                code="model_not_found",
            )
        if body.get("stream") is True:
            return _error(
                400, NO_STREAMING, kind="invalid_request_error", param="stream", code="unsupported_value"
            )
        text = prompt_text(body.get("messages"))
        if text is None:
            return _error(
                400,
                "messages: expected a non-empty list of messages, each with a role and text content",
                kind="invalid_request_error",
                param="messages",
            )
        house = route_for(config, text)
        routed = served["routed"]
        routed[house] = routed.get(house, 0) + 1
        forwarded = {**body, "model": house}
        try:
            answer = await client.post(
                "/v1/chat/completions",
                content=json.dumps(forwarded, ensure_ascii=False).encode(),
                headers={"authorization": f"Bearer {HOUSE_KEY}", "content-type": "application/json"},
            )
        except httpx.HTTPError as exc:
            return _error(
                502, f"the sparring server did not answer: {type(exc).__name__}", kind="server_error"
            )
        headers = {GUEST_HEADER: house}
        try:
            reply = answer.json()
        except ValueError:
            return Response(answer.content, status_code=answer.status_code, headers=headers)
        if answer.is_success and isinstance(reply, dict):
            reply["model"] = config.name
        return JSONResponse(reply, status_code=answer.status_code, headers=headers)

    async def models(request: Request) -> Response:
        refused = denied(request)
        if refused is not None:
            return refused
        return JSONResponse(
            {"object": "list", "data": [{"id": config.name, "object": "model", "owned_by": "guest"}]}
        )

    async def status(request: Request) -> Response:
        return JSONResponse(
            {
                "model": config.name,
                "routes": [[r.pattern.pattern, r.house] for r in config.routes],
                "default": config.default,
                "requests": served["requests"],
                "routed": served["routed"],
            }
        )

    return Starlette(
        routes=[
            Route("/status", status),
            Route("/v1/models", models),
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        ]
    )


def config_of(
    name: str, routes: Sequence[str], default: str, sparring_url: str, key: str | None = None
) -> GuestConfig:
    """A guest's config from its command's words; ``ValueError`` naming a route that is not one."""
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$", name):
        raise ValueError(f"--name {name!r}: not a model name (letters, digits, . _ : / -)")
    if name.startswith("house-"):
        raise ValueError(f"--name {name!r}: a house player's name; a guest is none of theirs")
    return GuestConfig(name, tuple(parse_route(r) for r in routes), default, sparring_url, key)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m colosseum_standins.guest --fd N --name … --sparring URL …``: serve on a socket
    handed over by ``loopback.running_process``."""
    from colosseum_standins.loopback import serve_on_fd

    parser = argparse.ArgumentParser(prog="colosseum_standins.guest")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--sparring", required=True)
    parser.add_argument("--route", action="append", default=[])
    parser.add_argument("--default", required=True)
    parser.add_argument("--key", default=None)
    args = parser.parse_args(argv)
    config = config_of(args.name, args.route, args.default, args.sparring, args.key)
    serve_on_fd(build_app(config), args.fd)


if __name__ == "__main__":
    main()
