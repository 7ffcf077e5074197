"""The debate's topics, COMPELLE-TOPICS-1: a rotation of 12 motions every six hours (00, 06, 12, 18 UTC).

``collect`` asks the three live sources (Polymarket's and Kalshi's most traded markets, a web search
for trending controversies) and gathers their items as one table of ``candidates``; ``rotation``
judges every candidate under the published rules, one module per rule (``decided``, ``past_end``,
``duplicate``; the caps and the source order in ``names``), fills the rotation from the versioned
``evergreen`` list, and gives each motion its ``context`` parenthetical. Everything but the fetchers
is a pure function of plain data.

Imported by: the registry (``colosseum_core.arenas``: the topics' part of verify), the debate's
wiring and commands (the topics asset, schedule and sensor) and the tests. Of the arena it imports
only its records (``arena``) and prompts, beside the exchanges' and the providers' clients.
"""

from __future__ import annotations

from colosseum_core.debate.topics.candidates import (
    CANDIDATE_SCHEMA,
    evergreen_candidates,
    kalshi_candidates,
    polymarket_candidates,
    search_candidates,
)
from colosseum_core.debate.topics.collect import SOURCES_SCHEMA, TopicsCollected, collect_topics
from colosseum_core.debate.topics.evergreen import Evergreen, EvergreenError, load_evergreen
from colosseum_core.debate.topics.names import RULE_ORDER, TOPICS_VERSION
from colosseum_core.debate.topics.rotation import (
    MOTION_SCHEMA,
    VERDICT_SCHEMA,
    RotationKeyError,
    RotationPick,
    build_rotation,
    rotation_key,
    rotation_start,
)
from colosseum_core.debate.topics.search import SearchItem, SearchResult, ask_search

__all__ = [
    "CANDIDATE_SCHEMA",
    "MOTION_SCHEMA",
    "RULE_ORDER",
    "SOURCES_SCHEMA",
    "TOPICS_VERSION",
    "VERDICT_SCHEMA",
    "Evergreen",
    "EvergreenError",
    "RotationKeyError",
    "RotationPick",
    "SearchItem",
    "SearchResult",
    "TopicsCollected",
    "ask_search",
    "build_rotation",
    "collect_topics",
    "evergreen_candidates",
    "kalshi_candidates",
    "load_evergreen",
    "polymarket_candidates",
    "rotation_key",
    "rotation_start",
    "search_candidates",
]
