"""Sequential Elo with a flat draw penalty, voids excluded: the games applied one by one, in order.

Per game, in the order given (the caller sorts by its recorded key), from pre-game ratings:

    E_A = 1 / (1 + 10^((R_B − R_A)/400)),  S_A ∈ {1, ½, 0} for a won, draw, b won
    R_A ← R_A + K(S_A − E_A) − penalty·[draw]
    R_B ← R_B − K(S_A − E_A) − penalty·[draw]     (= K(S_B − E_B) with S_B = 1 − S_A, E_B = 1 − E_A)

No rounding anywhere (round for display only). A void (outcome ``VOID``) touches neither the
ratings nor the win/draw/loss records; it is listed, with before = after, so the per-game record
lines up with the games. With a penalty the pool is not zero-sum: it drifts by −2·penalty per draw,
so in a drawish arena ratings deflate over time. That is the rule as read, and it is recorded.

The parameters (K, the starting rating, the penalty) belong to the arena's rules: nothing here
defaults them. ``start`` is one rating for everyone, or one per entrant to continue from a
previous state.
"""

from __future__ import annotations

import dataclasses
from typing import Final

import numpy as np

from colosseum_core.statistics._checks import (
    finite_number,
    in_range,
    index_array,
    positive_whole,
    same_length,
)
from colosseum_core.statistics.pairwise import A_WON, B_WON, DRAW

SEQUENTIAL_ELO: Final = "COLOSSEUM-ELO-SEQUENTIAL-1"
VOID: Final = -1
ELO_OUTCOMES: Final = (B_WON, DRAW, A_WON, VOID)
SEQUENTIAL_ELO_METHOD: Final = (
    "sequential Elo, games in the given order from pre-game ratings: E_A = 1/(1 + 10^((R_B − R_A)/400)), "
    "S_A = 1, ½, 0 for a won, draw, b won; R_A += K(S_A − E_A) − penalty·[draw], "
    "R_B −= K(S_A − E_A) + penalty·[draw]; voids touch neither ratings nor records; no rounding"
)


@dataclasses.dataclass(frozen=True)
class EloRun:
    version: str
    method: str
    k: float
    start: np.ndarray  # (p,) the ratings before the first game
    draw_penalty: float
    ratings: np.ndarray  # (p,) after the last game
    before_a: np.ndarray  # (N,) per game, in the order given; for a void before = after
    before_b: np.ndarray
    after_a: np.ndarray
    after_b: np.ndarray
    wins: np.ndarray  # (p,) int64, voids excluded
    draws: np.ndarray
    losses: np.ndarray
    voids: np.ndarray  # (p,) int64: void games the entrant was in, on either side
    entrants: int
    rated_games: int
    void_games: int


def sequential_elo(
    a: object,
    b: object,
    outcome: object,
    *,
    entrants: int,
    k: float,
    start: float | np.ndarray,
    draw_penalty: float,
) -> EloRun:
    """Elo over games (a[g], b[g], outcome[g]) in the order given; outcome 2, 1, 0 or ``VOID`` (−1)."""
    p = positive_whole(entrants, "entrants")
    first, second, result = index_array(a, "a"), index_array(b, "b"), index_array(outcome, "outcome")
    same_length({"a": first, "b": second, "outcome": result})
    in_range(first, 0, p, "a")
    in_range(second, 0, p, "b")
    bad = np.flatnonzero((result < VOID) | (result > A_WON))
    if bad.size:
        g = int(bad[0])
        raise ValueError(
            f"outcome[{g}] = {int(result[g])} is not an outcome code: "
            "2 (a won), 1 (draw), 0 (b won), -1 (void)"
        )
    selves = np.flatnonzero(first == second)
    if selves.size:
        g = int(selves[0])
        raise ValueError(f"game {g} pairs entrant {int(first[g])} with itself (a == b)")
    factor = finite_number(k, "k")
    if factor <= 0:
        raise ValueError(f"k must be positive, not {k!r}")
    penalty = finite_number(draw_penalty, "draw_penalty")
    if penalty < 0:
        raise ValueError(f"draw_penalty must be non-negative (it is subtracted), not {draw_penalty!r}")
    initial = _start(start, p)

    from colosseum_core.statistics.elo_replay import replay  # numba's import only when a replay runs

    ratings = initial.copy()
    start_a, start_b, change_of, game = replay(first, second, result, ratings, factor, penalty)
    if game is not None:
        raise ValueError(
            f"game {game}: ratings {float(ratings[first[game]])!r} and {float(ratings[second[game]])!r} are "
            "too far apart for 10^(ΔR/400) in floating point (more than about 123,000 Elo)"
        )

    rated = result != VOID
    cost_of = np.where(result == DRAW, penalty, 0.0)

    # Per entrant and outcome code (+1, so a void is column 0), as the first and as the second side.
    as_first = np.bincount(first * 4 + result + 1, minlength=4 * p).reshape(p, 4)
    as_second = np.bincount(second * 4 + result + 1, minlength=4 * p).reshape(p, 4)
    wins = as_first[:, A_WON + 1] + as_second[:, B_WON + 1]
    losses = as_first[:, B_WON + 1] + as_second[:, A_WON + 1]
    draws = as_first[:, DRAW + 1] + as_second[:, DRAW + 1]
    voids = as_first[:, VOID + 1] + as_second[:, VOID + 1]
    return EloRun(
        version=SEQUENTIAL_ELO,
        method=SEQUENTIAL_ELO_METHOD,
        k=factor,
        start=initial,
        draw_penalty=penalty,
        ratings=ratings,
        before_a=start_a,
        before_b=start_b,
        after_a=start_a + change_of - cost_of,
        after_b=start_b - change_of - cost_of,
        wins=wins.astype(np.int64),
        draws=draws.astype(np.int64),
        losses=losses.astype(np.int64),
        voids=voids.astype(np.int64),
        entrants=p,
        rated_games=int(rated.sum()),
        void_games=int((~rated).sum()),
    )


def _start(start: object, entrants: int) -> np.ndarray:
    if np.ndim(start) == 0:
        return np.full(entrants, finite_number(start, "start"))
    values = np.asarray(start)
    if values.shape != (entrants,):
        raise ValueError(
            f"start must be one rating or one per entrant, shape ({entrants},), not {values.shape}"
        )
    if values.dtype.kind not in "iuf" or not np.isfinite(values).all():
        raise ValueError("start must hold finite ratings")
    return values.astype(np.float64)
