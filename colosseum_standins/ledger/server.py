"""The local ledger's HTTP service (starlette): the chain's reads and writes, and gists in GitHub's shape.

Reads (what ``colosseum_core.chain.http.HttpLedger`` calls):

- ``GET /status``: the genesis instant, the current block, counts;
- ``GET /chain/block`` → ``{"block": n}``;
- ``GET /chain/neurons`` → ``[{"uid", "hotkey", "block_at_registration"}]``;
- ``GET /chain/commitments`` → ``{hotkey: {"block", "data"}}`` (the latest per hotkey);
- ``GET /chain/weights`` → ``[{"validator", "block", "weights": {uid: w}}]``;
- ``GET /gists/{id}/{sha}``: GitHub's ``GET /gists/{gist_id}/{sha}`` answer (``id``, ``files`` with
  ``filename``, ``size``, ``truncated``, ``content``; ``history``), 404 ``{"message": "Not Found"}``.

Writes (a miner's, a validator's, a test's): ``POST /chain/register``, ``/chain/deregister``
(``{"hotkey"}``), ``/chain/commit`` (``{"hotkey", "data"}``), ``/chain/weights`` (``{"validator",
"weights"}``), ``/gists`` (``{"files": {name: text}, "gist": id?}``), ``/clock/advance``
(``{"blocks": n}``), and ``/faults/gist`` (``{"gist", "times"}``: that many 503s before it answers).
A refused write is a 400 ``{"error": message}`` and records nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from colosseum_core.chain.ledger import GistNotFound, LedgerError
from colosseum_standins.ledger.house_miners import seed_house_miners
from colosseum_standins.ledger.state import LocalLedger
from colosseum_standins.loopback import running_app, serve_on_fd, uvicorn_config

LEDGER_HEADER = "x-colosseum-ledger"
# The local chain's genesis when none is given: a fixed instant, so block numbers mean the same
# thing on every machine.
DEFAULT_GENESIS = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def _json(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={LEDGER_HEADER: "local"})


def _refused(message: str, status: int = 400) -> JSONResponse:
    return _json({"error": message}, status)


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError as exc:
        raise LedgerError(f"{request.url.path}: the body is not JSON ({exc})") from exc
    if not isinstance(body, dict):
        raise LedgerError(f"{request.url.path}: the body must be a JSON object, got {type(body).__name__}")
    return body


def create_app(ledger: LocalLedger) -> Starlette:
    async def status(request: Request) -> JSONResponse:
        return _json(
            {
                "service": "colosseum local ledger",
                "genesis": ledger.genesis.isoformat().replace("+00:00", "Z"),
                "block": ledger.current_block(),
                "neurons": len(ledger.neurons()),
                "commitments": len(ledger.commitments()),
            }
        )

    async def block(request: Request) -> JSONResponse:
        return _json({"block": ledger.current_block()})

    async def neurons(request: Request) -> JSONResponse:
        return _json(
            [
                {"uid": n.uid, "hotkey": n.hotkey, "block_at_registration": n.block_at_registration}
                for n in ledger.neurons()
            ]
        )

    async def commitments(request: Request) -> JSONResponse:
        return _json({k: {"block": c.block, "data": c.data} for k, c in ledger.commitments().items()})

    async def weights(request: Request) -> JSONResponse:
        return _json(
            [
                {
                    "validator": w.validator,
                    "block": w.block,
                    "weights": {str(k): v for k, v in w.weights.items()},
                }
                for w in ledger.weights()
            ]
        )

    async def gist(request: Request) -> JSONResponse:
        gist_id, sha = request.path_params["gist_id"], request.path_params["sha"]
        left = ledger.unavailable.get(gist_id, 0)
        if left > 0:
            ledger.unavailable[gist_id] = left - 1
            return _json({"message": "Service Unavailable"}, 503)
        try:
            revision = ledger.gist(gist_id, sha)
        except GistNotFound:
            return _json({"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, 404)
        return _json(
            {
                "id": gist_id,
                "url": f"{request.base_url}gists/{gist_id}/{sha}",
                "files": {
                    f.filename: {
                        "filename": f.filename,
                        "type": "text/plain",
                        "language": "Text",
                        "size": f.size,
                        "truncated": f.truncated,
                        "content": f.content,
                    }
                    for f in revision.files
                },
                "history": [{"version": v} for v in reversed(ledger.gist_history(gist_id))],
            }
        )

    def writer(operation: Any) -> Any:
        async def endpoint(request: Request) -> JSONResponse:
            try:
                return _json(operation(await _body(request)))
            except LedgerError as exc:
                return _refused(str(exc))
            except (KeyError, TypeError, ValueError) as exc:
                return _refused(f"{request.url.path}: {type(exc).__name__}: {exc}")

        return endpoint

    def register(body: dict[str, Any]) -> dict[str, Any]:
        n = ledger.register(body["hotkey"])
        return {"uid": n.uid, "hotkey": n.hotkey, "block_at_registration": n.block_at_registration}

    def deregister(body: dict[str, Any]) -> dict[str, Any]:
        n = ledger.deregister(body["hotkey"])
        return {"uid": n.uid, "hotkey": n.hotkey}

    def commit(body: dict[str, Any]) -> dict[str, Any]:
        c = ledger.commit(body["hotkey"], body["data"])
        return {"hotkey": c.hotkey, "block": c.block}

    def set_weights(body: dict[str, Any]) -> dict[str, Any]:
        w = ledger.set_weights(body["validator"], {int(k): v for k, v in dict(body["weights"]).items()})
        return {"validator": w.validator, "block": w.block}

    def put_gist(body: dict[str, Any]) -> dict[str, Any]:
        revision = ledger.put_gist(dict(body["files"]), body.get("gist"))
        return {"id": revision.gist_id, "sha": revision.sha}

    def advance(body: dict[str, Any]) -> dict[str, Any]:
        return {"block": ledger.advance(body["blocks"])}

    def gist_fault(body: dict[str, Any]) -> dict[str, Any]:
        times = int(body["times"])
        ledger.unavailable[str(body["gist"])] = times
        return {"gist": body["gist"], "times": times}

    return Starlette(
        routes=[
            Route("/status", status),
            Route("/chain/block", block),
            Route("/chain/neurons", neurons),
            Route("/chain/commitments", commitments),
            Route("/chain/weights", weights),
            Route("/gists/{gist_id}/{sha}", gist),
            Route("/chain/register", writer(register), methods=["POST"]),
            Route("/chain/deregister", writer(deregister), methods=["POST"]),
            Route("/chain/commit", writer(commit), methods=["POST"]),
            Route("/chain/weights", writer(set_weights), methods=["POST"]),
            Route("/gists", writer(put_gist), methods=["POST"]),
            Route("/clock/advance", writer(advance), methods=["POST"]),
            Route("/faults/gist", writer(gist_fault), methods=["POST"]),
        ]
    )


def _wall_clock() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@contextlib.contextmanager
def running_ledger(
    log: Path | None = None, *, genesis: dt.datetime = DEFAULT_GENESIS, now: Any = _wall_clock
) -> Iterator[tuple[str, LocalLedger]]:
    """A local ledger on a free loopback port in this process: its base URL and its state."""
    ledger = LocalLedger(log, genesis=genesis, now=now)
    with running_app(create_app(ledger)) as url:
        yield url, ledger


def serve(
    host: str,
    port: int,
    *,
    log: Path | None = None,
    genesis: dt.datetime = DEFAULT_GENESIS,
    house_miners: bool = False,
) -> None:
    """Serve a local ledger until interrupted (blocking); with ``house_miners``, a fresh one is seeded."""
    ledger = LocalLedger(log, genesis=genesis, now=_wall_clock)
    if house_miners:
        seed_house_miners(ledger)
    uvicorn.Server(uvicorn_config(create_app(ledger), host, port)).run()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m colosseum_standins.ledger.server")
    parser.add_argument("--fd", type=int, required=True, help="the listening socket to serve on")
    parser.add_argument("--log", type=Path, default=None)
    parser.add_argument("--genesis", default=DEFAULT_GENESIS.isoformat())
    args = parser.parse_args(argv)
    genesis = dt.datetime.fromisoformat(args.genesis.replace("Z", "+00:00"))
    serve_on_fd(create_app(LocalLedger(args.log, genesis=genesis, now=_wall_clock)), args.fd)


if __name__ == "__main__":
    main()
