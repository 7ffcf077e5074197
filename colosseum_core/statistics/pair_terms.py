"""Bradley–Terry's per-pair arithmetic and table placement, compiled (numba), with numpy's bits.

A batch of Newton steps spends most of its time outside the transcendental calls: gathering
θ_i − θ_j, combining a dozen (B, P) temporaries, and scattering pair values into (B, p, p) tables
with fancy indexing. Those are done here in one pass each, with the same IEEE operations, in the
same order, on the same values as the numpy expressions they replace (``bradley_terry`` keeps the
expressions in its comments; ``tests/statistics/test_ratings_compiled.py`` keeps them as the oracle and checks
every kernel, and whole Newton fits, bit for bit):

- only element-wise +, −, ×, ÷ and comparisons, which IEEE fixes to the bit (numba's default
  arithmetic is strict: no fast-math, no fused multiply-adds);
- no transcendental function: e^x and ln(1 + x) stay numpy's, whose SIMD implementations differ
  from libm's on some CPUs;
- no sum: the row sums stay numpy's pairwise sums over the tables placed here.

Compiled as ``compiled`` says; imported only when a Bradley–Terry fit runs.
"""

from __future__ import annotations

import numpy as np

from colosseum_core.statistics.compiled import compiled


@compiled
def _differences(
    theta: np.ndarray, first: np.ndarray, second: np.ndarray, d: np.ndarray, minus_abs: np.ndarray
) -> None:
    for row in range(d.shape[0]):
        for pair in range(d.shape[1]):
            value = theta[row, first[pair]] - theta[row, second[pair]]
            d[row, pair] = value
            minus_abs[row, pair] = -abs(value)


def differences(theta: np.ndarray, first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(d, −|d|) with d[b, k] = θ[b, first[k]] − θ[b, second[k]], both (B, P) float64."""
    shape = (theta.shape[0], first.shape[0])
    d, minus_abs = np.empty(shape), np.empty(shape)
    _differences(np.ascontiguousarray(theta, dtype=np.float64), first, second, d, minus_abs)
    return d, minus_abs


@compiled
def _likelihood_terms(
    d: np.ndarray, soft: np.ndarray, plus: np.ndarray, minus: np.ndarray, games: np.ndarray, out: np.ndarray
) -> None:
    for row in range(d.shape[0]):
        for pair in range(d.shape[1]):
            value = d[row, pair]
            # np.maximum(x, 0.0): x unless x < 0, so NaN and −0.0 pass through as numpy's do
            lost = -value
            if lost < 0.0:
                lost = 0.0
            won = value
            if won < 0.0:
                won = 0.0
            linear = plus[row, pair] * lost + minus[row, pair] * won
            out[row, pair] = linear + games[row, pair] * soft[row, pair]


def likelihood_terms(
    d: np.ndarray, soft: np.ndarray, plus: np.ndarray, minus: np.ndarray, games: np.ndarray
) -> np.ndarray:
    """S⁺·max(−d, 0) + S⁻·max(d, 0) + n·soft per pair, evaluated left to right, (B, P)."""
    out = np.empty(d.shape)
    _likelihood_terms(d, soft, plus, minus, games, out)
    return out


@compiled
def _derivative_tables(
    d: np.ndarray,
    q: np.ndarray,
    games: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    expected: np.ndarray,
    weight: np.ndarray,
) -> None:
    for row in range(d.shape[0]):
        for pair in range(d.shape[1]):
            i = first[pair]
            j = second[pair]
            n = games[row, pair]
            e = q[row, pair]
            rise = 1.0 + e
            sigma = 1.0 / rise if d[row, pair] >= 0.0 else e / rise
            points = n * sigma
            expected[row, i, j] = points
            expected[row, j, i] = n - points
            pair_weight = -(n * e / (rise * rise))
            weight[row, i, j] = pair_weight
            weight[row, j, i] = pair_weight


def derivative_tables(
    d: np.ndarray, q: np.ndarray, games: np.ndarray, first: np.ndarray, second: np.ndarray, entrants: int
) -> tuple[np.ndarray, np.ndarray]:
    """The two (B, p, p) tables the gradient and the Newton system are row sums of.

    With σ = 1/(1 + q) where d ≥ 0 else q/(1 + q) and E = n·σ: expected points [i, j] = E and
    [j, i] = n − E; the negated pair weight −n·q/(1 + q)² at [i, j] and [j, i]; zero diagonals.
    """
    shape = (d.shape[0], entrants, entrants)
    expected, weight = np.zeros(shape), np.zeros(shape)
    _derivative_tables(d, q, games, first, second, expected, weight)
    return expected, weight
