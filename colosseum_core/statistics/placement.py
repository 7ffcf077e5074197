"""Placements from 95 % intervals, and the medals they earn: two versions, chosen by the caller.

The method's reading: "when the intervals of neighbouring contenders overlap, their order is not
settled, and a shared placement can be awarded"; medals go to placements 1–3. Each version is kept
exactly, so whatever was sealed under it re-derives as it was: an event or epoch names its version
where it was frozen, and its placements are computed by that one.

COLOSSEUM-PLACEMENT-2 (``PLACEMENT``, what is frozen from now on):

1. An entrant with no counted outcome has no placement and no medal, and counts for nobody else.
2. Placement = 1 + the number of counted entrants whose interval lies wholly above the entrant's
   (their low above its high: low_j > high_i). Touching or overlapping intervals are not above.
3. Medals: placement 1 gold, 2 silver, 3 bronze.

What it guarantees, and why it was chosen over version 1 (see docs/events.md):

- An entrant whose interval lies wholly below another's is placed strictly below it, so it never
  shares that entrant's placement or medal: every entrant wholly above the higher one is wholly
  above the lower one too, and the higher one is one more. Two entrants share a placement only
  where their intervals overlap, i.e. only where their order is not settled.
- It depends on the intervals alone, not on the input's order, the tie keys or the point scores, and
  it is monotone: an interval no lower at either end never places worse.
- Someone is placed 1 (the entrant with the highest upper bound), and an entrant placed p has at least
  p − 1 entrants placed above it, as in competition ranking; a field whose intervals are all apart is
  placed 1, 2, 3, … with gold, silver and bronze. Where several share first place the next placement
  may be 2 (a chain: A overlaps B, B overlaps C, A lies wholly above C: 1, 1, 2).
- It is not a partition: A may share with B and B with C while A is placed above C. Overlap is not
  transitive, and version 1 treated it as if it were.

This is the rank the LMSYS/LMArena leaderboard publishes ("1 + the number of models statistically
better"), applied to the event's own percentile intervals.

COLOSSEUM-PLACEMENT-1 (``PLACEMENT_1``, the rule of everything frozen before version 2):

1. Order: by score, highest first; equal scores by the tie key, ascending (the entrant's index unless
   the caller gives keys, e.g. names).
2. Groups, by chaining neighbours: walking down the order, an entrant joins the group of the entrant
   just above it iff their closed intervals overlap (low_a ≤ high_b and low_b ≤ high_a). Only
   neighbours are compared, so a chain joins entrants whose own intervals do not meet.
3. Placement = 1 + the number of entrants in the groups above (competition ranking, "1, 1, 3").
4. Medals: placement 1 gold, 2 silver, 3 bronze.

Chaining let a wide interval join a whole field into one group: in small events every contender was
"gold", the one with no point beside the one with every point. Events sealed under it keep it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np

PLACEMENT_1: Final = "COLOSSEUM-PLACEMENT-1"
PLACEMENT_2: Final = "COLOSSEUM-PLACEMENT-2"
PLACEMENT: Final = PLACEMENT_2  # what an event or epoch frozen now is placed by
METHODS: Final = {
    PLACEMENT_1: (
        "order by score descending, ties by the tie key ascending; an entrant shares the group of the "
        "entrant just above it iff their closed intervals overlap (neighbours chain); placement = 1 + "
        "entrants in the groups above; medals: placement 1 gold, 2 silver, 3 bronze"
    ),
    PLACEMENT_2: (
        "placement = 1 + the number of counted entrants whose interval lies wholly above (low_j > high_i; "
        "touching or overlapping is not above); an entrant with no counted outcome has no placement; "
        "medals: placement 1 gold, 2 silver, 3 bronze"
    ),
}
# Each version in a sentence, for the pages that show what it produced.
READINGS: Final = {
    PLACEMENT_1: (
        "contenders whose intervals overlap their neighbours' share a placement, neighbour to neighbour "
        "(a chain can join contenders whose own intervals do not meet); medals for placements 1–3"
    ),
    PLACEMENT_2: (
        "a contender's placement is 1 + the number of contenders whose interval lies wholly above its own, "
        "so contenders share a placement only where their intervals overlap and one whose interval lies "
        "wholly below another's is always placed below it; a contender with no counted outcome has no "
        "placement; medals for placements 1–3"
    ),
}
MEDALS: Final = {1: "gold", 2: "silver", 3: "bronze"}


@dataclasses.dataclass(frozen=True)
class Placements:
    version: str
    method: str
    order: tuple[int, ...]  # entrant indices, best first; entrants with no placement last, by tie key
    placement: tuple[int | None, ...]  # per entrant (by index): 1, 1, 3, …; None: no counted outcome
    group: tuple[int | None, ...]  # per entrant: 0 for the best placement given, 1 for the next, …
    medal: tuple[str | None, ...]  # per entrant: "gold", "silver", "bronze" or None
    entrants: int


def _vector(values: object, name: str, size: int | None) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, not shape {array.shape}")
    if array.size and array.dtype.kind == "O":  # None for an entrant with no counted outcome
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold numbers (or None), not {list(array)[:3]!r}…") from None
    if array.size and array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold numbers, not dtype {array.dtype}")
    array = array.astype(np.float64)
    if size is not None and array.shape[0] != size:
        raise ValueError(f"{name} has {array.shape[0]} entries for {size} entrants")
    return array


def _finite(array: np.ndarray, name: str, counted: np.ndarray) -> None:
    bad = np.flatnonzero(counted & ~np.isfinite(array))
    if bad.size:
        raise ValueError(
            f"{name}[{int(bad[0])}] = {array[bad[0]]} is not finite: place only fitted entrants "
            "(an entrant with no counted outcome is passed as not counted)"
        )


def _chained(score: np.ndarray, lower: np.ndarray, upper: np.ndarray, keys: list[object]) -> list[int]:
    """Version 1's placements of entrants 0..p−1 (all counted), by index."""
    order = sorted(range(score.shape[0]), key=lambda i: (-score[i], keys[i]))  # type: ignore[arg-type,return-value]
    placement = [0] * score.shape[0]
    first_place = 1
    for position, entrant in enumerate(order):
        if position:
            above = order[position - 1]
            if not (lower[entrant] <= upper[above] and lower[above] <= upper[entrant]):
                first_place = position + 1
        placement[entrant] = first_place
    return placement


def _wholly_above(score: np.ndarray, lower: np.ndarray, upper: np.ndarray, keys: list[object]) -> list[int]:
    """Version 2's placements of entrants 0..p−1 (all counted), by index."""
    above = lower[None, :] > upper[:, None]  # [i, j]: j's interval lies wholly above i's
    return [int(x) for x in 1 + above.sum(axis=1)]


RULES: Final[dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray, list[object]], list[int]]]] = {
    PLACEMENT_1: _chained,
    PLACEMENT_2: _wholly_above,
}


def placements(
    scores: object,
    low: object,
    high: object,
    tie_keys: Sequence[str] | Sequence[int] | None = None,
    *,
    rule: str = PLACEMENT,
    counted: Sequence[bool] | None = None,
) -> Placements:
    """Placements of entrants 0..p−1 under ``rule`` (see the module docstring).

    ``counted``: which entrants have a counted outcome (all, if None); the others get no placement and
    no medal, are left out for everyone else, and may have None or NaN for their score and bounds.
    ``tie_keys`` order equal scores (and nothing else: version 2 does not read them to place)."""
    if rule not in RULES:
        raise ValueError(f"placement rule {rule!r} is not one of {', '.join(RULES)}")
    score = _vector(scores, "scores", None)
    entrants = score.shape[0]
    lower, upper = _vector(low, "low", entrants), _vector(high, "high", entrants)
    if counted is None:
        mask = np.ones(entrants, dtype=bool)
    else:
        mask = np.asarray(counted, dtype=bool).reshape(-1)
        if mask.shape[0] != entrants:
            raise ValueError(f"counted has {mask.shape[0]} entries for {entrants} entrants")
    for array, name in ((score, "scores"), (lower, "low"), (upper, "high")):
        _finite(array, name, mask)
    inverted = np.flatnonzero(mask & (lower > upper))
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
    placed = [int(i) for i in np.flatnonzero(mask)]
    subset = RULES[rule](score[placed], lower[placed], upper[placed], [keys[i] for i in placed])
    placement: list[int | None] = [None] * entrants
    for entrant, place in zip(placed, subset, strict=True):
        placement[entrant] = place
    ranked = sorted(placed, key=lambda i: (placement[i], -score[i], keys[i]))  # type: ignore[arg-type,return-value]
    unplaced = sorted((i for i in range(entrants) if not mask[i]), key=lambda i: keys[i])  # type: ignore[arg-type,return-value]
    levels = {place: level for level, place in enumerate(sorted(set(subset)))}
    return Placements(
        version=rule,
        method=METHODS[rule],
        order=tuple(ranked + unplaced),
        placement=tuple(placement),
        group=tuple(None if p is None else levels[p] for p in placement),
        medal=tuple(None if p is None else MEDALS.get(p) for p in placement),
        entrants=entrants,
    )


def reading(rule: str, current: str = PLACEMENT) -> str:
    """``rule`` in plain words with its version, for a page that shows what it produced; an older
    rule says that it is the one the standings were frozen under, and which one is current."""
    if rule not in READINGS:
        raise ValueError(f"placement rule {rule!r} is not one of {', '.join(READINGS)}")
    if rule == current:
        return f"Placements by {rule}: {READINGS[rule]}."
    return (
        f"Placements by {rule}, the rule these standings were frozen under and keep (standings frozen "
        f"since are placed by {current}): {READINGS[rule]}."
    )
