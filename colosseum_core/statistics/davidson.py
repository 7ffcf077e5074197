"""Bradley–Terry–Davidson ratings (Davidson 1970): ties as their own outcome, for chess.

P(i beats j) = π_i/D_ij, P(draw) = ν√(π_iπ_j)/D_ij, D_ij = π_i + π_j + ν√(π_iπ_j). With θ = ln π,
d = θ_i − θ_j and λ = ln ν:

    p^W = e^{d/2}/Z, p^L = e^{−d/2}/Z, p^D = e^λ/Z,   Z = e^{d/2} + e^{−d/2} + e^λ
    ℓ(θ, λ) = Σ_i θ_i (s_i − n_i/2) + Tλ − Σ_{i<j} n_ij · logsumexp(d_ij/2, −d_ij/2, λ)
    g_i = s_i − Σ_j n_ij (p^W_ij + ½p^D_ij)          g_λ = T − Σ_{i<j} n_ij p^D_ij

ℓ is an exponential family in (d, λ), so the Fisher information is the negative Hessian and ℓ is
jointly concave: V_ij = n_ij ¼(p^W + p^L − (p^W − p^L)²), c_i = Σ_j n_ij ½(p^W − p^L)p^D,
h = Σ_{i<j} n_ij p^D(1 − p^D), L = diag(Σ_j V_ij) − V. Newton solves

    [[L + 11ᵀ, −c], [−cᵀ, h]] · [Δθ; Δλ] = [g; g_λ]

from θ = 0, ν = 2r/(1 − r) (r the draw rate; exact at θ = 0), halving t until ℓ does not
decrease (up to ℓ's rounding, see ``newton``), until max|t·(Δθ, Δλ)| < 1e-12. θ is centred to
mean 0 and put on the Elo scale of ``bradley_terry`` (P(i wins | decisive) = σ(d), so 400/ln 10
per nat keeps its meaning). Evalica's ``newman`` uses ν/2: convert before comparing.

Existence, checked before fitting, recorded in the status:
    not_strongly_connected   the "scored against" graph (``existence``) is not strongly connected:
                             θ is infinite; ratings NaN, components recorded.
    no_decisive_games        every game was drawn (or there were none): ν = ∞ and θ is not
                             identified; ratings NaN.
    separable                strongly connected, with draws and decisive games, and still no
                             finite fit: the draws and the decisive results are separated by
                             rating gaps (``existence``); ν → ∞ while the ratings spread.
                             Ratings NaN.
    no_draws                 no game was drawn: the supremum is at ν = 0 (λ = −∞), where the model
                             is Bradley–Terry on decisive games, and there θ is unique: the fit
                             reports that boundary MLE (ν = 0, θ = Bradley–Terry's), so flagged.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Final

import numpy as np

from colosseum_core.statistics.bradley_terry import (
    NOT_CONVERGED,
    NOT_STRONGLY_CONNECTED,
    OK,
    PRIOR_NONE,
    RatingBatch,
    check_prior,
    check_stacks,
    elo_scale,
    newton_bradley_terry,
)
from colosseum_core.statistics.existence import (
    DAVIDSON_SEPARATION_METHOD,
    MLE_EXISTENCE_METHOD,
    davidson_separable_many,
    strong_components,
    strongly_connected_many,
)
from colosseum_core.statistics.newton import NEWTON_METHOD, batched_newton
from colosseum_core.statistics.pairwise import PairBatch, PairCounts, PairLayout, pair_layout

DAVIDSON: Final = "COLOSSEUM-DAVIDSON-1"
NO_DRAWS: Final = "no_draws"
NO_DECISIVE_GAMES: Final = "no_decisive_games"
SEPARABLE: Final = "separable"
FINITE_STATUSES: Final = (OK, NO_DRAWS)
DAVIDSON_METHOD: Final = (
    "Bradley–Terry–Davidson: P(win) = e^{d/2}/Z, P(draw) = ν/Z, Z = e^{d/2} + e^{−d/2} + ν; "
    "ℓ = Σθ_i(s_i − n_i/2) + Tλ − Σ_{i<j} n_ij logsumexp(d/2, −d/2, λ), λ = ln ν; "
    f"joint {NEWTON_METHOD}, system [[L + 11ᵀ, −c], [−cᵀ, h]]·[Δθ; Δλ] = [g; g_λ], "
    "from θ = 0, ν = 2r/(1 − r); θ centred to mean 0; R = 1000 + 400/ln10·θ; "
    f"existence: {MLE_EXISTENCE_METHOD}, and 0 < draws < games for ν, and not separable "
    f"({DAVIDSON_SEPARATION_METHOD}) "
    "(no draws: boundary MLE ν = 0 with Bradley–Terry's θ, status no_draws; "
    "no decisive game: ratings NaN, status no_decisive_games; separable: ratings NaN, status separable)"
)


VIRTUAL_ENTRANT_TEXT: Final = (
    "newman-virtual-entrant: one win and one loss for every entrant against a virtual entrant, whose θ is "
    "dropped before centring (the log-likelihood and gradient are then the augmented table's, not reported)"
)


@dataclasses.dataclass(frozen=True)
class DavidsonFit:
    version: str
    method: str
    # "ok", "no_draws" (boundary ν = 0), "not_strongly_connected", "no_decisive_games",
    # "separable" or "not_converged"
    status: str
    theta: np.ndarray  # (p,) float64, mean 0; NaN unless the status is "ok" or "no_draws"
    ratings: np.ndarray  # (p,) float64, Elo scale
    nu: float  # ν; 0 for no_draws, NaN when not fitted
    log_nu: float  # λ = ln ν
    components: tuple[tuple[int, ...], ...]
    iterations: int
    log_likelihood: float  # at an interior solution (status "ok"); NaN otherwise
    max_gradient: float  # max |∂ℓ/∂(θ, λ)| there; NaN otherwise
    entrants: int
    games: int
    draws: int

    @property
    def ok(self) -> bool:
        return self.status in FINITE_STATUSES


# --------------------------------------------------------------------------------------------
# The solver


@dataclasses.dataclass(frozen=True)
class _PairCounts(PairBatch):
    """B tables as per-pair vectors (i < j): wins of i, wins of j, draws, games; and per entrant."""

    first_wins: np.ndarray  # (B, P)
    second_wins: np.ndarray  # (B, P)
    draws: np.ndarray  # (B, P)
    games: np.ndarray  # (B, P)
    points: np.ndarray  # (B, p): s_i
    excess: np.ndarray  # (B, p): s_i − n_i/2
    total_draws: np.ndarray  # (B,)


def _pair_counts(wins: np.ndarray, draws: np.ndarray) -> _PairCounts:
    games = wins + np.swapaxes(wins, 1, 2) + draws
    layout = pair_layout(wins.shape[1])
    first_wins, second_wins, drawn = layout.upper(wins), layout.lower(wins), layout.upper(draws)
    points = (wins + 0.5 * draws).sum(axis=2)
    return _PairCounts(
        layout=layout,
        first_wins=first_wins,
        second_wins=second_wins,
        draws=drawn,
        games=first_wins + second_wins + drawn,
        points=points,
        excess=points - 0.5 * games.sum(axis=2),
        total_draws=drawn.sum(axis=1),
    )


def _probabilities(
    theta: np.ndarray, log_nu: np.ndarray, layout: PairLayout
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(p^W, p^L, p^D, logsumexp(d/2, −d/2, λ)) per pair, with one exp of −|d|/2 (no overflow)."""
    half = 0.5 * (theta[:, layout.first_index] - theta[:, layout.second_index])
    q = np.exp(-np.abs(half))
    nu_q = np.exp(log_nu)[:, None] * q
    inverse = 1.0 / (1.0 + q * q + nu_q)  # Z = e^{|d|/2} · (1 + q² + νq)
    ahead, behind = inverse, q * q * inverse
    forward = half >= 0.0
    win = np.where(forward, ahead, behind)
    loss = np.where(forward, behind, ahead)
    return win, loss, nu_q * inverse, np.abs(half) - np.log(inverse)


def _log_likelihood(theta: np.ndarray, log_nu: np.ndarray, pairs: _PairCounts) -> np.ndarray:
    *_, lse = _probabilities(theta, log_nu, pairs.layout)
    return (theta * pairs.excess).sum(axis=1) + pairs.total_draws * log_nu - (pairs.games * lse).sum(axis=1)


def _gradient_and_system(
    theta: np.ndarray, log_nu: np.ndarray, pairs: _PairCounts
) -> tuple[np.ndarray, np.ndarray]:
    layout = pairs.layout
    replicates, p = theta.shape
    win, loss, draw, _ = _probabilities(theta, log_nu, layout)
    n = pairs.games
    gradient = np.empty((replicates, p + 1))
    gradient[:, :p] = pairs.points - layout.rows(n * (win + 0.5 * draw), n * (loss + 0.5 * draw))
    gradient[:, p] = pairs.total_draws - (n * draw).sum(axis=1)
    pair_weight = n * 0.25 * (win + loss - (win - loss) ** 2)
    weight = layout.table(pair_weight, pair_weight)
    spread = n * 0.5 * (win - loss) * draw
    cross = layout.rows(spread, -spread)
    system = np.empty((replicates, p + 1, p + 1))
    system[:, :p, :p] = 1.0 - weight  # the gauge: + 11ᵀ
    diagonal = np.arange(p)
    system[:, diagonal, diagonal] = 1.0 + weight.sum(axis=2)
    system[:, :p, p] = -cross
    system[:, p, :p] = -cross
    system[:, p, p] = (n * draw * (1.0 - draw)).sum(axis=1)
    return gradient, system


def newton_davidson(
    wins: np.ndarray, draws: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Joint Newton on B tables at once: (θ uncentred, λ, converged, iterations, ℓ).

    The caller has checked existence: every table is strongly connected with 0 < T < N.
    """
    replicates, p = wins.shape[0], wins.shape[1]
    pairs = _pair_counts(wins, draws)
    rate = pairs.total_draws / pairs.games.sum(axis=1)
    start = np.zeros((replicates, p + 1))
    start[:, p] = np.log(2.0 * rate / (1.0 - rate))

    def objective(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return _log_likelihood(x[:, :p], x[:, p], pairs.rows(rows))

    def derivatives(x: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _gradient_and_system(x[:, :p], x[:, p], pairs.rows(rows))

    result = batched_newton(start, objective, derivatives)
    return result.x[:, :p], result.x[:, p], result.converged, result.iterations, result.log_likelihood


def _fit_many(wins: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """(θ as solved, λ, statuses, iterations) for checked stacks."""
    replicates, p = wins.shape[0], wins.shape[1]
    theta = np.full((replicates, p), np.nan)
    log_nu = np.full(replicates, np.nan)
    iterations = np.zeros(replicates, dtype=np.int64)
    status = [NOT_STRONGLY_CONNECTED] * replicates
    connected = strongly_connected_many(wins, draws)
    total_draws = 0.5 * draws.sum(axis=(1, 2))
    total_games = wins.sum(axis=(1, 2)) + total_draws
    for index in np.flatnonzero(connected & (total_draws >= total_games)).tolist():
        status[index] = NO_DECISIVE_GAMES
        log_nu[index] = math.inf
    boundary = np.flatnonzero(connected & (total_draws == 0) & (total_games > 0))
    if boundary.size:
        solved, converged, steps, _ = newton_bradley_terry(wins[boundary])
        theta[boundary] = np.where(converged[:, None], solved, np.nan)
        log_nu[boundary] = -math.inf
        iterations[boundary] = steps
        for index, good in zip(boundary.tolist(), converged.tolist(), strict=True):
            status[index] = NO_DRAWS if good else NOT_CONVERGED
    inner = np.flatnonzero(connected & (total_draws > 0) & (total_draws < total_games))
    separable = inner[davidson_separable_many(wins[inner], draws[inner])] if inner.size else inner
    for index in separable.tolist():
        status[index] = SEPARABLE
    inner = np.setdiff1d(inner, separable)
    if inner.size:
        solved, lam, converged, steps, _ = newton_davidson(wins[inner], draws[inner])
        theta[inner] = np.where(converged[:, None], solved, np.nan)
        log_nu[inner] = np.where(converged, lam, np.nan)
        iterations[inner] = steps
        for index, good in zip(inner.tolist(), converged.tolist(), strict=True):
            status[index] = OK if good else NOT_CONVERGED
    return theta, log_nu, status, iterations


def _with_virtual_entrant(wins: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stacks with Newman's virtual entrant (index p): one win and one loss against every entrant.

    Every entrant then scored against it and it against every entrant, so the graph is strongly
    connected through it; its θ is dropped after the fit and the rest re-centred, which is the same
    as fixing it at θ = 0 (ratings are differences)."""
    replicates, p = wins.shape[0], wins.shape[1]
    grown = np.zeros((replicates, p + 1, p + 1))
    grown[:, :p, :p] = wins
    grown[:, :p, p] = 1.0
    grown[:, p, :p] = 1.0
    tied = np.zeros_like(grown)
    tied[:, :p, :p] = draws
    return grown, tied


def _fit_with_prior(
    wins: np.ndarray, draws: np.ndarray, prior: str
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    if check_prior(prior) == PRIOR_NONE:
        return _fit_many(wins, draws)
    theta, log_nu, status, iterations = _fit_many(*_with_virtual_entrant(wins, draws))
    return theta[:, :-1], log_nu, status, iterations


def fit_davidson_many(wins: object, draws: object, *, prior: str = PRIOR_NONE) -> RatingBatch:
    """Fits of B tables W (B, p, p) and T (B, p, p) at once; ``log_nu`` holds each λ = ln ν."""
    win_stack, draw_stack = check_stacks(wins, draws)
    theta, log_nu, status, iterations = _fit_with_prior(win_stack, draw_stack, prior)
    return RatingBatch(
        theta=theta - theta.mean(axis=1, keepdims=True),
        status=tuple(status),
        iterations=iterations,
        log_nu=log_nu,
    )


def fit_davidson(counts: PairCounts, *, prior: str = PRIOR_NONE) -> DavidsonFit:
    """The Davidson fit of one table, existence checked first (see the module docstring); with
    ``prior`` "newman-virtual-entrant", every entrant's one win and one loss against a virtual
    entrant (``bradley_terry``'s prior) keep every rating finite, and the fit says so in its method."""
    if not isinstance(counts, PairCounts):
        raise ValueError(f"counts must be PairCounts, not {type(counts).__name__}")
    wins, draws = counts.wins.astype(np.float64)[None], counts.draws.astype(np.float64)[None]
    solved, log_nu, status, iterations = _fit_with_prior(wins, draws, prior)
    theta = solved[0] - solved[0].mean()
    lam = float(log_nu[0])
    loglik, gradient = math.nan, math.nan
    if status[0] == OK and prior == PRIOR_NONE:
        pairs = _pair_counts(wins, draws)
        loglik = float(_log_likelihood(theta[None], log_nu, pairs)[0])
        g, _ = _gradient_and_system(theta[None], log_nu, pairs)
        gradient = float(np.abs(g).max())
    return DavidsonFit(
        version=DAVIDSON,
        method=DAVIDSON_METHOD
        if prior == PRIOR_NONE
        else f"{DAVIDSON_METHOD}; prior: {VIRTUAL_ENTRANT_TEXT}",
        status=status[0],
        theta=theta,
        ratings=elo_scale(theta),
        nu=math.exp(lam) if not math.isnan(lam) else math.nan,
        log_nu=lam,
        components=strong_components(counts),
        iterations=int(iterations[0]),
        log_likelihood=loglik,
        max_gradient=gradient,
        entrants=counts.entrants,
        games=counts.total_games,
        draws=counts.total_draws,
    )
