"""Bradley–Terry ratings with a draw counted as half a win (the Arena convention), by Newton's method.

Model: P(i beats j) = σ(θ_i − θ_j). With S_ij = W_ij + ½T_ij and n_ij games between i and j:

    ℓ(θ)  = Σ_{i≠j} S_ij ln σ(θ_i − θ_j)
    g_i   = s_i − Σ_j n_ij σ_ij                      (points minus expected points)
    −∇²ℓ  = L = diag(Σ_j V_ij) − V,  V_ij = n_ij σ_ij (1 − σ_ij)

Newton from θ = 0: solve (L + 11ᵀ)Δ = g (the 11ᵀ fixes the gauge: L1 = 0 and 1ᵀg = 0, so Δ is
the step with 1ᵀΔ = 0), θ ← θ + tΔ with t = 1, ½, ¼, … halved until ℓ does not decrease (up to
ℓ's own rounding, see ``newton``), until max|tΔ| < 1e-12. θ is then centred to mean 0 (sklearn's
unpenalised solution from 0 is the same) and put on the Elo scale R = 1000 + (400 / ln 10)·θ,
so 400 points are odds of 10 to 1.

Existence is checked before fitting (``existence``): when the "scored against" graph is not
strongly connected the MLE is infinite, and the fit says so (status ``not_strongly_connected``,
the components, NaN ratings) instead of returning whatever an optimiser stopped at. A caller
that wants finite ratings anyway asks for the prior explicitly, and it is recorded:

    prior = "newman-virtual-entrant": every entrant gets one win and one loss against a virtual
    entrant fixed at θ = 0 (Newman 2023, "Efficient computation of rankings from pairwise
    comparisons", §3: the logistic prior π/(1 + π)² on each strength). Two fictitious games an
    entrant; it makes every graph strongly connected through the virtual entrant and fixes the
    gauge itself, so the Newton system is L + D (D the prior's curvature), not L + 11ᵀ. The
    reported θ is still centred to mean 0 over the real entrants.

The batched solver fits B tables at once (arrays of shape (B, p, p)), each replicate stopping by
its own criterion, so a bootstrap's replicates are solved together. Every operation works row by
row (per-entrant sums along an axis, not BLAS products; every pair i < j in the layout, met or
not), so a table's fit is the same bits whichever tables share its batch.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Final

import numpy as np

from colosseum_core.statistics._checks import finite_number, whole
from colosseum_core.statistics.existence import (
    MLE_EXISTENCE_METHOD,
    strong_components,
    strongly_connected_scores,
)
from colosseum_core.statistics.newton import NEWTON_METHOD, batched_newton
from colosseum_core.statistics.pairwise import PairBatch, PairCounts, PairLayout, pair_layout

BRADLEY_TERRY: Final = "COLOSSEUM-BT-1"
ELO_CENTRE: Final = 1000.0
ELO_PER_NAT: Final = 400.0 / math.log(10.0)

PRIOR_NONE: Final = "none"
PRIOR_VIRTUAL_ENTRANT: Final = "newman-virtual-entrant"
PRIORS: Final = (PRIOR_NONE, PRIOR_VIRTUAL_ENTRANT)

OK: Final = "ok"
NOT_STRONGLY_CONNECTED: Final = "not_strongly_connected"
NOT_CONVERGED: Final = "not_converged"


def elo_scale(theta: np.ndarray, anchor: tuple[int, float] | None = None) -> np.ndarray:
    """R = 1000 + (400 / ln 10)·θ; with ``anchor`` = (entrant, rating), shifted so that entrant has it.

    Anchoring moves every replicate by its own anchor's value, so it changes interval widths:
    record it with the intervals when it is used.
    """
    ratings = ELO_CENTRE + ELO_PER_NAT * np.asarray(theta, dtype=np.float64)
    if anchor is None:
        return ratings
    entrant, rating = whole(anchor[0], "anchor entrant"), finite_number(anchor[1], "anchor rating")
    if not 0 <= entrant < ratings.shape[-1]:
        raise ValueError(f"anchor entrant {entrant} is outside [0, {ratings.shape[-1]})")
    return ratings + (rating - ratings[..., [entrant]])


def check_prior(prior: object) -> str:
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {PRIORS}, not {prior!r}")
    return str(prior)


def method_text(prior: str) -> str:
    prior_text = (
        "none (non-finite MLE reported as not_strongly_connected, ratings NaN)"
        if prior == PRIOR_NONE
        else "one win and one loss for every entrant against a virtual entrant fixed at θ = 0 (Newman)"
    )
    gauge = "(L + 11ᵀ)Δ = g" if prior == PRIOR_NONE else "(L + D)Δ = g with the prior's curvature D"
    return (
        "Bradley–Terry, draw = ½ win: ℓ(θ) = Σ_{i≠j} (W_ij + ½T_ij) ln σ(θ_i − θ_j); "
        f"{NEWTON_METHOD}, system {gauge}, from θ = 0; "
        "θ centred to mean 0; R = 1000 + 400/ln10·θ; "
        f"existence: {MLE_EXISTENCE_METHOD}; prior: {prior_text}"
    )


# --------------------------------------------------------------------------------------------
# Results


@dataclasses.dataclass(frozen=True)
class RatingBatch:
    """Fits of B tables: θ (B, p) centred, NaN where the status is not a finite fit."""

    theta: np.ndarray  # (B, p) float64
    status: tuple[str, ...]  # (B,)
    iterations: np.ndarray  # (B,) int64
    log_nu: np.ndarray | None = None  # (B,) float64, Davidson's ln ν; None for Bradley–Terry

    @property
    def ratings(self) -> np.ndarray:
        return elo_scale(self.theta)


@dataclasses.dataclass(frozen=True)
class BradleyTerryFit:
    version: str
    method: str
    status: str  # "ok", "not_strongly_connected" or "not_converged"
    theta: np.ndarray  # (p,) float64, mean 0; NaN unless status is "ok"
    ratings: np.ndarray  # (p,) float64, Elo scale
    components: tuple[tuple[int, ...], ...]  # of the data alone (a prior connects them anyway)
    prior: str
    iterations: int
    log_likelihood: float  # of the data (without the prior's fictitious games)
    max_gradient: float  # max |∂/∂θ| of the maximised objective at the solution
    entrants: int
    games: int
    draws: int

    @property
    def ok(self) -> bool:
        return self.status == OK


# --------------------------------------------------------------------------------------------
# The solver


def _check_stack(values: object, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 3 or array.shape[1] != array.shape[2]:
        raise ValueError(f"{name} must have shape (B, p, p), not {array.shape}")
    if array.size and array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold counts, not dtype {array.dtype}")
    array = array.astype(np.float64, copy=False)
    if array.size and not (np.isfinite(array).all() and array.min() >= 0):
        raise ValueError(f"{name} must hold finite non-negative counts")
    return array


def check_stacks(wins: object, draws: object) -> tuple[np.ndarray, np.ndarray]:
    """W and T as float64 stacks (B, p, p) of counts, of one shape; ValueError naming the one that is not."""
    win_stack, draw_stack = _check_stack(wins, "wins"), _check_stack(draws, "draws")
    if win_stack.shape != draw_stack.shape:
        raise ValueError(f"wins {win_stack.shape} and draws {draw_stack.shape} differ in shape")
    return win_stack, draw_stack


def _differences(theta: np.ndarray, layout: PairLayout) -> tuple[np.ndarray, np.ndarray]:
    """d_k = θ_i − θ_j per pair and q_k = e^{−|d_k|}, which both ℓ and its derivatives are made of:
    ``theta[:, first] - theta[:, second]`` and ``np.exp(-np.abs(d))``, the gather compiled."""
    from colosseum_core.statistics import pair_terms  # numba's import only when a fit runs

    d, minus_abs = pair_terms.differences(theta, layout.first_index, layout.second_index)
    return d, np.exp(minus_abs, out=minus_abs)


def _log_likelihood(
    theta: np.ndarray, pairs: _PairScores, prior: float, terms: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """ℓ per table: −Σ_k [S⁺ ln(1 + e^{−d}) + S⁻ ln(1 + e^{d})], without overflow for any d."""
    from colosseum_core.statistics import pair_terms

    d, q = terms if terms is not None else _differences(theta, pairs.layout)
    # S⁺·max(−d, 0) + S⁻·max(d, 0) + n·ln(1 + q), left to right, then numpy's row sums
    value = -pair_terms.likelihood_terms(d, np.log1p(q), pairs.plus, pairs.minus, pairs.games).sum(1)
    if prior:
        # One win and one loss against θ = 0: ln σ(θ) + ln σ(−θ) = −|θ| − 2 ln(1 + e^{−|θ|}).
        value -= prior * (np.abs(theta) + 2.0 * np.log1p(np.exp(-np.abs(theta)))).sum(axis=1)
    return value


def _gradient_and_system(
    theta: np.ndarray, pairs: _PairScores, prior: float, terms: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The gradient and the Newton system at θ; ``terms`` are (d, q) there when already made."""
    from colosseum_core.statistics import pair_terms

    layout = pairs.layout
    d, q = terms if terms is not None else _differences(theta, layout)
    # With σ = where(d ≥ 0, 1/(1 + q), q/(1 + q)) and E = n·σ: the tables
    # layout.table(E, n − E) and layout.table(−V, −V), V = n·q/(1 + q)² = n σ(1 − σ), symmetric in d.
    expected, system = pair_terms.derivative_tables(
        d, q, pairs.games, layout.first_index, layout.second_index, layout.entrants
    )
    gradient = pairs.points - expected.sum(axis=2)
    # −V off the diagonal, and on it Σ_j V_ij: a sum of the negated row is the negated sum, bit for bit.
    diagonal = np.arange(theta.shape[1])
    system[:, diagonal, diagonal] = -system.sum(axis=2)
    if not prior:
        system += 1.0  # the gauge: + 11ᵀ
    else:
        own = 1.0 / (1.0 + np.exp(-theta))
        gradient += prior * (1.0 - 2.0 * own)
        system[:, diagonal, diagonal] += 2.0 * prior * own * (1.0 - own)
    return gradient, system


class _LastDifferences:
    """The pair terms d and q of each table at the point ℓ was last evaluated at.

    Newton asks for the derivatives at the point it has just accepted, whose ℓ it evaluated: the
    terms are reused there (the same arrays, so the same bits) instead of computing e^{−|d|} again.
    """

    def __init__(self, tables: int, entrants: int, pairs: int) -> None:
        self.at = np.full((tables, entrants), np.nan)
        self.d = np.empty((tables, pairs))
        self.q = np.empty((tables, pairs))

    def evaluated(self, theta: np.ndarray, rows: np.ndarray, d: np.ndarray, q: np.ndarray) -> None:
        if rows.shape[0] == self.at.shape[0]:  # the whole batch, in order: keep the arrays themselves
            self.at, self.d, self.q = theta.copy(), d, q
        else:
            self.at[rows], self.d[rows], self.q[rows] = theta, d, q

    def at_point(self, theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        if not np.array_equal(self.at[rows], theta):
            return None
        if rows.shape[0] == self.at.shape[0]:  # the whole batch, in order: no copy
            return self.d, self.q
        return self.d[rows], self.q[rows]


@dataclasses.dataclass(frozen=True)
class _PairScores(PairBatch):
    """B tables as per-pair vectors: S⁺ = W_ij + ½T_ij, S⁻ = W_ji + ½T_ij, n = S⁺ + S⁻ (i < j)."""

    plus: np.ndarray  # (B, P)
    minus: np.ndarray  # (B, P)
    games: np.ndarray  # (B, P)
    points: np.ndarray  # (B, p)


def pair_scores(score: np.ndarray) -> _PairScores:
    """Per-pair vectors of a stack S (B, p, p) of W + ½T."""
    layout = pair_layout(score.shape[1])
    plus, minus = layout.upper(score), layout.lower(score)
    return _PairScores(layout, plus, minus, plus + minus, score.sum(axis=2))


def newton_bradley_terry(
    score: np.ndarray, prior: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Newton on B tables of S = W + ½T at once: (θ uncentred, converged, iterations, ℓ).

    The caller has checked existence (or asked for the prior): here every table has a finite MLE.
    """
    pairs = pair_scores(score)
    last = _LastDifferences(score.shape[0], score.shape[1], pairs.layout.pairs)

    def objective(theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        d, q = _differences(theta, pairs.layout)
        last.evaluated(theta, rows, d, q)
        return _log_likelihood(theta, pairs.rows(rows), prior, (d, q))

    def derivatives(theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _gradient_and_system(theta, pairs.rows(rows), prior, last.at_point(theta, rows))

    result = batched_newton(np.zeros((score.shape[0], score.shape[1])), objective, derivatives)
    return result.x, result.converged, result.iterations, result.log_likelihood


def _fit_scores(score: np.ndarray, prior_games: float) -> tuple[np.ndarray, list[str], np.ndarray]:
    """(θ as solved, i.e. not centred; statuses; iterations) for a checked stack of S = W + ½T."""
    replicates, p = score.shape[0], score.shape[1]
    connected = np.ones(replicates, dtype=bool) if prior_games else strongly_connected_scores(score)
    theta = np.full((replicates, p), np.nan)
    iterations = np.zeros(replicates, dtype=np.int64)
    status = [NOT_STRONGLY_CONNECTED] * replicates
    fit = np.flatnonzero(connected)
    if fit.size:
        solved, converged, steps, _ = newton_bradley_terry(
            score if fit.size == replicates else score[fit], prior_games
        )
        solved[~converged] = np.nan
        theta[fit] = solved
        iterations[fit] = steps
        for index, good in zip(fit.tolist(), converged.tolist(), strict=True):
            status[index] = OK if good else NOT_CONVERGED
    return theta, status, iterations


def _prior_games(prior: str) -> float:
    return 1.0 if prior == PRIOR_VIRTUAL_ENTRANT else 0.0


def fit_bradley_terry_many(wins: object, draws: object, *, prior: str = PRIOR_NONE) -> RatingBatch:
    """Fits of B tables W (B, p, p) and T (B, p, p) at once; each replicate equals its own fit."""
    prior = check_prior(prior)
    win_stack, draw_stack = check_stacks(wins, draws)
    return _batch(*_fit_scores(win_stack + 0.5 * draw_stack, _prior_games(prior)))


def fit_bradley_terry_scores(scores: object, *, prior: str = PRIOR_NONE) -> RatingBatch:
    """``fit_bradley_terry_many`` of tables given as S = W + ½T (B, p, p): all the fit reads of W
    and T. A bootstrap's replicates can be summed straight into S (``clustered_bootstrap``)."""
    prior = check_prior(prior)
    return _batch(*_fit_scores(_check_stack(scores, "scores"), _prior_games(prior)))


def _batch(theta: np.ndarray, status: list[str], iterations: np.ndarray) -> RatingBatch:
    return RatingBatch(
        theta=theta - theta.mean(axis=1, keepdims=True), status=tuple(status), iterations=iterations
    )


def fit_bradley_terry(counts: PairCounts, *, prior: str = PRIOR_NONE) -> BradleyTerryFit:
    """The Bradley–Terry fit of one table, existence checked first (see the module docstring)."""
    if not isinstance(counts, PairCounts):
        raise ValueError(f"counts must be PairCounts, not {type(counts).__name__}")
    prior = check_prior(prior)
    prior_games = _prior_games(prior)
    wins, draws = counts.wins.astype(np.float64)[None], counts.draws.astype(np.float64)[None]
    solved, status, iterations = _fit_scores(wins + 0.5 * draws, prior_games)
    theta = solved[0] - solved[0].mean()
    loglik, gradient = math.nan, math.nan
    if status[0] == OK:
        pairs = pair_scores(wins + 0.5 * draws)
        loglik = float(_log_likelihood(theta[None], pairs, 0.0)[0])
        # At the solution as solved: the prior is not gauge-free, its optimum is not centred.
        g, _ = _gradient_and_system(solved, pairs, prior_games)
        gradient = float(np.abs(g).max(initial=0.0))
    return BradleyTerryFit(
        version=BRADLEY_TERRY,
        method=method_text(prior),
        status=status[0],
        theta=theta,
        ratings=elo_scale(theta),
        components=strong_components(counts),
        prior=prior,
        iterations=int(iterations[0]),
        log_likelihood=loglik,
        max_gradient=gradient,
        entrants=counts.entrants,
        games=counts.total_games,
        draws=counts.total_draws,
    )
