"""Bradley–Terry and Davidson fits against independent oracles: scipy, choix, MM, Davidson's fixed point."""

from __future__ import annotations

import math

import choix
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog, minimize, root

from colosseum_core.statistics.bradley_terry import (
    BRADLEY_TERRY,
    ELO_PER_NAT,
    NOT_STRONGLY_CONNECTED,
    OK,
    PRIOR_VIRTUAL_ENTRANT,
    elo_scale,
    fit_bradley_terry,
    fit_bradley_terry_many,
)
from colosseum_core.statistics.davidson import (
    DAVIDSON,
    NO_DECISIVE_GAMES,
    NO_DRAWS,
    SEPARABLE,
    fit_davidson,
    fit_davidson_many,
)
from colosseum_core.statistics.pairwise import A_WON, B_WON, DRAW, PairCounts, pair_counts

ELO_TOLERANCE = 1e-6


def synthetic(
    seed: int, entrants: int = 6, games: int = 600, nu: float = 0.6
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Davidson games between spread strengths, every pair likely to meet."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.2, 1.2, entrants)
    a = rng.integers(0, entrants, games)
    b = (a + rng.integers(1, entrants, games)) % entrants
    half = (strength[a] - strength[b]) / 2
    win, loss = np.exp(half), np.exp(-half)
    total = win + loss + nu
    u = rng.random(games)
    outcome = np.where(u < win / total, A_WON, np.where(u < (win + nu) / total, DRAW, B_WON))
    return a, b, outcome


def elo(theta: np.ndarray) -> np.ndarray:
    centred = np.asarray(theta) - np.mean(theta)
    return 1000 + ELO_PER_NAT * centred


# --------------------------------------------------------------------------------------------
# Oracles, written from the models' definitions over single games (not from the pair counts)


def maximise(loss: object, start: np.ndarray) -> np.ndarray:
    """scipy's BFGS on the per-game negative log-likelihood, then its score equations solved by
    ``root``: BFGS alone stalls where ℓ's rounding (≈1e-13 of a sum over hundreds of games) hides
    the last improvements, leaving gradients near 1e-7 and ratings off by about 1e-6 Elo."""
    first = minimize(loss, start, jac=True, method="BFGS", options={"gtol": 1e-10})
    polished = root(lambda x: loss(x)[1], first.x, method="hybr", options={"xtol": 1e-15})  # type: ignore[operator]
    assert np.abs(loss(polished.x)[1]).max() < 1e-9  # type: ignore[operator]
    return polished.x


def scipy_bradley_terry(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, entrants: int) -> np.ndarray:
    score = outcome / 2.0  # a's points: 1, ½, 0

    def loss(free: np.ndarray) -> tuple[float, np.ndarray]:
        theta = np.concatenate([[0.0], free])
        d = theta[a] - theta[b]
        value = -(score * -np.logaddexp(0, -d) + (1 - score) * -np.logaddexp(0, d)).sum()
        residual = score - 1 / (1 + np.exp(-d))  # ∂ℓ/∂d per game
        grad = np.zeros(entrants)
        np.add.at(grad, a, -residual)
        np.add.at(grad, b, residual)
        return float(value), grad[1:]

    return np.concatenate([[0.0], maximise(loss, np.zeros(entrants - 1))])


def scipy_davidson(
    a: np.ndarray, b: np.ndarray, outcome: np.ndarray, entrants: int
) -> tuple[np.ndarray, float]:
    """P(win) = π_i/D, P(draw) = ν√(π_iπ_j)/D, D = π_i + π_j + ν√(π_iπ_j), per game, in logs."""

    def loss(free: np.ndarray) -> tuple[float, np.ndarray]:
        theta = np.concatenate([[0.0], free[:-1]])
        lam = free[-1]
        ta, tb = theta[a], theta[b]
        terms = np.stack([ta, tb, lam + (ta + tb) / 2])
        log_d = np.logaddexp.reduce(terms, axis=0)
        chosen = np.where(outcome == A_WON, ta, np.where(outcome == B_WON, tb, lam + (ta + tb) / 2))
        value = -(chosen - log_d).sum()
        p_a, p_b, p_draw = np.exp(terms - log_d)
        own_a = (outcome == A_WON) + 0.5 * (outcome == DRAW)
        own_b = (outcome == B_WON) + 0.5 * (outcome == DRAW)
        grad = np.zeros(entrants)
        np.add.at(grad, a, -(own_a - p_a - p_draw / 2))
        np.add.at(grad, b, -(own_b - p_b - p_draw / 2))
        grad_lam = -((outcome == DRAW) - p_draw).sum()
        return float(value), np.concatenate([grad[1:], [grad_lam]])

    solution = maximise(loss, np.zeros(entrants))
    return np.concatenate([[0.0], solution[:-1]]), float(math.exp(solution[-1]))


def mm_bradley_terry(counts: PairCounts) -> np.ndarray:
    """Hunter's MM: π_i ← s_i / Σ_j n_ij/(π_i + π_j), renormalised to geometric mean 1."""
    s, n = counts.points, counts.games.astype(float)
    pi = np.ones(counts.entrants)
    for _ in range(100_000):
        new = s / (n / (pi[:, None] + pi[None, :])).sum(axis=1)
        new /= np.exp(np.log(new).mean())
        if np.abs(np.log(new) - np.log(pi)).max() < 1e-14:
            break
        pi = new
    return np.log(new)


def davidson_fixed_point(counts: PairCounts) -> tuple[np.ndarray, float]:
    """Davidson (1970): π_i ← 2s_i / Σ_j n_ij(2 + ν√(π_j/π_i))/D_ij; ν ← T / Σ_{i<j} n_ij √(π_iπ_j)/D_ij."""
    s, n, draws = counts.points, counts.games.astype(float), counts.total_draws
    pi, nu = np.ones(counts.entrants), 1.0
    for _ in range(200_000):
        root = np.sqrt(pi[:, None] * pi[None, :])
        d = pi[:, None] + pi[None, :] + nu * root
        new = 2 * s / (n * (2 + nu * np.sqrt(pi[None, :] / pi[:, None])) / d).sum(axis=1)
        new /= np.exp(np.log(new).mean())
        root = np.sqrt(new[:, None] * new[None, :])
        d = new[:, None] + new[None, :] + nu * root
        new_nu = draws / (0.5 * (n * root / d).sum())
        done = np.abs(np.log(new) - np.log(pi)).max() < 1e-15 and abs(new_nu - nu) < 1e-15
        pi, nu = new, new_nu
        if done:
            break
    return np.log(pi), nu


def separable_by_linprog(counts: PairCounts) -> bool:
    """Is there δ with δ_i − δ_j ≥ 1 for every win of i over j and |δ_i − δ_j| ≤ 1 for every draw?"""
    rows, bounds = [], []
    p = counts.entrants
    for i in range(p):
        for j in range(p):
            if counts.wins[i, j]:
                row = np.zeros(p)
                row[j], row[i] = 1.0, -1.0  # δ_j − δ_i ≤ −1
                rows.append(row)
                bounds.append(-1.0)
            if counts.draws[i, j] and i != j:
                row = np.zeros(p)
                row[i], row[j] = 1.0, -1.0  # δ_i − δ_j ≤ 1
                rows.append(row)
                bounds.append(1.0)
    result = linprog(np.zeros(p), A_ub=np.array(rows), b_ub=np.array(bounds), bounds=[(None, None)] * p)
    return bool(result.status == 0)


# --------------------------------------------------------------------------------------------
# Bradley–Terry


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bradley_terry_is_the_likelihood_maximum(seed: int) -> None:
    a, b, o = synthetic(seed)
    counts = pair_counts(a, b, o, 6)
    fit = fit_bradley_terry(counts)
    assert fit.status == OK and fit.version == BRADLEY_TERRY
    assert np.abs(fit.ratings - elo(scipy_bradley_terry(a, b, o, 6))).max() < ELO_TOLERANCE
    assert np.abs(fit.ratings - elo(mm_bradley_terry(counts))).max() < ELO_TOLERANCE
    assert abs(fit.theta.mean()) < 1e-15 and fit.max_gradient < 1e-9
    assert 3 <= fit.iterations <= 12
    assert (fit.entrants, fit.games, fit.draws) == (6, 600, counts.total_draws)
    assert "draw = ½ win" in fit.method and "1e-12" in fit.method


@pytest.mark.parametrize("seed", [4, 5])
def test_bradley_terry_agrees_with_choix_on_doubled_counts(seed: int) -> None:
    # choix counts wins only: a draw as half a win is 2W + T, the counts doubled (the §4 checklist).
    a, b, o = synthetic(seed, entrants=7, games=900)
    counts = pair_counts(a, b, o, 7)
    comparisons = (2 * counts.wins + counts.draws).astype(float)
    theirs = choix.ilsr_pairwise_dense(comparisons, alpha=0.0, tol=1e-13, max_iter=10_000)
    assert np.abs(fit_bradley_terry(counts).ratings - elo(theirs)).max() < ELO_TOLERANCE
    data = [(int(i), int(j)) for i, j in zip(a[o == A_WON], b[o == A_WON], strict=True)]
    data += [(int(j), int(i)) for i, j in zip(a[o == B_WON], b[o == B_WON], strict=True)]
    data = [pair for pair in data for _ in range(2)]  # every win twice, every draw once each way
    data += [pair for i, j in zip(a[o == DRAW], b[o == DRAW], strict=True) for pair in ((i, j), (j, i))]
    theirs_too = choix.ilsr_pairwise(7, data, alpha=0.0, tol=1e-13, max_iter=10_000)
    assert np.abs(fit_bradley_terry(counts).ratings - elo(theirs_too)).max() < ELO_TOLERANCE


def test_a_draw_counts_as_half_a_win() -> None:
    # One draw is the same evidence as a win and a loss (halved): the fits coincide.
    drawn = pair_counts([0, 1, 1, 2], [1, 2, 0, 0], [DRAW, A_WON, A_WON, DRAW], 3)
    split = pair_counts(
        [0, 0, 1, 1, 1, 1, 2, 2], [1, 1, 2, 2, 0, 0, 0, 0], [A_WON, B_WON] + [A_WON] * 4 + [A_WON, B_WON], 3
    )
    assert np.abs(fit_bradley_terry(drawn).ratings - fit_bradley_terry(split).ratings).max() < 1e-9


def test_an_infinite_mle_is_reported_not_fitted() -> None:
    # 0 beat 1 and 2; 1 and 2 traded wins: {0} dominates, the MLE of 0 is +∞.
    counts = pair_counts([0, 0, 1, 2], [1, 2, 2, 1], [A_WON, A_WON, A_WON, A_WON], 3)
    fit = fit_bradley_terry(counts)
    assert fit.status == NOT_STRONGLY_CONNECTED and not fit.ok
    assert fit.components == ((0,), (1, 2))
    assert np.isnan(fit.ratings).all() and math.isnan(fit.log_likelihood) and fit.iterations == 0
    # The explicit prior makes it finite, and says so.
    prior = fit_bradley_terry(counts, prior=PRIOR_VIRTUAL_ENTRANT)
    assert prior.ok and prior.prior == PRIOR_VIRTUAL_ENTRANT and "virtual entrant" in prior.method
    assert prior.components == ((0,), (1, 2))  # of the data alone, still recorded
    assert prior.ratings[0] > prior.ratings[1] and prior.max_gradient < 1e-9


def test_the_prior_is_two_games_against_a_virtual_entrant_at_zero() -> None:
    a, b, o = synthetic(8, entrants=4, games=40)
    counts = pair_counts(a, b, o, 4)
    fit = fit_bradley_terry(counts, prior=PRIOR_VIRTUAL_ENTRANT)
    # The same data with a fifth entrant that beat and lost to everyone once, its θ pinned at 0.
    extra_a = np.concatenate([a, np.arange(4), np.arange(4)])
    extra_b = np.concatenate([b, np.full(4, 4), np.full(4, 4)])
    extra_o = np.concatenate([o, np.full(4, A_WON), np.full(4, B_WON)])
    score = extra_o / 2.0

    def loss(theta: np.ndarray) -> float:
        full = np.concatenate([theta, [0.0]])
        d = full[extra_a] - full[extra_b]
        return float((score * np.logaddexp(0, -d) + (1 - score) * np.logaddexp(0, d)).sum())

    pinned = minimize(loss, np.zeros(4), method="BFGS", options={"gtol": 1e-11}).x
    assert np.abs(fit.ratings - elo(pinned)).max() < 1e-5


def test_batches_equal_single_fits_and_keep_failures_apart() -> None:
    tables = [pair_counts(*synthetic(seed, entrants=5, games=200), 5) for seed in range(4)]
    broken = pair_counts([0, 0, 0, 0, 1, 2, 3], [1, 2, 3, 4, 2, 3, 4], [A_WON] * 7, 5)
    stack = [*tables[:2], broken, *tables[2:]]
    batch = fit_bradley_terry_many(np.stack([t.wins for t in stack]), np.stack([t.draws for t in stack]))
    assert batch.status == (OK, OK, NOT_STRONGLY_CONNECTED, OK, OK)
    assert np.isnan(batch.theta[2]).all()
    for row, table in zip([0, 1, 3, 4], tables, strict=True):
        assert np.array_equal(batch.ratings[row], fit_bradley_terry(table).ratings)  # the same bits
    assert batch.log_nu is None


def test_one_entrant_and_no_games() -> None:
    fit = fit_bradley_terry(PairCounts(np.zeros((1, 1, 3), dtype=np.int64)))
    assert fit.ok and fit.ratings.tolist() == [1000.0]
    nobody = fit_bradley_terry(PairCounts(np.zeros((3, 3, 3), dtype=np.int64)))
    assert nobody.status == NOT_STRONGLY_CONNECTED and nobody.components == ((0,), (1,), (2,))


def test_the_elo_scale_and_its_anchor() -> None:
    theta = np.array([-1.0, 0.0, 1.0])
    assert elo_scale(theta).tolist() == [1000 - 400 / math.log(10), 1000.0, 1000 + 400 / math.log(10)]
    anchored = elo_scale(theta, anchor=(0, 800.0))
    assert anchored[0] == 800.0 and anchored[2] - anchored[0] == pytest.approx(800 / math.log(10))
    with pytest.raises(ValueError, match="anchor entrant 3 is outside"):
        elo_scale(theta, anchor=(3, 800.0))


def test_bad_fit_input_is_refused() -> None:
    counts = pair_counts([0], [1], [DRAW], 2)
    with pytest.raises(ValueError, match="prior must be one of"):
        fit_bradley_terry(counts, prior="laplace")
    with pytest.raises(ValueError, match="counts must be PairCounts"):
        fit_bradley_terry(np.zeros((2, 2, 3)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="counts must be PairCounts"):
        fit_davidson([[1]])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"wins must have shape \(B, p, p\)"):
        fit_bradley_terry_many(np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="draws must hold finite non-negative counts"):
        fit_bradley_terry_many(np.zeros((1, 2, 2)), -np.ones((1, 2, 2)))
    with pytest.raises(ValueError, match="differ in shape"):
        fit_davidson_many(np.zeros((1, 2, 2)), np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="wins must hold counts"):
        fit_davidson_many(np.full((1, 2, 2), "x"), np.zeros((1, 2, 2)))


@st.composite
def connected_games(draw: st.DrawFn) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    entrants = draw(st.integers(2, 5))
    size = draw(st.integers(1, 30))
    a = np.array(draw(st.lists(st.integers(0, entrants - 1), min_size=size, max_size=size)))
    shift = np.array(draw(st.lists(st.integers(1, entrants - 1), min_size=size, max_size=size)))
    o = np.array(draw(st.lists(st.sampled_from([0, 1, 2]), min_size=size, max_size=size)))
    # A round of draws between neighbours keeps the graph strongly connected whatever else happened.
    ring = np.arange(entrants)
    a = np.concatenate([a, ring])
    b = np.concatenate([(a[:size] + shift) % entrants, (ring + 1) % entrants])
    return entrants, a, b, np.concatenate([o, np.full(entrants, DRAW)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(connected_games())
def test_properties_of_the_fits(data: tuple[int, np.ndarray, np.ndarray, np.ndarray]) -> None:
    entrants, a, b, o = data
    counts = pair_counts(a, b, o, entrants)
    bt, dv = fit_bradley_terry(counts), fit_davidson(counts)
    assert bt.ok and bt.max_gradient < 1e-8
    if counts.total_draws == counts.total_games:
        assert dv.status == NO_DECISIVE_GAMES and np.isnan(dv.ratings).all()
        return
    # The library's separability search against scipy's LP on the same constraints.
    assert (dv.status == SEPARABLE) == separable_by_linprog(counts)
    if dv.status == SEPARABLE:
        assert np.isnan(dv.ratings).all()
        return
    assert dv.status == OK and dv.max_gradient < 1e-8
    # Swapping every game's sides (a ↔ b, outcome mirrored) changes nothing in either model.
    mirrored = pair_counts(b, a, 2 - o, entrants)
    assert np.abs(fit_bradley_terry(mirrored).ratings - bt.ratings).max() < 1e-7
    assert np.abs(fit_davidson(mirrored).ratings - dv.ratings).max() < 1e-7
    # Relabelling the entrants relabels the ratings.
    perm = np.roll(np.arange(entrants), 1)
    relabelled = pair_counts(perm[a], perm[b], o, entrants)
    assert np.abs(fit_bradley_terry(relabelled).ratings[perm] - bt.ratings).max() < 1e-7
    assert np.abs(fit_davidson(relabelled).ratings[perm] - dv.ratings).max() < 1e-7


# --------------------------------------------------------------------------------------------
# Davidson


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_davidson_is_the_likelihood_maximum(seed: int) -> None:
    a, b, o = synthetic(seed, nu=0.5)
    counts = pair_counts(a, b, o, 6)
    fit = fit_davidson(counts)
    assert fit.status == OK and fit.version == DAVIDSON
    theta, nu = scipy_davidson(a, b, o, 6)
    assert np.abs(fit.ratings - elo(theta)).max() < ELO_TOLERANCE
    assert fit.nu == pytest.approx(nu, rel=1e-7)
    point, nu_fixed = davidson_fixed_point(counts)
    assert np.abs(fit.ratings - elo(point)).max() < ELO_TOLERANCE
    assert fit.nu == pytest.approx(nu_fixed, rel=1e-9)
    assert fit.max_gradient < 1e-9 and fit.log_nu == pytest.approx(math.log(fit.nu))
    assert 3 <= fit.iterations <= 12


def test_davidson_recovers_its_tie_parameter() -> None:
    a, b, o = synthetic(21, entrants=8, games=40_000, nu=0.26)
    fit = fit_davidson(pair_counts(a, b, o, 8))
    assert fit.nu == pytest.approx(0.26, rel=0.05)
    assert np.abs(np.diff(fit.theta) - 2.4 / 7).max() < 0.1  # the spread strengths, 0.34 apart


def test_davidson_without_draws_is_bradley_terry_on_the_boundary() -> None:
    a, b, o = synthetic(31, entrants=4, games=200)
    keep = o != DRAW
    counts = pair_counts(a[keep], b[keep], o[keep], 4)
    fit = fit_davidson(counts)
    assert fit.status == NO_DRAWS and fit.ok and fit.nu == 0.0 and fit.log_nu == -math.inf
    assert np.abs(fit.ratings - fit_bradley_terry(counts).ratings).max() < 1e-9
    assert "no_draws" in fit.method


def test_davidson_without_decisive_games_or_connection() -> None:
    drawn = fit_davidson(pair_counts([0, 1, 2], [1, 2, 0], [DRAW, DRAW, DRAW], 3))
    assert drawn.status == NO_DECISIVE_GAMES and not drawn.ok and np.isnan(drawn.ratings).all()
    assert drawn.nu == math.inf
    apart = fit_davidson(pair_counts([0, 0, 1], [1, 2, 2], [A_WON, A_WON, DRAW], 3))
    assert apart.status == NOT_STRONGLY_CONNECTED and apart.components == ((0,), (1, 2))
    assert np.isnan(apart.ratings).all() and math.isnan(apart.nu)


def test_separable_results_have_no_finite_davidson_fit() -> None:
    # Strongly connected, draws and a decisive game, and still the likelihood rises forever:
    # 1 beat 0 once; 0–1, 1–2 and 2–0 each drew once.
    counts = pair_counts([0, 0, 1, 2], [1, 1, 2, 0], [B_WON, DRAW, DRAW, DRAW], 3)
    fit = fit_davidson(counts)
    assert fit.status == SEPARABLE and not fit.ok and np.isnan(fit.ratings).all()
    assert fit.components == ((0, 1, 2),) and separable_by_linprog(counts)
    assert fit_bradley_terry(counts).ok  # Bradley–Terry has no ν to run away with

    def loglik(t: float) -> float:  # along δ = (−1, 1, 0)·t, λ = t: each game's exponent stays on top
        theta, lam = np.array([-t, t, 0.0]), t
        total = 0.0
        for i, j, outcome in ((0, 1, B_WON), (0, 1, DRAW), (1, 2, DRAW), (2, 0, DRAW)):
            exponents = [(theta[i] - theta[j]) / 2, (theta[j] - theta[i]) / 2, lam]
            own = {A_WON: exponents[0], B_WON: exponents[1], DRAW: exponents[2]}[outcome]
            total += own - float(np.logaddexp.reduce(exponents))
        return total

    values = [loglik(t) for t in (0.0, 2.0, 8.0, 32.0)]
    assert values == sorted(values) and values[-1] > values[0] + 1
    # A win the other way closes the gap: then the fit is finite.
    closed = counts + pair_counts([0], [1], [A_WON], 3)
    assert fit_davidson(closed).status == OK and not separable_by_linprog(closed)


def test_davidson_batches_equal_single_fits() -> None:
    tables = [pair_counts(*synthetic(seed, entrants=5, games=300), 5) for seed in range(3)]
    no_draws = pair_counts([0, 1, 2, 3, 4, 1], [1, 2, 3, 4, 0, 0], [A_WON] * 5 + [A_WON], 5)
    stack = [*tables, no_draws]
    batch = fit_davidson_many(np.stack([t.wins for t in stack]), np.stack([t.draws for t in stack]))
    assert batch.status == (OK, OK, OK, NO_DRAWS)
    assert batch.log_nu is not None and batch.log_nu[3] == -math.inf
    for row, table in enumerate(stack):
        single = fit_davidson(table)
        assert np.array_equal(batch.ratings[row], single.ratings)  # the same bits
        assert batch.log_nu[row] == single.log_nu


def test_davidson_is_safe_at_extreme_ratings() -> None:
    # 0 drew once with 1 and won every other game by far: θ spreads wide, nothing overflows.
    a = [0] * 400 + [1] * 400 + [0]
    b = [1] * 400 + [2] * 400 + [1]
    o = [A_WON] * 400 + [A_WON] * 399 + [B_WON] + [DRAW]
    counts = pair_counts(a, b, o, 3)
    fit = fit_davidson(counts)
    assert fit.status == OK and np.isfinite(fit.ratings).all() and fit.max_gradient < 1e-8
    bt = fit_bradley_terry(counts)
    assert bt.ok and np.isfinite(bt.ratings).all() and bt.max_gradient < 1e-8
