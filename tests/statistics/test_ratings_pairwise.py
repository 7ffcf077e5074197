"""The pairwise count structure and the existence check: cells, derived counts, constructors, errors."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colosseum_core.statistics.existence import (
    is_strongly_connected,
    scored_against,
    strong_components,
    strongly_connected_many,
)
from colosseum_core.statistics.pairwise import (
    A_WON,
    B_WON,
    DRAW,
    PairCounts,
    cell_ids,
    pair_counts,
    pair_counts_from_frame,
    pair_layout,
    wins_and_draws,
)

# Three entrants: 0 beat 1 twice (once as a, once as b), 1 and 2 drew, 2 beat 0 as b.
A = [0, 1, 1, 0]
B = [1, 0, 2, 2]
RESULTS = [A_WON, B_WON, DRAW, B_WON]


def games(draw: st.DrawFn, entrants: int, size: int) -> tuple[list[int], list[int], list[int]]:
    a = draw(st.lists(st.integers(0, entrants - 1), min_size=size, max_size=size))
    shift = draw(st.lists(st.integers(1, entrants - 1), min_size=size, max_size=size))
    b = [(x + s) % entrants for x, s in zip(a, shift, strict=True)]
    o = draw(st.lists(st.sampled_from([0, 1, 2]), min_size=size, max_size=size))
    return a, b, o


@st.composite
def game_sets(draw: st.DrawFn) -> tuple[int, list[int], list[int], list[int]]:
    entrants = draw(st.integers(2, 6))
    size = draw(st.integers(0, 40))
    return (entrants, *games(draw, entrants, size))


def test_cells_and_the_derived_counts_by_hand() -> None:
    counts = pair_counts(A, B, RESULTS, 3)
    assert counts.cells.shape == (3, 3, 3) and counts.cells.dtype == np.int64
    assert counts.cells[0, 1, A_WON] == 1 and counts.cells[1, 0, B_WON] == 1
    assert counts.cells[1, 2, DRAW] == 1 and counts.cells[0, 2, B_WON] == 1
    assert counts.wins.tolist() == [[0, 2, 0], [0, 0, 0], [1, 0, 0]]
    assert counts.draws.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert counts.games.tolist() == [[0, 2, 1], [2, 0, 1], [1, 1, 0]]
    assert counts.half_points.tolist() == [4, 1, 3]
    assert counts.points.tolist() == [2.0, 0.5, 1.5]
    assert counts.total_games == 4 and counts.total_draws == 1
    assert counts.entrants == 3


def test_cell_ids_follow_the_documented_encoding() -> None:
    assert cell_ids(A, B, RESULTS, 3).tolist() == [
        (0 * 3 + 1) * 3 + 2,
        (1 * 3 + 0) * 3 + 0,
        (1 * 3 + 2) * 3 + 1,
        6,
    ]


def test_counts_are_read_only_and_private() -> None:
    cells = pair_counts(A, B, RESULTS, 3).cells.copy()
    counts = PairCounts(cells)
    cells[0, 1, 2] = 99  # the caller's array changing later does not change the counts
    assert counts.cells[0, 1, 2] == 1
    with pytest.raises(ValueError):
        counts.cells[0, 1, 2] = 5
    with pytest.raises(ValueError):
        counts.wins[0, 1] = 5


def test_addition_and_scaling_are_those_of_the_games() -> None:
    first = pair_counts(A, B, RESULTS, 3)
    second = pair_counts([2, 2], [0, 1], [DRAW, A_WON], 3)
    together = pair_counts([*A, 2, 2], [*B, 0, 1], [*RESULTS, DRAW, A_WON], 3)
    assert first + second == together
    assert first * 3 == first + first + first == 3 * first == first.scaled(3)
    assert first * 0 == PairCounts(np.zeros((3, 3, 3), dtype=np.int64))
    assert first != second
    with pytest.raises(ValueError, match="multiplicity must be non-negative"):
        first.scaled(-1)
    with pytest.raises(ValueError, match="multiplicity"):
        first.scaled(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="3 and 2 entrants"):
        _ = first + pair_counts([0], [1], [2], 2)


def test_stacks_split_like_single_tables() -> None:
    counts = pair_counts(A, B, RESULTS, 3)
    wins, draws = wins_and_draws(np.stack([counts.cells, 2 * counts.cells]))
    assert np.array_equal(wins[0], counts.wins) and np.array_equal(wins[1], 2 * counts.wins)
    assert np.array_equal(draws[1], 2 * counts.draws)


def test_the_frame_constructor_takes_indices_or_names() -> None:
    frame = pl.DataFrame({"a": A, "b": B, "outcome": RESULTS})
    assert pair_counts_from_frame(frame, 3) == pair_counts(A, B, RESULTS, 3)
    names = ["ada", "bo", "cy"]
    named = pl.DataFrame({"white": [names[i] for i in A], "black": [names[i] for i in B], "result": RESULTS})
    got = pair_counts_from_frame(named, names, a="white", b="black", outcome="result")
    assert got == pair_counts(A, B, RESULTS, 3)
    categorical = named.with_columns(pl.col("white").cast(pl.Categorical))
    assert pair_counts_from_frame(categorical, names, a="white", b="black", outcome="result") == got


@pytest.mark.parametrize(
    ("a", "b", "outcome", "entrants", "message"),
    [
        ([0], [1], [3], 2, r"outcome\[0\] = 3 is not an outcome code"),
        ([0], [1], [-1], 2, r"outcome\[0\] = -1 is not an outcome code"),
        ([0, 2], [1, 0], [2, 2], 2, r"a\[1\] = 2 is outside \[0, 2\)"),
        ([0], [-1], [2], 2, r"b\[0\] = -1 is outside \[0, 2\)"),
        ([1, 1], [0, 1], [2, 2], 2, r"game 1 pairs entrant 1 with itself \(a == b\)"),
        ([0, 1], [1], [2, 2], 2, "differ in length: a has 2, b has 1, outcome has 2"),
        ([0.0], [1], [2], 2, "a must hold whole numbers"),
        ([0], [1], [2.0], 2, "outcome must hold whole numbers"),
        ([0], [1], [2], 0, "entrants must be at least 1, not 0"),
        ([0], [1], [2], True, "entrants must be a whole number, not the bool True"),
        ([[0]], [[1]], [[2]], 2, r"a must be 1-D, not shape \(1, 1\)"),
    ],
)
def test_bad_games_are_refused_by_name(
    a: object, b: object, outcome: object, entrants: object, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        pair_counts(a, b, outcome, entrants)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        (np.zeros((2, 3, 3), dtype=np.int64), r"shape \(p, p, 3\)"),
        (np.zeros((0, 0, 3), dtype=np.int64), "at least one entrant"),
        (np.zeros((2, 2, 3)), "whole-number counts"),
        (
            np.array([[[0, 0, 0], [0, -1, 0]], [[0, 0, 0], [0, 0, 0]]]),
            r"negative count: cells\[0, 1, 1\] = -1",
        ),
        (np.array([[[0, 2, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0]]]), r"against itself: cells\[0, 0, 1\] = 2"),
    ],
)
def test_bad_cells_are_refused(cells: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PairCounts(cells)


def test_bad_frames_are_refused() -> None:
    frame = pl.DataFrame({"a": A, "b": B, "outcome": RESULTS})
    with pytest.raises(ValueError, match="no column 'white'"):
        pair_counts_from_frame(frame, 3, a="white")
    with pytest.raises(ValueError, match="must hold entrant names when entrants is a list"):
        pair_counts_from_frame(frame, ["x", "y", "z"])
    named = pl.DataFrame({"a": ["x", "y"], "b": ["y", "q"], "outcome": [2, 1]})
    with pytest.raises(ValueError, match="names an entrant not in entrants: 'q'"):
        pair_counts_from_frame(named, ["x", "y"])
    with pytest.raises(ValueError, match="must hold entrant indices"):
        pair_counts_from_frame(named, 2)
    with pytest.raises(ValueError, match="repeated name"):
        pair_counts_from_frame(named, ["x", "x"])
    with pytest.raises(ValueError, match="missing values"):
        pair_counts_from_frame(pl.DataFrame({"a": [0, None], "b": [1, 0], "outcome": [2, 2]}), 2)
    with pytest.raises(ValueError, match="column 'outcome' must hold outcome codes"):
        pair_counts_from_frame(pl.DataFrame({"a": [0], "b": [1], "outcome": ["win"]}), 2)
    with pytest.raises(ValueError, match="a count or a sequence of names, not 'abc'"):
        pair_counts_from_frame(frame, "abc")
    with pytest.raises(ValueError, match="a count or a sequence of names, not True"):
        pair_counts_from_frame(frame, True)


@settings(max_examples=60, deadline=None)
@given(game_sets(), st.randoms(use_true_random=False))
def test_counts_do_not_depend_on_game_order_and_add_up(
    data: tuple[int, list[int], list[int], list[int]], rng: object
) -> None:
    entrants, a, b, o = data
    counts = pair_counts(a, b, o, entrants)
    order = list(range(len(a)))
    rng.shuffle(order)  # type: ignore[attr-defined]
    shuffled = pair_counts([a[i] for i in order], [b[i] for i in order], [o[i] for i in order], entrants)
    assert shuffled == counts
    half = len(a) // 2
    assert (
        pair_counts(a[:half], b[:half], o[:half], entrants)
        + pair_counts(a[half:], b[half:], o[half:], entrants)
        == counts
    )
    assert counts.total_games == len(a) == int(counts.games.sum()) // 2
    assert int(counts.half_points.sum()) == 2 * len(a)  # every game hands out one point
    assert np.array_equal(counts.draws, counts.draws.T) and np.array_equal(counts.games, counts.games.T)


# --------------------------------------------------------------------------------------------
# Existence


def test_the_edge_is_half_a_point_not_a_majority() -> None:
    # 0 won one game of ten against 1: an edge 0 → 1 all the same, and the MLE is finite.
    counts = pair_counts([0] * 10, [1] * 10, [A_WON] + [B_WON] * 9, 2)
    assert scored_against(counts.wins, counts.draws).tolist() == [[False, True], [True, False]]
    assert is_strongly_connected(counts)
    # One draw is half a point each way.
    assert is_strongly_connected(pair_counts([0], [1], [DRAW], 2))
    # All wins for 1: no edge 0 → 1.
    assert strong_components(pair_counts([0, 1], [1, 0], [B_WON, A_WON], 2)) == ((0,), (1,))


def test_components_of_a_chain_and_of_strangers() -> None:
    # 0 beats 1, 1 beats 2, 2 beats 0: a cycle; 3 beat by everyone; 4 never played.
    counts = pair_counts([0, 1, 2, 0, 1], [1, 2, 0, 3, 3], [A_WON, A_WON, A_WON, A_WON, A_WON], 5)
    assert strong_components(counts) == ((0, 1, 2), (3,), (4,))
    assert not is_strongly_connected(counts)
    assert strong_components(pair_counts([0], [1], [A_WON], 1 + 1)) == ((0,), (1,))
    assert strong_components(PairCounts(np.zeros((1, 1, 3), dtype=np.int64))) == ((0,),)


@settings(max_examples=60, deadline=None)
@given(game_sets())
def test_the_batched_check_agrees_with_a_graph_search(
    data: tuple[int, list[int], list[int], list[int]],
) -> None:
    entrants, a, b, o = data
    counts = pair_counts(a, b, o, entrants)
    edges = scored_against(counts.wins, counts.draws)

    def reach(start: int, forward: bool) -> set[int]:
        seen, todo = {start}, [start]
        while todo:
            here = todo.pop()
            for there in range(entrants):
                step = edges[here, there] if forward else edges[there, here]
                if step and there not in seen:
                    seen.add(there)
                    todo.append(there)
        return seen

    expected = len(reach(0, True)) == entrants and len(reach(0, False)) == entrants
    assert is_strongly_connected(counts) == expected
    stacked = strongly_connected_many(counts.wins[None], counts.draws[None])
    assert stacked.tolist() == [expected]
    components = strong_components(counts)
    assert sorted(i for part in components for i in part) == list(range(entrants))
    for part in components:
        assert set(part) == reach(part[0], True) & reach(part[0], False)


def test_the_pair_layout_lists_every_pair_and_sums_rows() -> None:
    counts = pair_counts([0, 2], [1, 0], [A_WON, DRAW], 3)
    layout = pair_layout(3)
    assert layout.first_index.tolist() == [0, 0, 1] and layout.second_index.tolist() == [1, 2, 2]
    assert layout.pairs == 3
    assert layout.upper(counts.wins).tolist() == [1, 0, 0] and layout.lower(counts.draws).tolist() == [
        0,
        1,
        0,
    ]
    upper, lower = np.array([[10.0, 20.0, 30.0]]), np.array([[1.0, 2.0, 3.0]])
    assert layout.table(upper, lower)[0].tolist() == [[0, 10, 20], [1, 0, 30], [2, 3, 0]]
    assert layout.rows(upper, lower).tolist() == [[30.0, 31.0, 5.0]]
