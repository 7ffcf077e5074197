"""When the maximum-likelihood ratings are finite: strong connectivity of the "scored against" graph.

Edge i → j whenever i scored at least half a point against j in the games between them, i.e.
W_ij + ½T_ij ≥ ½, i.e. i beat or drew j at least once (2W_ij + T_ij ≥ 1). Pairs that never met
have no edge either way. The Bradley–Terry MLE (draw = half a win) is finite iff this graph is
strongly connected (Zermelo 1929, Ford 1957): otherwise some set of entrants scored nothing
against the rest, and pushing that set's ratings down raises the likelihood without bound. The
Davidson model's rating score equations are the same (points against expected points), so the
same graph decides its ratings; its tie parameter needs 0 < draws < games besides.

Note what the edge is NOT: a majority (s_ij ≥ ½ n_ij). An entrant who won one game of ten
against j still has an edge to j; a majority graph would wrongly reject perfectly finite data.

A replicate's games are a sub-multiset of the data's, so its graph is a subgraph of the data's:
if the full data fail the check, every bootstrap replicate fails it too.

Davidson needs one more condition, because λ = ln ν moves too. The model is an exponential family
linear in (θ, λ), so its MLE is finite iff no direction (δ, μ) other than the gauge (δ = 1, μ = 0)
leaves every game's outcome among the fastest-growing exponents of its pair:

    i beat j:  δ_i − δ_j ≥ 2μ      a draw:  |δ_i − δ_j| ≤ 2μ      (and j beat i symmetrically)

With μ = 0 that is the strong-connectivity condition above; μ < 0 is impossible once there is a
draw; μ > 0 (scale it to ½) is a system of difference constraints, δ_j − δ_i ≤ −1 for a win of i
over j and δ_i − δ_j ≤ 1 both ways for a draw, feasible iff its constraint graph has no negative
cycle. When it is feasible the results are "separable": every decisive game was won across a
rating gap that no drawn pair spans, and pushing ν → ∞ with the gaps growing in step raises the
likelihood forever (e.g. 1 beat 0 once, and the pairs 0–1, 1–2 and 2–0 each drew once: strongly
connected, but no finite fit). Any pair with wins both ways is a negative 2-cycle, so real event
data pass at once; the Floyd–Warshall search runs only for tables without one.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from colosseum_core.statistics.pairwise import PairCounts

MLE_EXISTENCE: Final = "COLOSSEUM-MLE-EXISTENCE-1"
MLE_EXISTENCE_METHOD: Final = (
    "edge i→j iff 2W_ij + T_ij ≥ 1 (i scored ≥ ½ point against j; pairs that met only); "
    "finite MLE iff the graph is strongly connected (closure by repeated boolean squaring)"
)
DAVIDSON_SEPARATION_METHOD: Final = (
    "separable iff the difference constraints δ_j − δ_i ≤ −1 (i beat j), |δ_i − δ_j| ≤ 1 (a draw) are "
    "feasible, i.e. their constraint graph has no negative cycle (Floyd–Warshall; skipped when some "
    "pair has wins both ways)"
)
# Any finite shortest-path value below this is clipped to it: it stays negative (a simple path's
# positive part is at most p − 1), and −∞ + ∞ never happens.
_FLOOR: Final = -1e9


def scored_against(wins: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """(..., p, p) bool: edge i → j iff 2W_ij + T_ij ≥ 1. Works on one table or a stack of them."""
    return (2 * wins + draws) > 0


def _reachable(edges: np.ndarray) -> np.ndarray:
    """(..., p, p) bool: j reachable from i (every entrant reaches itself)."""
    p = edges.shape[-1]
    reach = (edges | np.eye(p, dtype=bool)).astype(np.float64)
    # Squaring doubles the path length covered; ⌈log2 p⌉ + 1 squarings reach every path. Entries of
    # the product are at most p, so float64 counts them exactly before they are thresholded.
    for _ in range(max(1, int(p - 1).bit_length())):
        reach = ((reach @ reach) > 0).astype(np.float64)
    return reach > 0


def strongly_connected_many(wins: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """(B,) bool for stacks (B, p, p) of W and T: is each replicate's graph strongly connected?"""
    return _reachable(scored_against(wins, draws)).all(axis=(-2, -1))


def strongly_connected_scores(score: np.ndarray) -> np.ndarray:
    """(B,) bool for a stack (B, p, p) of S = W + ½T: S_ij > 0 is the edge 2W_ij + T_ij ≥ 1."""
    return _reachable(score > 0).all(axis=(-2, -1))


def strong_components(counts: PairCounts) -> tuple[tuple[int, ...], ...]:
    """The strongly connected components, each sorted, ordered by their smallest entrant.

    One component holding every entrant means the MLE is finite.
    """
    reach = _reachable(scored_against(counts.wins, counts.draws))
    mutual = reach & reach.T
    seen: set[int] = set()
    components: list[tuple[int, ...]] = []
    for i in range(counts.entrants):
        if i in seen:
            continue
        members = tuple(int(j) for j in np.flatnonzero(mutual[i]))
        seen.update(members)
        components.append(members)
    return tuple(components)


def is_strongly_connected(counts: PairCounts) -> bool:
    return len(strong_components(counts)) == 1


def davidson_separable_many(wins: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """(B,) bool: is each table "separable" (no finite Davidson fit even if strongly connected)?"""
    beat = wins > 0
    drew = draws > 0
    separable = np.zeros(wins.shape[0], dtype=bool)
    suspects = np.flatnonzero(~(beat & np.swapaxes(beat, -1, -2)).any(axis=(-2, -1)))
    if suspects.size == 0:
        return separable
    p = wins.shape[-1]
    # weight[u, v] bounds δ_v − δ_u: −1 for a win of u over v, +1 for a draw either way, the least.
    weight = np.where(drew[suspects], 1.0, np.inf)
    weight = np.where(beat[suspects], -1.0, weight)
    diagonal = np.arange(p)
    weight[:, diagonal, diagonal] = np.minimum(weight[:, diagonal, diagonal], 0.0)
    for k in range(p):
        weight = np.maximum(np.minimum(weight, weight[:, :, k, None] + weight[:, None, k, :]), _FLOOR)
    separable[suspects] = ~(weight[:, diagonal, diagonal] < 0).any(axis=1)
    return separable
