"""The kinds of event the multi-event arena runs: what its sealing policy, its audit, its board and
the sparring server's house players go through. Adding a kind is a folder of its own (exporting
``KIND`` from its ``kind`` module) and one line here.

Kinds are named by module and imported by name, so the arena's record (``events.arena``) depends on
no kind's code in the import graph and the kinds never reach each other through it; a kind's module
imports its rules only when they are asked for (python-chess, the chess event's optional extra,
when a chess event is played, audited or drawn). A kind defined outside this package (a test's) is
named in ``COLOSSEUM_EVENT_KINDS`` (module names, comma-separated), read once, at first import.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

from colosseum_core.events.kind import EventKind

if TYPE_CHECKING:
    from colosseum_core.providers.house_models import HouseFamily

BUILT_IN: Final = (
    "colosseum_core.events.chess.kind",
    "colosseum_core.events.solve_or_object.kind",
    "colosseum_core.events.challenges.kind",
)
EXTRA_KINDS_VARIABLE: Final = "COLOSSEUM_EVENT_KINDS"


def kind_modules(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The built-in kinds' modules, then those ``environ`` names."""
    extra = [m.strip() for m in environ.get(EXTRA_KINDS_VARIABLE, "").split(",") if m.strip()]
    return (*BUILT_IN, *(m for m in extra if m not in BUILT_IN))


def load_kinds(modules: Sequence[str]) -> tuple[EventKind, ...]:
    """Each module's ``KIND``, in order; two kinds never share a name, a table or a journal."""
    kinds: list[EventKind] = []
    for module in modules:
        kind = getattr(importlib.import_module(module), "KIND", None)
        if not isinstance(kind, EventKind):
            raise TypeError(f"event kind module {module}: KIND is {type(kind).__name__}, not an EventKind")
        kinds.append(kind)
    check_kinds(kinds)
    return tuple(kinds)


def check_kinds(kinds: Sequence[EventKind]) -> None:
    names = [k.name for k in kinds]
    if twice := sorted({n for n in names if names.count(n) > 1}):
        raise ValueError(f"event kinds: {', '.join(twice)} registered twice")
    for what in ("table", "journal"):
        owner: dict[str, str] = {}
        for kind in kinds:
            for name in kind.tables if what == "table" else tuple(kind.journals):
                other = owner.setdefault(name, kind.name)
                if other != kind.name:
                    raise ValueError(f"event kinds {other} and {kind.name}: both have the {what} {name!r}")


KINDS: Final = load_kinds(kind_modules(os.environ))


def kind_named(name: str, kinds: Sequence[EventKind] = KINDS) -> EventKind | None:
    """The kind a manifest's ``kind`` names, or None if no registered kind has that name."""
    return next((k for k in kinds if k.name == name), None)


def house_families(kinds: Sequence[EventKind] = KINDS) -> tuple[HouseFamily, ...]:
    """The house players every kind brings to the sparring server (the chess event's only when
    python-chess, its optional extra, is installed), each reading the persona and the conversation."""
    # Imported here: the registry is read wherever the CLI builds its parser, the providers only where
    # the sparring server starts.
    from colosseum_core.providers.house_models import HouseFamily, conversational

    return tuple(
        HouseFamily(name, conversational(reply), kind.house_behaviours)
        for kind in kinds
        for name, reply in kind.houses().items()
    )
