"""House players: the arenas' own deterministic players, which the local sparring server hosts.

A model name is a house family followed by any number of behaviour suffixes and at most one seed
suffix, e.g. ``house-hash-sloppy-table-refuse-once``, ``house-hash-s7`` or
``house-judge-contrarian-stubborn``. Each arena brings its own families, with the behaviours they
read and how they reply (a :class:`HouseFamily`: the forecast's gladiators in
``forecast/answering/house.py``, the debate's in ``debate/house/``, each kind of event's beside its
rules), and the arenas' registry hands them all to the sparring server
(``colosseum_core.arenas.sparring_houses``). The server's own behaviours (refusals, stalls, refused
settings, rate limits) any family shows. Any behaviour parses after any family; one a family does not
read is ignored by it.

The grammar lives with the providers, knowing no family, because both sides read it: the sparring
server, to know what a request asks for, and the boards, to show a house model's name readably.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from colosseum_core.providers.adapters import PROTOCOLS

# The key an arena sends a house model: the sparring server opens to any non-empty key, and a house
# player needs no secret.
HOUSE_KEY = "house"
# The sparring server's own behaviours, which every family shows: ``-refuse-once`` (the first request
# for a packet refused as overloaded), ``-refuse`` (always refused), ``-stall`` (no answer in time),
# ``-no-seed`` and ``-no-top-p`` (that setting refused), ``-ratelimit`` (every request answered 429
# with Retry-After: 1); and the odd replies a provider sends inside a 200 (each protocol's shapes are
# in ``colosseum_standins/sparring/server.py``): ``-declines`` (a policy refusal), ``-filtered`` (the
# provider's safety filter stops the reply) and ``-tool-call`` (a tool call instead of text).
SERVER_BEHAVIOURS: Final = (
    "refuse-once",
    "refuse",
    "stall",
    "no-seed",
    "no-top-p",
    "ratelimit",
    "declines",
    "filtered",
    "tool-call",
)

# One turn of a conversation: (system | user | assistant, text).
Turn = tuple[str, str]


@dataclasses.dataclass(frozen=True)
class Persona:
    gladiator: str
    behaviours: frozenset[str]
    seed: int | None = None


@dataclasses.dataclass(frozen=True)
class HouseAsk:
    """One request to a house player, as the sparring server read it from any of the protocols."""

    persona: Persona
    model: str
    # The user turns' text, and the whole conversation in order, system instructions first.
    text: str
    conversation: Sequence[Turn]
    # The sampling settings sent, by their canonical names (temperature, top_p, max_tokens, seed).
    settings: Mapping[str, Any]
    # The request's live-search parameters (xAI's ``search_parameters``); empty when none were sent.
    search: Mapping[str, Any]
    # The server's injected clock, for a family that reads the day (live search); read only when asked.
    clock: Callable[[], dt.datetime]


@dataclasses.dataclass(frozen=True)
class Cited:
    """A reply with its sources, as live search answers (xAI's top-level ``citations``)."""

    text: str
    citations: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class HouseFamily:
    """A family of house players an arena brings to the sparring server. ``reply`` answers a request
    (its text, or a :class:`Cited`); ``behaviours`` are the suffixes it reads beyond the server's own;
    ``keyed_by_user_text``: the reply's id is keyed by the user turns' text alone rather than by the
    whole conversation (what every recorded forecast and intent reply was identified by);
    ``protocols``: the protocols that serve it (live search is OpenAI-compatible only, as xAI's API
    is: the others answer its names with their 404)."""

    name: str
    reply: Callable[[HouseAsk], str | Cited]
    behaviours: tuple[str, ...] = ()
    keyed_by_user_text: bool = False
    protocols: tuple[str, ...] = PROTOCOLS


def conversational(reply: Callable[[Persona, list[Turn]], str]) -> Callable[[HouseAsk], str]:
    """A family's reply that reads only the persona and the whole conversation."""

    def answer(ask: HouseAsk) -> str:
        return reply(ask.persona, list(ask.conversation))

    return answer


def behaviours_of(families: Iterable[HouseFamily]) -> tuple[str, ...]:
    """The server's behaviours, then every family's, each once, in order."""
    return tuple(dict.fromkeys((*SERVER_BEHAVIOURS, *(b for f in families for b in f.behaviours))))


# The seed suffix: digits without a leading zero, so each persona has exactly one name.
_SEED = re.compile(r"-s(0|[1-9][0-9]{0,8})(?=-|$)")


def parse_model(name: str, families: Iterable[HouseFamily]) -> Persona | None:
    """The house player, behaviours and seed a model name asks for among ``families``; None if it
    names none of them."""
    families = tuple(families)
    for gladiator in sorted((f.name for f in families), key=len, reverse=True):
        if name == gladiator or name.startswith(gladiator + "-"):
            rest = name[len(gladiator) :]
            break
    else:
        return None
    behaviours: set[str] = set()
    seed: int | None = None
    known = behaviours_of(families)
    while rest:
        if (found := _SEED.match(rest)) is not None:
            if seed is not None:
                return None  # two seeds: no one persona
            seed = int(found.group(1))
            rest = rest[found.end() :]
            continue
        # Longest first, so "-refuse-once" is not read as "-refuse" followed by junk.
        for behaviour in sorted(known, key=len, reverse=True):
            token = "-" + behaviour
            if rest.startswith(token) and (len(rest) == len(token) or rest[len(token)] == "-"):
                behaviours.add(behaviour)
                rest = rest[len(token) :]
                break
        else:
            return None
    return Persona(gladiator, frozenset(behaviours), seed)
