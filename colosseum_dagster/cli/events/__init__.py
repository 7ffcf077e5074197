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
    kinds = kind_commands()
    # Named from the registry, as the groups are: a kind registered later shows here too.
    examples = "".join(
        f"\n  colosseum events {c.cli} event {verb} {c.example}" for c in kinds for verb in ("freeze", "run")
    )
    events = command_group(
        sub,
        "events",
        f"the multi-event arena: its kinds of event ({', '.join(c.cli for c in kinds)})",
        f"examples:{examples}",
        "arena_command",
    )
    for commands in kinds:
        commands.add_commands(events)
