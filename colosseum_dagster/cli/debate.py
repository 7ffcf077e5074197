"""``colosseum debate …``: the Compelle debate arena's commands: its local ledger, and an epoch's
entries run through the real Definitions."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from colosseum_core.settings import LEDGER_URL_ENV, LOCAL_LEDGER_URL, data_dir
from colosseum_dagster.cli.common import (
    DATA_HELP,
    RAW,
    UserError,
    dagster_instance,
    failure_messages,
    listening,
    resource_config,
    shown,
    sparring_for_run,
    utc,
)

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
        serve(args.host, args.port, log=log, genesis=genesis, house_miners=args.house_miners)
    except LedgerError as exc:
        raise UserError(str(exc)) from None
    return 0


def _epoch(text: str, ledger_url: str) -> str:
    from colosseum_core.chain.http import HttpLedger
    from colosseum_core.chain.ledger import LedgerError
    from colosseum_core.debate.epochs import epoch_from_key, epoch_key, epoch_of

    if text == "current":
        try:
            return epoch_key(epoch_of(HttpLedger(ledger_url).current_block()))
        except LedgerError as exc:
            raise UserError(str(exc)) from None
    try:
        return epoch_key(epoch_from_key(text) if len(text) == 7 else int(text))
    except ValueError:
        raise UserError(
            f"epoch {text!r}: expected an epoch number (14523, or 0014523) or 'current'"
        ) from None


def cmd_entries(args: argparse.Namespace) -> int:
    import os

    from colosseum_core.debate.arena import DEBATE
    from colosseum_core.record.layout import Record

    root = data_dir(args.data)
    ledger_url = (args.ledger or os.environ.get(LEDGER_URL_ENV) or LOCAL_LEDGER_URL).rstrip("/")
    listening(
        ledger_url,
        "the ledger",
        "start `colosseum debate ledger serve` or pass --ledger",
    )
    key = _epoch(args.epoch, ledger_url)
    tables = Record(root).tables(DEBATE)
    if tables.exists("entries", key):
        # Written once: a second run could only reproduce it or be refused, so show what is recorded.
        print(f"epoch {key}: judged already; its entries are written once, as recorded:", file=sys.stderr)
        return _report(key, True, [], tables.read("entries", key).to_dicts(), root, args.json)
    from colosseum_dagster.debate.keys import STEP_WORDS
    from colosseum_dagster.definitions import defs
    from colosseum_dagster.progress import logger_config

    instance = dagster_instance()
    instance.add_dynamic_partitions("debate_epochs", [key])
    with sparring_for_run() as sparring_url:
        resources: dict[str, Any] = resource_config(root, None)
        resources["chain"] = {"config": {"ledger_url": ledger_url}}
        resources["debate_models"] = {"config": {"sparring_url": sparring_url}}
        print(f"epoch {key}: running debate_entries_job against {ledger_url}", file=sys.stderr)
        result = defs.resolve_job_def("debate_entries_job").execute_in_process(
            partition_key=key,
            run_config={"resources": resources, **logger_config(args.verbose, STEP_WORDS)},
            instance=instance,
            raise_on_error=False,
        )
    # As a card run does: the catalog's views follow the record's new tables.
    defs.resolve_job_def("catalog_job").execute_in_process(
        run_config={"resources": resource_config(root, None), **logger_config(args.verbose, STEP_WORDS)},
        instance=instance,
        raise_on_error=False,
    )
    rows = tables.read("entries", key).to_dicts() if result.success else []
    return _report(key, result.success, failure_messages(result), rows, root, args.json)


def _report(
    key: str, success: bool, failures: list[str], rows: list[dict[str, Any]], root: Path, as_json: bool
) -> int:
    report = {
        "epoch": key,
        "success": success,
        "failures": failures,
        "entries": [
            {
                k: row[k]
                for k in ("hotkey", "uid", "status", "rule", "value", "verdict", "strategy_hash", "kind")
            }
            for row in rows
        ],
        "data": str(root),
    }
    if as_json:
        print(json.dumps(report, indent=1, default=str))
    elif not success:
        print(f"epoch {key}: FAILED: {'; '.join(report['failures']) or 'see the run log'}")
    else:
        entered = sum(1 for r in rows if r["status"] == "entered")
        kind = rows[0]["kind"] if rows else "-"
        print(f"epoch {key}: {entered} of {len(rows)} registered miners entered ({kind})")
        for r in rows:
            why = f"  {r['rule']}: {shown(r['value'])}" if r["rule"] else ""
            print(f"  uid {r['uid']:>3} {shown(r['hotkey']):<24} {r['status']:<9}{why}")
    return 0 if success else 1


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
    serve.add_argument(
        "--house-miners",
        action="store_true",
        help="seed a fresh ledger with the house miners (as `make run` does)",
    )
    serve.set_defaults(func=cmd_ledger_serve)

    entries = arena.add_parser(
        "entries",
        help="run an epoch's entry checks through the real Definitions and print who entered and why not",
        formatter_class=RAW,
        epilog=f"examples:\n  colosseum debate entries current\n  colosseum debate entries 40 --json\n"
        f"  colosseum debate entries current --ledger http://127.0.0.1:{LEDGER_PORT}\n"
        "Each entry is written once: running an epoch again reproduces it or is refused (exit 1).",
    )
    entries.add_argument("epoch", help="an epoch number, or 'current' (the chain's epoch now)")
    entries.add_argument(
        "--ledger", default=None, help=f"the ledger (default ${LEDGER_URL_ENV} or {LOCAL_LEDGER_URL})"
    )
    entries.add_argument("--data", default=None, help=DATA_HELP)
    entries.add_argument("--json", action="store_true", help="machine-readable report")
    entries.add_argument("-v", "--verbose", action="store_true", help="print every Dagster event")
    entries.set_defaults(func=cmd_entries)
