"""One count structure for every pairwise fit: games (a, b, outcome) binned into C[a, b, o].

Entrants are 0..p−1. A game is (a, b, o) with a ≠ b and o = 2 (a won), 1 (draw) or 0 (b won);
the order of a and b is kept (first-named, e.g. the side that opened or played white), so a fit
that wants side effects later can still see them. Every game is one cell id (a·p + b)·3 + o, and

    C = bincount(cell, minlength=3p²).reshape(p, p, 3)

From C alone:

    W_ij = C[i,j,2] + C[j,i,0]      games i won against j (whichever side i was)
    T_ij = C[i,j,1] + C[j,i,1]      draws between i and j (symmetric)
    n_ij = W_ij + W_ji + T_ij       games between i and j
    s_i  = Σ_j (W_ij + ½T_ij)       points, chess scoring; kept exactly as half-points 2s_i
    T    = ½ Σ_ij T_ij              total draws

Every bootstrap replicate is just another C: counts add and scale by whole multiplicities.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Final, Self

import numpy as np
import polars as pl

from colosseum_core.statistics._checks import in_range, index_array, positive_whole, same_length, whole

PAIR_COUNTS: Final = "COLOSSEUM-PAIR-COUNTS-1"
PAIR_COUNTS_METHOD: Final = (
    "cell = (a·p + b)·3 + o with o = 2 a won, 1 draw, 0 b won; C = bincount(cell, minlength=3p²)"
    ".reshape(p, p, 3); W_ij = C[i,j,2] + C[j,i,0], T_ij = C[i,j,1] + C[j,i,1], n = W + Wᵀ + T, "
    "s_i = Σ_j W_ij + ½T_ij, total draws = ½ΣT"
)
B_WON: Final = 0
DRAW: Final = 1
A_WON: Final = 2
OUTCOMES: Final = (B_WON, DRAW, A_WON)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclasses.dataclass(frozen=True, eq=False)
class PairCounts:
    """C[a, b, o]: the number of games with first-named a, second-named b and outcome o."""

    cells: np.ndarray  # (p, p, 3) int64, read-only; the diagonal is zero

    def __post_init__(self) -> None:
        cells = np.asarray(self.cells)
        if cells.ndim != 3 or cells.shape[2] != 3 or cells.shape[0] != cells.shape[1]:
            raise ValueError(f"cells must have shape (p, p, 3), not {cells.shape}")
        if cells.shape[0] < 1:
            raise ValueError("cells must cover at least one entrant (p ≥ 1), not p = 0")
        if cells.size and cells.dtype.kind not in "iu":
            raise ValueError(f"cells must be whole-number counts (an integer array), not dtype {cells.dtype}")
        if cells.dtype.kind == "u" and int(cells.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"cells has counts beyond the int64 range, e.g. {int(cells.max())}")
        cells = np.array(cells, dtype=np.int64)  # a private copy: the caller's array may change later
        if int(cells.min()) < 0:
            where = tuple(int(i) for i in np.argwhere(cells < 0)[0])
            raise ValueError(f"cells has a negative count: cells{list(where)} = {int(cells[where])}")
        diagonal = np.einsum("iio->io", cells)
        if diagonal.any():
            i, o = (int(x) for x in np.argwhere(diagonal)[0])
            raise ValueError(
                f"cells has games of an entrant against itself: cells[{i}, {i}, {o}] = {diagonal[i, o]}"
            )
        object.__setattr__(self, "cells", _frozen(cells))

    # ----------------------------------------------------------------------------------------
    # Derived counts

    @property
    def entrants(self) -> int:
        return int(self.cells.shape[0])

    @functools.cached_property
    def wins(self) -> np.ndarray:
        """W (p, p) int64: W[i, j] = games i won against j."""
        return _frozen(wins_and_draws(self.cells)[0])

    @functools.cached_property
    def draws(self) -> np.ndarray:
        """T (p, p) int64, symmetric: draws between i and j."""
        return _frozen(wins_and_draws(self.cells)[1])

    @functools.cached_property
    def games(self) -> np.ndarray:
        """n (p, p) int64, symmetric: games between i and j."""
        return _frozen(self.wins + self.wins.T + self.draws)

    @functools.cached_property
    def half_points(self) -> np.ndarray:
        """2s (p,) int64: each entrant's points in half-points, exact (a win 2, a draw 1)."""
        return _frozen((2 * self.wins + self.draws).sum(axis=1))

    @property
    def points(self) -> np.ndarray:
        """s (p,) float64: each entrant's points (a win 1, a draw ½)."""
        return self.half_points / 2

    @property
    def total_games(self) -> int:
        return int(self.cells.sum())

    @property
    def total_draws(self) -> int:
        return int(self.cells[:, :, DRAW].sum())

    # ----------------------------------------------------------------------------------------
    # Arithmetic, for bootstrap replicates

    def __add__(self, other: object) -> PairCounts:
        if not isinstance(other, PairCounts):
            return NotImplemented
        if other.entrants != self.entrants:
            raise ValueError(f"cannot add counts over {self.entrants} and {other.entrants} entrants")
        return PairCounts(self.cells + other.cells)

    def scaled(self, multiplicity: int) -> PairCounts:
        """The counts of these games taken ``multiplicity`` times (a bootstrap multiplicity m_c)."""
        factor = whole(multiplicity, "multiplicity")
        if factor < 0:
            raise ValueError(f"multiplicity must be non-negative, not {multiplicity!r}")
        return PairCounts(self.cells * factor)

    def __mul__(self, multiplicity: object) -> PairCounts:
        if isinstance(multiplicity, PairCounts):
            return NotImplemented
        return self.scaled(multiplicity)

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PairCounts):
            return NotImplemented
        return self.cells.shape == other.cells.shape and bool(np.array_equal(self.cells, other.cells))

    __hash__ = None  # type: ignore[assignment]


def wins_and_draws(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(W, T) of one table (p, p, 3) or of a stack of them (..., p, p, 3)."""
    wins = cells[..., A_WON] + np.swapaxes(cells[..., B_WON], -1, -2)
    draws = cells[..., DRAW] + np.swapaxes(cells[..., DRAW], -1, -2)
    return wins, draws


# --------------------------------------------------------------------------------------------
# Constructors


def cell_ids(a: object, b: object, outcome: object, entrants: int) -> np.ndarray:
    """(N,) int64 cell ids (a·p + b)·3 + o, after checking every game."""
    p = positive_whole(entrants, "entrants")
    first = index_array(a, "a")
    second = index_array(b, "b")
    result = index_array(outcome, "outcome")
    same_length({"a": first, "b": second, "outcome": result})
    in_range(first, 0, p, "a")
    in_range(second, 0, p, "b")
    bad = np.flatnonzero((result < 0) | (result > 2))
    if bad.size:
        k = int(bad[0])
        raise ValueError(
            f"outcome[{k}] = {int(result[k])} is not an outcome code: 2 (a won), 1 (draw) or 0 (b won)"
        )
    selves = np.flatnonzero(first == second)
    if selves.size:
        k = int(selves[0])
        raise ValueError(f"game {k} pairs entrant {int(first[k])} with itself (a == b)")
    if 3 * p * p > np.iinfo(np.int64).max:
        raise ValueError(f"entrants = {p} is too many for int64 cell ids")
    return (first * p + second) * 3 + result


def counts_from_cells(cells: np.ndarray, entrants: int) -> PairCounts:
    p = positive_whole(entrants, "entrants")
    return PairCounts(np.bincount(cells, minlength=3 * p * p).reshape(p, p, 3))


def pair_counts(a: object, b: object, outcome: object, entrants: int) -> PairCounts:
    """The counts of games (a[k], b[k], outcome[k]) between entrants 0..entrants−1."""
    return counts_from_cells(cell_ids(a, b, outcome, entrants), entrants)


def entrant_codes(values: pl.Series, entrants: int | Sequence[str], name: str) -> np.ndarray:
    """A frame column as entrant indices: integers as they are, or names by their position in ``entrants``."""
    if isinstance(entrants, str | bool):
        raise ValueError(f"entrants must be a count or a sequence of names, not {entrants!r}")
    if values.null_count():
        raise ValueError(f"column {name!r} has {values.null_count()} missing values")
    if isinstance(entrants, int | np.integer) and not isinstance(entrants, bool):
        if not values.dtype.is_integer():
            raise ValueError(
                f"column {name!r} must hold entrant indices (integers) when entrants is a count, "
                f"not {values.dtype}"
            )
        return index_array(values.to_numpy(), name)
    names = list(entrants)
    if len(set(names)) != len(names):
        raise ValueError("entrants has a repeated name")
    if not all(isinstance(entry, str) for entry in names):
        raise ValueError("entrants must be all names (str) when it is a sequence")
    if values.dtype not in (pl.String, pl.Categorical, pl.Enum):
        raise ValueError(
            f"column {name!r} must hold entrant names when entrants is a list, not {values.dtype}"
        )
    text = values.cast(pl.String)
    known = text.is_in(names)
    if not known.all():
        unknown = text.filter(~known)[0]
        raise ValueError(f"column {name!r} names an entrant not in entrants: {unknown!r}")
    lookup = pl.Series(names, dtype=pl.String)
    return text.replace_strict(lookup, pl.Series(range(len(names)), dtype=pl.Int64)).to_numpy()


def frame_games(
    frame: pl.DataFrame, entrants: int | Sequence[str], columns: tuple[str, str, str] = ("a", "b", "outcome")
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(a, b, outcome, p) from a frame's ``columns`` of them, entrants given as a count or as names."""
    a, b, outcome = columns
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise ValueError(f"frame has no column {missing[0]!r} (columns: {frame.columns})")
    first = entrant_codes(frame[a], entrants, a)
    second = entrant_codes(frame[b], entrants, b)
    if frame[outcome].null_count() or not frame[outcome].dtype.is_integer():
        raise ValueError(f"column {outcome!r} must hold outcome codes 0, 1, 2 with none missing")
    p = len(entrants) if not isinstance(entrants, int | np.integer) else int(entrants)
    return first, second, frame[outcome].to_numpy(), p


def pair_counts_from_frame(
    frame: pl.DataFrame,
    entrants: int | Sequence[str],
    *,
    a: str = "a",
    b: str = "b",
    outcome: str = "outcome",
) -> PairCounts:
    """The counts of a polars frame of games: columns ``a`` and ``b`` (indices, or names when
    ``entrants`` lists the names, index = position in the list) and ``outcome`` (2, 1, 0)."""
    first, second, result, p = frame_games(frame, entrants, (a, b, outcome))
    return pair_counts(first, second, result, p)


# --------------------------------------------------------------------------------------------
# The pairs as vectors, for the solvers


@dataclasses.dataclass(frozen=True)
class PairLayout:
    """Every pair i < j of p entrants as a vector of length P = p(p − 1)/2.

    Always every pair, whether it met or not (a pair that never met has n = 0 and adds exact
    zeros): a table's fit then does not depend on which other tables share its batch. Per-entrant
    sums go through ``rows``, a dense (B, p, p) table summed along its last axis, row by row, for
    the same reason: a BLAS product with an incidence matrix may round a row differently
    depending on how many rows it is given.
    """

    entrants: int
    first_index: np.ndarray  # (P,) int64: i of each pair
    second_index: np.ndarray  # (P,) int64: j of each pair, j > i

    @property
    def pairs(self) -> int:
        return int(self.first_index.shape[0])

    def upper(self, table: np.ndarray) -> np.ndarray:
        """(..., P): table[..., i_k, j_k], contiguous."""
        return np.ascontiguousarray(table[..., self.first_index, self.second_index])

    def lower(self, table: np.ndarray) -> np.ndarray:
        """(..., P): table[..., j_k, i_k], contiguous."""
        return np.ascontiguousarray(table[..., self.second_index, self.first_index])

    def table(self, upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
        """(B, p, p) with [i_k, j_k] = upper[k], [j_k, i_k] = lower[k] and a zero diagonal."""
        out = np.zeros((upper.shape[0], self.entrants, self.entrants))
        out[:, self.first_index, self.second_index] = upper
        out[:, self.second_index, self.first_index] = lower
        return out

    def rows(self, upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
        """(B, p): for each entrant r, Σ of upper over its pairs as i plus Σ of lower over its pairs as j."""
        return self.table(upper, lower).sum(axis=2)


@functools.lru_cache(maxsize=16)
def pair_layout(entrants: int) -> PairLayout:
    first_index, second_index = np.triu_indices(entrants, k=1)
    return PairLayout(
        entrants=entrants,
        first_index=_frozen(first_index.astype(np.int64)),
        second_index=_frozen(second_index.astype(np.int64)),
    )


@dataclasses.dataclass(frozen=True)
class PairBatch:
    """B tables as per-pair vectors for a solver: a subclass adds the arrays, each with the table first."""

    layout: PairLayout

    def rows(self, rows: np.ndarray) -> Self:
        """The tables ``rows``; all of them, in order, is the batch itself: no copy."""
        arrays = [field.name for field in dataclasses.fields(self) if field.name != "layout"]
        if rows.shape[0] == getattr(self, arrays[0]).shape[0]:
            return self
        return dataclasses.replace(self, **{name: getattr(self, name)[rows] for name in arrays})
