"""``colosseum debate …``: the Compelle debate arena's commands (today: its local ledger)."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from colosseum_dagster.cli.common import RAW, UserError, utc

LEDGER_PORT = 8797


def cmd_ledger_serve(args: argparse.Namespace) -> int:
    from colosseum_core.chain.ledger import LedgerError
    from colosseum_core.standins.ledger import DEFAULT_GENESIS, serve

    genesis: dt.datetime = args.genesis or DEFAULT_GENESIS
    log = Path(args.log) if args.log else None
    if log is not None and log.exists() and not log.is_file():
        raise UserError(f"--log {log}: not a file")
    where = f"its log {log}" if log else "in memory only (pass --log to keep it)"
    print(
        f"local ledger (the chain and gists, offline) on http://{args.host}:{args.port}, genesis "
        f"{genesis.isoformat().replace('+00:00', 'Z')}, {where}; Ctrl-C stops it",
        file=sys.stderr,
    )
    try:
        serve(args.host, args.port, log=log, genesis=genesis)
    except LedgerError as exc:
        raise UserError(str(exc)) from None
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    arena = sub.add_parser(
        "debate",
        help="the Compelle debate arena: the chain its miners commit to",
        formatter_class=RAW,
        epilog=f"example:\n  colosseum debate ledger serve --port {LEDGER_PORT} --log ledger.jsonl",
    ).add_subparsers(dest="arena_command", required=True)
    ledger = arena.add_parser(
        "ledger",
        help="the local ledger: the chain and gists, offline",
        formatter_class=RAW,
        epilog=f"example:\n  colosseum debate ledger serve --port {LEDGER_PORT}",
    ).add_subparsers(dest="action", required=True)
    serve = ledger.add_parser(
        "serve",
        help="serve the local ledger (12 s blocks from a genesis instant; register, commit, weights, gists)",
        formatter_class=RAW,
        epilog=f"examples:\n  colosseum debate ledger serve\n"
        f"  colosseum debate ledger serve --port {LEDGER_PORT} --log /tmp/ledger.jsonl "
        "--genesis 2026-01-01T00:00:00Z\n"
        "Then, for example:\n"
        f'  curl -X POST localhost:{LEDGER_PORT}/chain/register -d \'{{"hotkey": "miner-1"}}\'\n'
        f"  curl localhost:{LEDGER_PORT}/chain/neurons",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=LEDGER_PORT)
    serve.add_argument("--log", default=None, help="append-only log to keep the chain in (replayed at start)")
    serve.add_argument(
        "--genesis", type=utc, default=None, help="block 0's instant (default 2026-01-01T00:00:00Z)"
    )
    serve.set_defaults(func=cmd_ledger_serve)
