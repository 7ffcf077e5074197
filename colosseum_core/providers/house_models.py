"""The names of the house models, the arena's own deterministic players on the local sparring server.

A model name is a house family (a gladiator, panelist, debater, judge or searcher) followed by any
number of behaviour suffixes and at most one seed suffix, e.g. ``house-hash-sloppy-table-refuse-once``,
``house-hash-s7`` or ``house-judge-contrarian-stubborn`` (what each family and behaviour does is the
sparring server's, ``colosseum_standins/sparring/house.py`` and its siblings). Any behaviour
parses after any family; one a family does not read is ignored by it. The grammar lives with
the providers because both sides read it: the sparring server, to know what a request asks for, and
the boards, to show a house model's name readably; neither may import the other.
"""

from __future__ import annotations

import dataclasses
import re

# The key an arena sends a house model: the sparring server opens to any non-empty key, and a house
# player needs no secret.
HOUSE_KEY = "house"
GLADIATORS = ("house-coin", "house-hash", "house-contrarian")
# The debate arena's house players: an intent panelist (``house-intent``: reads a strategy, votes
# GOOD or BAD; ``-lenient`` only catches fake boundaries and token signals; ``-invalid-vote`` answers
# without a vote).
PANELISTS = ("house-intent",)
# Compelle's debaters (``house-debater``: argues its side of the motion in the strategy's style) and
# judges (``house-judge``: a two-line PRO or CON vote by a published heuristic, and deliberation), in
# ``colosseum_standins/sparring/debate_house.py``.
DEBATERS = ("house-debater",)
JUDGES = ("house-judge",)
# A stand-in for a live-search call (xAI's ``search_parameters``): trending controversies as JSON
# plus top-level citations, OpenAI protocol only (``colosseum_standins/sparring/search_house.py``).
SEARCHERS = ("house-search",)
# The chess event's house players (``house-chess``: a legal move by a seeded draw; ``-greedy`` takes
# the most valuable piece it can; ``-sloppy-san`` first answers in a lenient notation; ``-illegal``
# often tries a move the position does not allow; ``-stall`` is the silent one). Their moves come
# from the chess event's own code, which the sparring server is handed by the wiring (it knows no
# arena): ``colosseum_core/events/chess/house.py``.
CHESS_PLAYERS = ("house-chess",)
# The Solve-or-Object event's house solvers (``house-solver``: finds the item in the project's bank
# and is right three times in five; ``-sharp`` nine in ten; ``-credulous`` never objects;
# ``-paranoid`` objects to everything; ``-garbled`` never writes the reply's lines), handed to the
# sparring server by the wiring: ``colosseum_core/events/solve_or_object/house.py``.
SOLVERS = ("house-solver",)
# The challenge event's house authors (``house-author``: sound tasks; ``-subtle`` a defective task that
# still verifies; ``-lazy`` an accept-all checker; ``-hostile`` a hostile checker; ``-clockwork`` and
# ``-dicey`` checkers that decide by the clock or by chance; ``-malformed`` no task; as solvers
# ``-sharp``, ``-credulous``, ``-paranoid``) and reviewers (``house-reviewer``,
# ``-contrarian``): ``colosseum_core/events/challenges/house.py``.
AUTHORS = ("house-author", "house-reviewer")
HOUSE_FAMILIES = (*GLADIATORS, *PANELISTS, *DEBATERS, *JUDGES, *SEARCHERS, *CHESS_PLAYERS, *SOLVERS, *AUTHORS)
LAYOUTS = ("sloppy-table", "sloppy-json", "sloppy-prose")
BEHAVIOURS = (
    "refuse-once",
    "refuse",
    "stall",
    "no-seed",
    "no-top-p",
    *LAYOUTS,
    "sloppy-lower",
    "sloppy-paren",
    "sloppy-digits",
    "sloppy-dup",
    "sloppy-missing",
    "sloppy-eleven",
    "quote",
    "lenient",
    "invalid-vote",
    # Any family: every request answered 429 with Retry-After: 1.
    "ratelimit",
    # Debaters.
    "concede-short",
    "concede",
    "banned",
    "inject",
    "empty",
    "huge",
    # Judges.
    "hedge-always",
    "hedge",
    "contrarian",
    "stubborn",
    "foreign",
    # Search.
    "garbled",
    # Chess players.
    "greedy",
    "sloppy-san",
    "illegal",
    # Solvers.
    "sharp",
    "credulous",
    "paranoid",
    # Authors.
    "subtle",
    "lazy",
    "hostile",
    "clockwork",
    "dicey",
    "malformed",
)


# The seed suffix: digits without a leading zero, so each persona has exactly one name.
_SEED = re.compile(r"-s(0|[1-9][0-9]{0,8})(?=-|$)")


@dataclasses.dataclass(frozen=True)
class Persona:
    gladiator: str
    behaviours: frozenset[str]
    seed: int | None = None


def parse_model(name: str) -> Persona | None:
    """The house player, behaviours and seed a model name asks for; None if it names no house player."""
    for gladiator in sorted(HOUSE_FAMILIES, key=len, reverse=True):
        if name == gladiator or name.startswith(gladiator + "-"):
            rest = name[len(gladiator) :]
            break
    else:
        return None
    behaviours: set[str] = set()
    seed: int | None = None
    while rest:
        if (found := _SEED.match(rest)) is not None:
            if seed is not None:
                return None  # two seeds: no one persona
            seed = int(found.group(1))
            rest = rest[found.end() :]
            continue
        # Longest first, so "-refuse-once" is not read as "-refuse" followed by junk.
        for behaviour in sorted(BEHAVIOURS, key=len, reverse=True):
            token = "-" + behaviour
            if rest.startswith(token) and (len(rest) == len(token) or rest[len(token)] == "-"):
                behaviours.add(behaviour)
                rest = rest[len(token) :]
                break
        else:
            return None
    return Persona(gladiator, frozenset(behaviours), seed)
