"""``colosseum events <kind> …``: the multi-event arena's commands, one group per registered kind of
event (``colosseum_core.events.kinds``). Each group has the shared ``event freeze``, ``event run``
and ``standings`` (``commands``) and its kind's extras beside them, in the module its kind names
(``EventKind.commands``), imported by name; a kind that names none (a test's) gets the shared
commands alone.

Imported by: the command line (``colosseum_dagster.cli``) and the tests. The shared commands never
import a kind's, and the kinds' commands never import each other's (``.importlinter``).
"""

from __future__ import annotations

import argparse
import importlib

from colosseum_dagster.cli.events.commands import EventCommands, command_group


def kind_commands() -> list[EventCommands]:
    """Every registered kind's commands, in the registry's order: its own module's (the kind names it,
    as it names its Dagster wiring), else the shared ones alone."""
    from colosseum_core.events.kinds import KINDS

    return [
        importlib.import_module(kind.commands).COMMANDS
        if kind.commands
        else EventCommands(
            kind=kind.name,
            cli=kind.name,
            help=f"the {kind.name} event",
            example=f"{kind.name}-1",
        )
        for kind in KINDS
    ]


def add_commands(sub: argparse._SubParsersAction) -> None:
    events = command_group(
        sub,
        "events",
        "the multi-event arena: the chess, Solve-or-Object and challenge events",
        "examples:\n  colosseum events chess event freeze chess-2026-12-02 --lines 2\n"
        "  colosseum events chess event run chess-2026-12-02\n"
        "  colosseum events solve-or-object event freeze soo-2026-12-02 --pairs 6\n"
        "  colosseum events solve-or-object event run soo-2026-12-02\n"
        "  colosseum events challenges event freeze ch-2026-12-02 --slots 2",
        "arena_command",
    )
    for commands in kind_commands():
        commands.add_commands(events)
