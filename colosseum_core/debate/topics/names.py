"""The topic rules' names, COMPELLE-TOPICS-1: the sources in their published order, their caps, and the
rules in the order they judge a candidate.

A name is what the record carries in a candidate's ``rule`` column: stable across releases of the
code, changed only with the rules' version.

The order of sources, and what each may bring to a rotation of ``ROTATION_SIZE`` motions:

1. market items, Polymarket and Kalshi together, most 24 h volume first (ties by source, then
   source id), at most ``MARKET_CAP``. Each exchange's volume is taken as it publishes it:
   Polymarket's in dollars, Kalshi's in contracts (each a dollar of notional), compared as they are;
2. web-search items in the order the search gave them, at most ``SEARCH_CAP``;
3. evergreen motions, in the rotation's turn of the versioned list, to fill the rotation.

The mix floats with what the markets and the search return: a source that failed or brought little
leaves more room for the evergreen list, which always fills the rotation to its size.
"""

from __future__ import annotations

from typing import Final

TOPICS_VERSION: Final = "COMPELLE-TOPICS-1"
ROTATION_SIZE: Final = 12
ROTATION_HOURS: Final = 6

POLYMARKET: Final = "polymarket"
KALSHI: Final = "kalshi"
SEARCH: Final = "search"
EVERGREEN: Final = "evergreen"
SOURCES: Final = (POLYMARKET, KALSHI, SEARCH, EVERGREEN)
MARKET_SOURCES: Final = (POLYMARKET, KALSHI)
# The three sources asked afresh for every rotation (the evergreen list is in the repository).
LIVE_SOURCES: Final = (POLYMARKET, KALSHI, SEARCH)

MARKET_CAP: Final = 6
SEARCH_CAP: Final = 3
# The tiers of the source order: (tier, its sources, its cap; None: whatever the rotation has left).
SOURCE_ORDER: Final[tuple[tuple[str, tuple[str, ...], int | None], ...]] = (
    ("markets", MARKET_SOURCES, MARKET_CAP),
    (SEARCH, (SEARCH,), SEARCH_CAP),
    (EVERGREEN, (EVERGREEN,), None),
)
TIER_OF_SOURCE: Final = {
    source: tier for tier, (_, sources, _) in enumerate(SOURCE_ORDER) for source in sources
}

DECIDED: Final = "decided"
PAST_END: Final = "past_end"
DUPLICATE: Final = "duplicate"
SOURCE_CAP: Final = "source_cap"
ROTATION_FULL: Final = "rotation_full"

# The filters run first, then the dedup (the method's order), then the caps and the fill.
RULE_ORDER: Final = (DECIDED, PAST_END, DUPLICATE, SOURCE_CAP, ROTATION_FULL)

KEPT: Final = "kept"
EXCLUDED: Final = "excluded"
