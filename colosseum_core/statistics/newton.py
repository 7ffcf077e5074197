"""Newton's method with step halving, for B concave log-likelihoods at once (the rating fits).

Each of the B problems runs its own iteration: solve H Δ = g (H the problem's system, e.g.
L + 11ᵀ), try x + tΔ with t = 1, ½, ¼, … until ℓ does not decrease, stop when max|tΔ| < 1e-12
(at most 100 steps). Problems leave the batch as they converge; the rest go on, so every problem
gets the iterates it would get alone.

"Does not decrease" is judged up to the rounding of ℓ itself: a drop smaller than
1e-13·(1 + |ℓ|) is not a decrease. Near the optimum a Newton step changes ℓ by far less than
one ulp of ℓ (a sum of hundreds of terms), and a strict comparison would halve a perfectly good
step dozens of times on noise, and then stop short of it. A step halved below the tolerance
without an increase is not taken, and the problem stops there (its gradient is at rounding level).
A NaN likelihood (a wild trial step) counts as a decrease; a problem whose system is singular or
whose step is not finite leaves the batch unconverged (the callers report it, never a number).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Final

import numpy as np

NEWTON_TOLERANCE: Final = 1e-12
MAX_ITERATIONS: Final = 100
MAX_HALVINGS: Final = 60
LOGLIK_ROUNDING: Final = 1e-13
NEWTON_METHOD: Final = (
    f"Newton, t halved until ℓ does not decrease (up to {LOGLIK_ROUNDING:g}·(1 + |ℓ|), the rounding "
    f"of ℓ), stop when max|tΔ| < {NEWTON_TOLERANCE:g}, at most {MAX_ITERATIONS} steps"
)

# (x of some problems, their row numbers in the batch) -> (ℓ,) or (gradient, system)
Objective = Callable[[np.ndarray, np.ndarray], np.ndarray]
Derivatives = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclasses.dataclass(frozen=True)
class NewtonResult:
    x: np.ndarray  # (B, k)
    converged: np.ndarray  # (B,) bool
    iterations: np.ndarray  # (B,) int64
    log_likelihood: np.ndarray  # (B,)


def batched_newton(start: np.ndarray, objective: Objective, derivatives: Derivatives) -> NewtonResult:
    """Maximise B concave objectives from ``start`` (B, k)."""
    x = np.array(start, dtype=np.float64)
    problems = x.shape[0]
    every = np.arange(problems)
    loglik = objective(x, every)
    iterations = np.zeros(problems, dtype=np.int64)
    converged = np.zeros(problems, dtype=bool)
    active = every
    for _ in range(MAX_ITERATIONS):
        if active.size == 0:
            break
        current = x[active]
        gradient, system = derivatives(current, active)
        step = _solve(system, gradient)
        size = np.abs(step).max(axis=1, initial=0.0)
        hopeless = ~np.isfinite(size)  # a singular system or a non-finite gradient: give up on it
        if hopeless.any():
            keep = ~hopeless
            active, current, step, size = active[keep], current[keep], step[keep], size[keep]
            if active.size == 0:
                break
        scale = np.ones(active.size)
        trial = current + step
        trial_loglik = objective(trial, active)
        floor = loglik[active] - LOGLIK_ROUNDING * (1.0 + np.abs(loglik[active]))
        for _ in range(MAX_HALVINGS):
            worse = np.flatnonzero(~(trial_loglik >= floor) & (scale * size >= NEWTON_TOLERANCE))
            if worse.size == 0:
                break
            scale[worse] /= 2.0
            trial[worse] = current[worse] + scale[worse, None] * step[worse]
            trial_loglik[worse] = objective(trial[worse], active[worse])
        refused = ~(trial_loglik >= floor)
        trial[refused] = current[refused]
        trial_loglik[refused] = loglik[active][refused]
        x[active] = trial
        loglik[active] = trial_loglik
        iterations[active] += 1
        done = scale * size < NEWTON_TOLERANCE
        converged[active[done]] = True
        active = active[~done]
    return NewtonResult(x=x, converged=converged, iterations=iterations, log_likelihood=loglik)


def _solve(system: np.ndarray, gradient: np.ndarray) -> np.ndarray:
    """Δ for every problem; NaN rows where a system is singular (one bad problem must not sink
    the batch: numpy's stacked solve raises for all if any one is singular)."""
    try:
        return np.linalg.solve(system, gradient[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        step = np.full(gradient.shape, np.nan)
        for row in range(system.shape[0]):
            try:
                step[row] = np.linalg.solve(system[row], gradient[row])
            except np.linalg.LinAlgError:
                continue
        return step
