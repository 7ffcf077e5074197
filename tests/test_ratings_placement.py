"""Shared placements from overlapping intervals: chaining, competition numbering, medals, ties, errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from colosseum_core.statistics.placement import PLACEMENT, placements


def test_clear_separation_gives_one_entrant_a_placement() -> None:
    got = placements([1200, 1100, 1000], [1190, 1090, 990], [1210, 1110, 1010])
    assert got.order == (0, 1, 2) and got.placement == (1, 2, 3) and got.group == (0, 1, 2)
    assert got.medal == ("gold", "silver", "bronze")
    assert got.version == PLACEMENT and "neighbours chain" in got.method and got.entrants == 3


def test_overlapping_neighbours_share_and_numbering_skips_like_competition_ranking() -> None:
    # Entrants in index order 0..4 by score; 0 and 1 overlap, 2 alone, 3 and 4 overlap.
    scores = [1300, 1290, 1200, 1100, 1095]
    low = [1280, 1270, 1180, 1080, 1070]
    high = [1320, 1310, 1220, 1120, 1110]
    got = placements(scores, low, high)
    assert got.placement == (1, 1, 3, 4, 4)
    assert got.medal == ("gold", "gold", "bronze", None, None)  # two golds, no silver


def test_chains_join_entrants_whose_own_intervals_do_not_meet() -> None:
    # A overlaps B, B overlaps C, A and C do not: one placement for all three.
    got = placements([30, 20, 10], [25, 12, 5], [35, 27, 14])
    assert got.placement == (1, 1, 1) and got.group == (0, 0, 0)
    # Only neighbours are compared: 2 overlaps 0 but not its neighbour 1, so it starts a group.
    got = placements([30, 20, 10], [5, 19, 9], [35, 21, 12])
    assert got.placement == (1, 1, 3)
    got = placements([30, 20, 10], [29, 19, 25], [31, 21, 35])
    assert got.placement == (1, 2, 3)  # 2 overlaps 0, but 2's neighbour is 1, and they do not meet


def test_touching_intervals_overlap() -> None:
    assert placements([2, 1], [1.5, 0], [3, 1.5]).placement == (1, 1)
    assert placements([2, 1], [1.5, 0], [3, 1.4999]).placement == (1, 2)


def test_equal_scores_are_ordered_by_the_tie_key() -> None:
    scores, low, high = [100, 100, 100], [99, 99, 99], [101, 101, 101]
    assert placements(scores, low, high).order == (0, 1, 2)
    got = placements(scores, low, high, tie_keys=["cy", "ada", "bo"])
    assert got.order == (1, 2, 0) and got.placement == (1, 1, 1)
    # Equal scores whose intervals do not meet still split, in tie-key order.
    split = placements([100, 100], [90, 100.5], [99.5, 110], tie_keys=["b", "a"])
    assert split.order == (1, 0) and split.placement == (2, 1)


def test_medals_stop_at_third_place() -> None:
    got = placements([50, 40, 40, 30], [49, 35, 35, 29], [51, 45, 45, 31])
    assert got.placement == (1, 2, 2, 4) and got.medal == ("gold", "silver", "silver", None)
    everyone = placements([5, 4, 3, 2], [0, 0, 0, 0], [9, 9, 9, 9])
    assert everyone.placement == (1, 1, 1, 1) and everyone.medal == ("gold",) * 4


def test_no_entrants() -> None:
    got = placements([], [], [])
    assert got.order == () and got.placement == () and got.entrants == 0


@st.composite
def boards(draw: st.DrawFn) -> tuple[list[float], list[float], list[float]]:
    size = draw(st.integers(1, 12))
    scores = draw(st.lists(st.integers(0, 20), min_size=size, max_size=size))
    below = draw(st.lists(st.integers(0, 6), min_size=size, max_size=size))
    above = draw(st.lists(st.integers(0, 6), min_size=size, max_size=size))
    return (
        [float(s) for s in scores],
        [s - d for s, d in zip(scores, below, strict=True)],
        [s + d for s, d in zip(scores, above, strict=True)],
    )


@given(boards(), st.permutations(list(range(12))))
def test_properties_of_placements(
    board: tuple[list[float], list[float], list[float]], shuffle: list[int]
) -> None:
    scores, low, high = board
    got = placements(scores, low, high)
    n = len(scores)
    ordered = [got.placement[i] for i in got.order]
    assert ordered == sorted(ordered) and ordered[0] == 1
    assert [scores[i] for i in got.order] == sorted(scores, reverse=True)
    # A placement is 1 + the number of entrants above its group.
    for position, entrant in enumerate(got.order):
        group = got.group[entrant]
        assert got.placement[entrant] == 1 + sum(1 for other in range(n) if got.group[other] < group)
        if position:
            above = got.order[position - 1]
            meet = low[entrant] <= high[above] and low[above] <= high[entrant]
            assert (got.group[entrant] == got.group[above]) == meet
    assert all(
        (medal is not None) == (place <= 3) for medal, place in zip(got.medal, got.placement, strict=True)
    )
    # Relabelling the entrants (with the labels as tie keys) relabels the result, nothing else.
    perm = [i for i in shuffle if i < n]
    moved = placements(
        [scores[i] for i in perm], [low[i] for i in perm], [high[i] for i in perm], tie_keys=perm
    )
    assert [moved.placement[perm.index(i)] for i in range(n)] == list(got.placement)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([1.0, float("nan")], [0, 0], [2, 2]), r"scores\[1\] = nan is not finite"),
        (([1.0, 2.0], [0, 0], [2]), "high has 1 entries for 2 entrants"),
        (([1.0, 2.0], [3, 0], [2, 2]), r"interval 0 is inverted: low\[0\] = 3.0 > high\[0\] = 2.0"),
        (([[1.0]], [[0]], [[2]]), "scores must be 1-D"),
        ((["a"], [0], [2]), "scores must hold numbers"),
    ],
)
def test_bad_input_is_refused_by_name(args: tuple[object, object, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        placements(*args)


def test_bad_tie_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="tie_keys has 1 entries for 2 entrants"):
        placements([1, 2], [0, 0], [3, 3], tie_keys=["a"])
    with pytest.raises(ValueError, match="tie_keys must be distinct"):
        placements([1, 2], [0, 0], [3, 3], tie_keys=["a", "a"])
