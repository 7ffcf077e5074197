"""Placements from 95 % intervals: COLOSSEUM-PLACEMENT-2 (1 + the entrants wholly above) on the issue's
cases, hand-made fields and a property test of its guarantees; COLOSSEUM-PLACEMENT-1 (neighbours chain)
kept exactly, as the events sealed under it are re-derived by it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from colosseum_core.statistics.placement import PLACEMENT, PLACEMENT_1, PLACEMENT_2, placements, reading


def placements_1(*args: object, **kwargs: object):
    return placements(*args, rule=PLACEMENT_1, **kwargs)  # type: ignore[arg-type]


def test_clear_separation_gives_one_entrant_a_placement() -> None:
    got = placements_1([1200, 1100, 1000], [1190, 1090, 990], [1210, 1110, 1010])
    assert got.order == (0, 1, 2) and got.placement == (1, 2, 3) and got.group == (0, 1, 2)
    assert got.medal == ("gold", "silver", "bronze")
    assert got.version == PLACEMENT_1 and "neighbours chain" in got.method and got.entrants == 3


def test_overlapping_neighbours_share_and_numbering_skips_like_competition_ranking() -> None:
    # Entrants in index order 0..4 by score; 0 and 1 overlap, 2 alone, 3 and 4 overlap.
    scores = [1300, 1290, 1200, 1100, 1095]
    low = [1280, 1270, 1180, 1080, 1070]
    high = [1320, 1310, 1220, 1120, 1110]
    got = placements_1(scores, low, high)
    assert got.placement == (1, 1, 3, 4, 4)
    assert got.medal == ("gold", "gold", "bronze", None, None)  # two golds, no silver


def test_chains_join_entrants_whose_own_intervals_do_not_meet() -> None:
    # A overlaps B, B overlaps C, A and C do not: one placement for all three.
    got = placements_1([30, 20, 10], [25, 12, 5], [35, 27, 14])
    assert got.placement == (1, 1, 1) and got.group == (0, 0, 0)
    # Only neighbours are compared: 2 overlaps 0 but not its neighbour 1, so it starts a group.
    got = placements_1([30, 20, 10], [5, 19, 9], [35, 21, 12])
    assert got.placement == (1, 1, 3)
    got = placements_1([30, 20, 10], [29, 19, 25], [31, 21, 35])
    assert got.placement == (1, 2, 3)  # 2 overlaps 0, but 2's neighbour is 1, and they do not meet


def test_touching_intervals_overlap() -> None:
    assert placements_1([2, 1], [1.5, 0], [3, 1.5]).placement == (1, 1)
    assert placements_1([2, 1], [1.5, 0], [3, 1.4999]).placement == (1, 2)


def test_equal_scores_are_ordered_by_the_tie_key() -> None:
    scores, low, high = [100, 100, 100], [99, 99, 99], [101, 101, 101]
    assert placements_1(scores, low, high).order == (0, 1, 2)
    got = placements_1(scores, low, high, tie_keys=["cy", "ada", "bo"])
    assert got.order == (1, 2, 0) and got.placement == (1, 1, 1)
    # Equal scores whose intervals do not meet still split, in tie-key order.
    split = placements_1([100, 100], [90, 100.5], [99.5, 110], tie_keys=["b", "a"])
    assert split.order == (1, 0) and split.placement == (2, 1)


def test_medals_stop_at_third_place() -> None:
    got = placements_1([50, 40, 40, 30], [49, 35, 35, 29], [51, 45, 45, 31])
    assert got.placement == (1, 2, 2, 4) and got.medal == ("gold", "silver", "silver", None)
    everyone = placements_1([5, 4, 3, 2], [0, 0, 0, 0], [9, 9, 9, 9])
    assert everyone.placement == (1, 1, 1, 1) and everyone.medal == ("gold",) * 4


def test_no_entrants() -> None:
    got = placements_1([], [], [])
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
def test_properties_of_placements_1(
    board: tuple[list[float], list[float], list[float]], shuffle: list[int]
) -> None:
    scores, low, high = board
    got = placements_1(scores, low, high)
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
    moved = placements_1(
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
@pytest.mark.parametrize("rule", [PLACEMENT_1, PLACEMENT_2])
def test_bad_input_is_refused_by_name(args: tuple[object, object, object], message: str, rule: str) -> None:
    with pytest.raises(ValueError, match=message):
        placements(*args, rule=rule)


@pytest.mark.parametrize("rule", [PLACEMENT_1, PLACEMENT_2])
def test_bad_tie_keys_counts_and_rules_are_refused(rule: str) -> None:
    with pytest.raises(ValueError, match="tie_keys has 1 entries for 2 entrants"):
        placements([1, 2], [0, 0], [3, 3], tie_keys=["a"], rule=rule)
    with pytest.raises(ValueError, match="tie_keys must be distinct"):
        placements([1, 2], [0, 0], [3, 3], tie_keys=["a", "a"], rule=rule)
    with pytest.raises(ValueError, match="counted has 1 entries for 2 entrants"):
        placements([1, 2], [0, 0], [3, 3], counted=[True], rule=rule)
    # Only an entrant not counted may lack numbers.
    with pytest.raises(ValueError, match=r"low\[1\] = nan is not finite"):
        placements([1, 2], [0, None], [3, 3], counted=[True, True], rule=rule)
    with pytest.raises(ValueError, match="placement rule 'COLOSSEUM-PLACEMENT-9' is not one of"):
        placements([1], [0], [2], rule="COLOSSEUM-PLACEMENT-9")


# -- COLOSSEUM-PLACEMENT-2 ---------------------------------------------------------------------------


def test_version_2_is_the_current_rule_and_says_what_it_is() -> None:
    assert PLACEMENT == PLACEMENT_2 == "COLOSSEUM-PLACEMENT-2"
    got = placements([1.0], [0.0], [2.0])
    assert got.version == PLACEMENT_2 and "wholly above" in got.method
    assert reading(PLACEMENT_2).startswith("Placements by COLOSSEUM-PLACEMENT-2: ")
    # A page showing a version 1 event says so, and names the current rule.
    old = reading(PLACEMENT_1)
    assert "COLOSSEUM-PLACEMENT-1, the rule these standings were frozen under" in old
    assert "placed by COLOSSEUM-PLACEMENT-2" in old


def test_the_house_player_with_every_game_forfeited_never_shares_gold_with_stockfish() -> None:
    # The chess event, as published under version 1: a wide middle chains the field into one
    # placement, so the house player with 0 points of 6 (every game forfeited) was "gold" beside Stockfish.
    names = ["stockfish-n100", "openai-frontier", "house-random", "house-illegal"]
    rating = [1412.6, 1093.0, 897.0, 597.4]
    low = [1180.2, 820.5, 720.0, 420.9]
    high = [1801.3, 1350.1, 1150.0, 730.0]
    assert placements(rating, low, high, tie_keys=names, rule=PLACEMENT_1).medal == ("gold",) * 4
    got = placements(rating, low, high, tie_keys=names)
    assert got.placement == (1, 1, 2, 3) and got.medal == ("gold", "gold", "silver", "bronze")
    assert [names[i] for i in got.order] == names


def test_a_certain_minus_one_never_shares_with_a_certain_plus_one_through_a_wide_third() -> None:
    # The challenge event: −1.000 [−1.000, −1.000] and +1.000 [+1.000, +1.000], joined under
    # version 1 by a third whose interval spans both.
    names = ["plus", "wide", "minus"]
    score, low, high = [1.0, 0.0, -1.0], [1.0, -1.0, -1.0], [1.0, 1.0, -1.0]
    assert placements(score, low, high, tie_keys=names, rule=PLACEMENT_1).placement == (1, 1, 1)
    got = placements(score, low, high, tie_keys=names)
    assert got.placement == (1, 1, 2) and got.medal == ("gold", "gold", "silver")
    # Without the wide third the two are simply first and second.
    assert placements([1.0, -1.0], [1.0, -1.0], [1.0, -1.0]).placement == (1, 2)


def test_hand_made_fields() -> None:
    # All separate: 1, 2, 3, 4 with gold, silver and bronze.
    apart = placements([40, 30, 20, 10], [38, 28, 18, 8], [42, 32, 22, 12])
    assert apart.placement == (1, 2, 3, 4) and apart.medal == ("gold", "silver", "bronze", None)
    # All overlapping: one placement.
    together = placements([5, 4, 3], [0, 1, 2], [9, 8, 7])
    assert together.placement == (1, 1, 1) and together.medal == ("gold",) * 3
    # A chain of three: A overlaps B, B overlaps C, A lies wholly above C.
    chain = placements([30, 20, 10], [25, 12, 5], [35, 27, 14])
    assert chain.placement == (1, 1, 2) and chain.group == (0, 0, 1)
    # Exact ties share, and competition numbering follows (two golds, then bronze).
    tied = placements([9, 9, 1], [8, 8, 0], [10, 10, 2], tie_keys=["b", "a", "c"])
    assert tied.placement == (1, 1, 3) and tied.medal == ("gold", "gold", "bronze")
    assert tied.order == (1, 0, 2)  # equal placement and score: by tie key
    # Touching ends overlap, as in version 1.
    assert placements([2, 1], [1.5, 0], [3, 1.5]).placement == (1, 1)
    assert placements([2, 1], [1.5, 0], [3, 1.4999]).placement == (1, 2)
    # One contender, and none.
    one = placements([0.25], [-0.5], [1.0])
    assert one.placement == (1,) and one.medal == ("gold",) and one.order == (0,)
    assert placements([], [], []).placement == ()


def test_contenders_with_no_counted_outcome_have_no_placement_and_count_for_nobody() -> None:
    names = ["a", "silent", "b"]
    got = placements(
        [0.5, None, -0.5], [0.4, None, -0.6], [0.6, None, -0.4], tie_keys=names, counted=[1, 0, 1]
    )
    assert got.placement == (1, None, 2) and got.medal == ("gold", None, "silver")
    assert got.group == (0, None, 1) and got.order == (0, 2, 1)
    # Its numbers, whatever they are, place nobody: the same field without it.
    again = placements([0.5, 9.0, -0.5], [0.4, 8.0, -0.6], [0.6, 10.0, -0.4], counted=[True, False, True])
    assert again.placement == (1, None, 2)
    nobody = placements([float("nan")] * 2, [None, None], [None, None], counted=[False, False])
    assert nobody.placement == (None, None) and nobody.medal == (None, None) and nobody.order == (0, 1)


def test_the_placement_is_not_a_partition_and_does_not_read_the_point_or_the_input_order() -> None:
    # A wide interval with a low score shares first place with the leader, and the second, placed
    # below the leader, sits below it: order is settled only where intervals do not meet.
    got = placements([10.5, 9.85, 5.0], [10.0, 9.8, 0.0], [11.0, 9.9, 20.0])
    assert got.placement == (1, 2, 1) and got.order == (0, 2, 1)
    moved = placements([0.0, 0.0, 0.0], [10.0, 9.8, 0.0], [11.0, 9.9, 20.0])
    assert moved.placement == got.placement


@st.composite
def fields(draw: st.DrawFn) -> tuple[list[float], list[float], list[float], list[bool]]:
    size = draw(st.integers(0, 12))
    low = draw(st.lists(st.integers(-20, 20), min_size=size, max_size=size))
    width = draw(st.lists(st.integers(0, 12), min_size=size, max_size=size))
    inside = draw(st.lists(st.floats(0, 1), min_size=size, max_size=size))
    counted = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    high = [lo + w for lo, w in zip(low, width, strict=True)]
    score = [lo + f * w for lo, w, f in zip(low, width, inside, strict=True)]
    return score, [float(x) for x in low], [float(x) for x in high], counted


@given(fields(), st.permutations(list(range(12))))
def test_properties_of_placements_2(
    field: tuple[list[float], list[float], list[float], list[bool]], shuffle: list[int]
) -> None:
    score, low, high, counted = field
    n = len(score)
    got = placements(score, low, high, counted=counted)
    inside = [i for i in range(n) if counted[i]]
    for i in range(n):
        if not counted[i]:
            assert got.placement[i] is None and got.medal[i] is None and got.group[i] is None
            continue
        place = got.placement[i]
        assert place == 1 + sum(1 for j in inside if low[j] > high[i])
        assert got.medal[i] == {1: "gold", 2: "silver", 3: "bronze"}.get(place)
        # At least place − 1 counted entrants are placed above it (as in competition ranking).
        assert sum(1 for j in inside if got.placement[j] < place) >= place - 1
        for j in inside:
            if high[i] < low[j]:  # i lies wholly below j: never its placement, never its medal
                assert place > got.placement[j]
                assert got.medal[i] is None or got.medal[i] != got.medal[j]
            if got.placement[i] == got.placement[j]:  # a shared placement only where intervals meet
                assert low[i] <= high[j] and low[j] <= high[i]
            if low[i] >= low[j] and high[i] >= high[j]:  # an interval no lower never places worse
                assert place <= got.placement[j]
    if inside:
        assert min(got.placement[i] for i in inside) == 1  # someone is first
        if all(high[b] < low[a] or high[a] < low[b] for a in inside for b in inside if a != b):
            assert sorted(got.placement[i] for i in inside) == list(range(1, len(inside) + 1))
            assert {"gold", "silver", "bronze"} <= set(got.medal) or len(inside) < 3
    assert list(got.order[: len(inside)]) == sorted(inside, key=lambda i: (got.placement[i], -score[i], i))
    # Relabelling the entrants relabels the result, nothing else.
    perm = [i for i in shuffle if i < n]
    moved = placements(
        [score[i] for i in perm],
        [low[i] for i in perm],
        [high[i] for i in perm],
        tie_keys=perm,
        counted=[counted[i] for i in perm],
    )
    assert [moved.placement[perm.index(i)] for i in range(n)] == list(got.placement)
