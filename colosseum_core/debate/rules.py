"""Every versioned rule of the debate arena, recorded with what it produced."""

from __future__ import annotations

from typing import Final

# How a commitment names a strategy, and what a strategy may be (``strategy.py``).
COMPELLE_STRATEGY: Final = "COMPELLE-STRATEGY-1"
# The entry checks and their order (``entry/``): the registration window, the pinned revision, the
# intent panel's lopsided bar with the sitting king's exemption.
COMPELLE_ENTRY: Final = "COMPELLE-ENTRY-1"
