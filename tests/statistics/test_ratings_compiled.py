"""The statistics library's compiled loops give the bits of the numpy expressions they replaced.

A sealed epoch records its Bradley–Terry intervals, and re-running it must reproduce the same
bytes, so the compiled pair arithmetic (``pair_terms``) is held to the numpy it replaced, kept
here as the oracle: element by element, and through whole Newton fits.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from colosseum_core.statistics import pair_terms
from colosseum_core.statistics.bradley_terry import newton_bradley_terry, pair_scores
from colosseum_core.statistics.newton import batched_newton
from colosseum_core.statistics.pairwise import pair_layout

# --------------------------------------------------------------------------------------------
# The numpy expressions the compiled loops replaced (bradley_terry before pair_terms)


def numpy_differences(
    theta: np.ndarray, first: np.ndarray, second: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    d = theta[:, first] - theta[:, second]
    return d, np.exp(-np.abs(d))


def numpy_likelihood(theta: np.ndarray, score: np.ndarray, prior: float) -> np.ndarray:
    pairs = pair_scores(score)
    d, q = numpy_differences(theta, pairs.layout.first_index, pairs.layout.second_index)
    soft = np.log1p(q)
    value = -(pairs.plus * np.maximum(-d, 0.0) + pairs.minus * np.maximum(d, 0.0) + pairs.games * soft).sum(1)
    if prior:
        value -= prior * (np.abs(theta) + 2.0 * np.log1p(np.exp(-np.abs(theta)))).sum(axis=1)
    return value


def numpy_table(layout: object, upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    out = np.zeros((upper.shape[0], layout.entrants, layout.entrants))  # type: ignore[attr-defined]
    out[:, layout.first_index, layout.second_index] = upper  # type: ignore[attr-defined]
    out[:, layout.second_index, layout.first_index] = lower  # type: ignore[attr-defined]
    return out


def numpy_gradient_and_system(
    theta: np.ndarray, score: np.ndarray, prior: float
) -> tuple[np.ndarray, np.ndarray]:
    pairs = pair_scores(score)
    layout = pairs.layout
    d, q = numpy_differences(theta, layout.first_index, layout.second_index)
    rise = 1.0 + q
    sigma = np.where(d >= 0.0, 1.0 / rise, q / rise)
    expected = pairs.games * sigma
    gradient = pairs.points - numpy_table(layout, expected, pairs.games - expected).sum(axis=2)
    pair_weight = pairs.games * q / rise**2
    system = numpy_table(layout, -pair_weight, -pair_weight)
    diagonal = np.arange(theta.shape[1])
    system[:, diagonal, diagonal] = -system.sum(axis=2)
    if not prior:
        system += 1.0
    else:
        own = 1.0 / (1.0 + np.exp(-theta))
        gradient += prior * (1.0 - 2.0 * own)
        system[:, diagonal, diagonal] += 2.0 * prior * own * (1.0 - own)
    return gradient, system


def numpy_newton(score: np.ndarray, prior: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    result = batched_newton(
        np.zeros(score.shape[:2]),
        lambda theta, rows: numpy_likelihood(theta, score[rows], prior),
        lambda theta, rows: numpy_gradient_and_system(theta, score[rows], prior),
    )
    return result.x, result.converged, result.iterations, result.log_likelihood


# --------------------------------------------------------------------------------------------


def scores(seed: int, tables: int, entrants: int, games: int, empty: float) -> np.ndarray:
    """Stacks of S = W + ½T with a share ``empty`` of pairs that never met (as in a bootstrap)."""
    rng = np.random.default_rng(seed)
    wins = rng.poisson(games / entrants**2, (tables, entrants, entrants)).astype(np.float64)
    draws = rng.poisson(games / entrants**2 / 4, (tables, entrants, entrants)).astype(np.float64)
    draws = np.triu(draws, 1) + np.transpose(np.triu(draws, 1), (0, 2, 1))
    met = np.triu(rng.random((tables, entrants, entrants)) >= empty, 1)
    met = met | np.transpose(met, (0, 2, 1))
    score = (wins + 0.5 * draws) * met
    score[:, np.arange(entrants), np.arange(entrants)] = 0.0
    return score


SPECIAL = np.array([0.0, -0.0, 1e-300, -1e-300, 5e-324, 1.0, -1.0, 37.0, -37.0, 709.0, -746.0, 1e308, -1e308])


def special_thetas(seed: int, tables: int, entrants: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 3.0, (tables, entrants))
    picks = rng.integers(0, SPECIAL.shape[0], theta.shape)
    special = rng.random(theta.shape) < 0.4
    theta[special] = SPECIAL[picks[special]]
    theta[0, 0], theta[-1, -1] = np.inf, np.nan  # a wild trial step
    return theta


@pytest.mark.parametrize("seed", range(4))
def test_the_pair_terms_are_numpys_element_by_element(seed: int) -> None:
    entrants, tables = 9, 7
    layout = pair_layout(entrants)
    theta = special_thetas(seed, tables, entrants)
    d, minus_abs = pair_terms.differences(theta, layout.first_index, layout.second_index)
    expected_d, expected_q = numpy_differences(theta, layout.first_index, layout.second_index)
    assert d.tobytes() == expected_d.tobytes()
    assert np.exp(minus_abs).tobytes() == expected_q.tobytes()

    pairs = pair_scores(scores(seed, tables, entrants, 400, 0.4))
    soft = np.log1p(expected_q)
    got = pair_terms.likelihood_terms(d, soft, pairs.plus, pairs.minus, pairs.games)
    want = (
        pairs.plus * np.maximum(-expected_d, 0.0)
        + pairs.minus * np.maximum(expected_d, 0.0)
        + pairs.games * soft
    )
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert got[~np.isnan(got)].tobytes() == want[~np.isnan(want)].tobytes()

    expected_table, weight_table = pair_terms.derivative_tables(
        d, expected_q, pairs.games, layout.first_index, layout.second_index, entrants
    )
    rise = 1.0 + expected_q
    sigma = np.where(expected_d >= 0.0, 1.0 / rise, expected_q / rise)
    points = pairs.games * sigma
    weight = pairs.games * expected_q / rise**2
    for got_table, want_table in (
        (expected_table, numpy_table(layout, points, pairs.games - points)),
        (weight_table, numpy_table(layout, -weight, -weight)),
    ):
        assert np.array_equal(np.isnan(got_table), np.isnan(want_table))
        assert got_table[~np.isnan(got_table)].tobytes() == want_table[~np.isnan(want_table)].tobytes()


@pytest.mark.parametrize(
    ("seed", "entrants", "empty"), [(0, 5, 0.0), (1, 12, 0.37), (2, 30, 0.9), (3, 64, 0.37)]
)
@pytest.mark.parametrize("prior", [0.0, 1.0])
def test_newton_fits_are_numpys_bit_for_bit(seed: int, entrants: int, empty: float, prior: float) -> None:
    score = scores(seed, 12, entrants, 40 * entrants**2 // 4, empty)
    if not prior:  # without the prior only strongly connected tables have a finite fit
        score += 0.5 * (1 - np.eye(entrants))
    got = newton_bradley_terry(score, prior)
    want = numpy_newton(score, prior)
    for got_array, want_array in zip(got, want, strict=True):
        assert got_array.tobytes() == want_array.tobytes()
    assert got[1].all()


def test_the_compiled_loops_build_where_numba_cannot_cache() -> None:
    # A read-only install without a writable home leaves numba no place for its cache: the loops
    # are then compiled per process instead of failing to import.
    code = (
        "import numba.core.caching as caching; caching.CacheImpl._locator_classes = []; "
        "from colosseum_core.statistics.elo import sequential_elo; "
        "from colosseum_core.statistics.bootstrap import BootstrapSpec; "
        "from colosseum_core.statistics.clustered_bootstrap import bradley_terry_intervals, clustered_games; "
        "run = sequential_elo([0], [1], [2], entrants=2, k=32, start=1000, draw_penalty=1.6); "
        "games = clustered_games([0, 1, 2, 0], [1, 2, 0, 2], [0, 0, 0, 1], [0, 1, 2, 3], 3); "
        "intervals = bradley_terry_intervals(games, BootstrapSpec(seed=1, replicates=20), 'one game', "
        "prior='newman-virtual-entrant'); "
        "print(run.ratings.tolist(), intervals.point.ok, intervals.degenerate)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[1016.0, 984.0] True 0"
