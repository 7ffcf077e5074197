"""The per-game loop of sequential Elo, compiled (numba): the one part of a replay that is serial.

``replay`` applies the games in order exactly as ``elo.sequential_elo`` documents, the same IEEE
operations in the same order as the plain Python loop that was here before it (kept in
``tests/statistics/test_ratings_elo.py`` as the oracle, which the compiled loop must match bit for bit):

    change = K·(S_A − 1/(1 + 10^((R_B − R_A)/400)))
    R_A ← (R_A + change) − cost,  R_B ← (R_B − change) − cost

Two things keep the compiled bits those of the interpreter. The base 10 is an argument, not a
constant, so the compiler cannot rewrite 10^x as exp10(x) (a different libm function that may
round differently from pow); and numba's default arithmetic is strict IEEE (no fast-math, no
fused multiply-adds). Python's ``10.0 ** x`` raises OverflowError where the compiled ``pow``
gives infinity: the loop stops there and returns the game's index, and the caller raises.

Compiled as ``compiled`` says (cached per machine, once per process where nothing is writable);
imported only when a replay runs, so the rest of the library does not pay numba's import.
"""

from __future__ import annotations

import numpy as np

from colosseum_core.statistics.compiled import compiled

_CLEAN: int = -1


@compiled
def _replay(
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
    ratings: np.ndarray,
    factor: float,
    penalty: float,
    base: float,
    before_a: np.ndarray,
    before_b: np.ndarray,
    changes: np.ndarray,
) -> int:
    for game in range(first.shape[0]):
        x = first[game]
        y = second[game]
        rx = ratings[x]
        ry = ratings[y]
        before_a[game] = rx
        before_b[game] = ry
        o = outcome[game]
        if o >= 0:  # not a void: a void's change stays 0
            power = base ** ((ry - rx) / 400.0)
            if power == np.inf:
                return game
            change = factor * (o * 0.5 - 1.0 / (1.0 + power))
            cost = penalty if o == 1 else 0.0
            ratings[x] = rx + change - cost
            ratings[y] = ry - change - cost
            changes[game] = change
    return _CLEAN


def replay(
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
    ratings: np.ndarray,
    factor: float,
    penalty: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int | None]:
    """(before_a, before_b, change per game, the game 10^(ΔR/400) overflowed at, or None).

    ``ratings`` (float64) is updated in place; a void's change is 0.
    """
    games = first.shape[0]
    before_a, before_b, changes = np.zeros(games), np.zeros(games), np.zeros(games)
    stopped = _replay(
        np.ascontiguousarray(first, dtype=np.int64),
        np.ascontiguousarray(second, dtype=np.int64),
        np.ascontiguousarray(outcome, dtype=np.int64),
        ratings,
        float(factor),
        float(penalty),
        10.0,
        before_a,
        before_b,
        changes,
    )
    return before_a, before_b, changes, None if stopped == _CLEAN else int(stopped)
