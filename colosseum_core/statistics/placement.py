"""Shared placements from overlapping 95 % intervals, and the medals they earn.

The rule (the multi-event reading "contenders are ordered by score; neighbours whose 95 %
intervals overlap share a placement; medals go to placements 1–3"), made precise:

1. Order: by score, highest first. Equal scores are ordered by the tie key, ascending (the
   entrant's index unless the caller gives keys, e.g. names), so the order never depends on
   the input's row order or on a sort's stability.
2. Groups, by chaining neighbours: walking down the order, an entrant joins the group of the
   entrant just above it iff their two intervals overlap, as closed intervals
   (low_a ≤ high_b and low_b ≤ high_a; touching ends overlap). Otherwise it starts a new group.
   Only neighbours are compared: if A overlaps B and B overlaps C, all three share a placement
   even when A and C do not overlap (a chain), and an entrant never joins a group above its
   neighbour's.
3. Placement = 1 + the number of entrants in the groups above (competition ranking, "1, 1, 3"):
   two entrants sharing first place are followed by third place.
4. Medals: placement 1 gold, 2 silver, 3 bronze; everyone sharing a medal placement gets that
   medal, so there may be several golds and no silver (1, 1, 3).

Why chaining and not FastChat's "1 + the number of entrants whose interval lies wholly above":
that rank is not a partition (A can share with B and B with C while A ranks above C), so "share a
placement" would not name groups at all; chaining does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Final

import numpy as np

PLACEMENT: Final = "COLOSSEUM-PLACEMENT-1"
PLACEMENT_METHOD: Final = (
    "order by score descending, ties by the tie key ascending; an entrant shares the group of the entrant "
    "just above it iff their closed intervals overlap (neighbours chain); placement = 1 + entrants in the "
    "groups above; medals: placement 1 gold, 2 silver, 3 bronze"
)
MEDALS: Final = {1: "gold", 2: "silver", 3: "bronze"}


@dataclasses.dataclass(frozen=True)
class Placements:
    version: str
    method: str
    order: tuple[int, ...]  # entrant indices, best first
    placement: tuple[int, ...]  # per entrant (by index): 1, 1, 3, …
    group: tuple[int, ...]  # per entrant: 0 for the top group, 1 for the next, …
    medal: tuple[str | None, ...]  # per entrant: "gold", "silver", "bronze" or None
    entrants: int


def _vector(values: object, name: str, size: int | None) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, not shape {array.shape}")
    if array.size and array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold numbers, not dtype {array.dtype}")
    array = array.astype(np.float64)
    if size is not None and array.shape[0] != size:
        raise ValueError(f"{name} has {array.shape[0]} entries for {size} entrants")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ValueError(f"{name}[{int(bad[0])}] = {array[bad[0]]} is not finite: place only fitted entrants")
    return array


def placements(
    scores: object, low: object, high: object, tie_keys: Sequence[str] | Sequence[int] | None = None
) -> Placements:
    """Placements of entrants 0..p−1 from their scores and interval bounds (see the module docstring)."""
    score = _vector(scores, "scores", None)
    entrants = score.shape[0]
    lower, upper = _vector(low, "low", entrants), _vector(high, "high", entrants)
    inverted = np.flatnonzero(lower > upper)
    if inverted.size:
        i = int(inverted[0])
        raise ValueError(f"interval {i} is inverted: low[{i}] = {lower[i]} > high[{i}] = {upper[i]}")
    if tie_keys is None:
        keys: list[object] = list(range(entrants))
    else:
        keys = list(tie_keys)
        if len(keys) != entrants:
            raise ValueError(f"tie_keys has {len(keys)} entries for {entrants} entrants")
        if len(set(keys)) != entrants:
            raise ValueError("tie_keys must be distinct, or ties would be left to the input order")
    order = sorted(range(entrants), key=lambda i: (-score[i], keys[i]))  # type: ignore[return-value]
    group = [0] * entrants
    placement = [0] * entrants
    current, first_place = 0, 1
    for position, entrant in enumerate(order):
        if position:
            above = order[position - 1]
            overlap = lower[entrant] <= upper[above] and lower[above] <= upper[entrant]
            if not overlap:
                current += 1
                first_place = position + 1
        group[entrant] = current
        placement[entrant] = first_place
    return Placements(
        version=PLACEMENT,
        method=PLACEMENT_METHOD,
        order=tuple(order),
        placement=tuple(placement),
        group=tuple(group),
        medal=tuple(MEDALS.get(place) for place in placement),
        entrants=entrants,
    )
