"""The rule names of SLATE-LAWS-3.7, in their fixed, published order.

A name is what the record carries in a verdict's ``rule`` column: stable across releases of the
code, changed only with the rules' version.
"""

from __future__ import annotations

from typing import Final

from colosseum_core.forecast.rules import SLATE_LAWS

RULES_VERSION: Final = SLATE_LAWS

MALFORMED: Final = "malformed"
OPEN: Final = "open"
GRADEABLE: Final = "gradeable"
PRICED: Final = "priced"
TOMORROW_ONLY: Final = "tomorrow_only"
SETTLES_SOON: Final = "settles_soon"
REAL_MONEY: Final = "real_money"
ONCE_EVER: Final = "once_ever"
ONE_PER_FAMILY: Final = "one_per_family"
ONE_OF_A_KIND: Final = "one_of_a_kind"
THE_CUT: Final = "the_cut"

# The ranking by doubt runs between ONCE_EVER and ONE_PER_FAMILY; it excludes nothing itself.
RULE_ORDER: Final = (
    MALFORMED,
    OPEN,
    GRADEABLE,
    PRICED,
    TOMORROW_ONLY,
    SETTLES_SOON,
    REAL_MONEY,
    ONCE_EVER,
    ONE_PER_FAMILY,
    ONE_OF_A_KIND,
    THE_CUT,
)

SELECTED: Final = "selected"
EXCLUDED: Final = "excluded"
