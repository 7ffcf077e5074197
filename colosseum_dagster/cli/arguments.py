"""How a command's parser is built: a group of commands, a command with its examples, and the options
most commands share (where the record is, a report for scripts, every Dagster event, where to listen)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from colosseum_dagster.cli.common import DATA_HELP, RAW, port_number

RUN_VERBOSE_HELP = "every Dagster event, not one line a step"


def command_group(
    sub: argparse._SubParsersAction, name: str, help: str, epilog: str, *, dest: str = "action"
) -> argparse._SubParsersAction:
    """``colosseum … <name> …``: a word that only groups commands; its help ends in an example."""
    parser = sub.add_parser(name, help=help, formatter_class=RAW, epilog=epilog)
    return parser.add_subparsers(dest=dest, required=True)


def command(
    sub: argparse._SubParsersAction,
    name: str,
    func: Callable[[argparse.Namespace], int],
    help: str,
    epilog: str,
    **more: Any,
) -> argparse.ArgumentParser:
    """The command ``name``, run by ``func``; its help ends in examples (``epilog``)."""
    parser = sub.add_parser(name, help=help, formatter_class=RAW, epilog=epilog, **more)
    parser.set_defaults(func=func)
    return parser


def add_record_options(
    parser: argparse.ArgumentParser,
    *,
    json_help: str | None = "machine-readable report",
    verbose_help: str | None = None,
) -> None:
    """``--data`` (the record), ``--json`` and, for a command that runs jobs, ``-v``, in that order."""
    parser.add_argument("--data", default=None, help=DATA_HELP)
    parser.add_argument("--json", action="store_true", help=json_help)
    if verbose_help is not None:
        parser.add_argument("-v", "--verbose", action="store_true", help=verbose_help)


def add_listen_options(parser: argparse.ArgumentParser, port: int) -> None:
    """Where a local server listens: ``--host`` (loopback) and ``--port``."""
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=port_number, default=port)
