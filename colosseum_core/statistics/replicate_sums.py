"""A block of bootstrap replicates summed from its draws, compiled (numba): Σ_c m_c C_c per row.

For each replicate (a row of draws u_1..u_C): M_k = how many draws fell on clusters of type k,
then Σ over the types' entries of M_k·weight into the entry's slot. Every product and partial
sum is a multiple of ½ below 2⁵³ (``clustered_bootstrap`` refuses data where it could not be),
so the sums are exact in any order: the same numbers as the numpy bincounts this replaces, in
one pass over the draws and one over the entries instead of a (b, E) temporary and a b·slots
bincount. Compiled as ``compiled`` says; imported only when a bootstrap runs.
"""

from __future__ import annotations

import numpy as np

from colosseum_core.statistics.compiled import compiled


@compiled
def _summed(
    draws: np.ndarray,
    cluster_type: np.ndarray,
    entry_type: np.ndarray,
    slot: np.ndarray,
    weight: np.ndarray,
    multiplicity: np.ndarray,
    out: np.ndarray,
) -> None:
    for row in range(draws.shape[0]):
        multiplicity[:] = 0.0
        for draw in range(draws.shape[1]):
            multiplicity[cluster_type[draws[row, draw]]] += 1.0
        for entry in range(entry_type.shape[0]):
            out[row, slot[entry]] += multiplicity[entry_type[entry]] * weight[entry]


def summed(
    draws: np.ndarray,
    cluster_type: np.ndarray,
    types: int,
    entry_type: np.ndarray,
    slot: np.ndarray,
    weight: np.ndarray,
    slots: int,
) -> np.ndarray:
    """(b, slots) float64: for each row of draws (b, C), Σ over entries of M[entry_type]·weight
    into the entry's slot, M_k the draws on clusters of type k (``cluster_type``, (C,))."""
    out = np.zeros((draws.shape[0], slots))
    _summed(
        draws,
        np.ascontiguousarray(cluster_type, dtype=np.int64),
        np.ascontiguousarray(entry_type, dtype=np.int64),
        np.ascontiguousarray(slot, dtype=np.int64),
        np.ascontiguousarray(weight, dtype=np.float64),
        np.empty(types),
        out,
    )
    return out
