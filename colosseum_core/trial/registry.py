"""Which trial parts there are: each arena's (``colosseum_core.arenas.TRIAL_PARTS``, handed in, as
the platform knows no arena), then those of the modules ``COLOSSEUM_TRIAL_PARTS`` names (module
names, comma-separated, each with a ``TRIAL_PARTS`` dict of its own: how a part that lives only in
the tests is offered to a command in a child process, as ``COLOSSEUM_EVENT_KINDS`` offers a kind).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Final

from colosseum_core.trial.part import TrialPart

EXTRA_PARTS_VARIABLE: Final = "COLOSSEUM_TRIAL_PARTS"

# By arena record name: zero-argument callables returning the arena's parts, imported only when asked.
Offered = Mapping[str, Callable[[], tuple[TrialPart, ...]]]


def offered_parts(
    arenas: Offered, environ: Mapping[str, str]
) -> dict[str, Callable[[], tuple[TrialPart, ...]]]:
    """The arenas' parts, then the extra modules' (an arena in both offers both, the arenas' first)."""
    offered: dict[str, list[Callable[[], tuple[TrialPart, ...]]]] = {a: [f] for a, f in arenas.items()}
    for name in (m.strip() for m in environ.get(EXTRA_PARTS_VARIABLE, "").split(",")):
        if not name:
            continue
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise ValueError(f"${EXTRA_PARTS_VARIABLE}: module {name!r} cannot be imported ({exc})") from None
        extra = getattr(module, "TRIAL_PARTS", None)
        if not isinstance(extra, Mapping):
            raise ValueError(f"${EXTRA_PARTS_VARIABLE}: module {name!r} has no TRIAL_PARTS dict")
        for arena, parts in extra.items():
            offered.setdefault(arena, []).append(parts)

    def joined(makers: list[Callable[[], tuple[TrialPart, ...]]]) -> Callable[[], tuple[TrialPart, ...]]:
        return lambda: tuple(p for make in makers for p in make())

    return {arena: joined(makers) for arena, makers in offered.items()}


def parts_of(offered: Offered, arenas: Iterable[str] | None = None) -> tuple[TrialPart, ...]:
    """The parts of ``arenas`` (record names; every arena's by default), in the registry's order;
    ``ValueError`` naming an arena that offers none, and a part offered twice."""
    chosen = list(offered) if arenas is None else list(dict.fromkeys(arenas))
    unknown = [a for a in chosen if a not in offered]
    if unknown:
        known = ", ".join(offered) or "none yet"
        raise ValueError(f"--arena {unknown[0]}: no trial part of that arena (arenas with parts: {known})")
    parts: list[TrialPart] = []
    seen: set[tuple[str, str]] = set()
    for arena in chosen:
        for part in offered[arena]():
            key = (part.arena, part.part)
            if key in seen:
                raise ValueError(f"trial part {part.arena}/{part.part}: offered twice")
            seen.add(key)
            parts.append(part)
    return tuple(parts)
