"""``colosseum models check NAME…``: ask each named model one short request through its own protocol
and say, in one line each, whether it is reachable (``colosseum_core.providers.check``)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import tempfile
import time
from pathlib import Path

from colosseum_dagster.cli.arguments import command, command_group
from colosseum_dagster.cli.common import UserError


def _sparring_url() -> str:
    """Where house players are asked: ``$COLOSSEUM_SPARRING_URL``, else make run's server, else the
    address ``colosseum sparring serve`` listens on by default (the line says if nothing is there)."""
    from colosseum_core.settings import LOCAL_SPARRING_URL, SPARRING_URL_ENV
    from colosseum_dagster.cli.instance import make_run_url

    return (os.environ.get(SPARRING_URL_ENV) or make_run_url("sparring") or LOCAL_SPARRING_URL).rstrip("/")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def cmd_models_check(args: argparse.Namespace) -> int:
    from colosseum_core.interrupts import run_async
    from colosseum_core.providers.check import check_models
    from colosseum_core.providers.models import DEFAULT_MODELS, ModelNameError, load_registry
    from colosseum_core.record.receipts import ReceiptStore

    if not args.timeout > 0:
        raise UserError(f"--timeout: {args.timeout!r} is not a positive number of seconds")
    overrides = [f for f, v in (("--base-url", args.base_url), ("--key-env", args.key_env)) if v is not None]
    if overrides and len(args.names) > 1:
        # One server's URL (or key) would be sent every name's requests, a house player's too.
        raise UserError(
            f"{' and '.join(overrides)} {'say' if len(overrides) > 1 else 'says'} where one model is served: "
            f"check the {len(args.names)} names one "
            "at a time with it, or give each its entry in models.toml"
        )
    path = Path(args.models) if args.models else DEFAULT_MODELS
    if args.models and not path.is_file():
        raise UserError(f"--models: {path} is not a file")
    try:
        registry = load_registry(path)
        refs = [registry.resolve(name, base_url=args.base_url, key_env=args.key_env) for name in args.names]
    except ModelNameError as exc:
        raise UserError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot be read ({exc})") from None
    needs_sparring = any(ref.house for ref in refs)
    with tempfile.TemporaryDirectory(prefix="colosseum-models-check-") as scratch:
        kept = Path(args.receipts) if args.receipts else None
        results = run_async(
            check_models(
                refs,
                environ=os.environ,
                sparring_url=_sparring_url() if needs_sparring else "",
                receipts=ReceiptStore(kept or Path(scratch)),
                clock=_now,
                monotonic=time.monotonic,
                timeout_s=args.timeout,
            )
        )
    if args.json:
        where = str(kept) if kept else None
        print(json.dumps([{**r.as_json(), "receipts": where} for r in results], indent=1))
    else:
        for result in results:
            print(result.line())
    return 0 if all(r.reachable for r in results) else 1


def add_commands(sub: argparse._SubParsersAction) -> None:
    models = command_group(
        sub,
        "models",
        "the models the arenas name (models.toml)",
        "example:\n  colosseum models check openai/gpt-5.1 house/house-hash",
    )
    check = command(
        models,
        "check",
        cmd_models_check,
        "ask each named model one short request through its own protocol",
        "Each NAME is provider/model as models.toml or the provider's defaults resolve it; house/… is a\n"
        "house player on the sparring server ($COLOSSEUM_SPARRING_URL, else make run's, else\n"
        "http://127.0.0.1:8766). One line per model: reachable or not, the settings it honoured and the\n"
        "ones it refused (OMITTED), the latency, and the exact reason when it fails. The exit code is 1\n"
        "if any model failed. The receipts go to a scratch folder, deleted after, unless --receipts.\n\n"
        "examples:\n"
        "  colosseum models check openai/gpt-5.1 anthropic/claude-opus-4-5 house/house-hash\n"
        "  colosseum models check openai/qwen3-8b --base-url http://127.0.0.1:8000/v1 --timeout 10\n"
        "  colosseum models check house/anthropic/house-judge-s2 --json",
    )
    check.add_argument("names", nargs="+", metavar="NAME", help="provider/model (e.g. openai/gpt-5.1)")
    check.add_argument(
        "--base-url", default=None, help="ask every NAME at this base URL (an OpenAI-compatible server…)"
    )
    check.add_argument(
        "--key-env",
        default=None,
        help="the variable holding the key (default: the provider's; none with --base-url)",
    )
    check.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="reply budget per model, in seconds (default 30)",
    )
    check.add_argument(
        "--models", default=None, metavar="FILE", help="the registry (default: the repository's models.toml)"
    )
    check.add_argument("--receipts", default=None, metavar="DIR", help="keep the checks' receipts in DIR")
    check.add_argument("--json", action="store_true", help="a list of objects, one per model")
