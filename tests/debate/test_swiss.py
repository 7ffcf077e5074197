"""COMPELLE-SWISS-1: score groups first, no rematch, sides balanced, a bye, fresh motions, replayable."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from colosseum_core.debate import swiss
from colosseum_core.debate.swiss import Standing, swiss_round

MOTIONS = [f"m{i:02d}" for i in range(12)]


def field(n: int) -> list[Standing]:
    return [Standing(f"k{i:03d}", 0.0, 1000.0 + 7 * ((i * 37) % n), 0) for i in range(n)]


def play_rounds(players: list[Standing], rounds: int, seed: int = 1):
    """Rounds with random results, carrying scores, meetings, byes and side balance forward."""
    rng = random.Random(seed)
    score = {p.key: 0.0 for p in players}
    balance = {p.key: p.pro_minus_con for p in players}
    met: set[frozenset[str]] = set()
    byes: set[str] = set()
    argued: dict[frozenset[str], list[str]] = {}
    played = []
    for r in range(1, rounds + 1):
        standing = [Standing(p.key, score[p.key], p.rating, balance[p.key]) for p in players]
        done = swiss_round(
            "0000040",
            r,
            standing,
            met=frozenset(met),
            had_bye=frozenset(byes),
            motion_ids=MOTIONS,
            argued=argued,
        )
        played.append((standing, done))
        if done.bye:
            byes.add(done.bye)
        for g in done.games:
            pair = frozenset((g.pro, g.con))
            met.add(pair)
            argued.setdefault(pair, []).append(g.motion_id)
            balance[g.pro] += 1
            balance[g.con] -= 1
            roll = rng.random()
            if roll < 0.45:
                score[g.pro] += 1
            elif roll < 0.9:
                score[g.con] += 1
            else:
                score[g.pro] += 0.5
                score[g.con] += 0.5
    return played


def test_round_one_pairs_neighbours_by_rating_and_is_replayable() -> None:
    players = field(16)
    first = swiss_round(
        "0000040", 1, players, met=frozenset(), had_bye=frozenset(), motion_ids=MOTIONS, argued={}
    )
    again = swiss_round(
        "0000040",
        1,
        list(reversed(players)),
        met=frozenset(),
        had_bye=frozenset(),
        motion_ids=MOTIONS,
        argued={},
    )
    assert first == again and first.bye is None and len(first.games) == 8
    ranked = sorted(players, key=lambda p: -p.rating)
    position = {p.key: i for i, p in enumerate(ranked)}
    assert all(abs(position[g.pro] - position[g.con]) == 1 for g in first.games)
    assert len({g.game_id for g in first.games}) == 8
    other = swiss_round(
        "0000041", 1, players, met=frozenset(), had_bye=frozenset(), motion_ids=MOTIONS, argued={}
    )
    # Another epoch's seed draws other sides and motions for the same neighbours.
    assert [(g.pro, g.motion_id) for g in other.games] != [(g.pro, g.motion_id) for g in first.games]


def test_later_rounds_pair_score_groups_without_rematches_and_balance_sides() -> None:
    played = play_rounds(field(16), rounds=5)
    seen: set[frozenset[str]] = set()
    for standing, done in played:
        score = {p.key: p.score for p in standing}
        balance = {p.key: p.pro_minus_con for p in standing}
        for g in done.games:
            pair = frozenset((g.pro, g.con))
            assert pair not in seen, f"rematch {pair} in round {g.round}"
            seen.add(pair)
            assert balance[g.pro] <= balance[g.con]  # whoever argued Pro less argues Pro
        # Score groups first: no pair is further apart in score than the field forces.
        assert max(abs(score[g.pro] - score[g.con]) for g in done.games) <= 1.0
    # Sides even out: after five rounds nobody has argued one side more than three times the other.
    final = {p.key: p.pro_minus_con for p in played[-1][0]}
    assert max(abs(v) for v in final.values()) <= 3


def test_an_odd_field_gives_one_bye_to_the_lowest_ranked_who_has_not_had_one() -> None:
    played = play_rounds(field(7), rounds=3)
    byes = [done.bye for _, done in played]
    assert all(byes) and len(set(byes)) == 3
    standing, done = played[0]
    lowest = sorted(standing, key=lambda p: (-p.score, -p.rating, p.key))[-1]
    assert done.bye == lowest.key and len(done.games) == 3


def test_a_pair_that_must_meet_again_argues_a_new_motion() -> None:
    a, b = Standing("a", 1.0, 1000.0, 0), Standing("b", 0.0, 1000.0, 1)
    done = swiss_round(
        "0000040", 2, [a, b], met=frozenset({frozenset(("a", "b"))}), had_bye=frozenset(),
        motion_ids=MOTIONS[:2], argued={frozenset(("a", "b")): [MOTIONS[0]]},
    )  # fmt: skip
    (game,) = done.games
    assert (game.pro, game.con, game.motion_id) == ("a", "b", MOTIONS[1])
    both = swiss_round(
        "0000040", 3, [a, b], met=frozenset(), had_bye=frozenset(), motion_ids=MOTIONS[:2],
        argued={frozenset(("a", "b")): [MOTIONS[1], MOTIONS[0]]},
    )  # fmt: skip
    assert both.games[0].motion_id == MOTIONS[1]  # all argued: the one argued longest ago


def test_bad_fields_are_named() -> None:
    with pytest.raises(ValueError, match="a player stands twice"):
        swiss_round(
            "0000040", 1, field(2) * 2, met=frozenset(), had_bye=frozenset(), motion_ids=MOTIONS, argued={}
        )
    with pytest.raises(ValueError, match="no motions"):
        swiss_round("0000040", 1, field(2), met=frozenset(), had_bye=frozenset(), motion_ids=[], argued={})
    assert (
        swiss_round(
            "0000040", 1, field(1), met=frozenset(), had_bye=frozenset(), motion_ids=MOTIONS, argued={}
        ).bye
        == "k000"
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_matching_is_networkxs_min_weight_matching(seed: int) -> None:
    # The round matches over a graph whose G[v] is the adjacency dict itself (no views): the same
    # algorithm over the same reads, so the same matching as networkx's own, ties included.
    rng = random.Random(seed)
    players = 2 * rng.randrange(2, 40)
    graph = nx.Graph()
    graph.add_nodes_from(f"m{i:03d}" for i in range(players))
    for i in range(players):
        for j in range(i + 1, min(players, i + 1 + rng.choice([1, 3, 24, players]))):
            # few distinct costs, so many ties
            graph.add_edge(f"m{i:03d}", f"m{j:03d}", weight=rng.choice([1, 2, 3, 1_000, 1_000_000]))
    assert swiss._min_weight_matching(graph) == nx.min_weight_matching(graph)
