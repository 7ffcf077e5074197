"""The ``colosseum`` command line: the platform's commands, and one command group per arena.

Shared: ``dev``, ``exchange serve``, ``sparring serve``, ``models check``, ``verify``, ``board
build``, ``catalog refresh``, ``sql``. Per arena: ``colosseum forecast …`` (``card run``, ``card
show``, ``sweep``, ``settle``, ``leaderboard``, ``select``), ``colosseum debate …`` (``ledger
serve``, ``entries``, ``games``, …) and ``colosseum events <kind> …`` (``event freeze``, ``event
run``, ``standings`` for every kind of event, and each kind's own: the chess ``suite`` and ``game
show`` …). Each module adds its commands to the one parser.

Imported by: the ``colosseum`` script and ``python -m colosseum_dagster.cli``, the benchmarks and
the tests. The platform's commands (``common``, ``errors``, ``instance``, ``record``, ``dev``,
``standins``) never import an arena's (``.importlinter``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from colosseum_core.settings import DATA_ENV
from colosseum_dagster.cli import (
    debate,
    dev,
    events,
    export,
    forecast,
    instance,
    models,
    record,
    standins,
    trial,
)
from colosseum_dagster.cli.common import RAW, UserError

__all__ = ["UserError", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="colosseum",
        description="The Colosseum: open arenas where AI models compete, every number re-derivable from "
        "the published record. Three arenas on one record: the Frontier Colosseum forecasting arena "
        "(`forecast`), the Compelle debate arena (`debate`) and the multi-event arena: chess, Solve or "
        "Object and challenges (`events`).",
        formatter_class=RAW,
        epilog="examples:\n  colosseum dev\n  colosseum forecast card run latest\n"
        "  colosseum debate games current   # then: colosseum debate close current\n"
        "  colosseum events chess event freeze smoke --lines 1\n"
        "  colosseum board build data/site\n"
        "  colosseum verify data/\n"
        "  colosseum export --out exports/   # Inspect logs, a Hugging Face dataset, Every Eval Ever\n"
        "  colosseum --ephemeral-instance forecast card run latest   # a run the UI will not show\n"
        "  colosseum forecast sweep --base-url https://gamma-api.polymarket.com \\\n"
        "      --at 2026-11-29T10:00:00Z --out sweep/\n"
        f"\nThe record lives in ${DATA_ENV} (default ./data). Runs go to make run's Dagster instance: "
        "$DAGSTER_HOME, else the checkout's .dagster_home/, so the UI shows them with their logs.",
    )
    parser.add_argument(
        "--ephemeral-instance",
        action="store_true",
        help="run jobs on a throw-away Dagster instance: the runs and their logs are not kept, and the UI "
        "does not show them",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for module in (dev, standins, models, forecast, debate, events, record, trial, export):
        module.add_commands(sub)
    return parser


def _command_name(args: argparse.Namespace) -> str:
    dests = ("command", "arena_command", "action", "suite_action", "event_action", "game_action")
    words = [getattr(args, dest, None) for dest in dests]
    return " ".join(["colosseum", *(word for word in words if word)])


def _file_failure(exc: Exception) -> str | None:
    """One line for a path the operating system refused (``--data`` naming a file, a folder without
    write permission, an output under a read-only tree): the user's to put right, not a bug."""
    if not isinstance(exc, OSError) or exc.filename is None:
        return None
    both = f"{exc.filename!s} -> {exc.filename2!s}" if exc.filename2 is not None else str(exc.filename)
    return f"{exc.strerror or type(exc).__name__}: {both}"


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    name = _command_name(args)
    instance.for_command(name, ephemeral=args.ephemeral_instance)
    try:
        code = args.func(args)
        sys.stdout.flush()  # inside the try: a reader gone before the last buffer is a broken pipe too
    except UserError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt as exc:
        # A run's interruption names the run it canceled; a bare Ctrl-C elsewhere says no more (a
        # server stopped by it, as `colosseum dev` stops its own, has simply stopped).
        said = str(exc) or ("stopped" if name.endswith(" serve") else "interrupted")
        print(f"{name}: {said}", file=sys.stderr)
        code = 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as a Unix tool does. Standard output is
        # pointed at /dev/null so that the interpreter's own flush at exit does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 141
    except Exception as exc:
        from colosseum_core.record.storage import object_store_failure

        # A record on a bucket the bucket refused or could not reach, or a path the system refused.
        said = object_store_failure(exc) or _file_failure(exc)
        if said is None:
            raise
        print(f"{name}: {said}", file=sys.stderr)
        code = 2
    sys.exit(code)
