"""Sequential Elo: FastChat's recurrence, the draw penalty, voids, a hand-computed example, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colosseum_core.statistics.elo import SEQUENTIAL_ELO, VOID, sequential_elo
from colosseum_core.statistics.pairwise import A_WON, B_WON, DRAW


def fastchat_compute_elo(
    a: list[int], b: list[int], outcome: list[int], entrants: int, k: float = 4.0
) -> list[float]:
    """FastChat's ``compute_elo`` (lm-sys/FastChat, fastchat/serve/monitor/elo_analysis.py), from its
    definition: for each battle in order, ea = 1/(1 + 10**((rb − ra)/400)), eb likewise, sa = 1,
    0.5, 0 for model_a, tie, model_b; ra += K(sa − ea); rb += K(1 − sa − eb)."""
    rating = [1000.0] * entrants
    for x, y, o in zip(a, b, outcome, strict=True):
        ra, rb = rating[x], rating[y]
        ea = 1 / (1 + 10 ** ((rb - ra) / 400))
        eb = 1 / (1 + 10 ** ((ra - rb) / 400))
        sa = {A_WON: 1.0, DRAW: 0.5, B_WON: 0.0}[o]
        rating[x] += k * (sa - ea)
        rating[y] += k * (1 - sa - eb)
    return rating


def random_games(seed: int, entrants: int, games: int, voids: bool = False) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, entrants, games)
    b = (a + rng.integers(1, entrants, games)) % entrants
    outcome = rng.choice([B_WON, DRAW, A_WON, VOID] if voids else [B_WON, DRAW, A_WON], size=games)
    return a, b, outcome


def test_without_a_penalty_it_is_fastchats_compute_elo() -> None:
    a, b, o = random_games(1, entrants=12, games=20_000)
    run = sequential_elo(a, b, o, entrants=12, k=4, start=1000, draw_penalty=0)
    expected = fastchat_compute_elo(a.tolist(), b.tolist(), o.tolist(), 12)
    assert np.abs(run.ratings - np.array(expected)).max() < 1e-9
    assert run.version == SEQUENTIAL_ELO and "voids touch neither" in run.method
    assert (run.k, run.draw_penalty, run.start.tolist()) == (4.0, 0.0, [1000.0] * 12)


def interpreted_elo(
    a: np.ndarray, b: np.ndarray, outcome: np.ndarray, start: np.ndarray, k: float, penalty: float
) -> tuple[list[float], list[float], list[float]]:
    """The rule as the interpreter computes it, game by game (the loop the compiled replay
    replaced): the ratings at the end and each game's two ratings after it; OverflowError where
    10^x overflows."""
    ratings = start.tolist()
    after_a, after_b = [], []
    for x, y, o in zip(a.tolist(), b.tolist(), outcome.tolist(), strict=True):
        rx, ry = ratings[x], ratings[y]
        if o != VOID:
            change = k * ((0.0, 0.5, 1.0)[o] - 1.0 / (1.0 + 10.0 ** ((ry - rx) / 400.0)))
            cost = penalty if o == DRAW else 0.0
            ratings[x] = rx + change - cost
            ratings[y] = ry - change - cost
        after_a.append(ratings[x])
        after_b.append(ratings[y])
    return ratings, after_a, after_b


@pytest.mark.parametrize(
    ("seed", "entrants", "spread", "k", "penalty"),
    [
        (1, 64, 100.0, 32.0, 1.6),
        (2, 7, 3000.0, 24.5, 0.0),
        (3, 300, 9000.0, 7.0, 3.3),
        (4, 2, 0.0, 32.0, 1.6),
    ],
)
def test_the_compiled_replay_is_the_interpreters_bit_for_bit(
    seed: int, entrants: int, spread: float, k: float, penalty: float
) -> None:
    a, b, o = random_games(seed, entrants, 20_000, voids=True)
    start = 1000.0 + np.random.default_rng(seed).normal(0.0, spread, entrants)
    run = sequential_elo(a, b, o, entrants=entrants, k=k, start=start, draw_penalty=penalty)
    ratings, after_a, after_b = interpreted_elo(a, b, o, start, k, penalty)
    assert run.ratings.tobytes() == np.array(ratings).tobytes()
    assert run.after_a.tobytes() == np.array(after_a).tobytes()
    assert run.after_b.tobytes() == np.array(after_b).tobytes()


def test_overflow_is_refused_at_the_game_the_interpreter_refuses() -> None:
    a, b, o = random_games(5, 300, 20_000)
    start = 1000.0 + np.random.default_rng(5).normal(0.0, 25_000.0, 300)
    with pytest.raises(OverflowError):
        interpreted_elo(a, b, o, start, 32.0, 1.6)
    for game in range(o.shape[0]):  # the first game the interpreter cannot compute
        try:
            interpreted_elo(a[: game + 1], b[: game + 1], o[: game + 1], start, 32.0, 1.6)
        except OverflowError:
            break
    with pytest.raises(ValueError, match=rf"^game {game}: ratings .* are too far apart"):
        sequential_elo(a, b, o, entrants=300, k=32.0, start=start, draw_penalty=1.6)


def test_two_games_by_hand() -> None:
    # Game 1: 0 (1000) beats 1 (1000): E = ½, change K·½ = 16. Game 2: 1 (984) draws 0 (1016):
    # E_1 = 1/(1 + 10^(32/400)), change 32(½ − E_1), and both pay the 1.6 penalty.
    run = sequential_elo([0, 1], [1, 0], [A_WON, DRAW], entrants=2, k=32, start=1000, draw_penalty=1.6)
    expected_1 = 1 / (1 + 10 ** (32 / 400))
    change = 32 * (0.5 - expected_1)
    assert run.before_a.tolist() == [1000.0, 984.0] and run.before_b.tolist() == [1000.0, 1016.0]
    assert run.after_a.tolist() == [1016.0, 984.0 + change - 1.6]
    assert run.after_b.tolist() == [984.0, 1016.0 - change - 1.6]
    assert run.ratings.tolist() == [1016.0 - change - 1.6, 984.0 + change - 1.6]
    assert change == pytest.approx(1.4695, abs=1e-4)  # 32·(½ − 0.45407…)
    assert run.wins.tolist() == [1, 0] and run.losses.tolist() == [0, 1] and run.draws.tolist() == [1, 1]


def test_both_sides_of_a_draw_pay_the_penalty_and_the_pool_drifts() -> None:
    a, b, o = random_games(2, entrants=6, games=5_000)
    run = sequential_elo(a, b, o, entrants=6, k=32, start=1000, draw_penalty=1.6)
    draws = int((o == DRAW).sum())
    assert run.ratings.sum() - 6000 == pytest.approx(-3.2 * draws, abs=1e-6)
    drawn = o == DRAW
    # Per draw, each side's change is its Elo change minus 1.6: the two changes sum to −3.2.
    moved = (run.after_a - run.before_a) + (run.after_b - run.before_b)
    assert np.abs(moved[drawn] + 3.2).max() < 1e-9 and np.abs(moved[~drawn]).max() < 1e-9


def test_voids_touch_neither_ratings_nor_records() -> None:
    a, b, o = random_games(3, entrants=8, games=3_000, voids=True)
    run = sequential_elo(a, b, o, entrants=8, k=32, start=1000, draw_penalty=1.6)
    kept = o != VOID
    without = sequential_elo(a[kept], b[kept], o[kept], entrants=8, k=32, start=1000, draw_penalty=1.6)
    assert np.array_equal(run.ratings, without.ratings)
    assert np.array_equal(run.after_a[kept], without.after_a)
    void = ~kept
    assert np.array_equal(run.before_a[void], run.after_a[void])
    assert np.array_equal(run.before_b[void], run.after_b[void])
    for record in ("wins", "draws", "losses"):
        assert np.array_equal(getattr(run, record), getattr(without, record))
    assert run.void_games == int(void.sum()) and run.rated_games == int(kept.sum()) == without.rated_games
    assert int(run.wins.sum() + run.draws.sum() + run.losses.sum()) == 2 * run.rated_games


def test_per_entrant_starting_ratings_continue_a_run() -> None:
    a, b, o = random_games(4, entrants=5, games=400)
    whole = sequential_elo(a, b, o, entrants=5, k=24, start=1200.0, draw_penalty=1.0)
    first = sequential_elo(a[:150], b[:150], o[:150], entrants=5, k=24, start=1200.0, draw_penalty=1.0)
    rest = sequential_elo(a[150:], b[150:], o[150:], entrants=5, k=24, start=first.ratings, draw_penalty=1.0)
    assert np.array_equal(rest.ratings, whole.ratings)
    assert np.array_equal(rest.start, first.ratings)


@settings(max_examples=60, deadline=None)
@given(
    entrants=st.integers(2, 6),
    data=st.data(),
    k=st.floats(1, 64),
    start=st.floats(0, 3000),
)
def test_the_run_is_zero_sum_without_a_penalty(
    entrants: int, data: st.DataObject, k: float, start: float
) -> None:
    size = data.draw(st.integers(0, 60))
    a = np.array(
        data.draw(st.lists(st.integers(0, entrants - 1), min_size=size, max_size=size)), dtype=np.int64
    )
    shift = np.array(
        data.draw(st.lists(st.integers(1, entrants - 1), min_size=size, max_size=size)), dtype=np.int64
    )
    o = np.array(
        data.draw(st.lists(st.sampled_from([0, 1, 2, -1]), min_size=size, max_size=size)), dtype=np.int64
    )
    b = (a + shift) % entrants
    run = sequential_elo(a, b, o, entrants=entrants, k=k, start=start, draw_penalty=0.0)
    assert run.ratings.sum() == pytest.approx(start * entrants, abs=1e-9 * max(1.0, start) * entrants)
    # Each game moves its two ratings by opposite amounts, never by more than K.
    change = run.after_a - run.before_a
    assert np.abs(change).max(initial=0) <= k + 1e-9
    assert np.abs(change + (run.after_b - run.before_b)).max(initial=0) < 1e-9
    # A win never lowers the winner; a loss never raises the loser.
    assert (change[o == A_WON] >= 0).all() and (change[o == B_WON] <= 0).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"outcome": [3]}, r"outcome\[0\] = 3 is not an outcome code"),
        ({"outcome": [-2]}, r"outcome\[0\] = -2 is not an outcome code"),
        ({"a": [5]}, r"a\[0\] = 5 is outside \[0, 3\)"),
        ({"b": [0]}, r"game 0 pairs entrant 0 with itself"),
        ({"b": [1, 2]}, "differ in length"),
        ({"k": 0}, "k must be positive, not 0"),
        ({"k": float("nan")}, "k must be finite"),
        ({"k": "32"}, "k must be a real number"),
        ({"draw_penalty": -1.6}, "draw_penalty must be non-negative"),
        ({"start": float("inf")}, "start must be finite"),
        ({"start": [1000.0, 1000.0]}, r"one per entrant, shape \(3,\), not \(2,\)"),
        ({"start": [1000.0, np.nan, 1.0]}, "start must hold finite ratings"),
        ({"entrants": 0}, "entrants must be at least 1"),
        ({"a": [0.5]}, "a must hold whole numbers"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {
        "a": [0],
        "b": [1],
        "outcome": [A_WON],
        "entrants": 3,
        "k": 32.0,
        "start": 1000.0,
        "draw_penalty": 1.6,
    }
    arguments.update(kwargs)
    a, b, outcome = arguments.pop("a"), arguments.pop("b"), arguments.pop("outcome")
    with pytest.raises(ValueError, match=message):
        sequential_elo(a, b, outcome, **arguments)  # type: ignore[arg-type]


def test_ratings_too_far_apart_are_refused_not_overflowed() -> None:
    with pytest.raises(ValueError, match=r"game 0: ratings 0\.0 and 1000000\.0 are too far apart"):
        sequential_elo([0], [1], [A_WON], entrants=2, k=32, start=np.array([0.0, 1e6]), draw_penalty=0)


def test_parameters_are_required() -> None:
    with pytest.raises(TypeError):
        sequential_elo([0], [1], [A_WON], entrants=2)  # type: ignore[call-arg]


def test_no_games_leave_the_start() -> None:
    run = sequential_elo([], [], [], entrants=3, k=32, start=1000, draw_penalty=1.6)
    assert run.ratings.tolist() == [1000.0] * 3 and run.before_a.shape == (0,) and run.rated_games == 0
