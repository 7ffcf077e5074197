"""The title bar: an exact one-sided binomial test at α = 1/100, in integers.

Draws are dropped; n = decided games, k = the challenger's wins. H0: p = ½ against H1: p > ½,
p-value = P(X ≥ k) = 2^{−n} Σ_{x=k}^{n} C(n, x), X ~ Bin(n, ½). The challenger clears the bar iff

    alpha_den · Σ_{x≥k} C(n, x) ≤ alpha_num · 2ⁿ

an exact comparison of integers (no float p-value near the threshold can flip it). The bar is
k*(n) = min{k : the inequality holds}, from the realised n; None when no k ≤ n suffices (at
α = 1/100, every n ≤ 6: even n wins of n have probability 2^{−n} > 1/100). A draw-heavy match
therefore cannot change the title: 10 draws and 4–1 in decided games is n = 5, no bar.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Final

from colosseum_core.statistics._checks import whole

TITLE_BAR: Final = "COLOSSEUM-TITLE-BAR-1"
TITLE_BAR_METHOD: Final = (
    "exact one-sided binomial test, draws dropped: n = decided games, k = challenger's wins; "
    "clears iff alpha_den·Σ_{x≥k} C(n,x) ≤ alpha_num·2ⁿ (integers); bar k*(n) = least such k, "
    "none when no k ≤ n clears"
)


def _alpha(alpha_num: object, alpha_den: object) -> tuple[int, int]:
    num, den = whole(alpha_num, "alpha_num"), whole(alpha_den, "alpha_den")
    if den < 1:
        raise ValueError(f"alpha_den must be at least 1, not {alpha_den!r}")
    if not 0 < num < den:
        raise ValueError(f"alpha = alpha_num/alpha_den must be strictly between 0 and 1, not {num}/{den}")
    return num, den


def _decided(n: object) -> int:
    count = whole(n, "n")
    if count < 0:
        raise ValueError(f"n (decided games) must be non-negative, not {n!r}")
    return count


@functools.lru_cache(maxsize=64)
def _tails(n: int) -> tuple[int, ...]:
    """tails[k] = Σ_{x=k}^{n} C(n, x) for k = 0..n+1, in exact integers."""
    row = [1] * (n + 1)
    for x in range(n):  # C(n, x+1) = C(n, x)·(n − x)/(x + 1), exact
        row[x + 1] = row[x] * (n - x) // (x + 1)
    tails = [0] * (n + 2)
    for x in range(n, -1, -1):
        tails[x] = tails[x + 1] + row[x]
    return tuple(tails)


def upper_tail(k: int, n: int) -> int:
    """Σ_{x=k}^{n} C(n, x): 2ⁿ times the one-sided p-value."""
    count = _decided(n)
    wins = whole(k, "k")
    if not 0 <= wins <= count:
        raise ValueError(f"k (wins) must be in 0..n = 0..{count}, not {k!r}")
    return _tails(count)[wins]


def wins_clear_bar(k: int, n: int, alpha_num: int = 1, alpha_den: int = 100) -> bool:
    """Do k wins in n decided games clear the bar: alpha_den·Σ_{x≥k} C(n,x) ≤ alpha_num·2ⁿ?"""
    num, den = _alpha(alpha_num, alpha_den)
    tail = upper_tail(k, n)
    return den * tail <= num * 2 ** int(n)


def title_bar(n: int, alpha_num: int = 1, alpha_den: int = 100) -> int | None:
    """The least k that clears the bar over n decided games, or None when none does."""
    num, den = _alpha(alpha_num, alpha_den)
    count = _decided(n)
    tails = _tails(count)
    limit = num * 2**count
    # The tail falls as k grows: walk down from k = n while k still clears.
    bar = None
    for k in range(count, -1, -1):
        if den * tails[k] > limit:
            break
        bar = k
    return bar


@dataclasses.dataclass(frozen=True)
class TitleFight:
    version: str
    method: str
    challenger_wins: int  # k
    king_wins: int
    decided: int  # n = k + king's wins; draws are not counted
    alpha_num: int
    alpha_den: int
    bar: int | None  # k*(n)
    tail: int  # Σ_{x≥k} C(n,x); the p-value is tail / 2ⁿ
    challenger_takes_title: bool

    @property
    def p_value(self) -> float:
        return self.tail / 2**self.decided


def title_fight(challenger_wins: int, king_wins: int, alpha_num: int = 1, alpha_den: int = 100) -> TitleFight:
    """The title fight's decided games judged by the bar, with what decided it."""
    k, lost = whole(challenger_wins, "challenger_wins"), whole(king_wins, "king_wins")
    if k < 0 or lost < 0:
        raise ValueError(f"wins must be non-negative, not challenger {challenger_wins!r}, king {king_wins!r}")
    num, den = _alpha(alpha_num, alpha_den)
    n = k + lost
    return TitleFight(
        version=TITLE_BAR,
        method=TITLE_BAR_METHOD,
        challenger_wins=k,
        king_wins=lost,
        decided=n,
        alpha_num=num,
        alpha_den=den,
        bar=title_bar(n, num, den),
        tail=upper_tail(k, n),
        challenger_takes_title=wins_clear_bar(k, n, num, den),
    )
