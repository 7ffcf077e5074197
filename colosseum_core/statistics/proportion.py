"""A proportion's 95 % interval (COLOSSEUM-WILSON-1): Wilson's score interval.

For a share of ``n`` outcomes (a win rate with draws as half a win, an agreement rate), Wilson's
interval keeps inside [0, 1] and stays honest at 0 and n, where the normal approximation's collapses
to a point; it is what a trial of a few dozen games can say. No outcome: no value and no interval.
"""

from __future__ import annotations

import math
from typing import Final

WILSON: Final = "COLOSSEUM-WILSON-1"
Z_95: Final = 1.959963984540054


def wilson_interval(
    successes: float, n: int, z: float = Z_95
) -> tuple[float | None, float | None, float | None]:
    """(the share, its low, its high) of ``successes`` out of ``n``; (None, None, None) when ``n`` is 0.
    ``successes`` may be fractional (a draw counts half)."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"{successes!r} successes of {n!r} is not a proportion")
    if n == 0:
        return None, None, None
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return p, max(0.0, centre - half), min(1.0, centre + half)
