"""A Swiss round (COMPELLE-SWISS-1): who argues whom, which side, on which motion.

Standing players are ranked by their score within the epoch (a win 1, a draw ½, a void 0), then
their rating, then their key. An odd count gives a bye to the lowest-ranked player who has not had
one this epoch. The rest are paired by a minimum-weight perfect matching (networkx's, over integer
weights and a stable node order, so ties resolve the same way every run) on the cost

    10⁶ · rematch (they met earlier in this epoch) + 10³ · (Δ half-points)² + |Δ rank|

so rematches are avoided whenever the field allows, players meet their score group first, and
within it their neighbours by rating. Only players at most ``BAND`` ranks apart are joined (the
graph is banded, so 256 miners match in a fraction of the complete graph's time); the band holds
the neighbour pairing (1–2, 3–4, …), so a perfect matching always exists, and a field of up to
``BAND + 1`` players is matched over every pair. Sides: whoever has argued Pro less (over every epoch) argues
Pro; a tie is settled by the round's seeded coin. Each pair argues the first motion of the
rotation, from the round's seeded offset, that the two have not argued together before; when they
have argued them all, the one argued longest ago. The seed is the SHA-256 of the rule's version,
the epoch and the round, so every pairing is re-derived from the record.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from colosseum_core.debate.pairing import Pairing, game_id
from colosseum_core.debate.rules import COMPELLE_SWISS

if TYPE_CHECKING:
    import networkx as nx

REMATCH_COST: Final = 1_000_000
SCORE_COST: Final = 1_000
BAND: Final = 24


@functools.cache
def _plain_adjacency() -> Any:
    """networkx is imported where a round is paired, not wherever the debate's rules are (a fifth of
    a second of every debate command's start that pairs nothing)."""
    import networkx as nx

    class _PlainAdjacency(nx.Graph):
        """A graph whose ``G[v]`` is its adjacency dict itself rather than a read-only view of it.

        The blossom algorithm reads ``G[v][w]`` for every slack it computes (125,000 times for 256
        miners), and making the two views took a third of its time. It only reads the graph, so the
        views protect nothing here; every read gives the same dict, so the matching is the same.
        """

        def __getitem__(self, node: object) -> dict:  # type: ignore[override]
            return self._adj[node]

    return _PlainAdjacency


def _min_weight_matching(graph: nx.Graph) -> set[tuple[str, str]]:
    """``nx.min_weight_matching(graph)`` (networkx 3), step for step, over ``_PlainAdjacency``:
    weights inverted as max + 1 − w, the edges added in ``graph.edges`` order, then the maximum-
    weight maximum-cardinality matching."""
    import networkx as nx

    if len(graph.edges) == 0:
        return nx.max_weight_matching(graph, maxcardinality=True)
    edges = graph.edges(data="weight", default=1)
    top = 1 + max(weight for _, _, weight in edges)
    inverse = _plain_adjacency()()
    inverse.add_weighted_edges_from((u, v, top - weight) for u, v, weight in edges)
    return nx.max_weight_matching(inverse, maxcardinality=True)


@dataclasses.dataclass(frozen=True)
class Standing:
    """A player as the round sees it."""

    key: str
    score: float  # this epoch's: a win 1, a draw ½
    rating: float
    pro_minus_con: int  # over every epoch: Pro games less Con games


@dataclasses.dataclass(frozen=True)
class Round:
    games: list[Pairing]
    bye: str | None


def round_seed(epoch: str, round_number: int) -> int:
    digest = hashlib.sha256(f"{COMPELLE_SWISS}\n{epoch}\n{round_number}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _ranked(players: Sequence[Standing]) -> list[Standing]:
    return sorted(players, key=lambda p: (-p.score, -p.rating, p.key))


def _bye(ranked: list[Standing], had_bye: frozenset[str]) -> str | None:
    if len(ranked) % 2 == 0:
        return None
    for player in reversed(ranked):
        if player.key not in had_bye:
            return player.key
    return ranked[-1].key


def swiss_round(
    epoch: str,
    round_number: int,
    players: Sequence[Standing],
    *,
    met: frozenset[frozenset[str]],
    had_bye: frozenset[str],
    motion_ids: Sequence[str],
    argued: Mapping[frozenset[str], Sequence[str]],
) -> Round:
    """The round's games. ``met``: pairs that played earlier in this epoch; ``had_bye``: who sat out
    a round of it; ``argued``: each pair's motions in every earlier game, oldest first."""
    import networkx as nx

    keys = [p.key for p in players]
    if len(set(keys)) != len(keys):
        raise ValueError(f"epoch {epoch} round {round_number}: a player stands twice")
    if not motion_ids:
        raise ValueError(f"epoch {epoch} round {round_number}: the rotation has no motions to argue")
    ranked = _ranked(players)
    bye = _bye(ranked, had_bye)
    playing = [p for p in ranked if p.key != bye]
    rank = {p.key: i for i, p in enumerate(playing)}
    graph = nx.Graph()
    graph.add_nodes_from(p.key for p in playing)
    for i, x in enumerate(playing):
        for y in playing[i + 1 : i + 1 + BAND]:
            half_points = round(2 * (x.score - y.score))
            cost = (
                REMATCH_COST * (frozenset((x.key, y.key)) in met)
                + SCORE_COST * half_points * half_points
                + abs(rank[x.key] - rank[y.key])
            )
            graph.add_edge(x.key, y.key, weight=cost)
    matching = _min_weight_matching(graph) if len(playing) > 1 else set()
    pairs = sorted((tuple(sorted(pair, key=rank.__getitem__)) for pair in matching), key=lambda p: rank[p[0]])
    rng = random.Random(round_seed(epoch, round_number))
    offset = rng.randrange(len(motion_ids))
    balance = {p.key: p.pro_minus_con for p in players}
    games = []
    for index, (x, y) in enumerate(pairs, start=1):
        if balance[x] != balance[y]:
            pro, con = (x, y) if balance[x] < balance[y] else (y, x)
        else:
            pro, con = (x, y) if rng.random() < 0.5 else (y, x)
        history = list(argued.get(frozenset((x, y)), ()))
        ordered = [motion_ids[(offset + index - 1 + k) % len(motion_ids)] for k in range(len(motion_ids))]
        fresh = [m for m in ordered if m not in history]
        motion = (
            fresh[0] if fresh else min(ordered, key=lambda m: max(i for i, h in enumerate(history) if h == m))
        )
        games.append(Pairing(round_number, game_id(epoch, round_number, index), pro, con, motion))
    return Round(games, bye)
