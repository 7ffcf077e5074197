"""The event kinds Dagster runs: each registered kind's wiring (``wiring.KindWiring``), found through
the module its ``EventKind.wiring`` names, so a kind's assets and jobs come from the same registry
as its tables (``colosseum_core.events.kinds``), and a fourth kind is its folder and one line there."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Final

from colosseum_core.events.kind import EventKind
from colosseum_core.events.kinds import KINDS
from colosseum_dagster.events.wiring import KindWiring


def wiring_of(kind: EventKind) -> KindWiring:
    """The kind's wiring: its module's ``WIRING``, which must be the wiring of this very kind."""
    wiring = getattr(importlib.import_module(kind.wiring), "WIRING", None)
    if not isinstance(wiring, KindWiring) or wiring.kind != kind:
        raise TypeError(f"event kind {kind.name}: {kind.wiring}.WIRING is not its KindWiring")
    return wiring


def wirings_of(kinds: Sequence[EventKind]) -> tuple[KindWiring, ...]:
    """The wirings of the kinds that have one, in the registry's order; two never share a job."""
    wirings = tuple(wiring_of(k) for k in kinds if k.wiring)
    prefixes = [w.prefix for w in wirings]
    if twice := sorted({p for p in prefixes if prefixes.count(p) > 1}):
        raise ValueError(f"event kinds: the jobs {', '.join(twice)}_… are wired twice")
    return wirings


WIRINGS: Final = wirings_of(KINDS)


def wiring_named(name: str, wirings: Sequence[KindWiring] = WIRINGS) -> KindWiring | None:
    """The wiring of the kind a manifest's ``kind`` names, or None."""
    return next((w for w in wirings if w.kind.name == name), None)
