"""The card selection rules, SLATE-LAWS-3.7, as pure functions over the verbatim market table.

Stage 2 of a card. One module per rule, named for it, each a small polars expression or frame
function; ``card`` runs them in their published order. The price at seal and its doubt are
``pricing``'s (scoring reads the same price), the daily rotation and its labels ``rotation``'s, and
``audit`` re-judges a sealed card's selection from the published rules with code of its own.

Imported by: the later stages, the arena's table contracts (``schemas``), the wiring and commands,
the benchmarks and the tests; it imports the arena's top modules and the sweep.
"""

from __future__ import annotations

from colosseum_core.forecast.selection.card import CARD_COLUMNS, VERDICT_SCHEMA, Selection, select_card
from colosseum_core.forecast.selection.names import EXCLUDED, RULE_ORDER, RULES_VERSION, SELECTED
from colosseum_core.forecast.selection.one_of_a_kind import READINGS as ONE_OF_A_KIND_READINGS
from colosseum_core.forecast.selection.one_of_a_kind import reading_for, reading_of
from colosseum_core.forecast.selection.pricing import doubt_bits
from colosseum_core.forecast.selection.rotation import rotate, rotation_offset
from colosseum_core.forecast.selection.the_cut import CARD_SIZE
from colosseum_core.stems import question_stem

__all__ = [
    "CARD_COLUMNS",
    "CARD_SIZE",
    "EXCLUDED",
    "ONE_OF_A_KIND_READINGS",
    "RULES_VERSION",
    "RULE_ORDER",
    "SELECTED",
    "VERDICT_SCHEMA",
    "Selection",
    "doubt_bits",
    "question_stem",
    "reading_for",
    "reading_of",
    "rotate",
    "rotation_offset",
    "select_card",
]
