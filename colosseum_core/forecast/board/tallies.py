"""Tallies: the one pass over every scored answer that both boards re-aggregate.

A tally is one row per (kind, seat, gladiator, card) with integer sums: scored answers, wins,
losses, voids, Σ (400 − brier_units), Σ edge_units, Σ crown, forfeits, answers read by a recovery
step, rows, a bound on |edge_units|, and whether the group's markets are proven distinct. Calibration
cells are the stated answers and hits per (kind, seat, gladiator, confidence).

Why integer codes and runs instead of a group-by over the strings: the record is stored card by
card, so the answers of one (kind, seat, gladiator, card) sit next to each other. Over dictionary
codes (polars Categorical or Enum) a group's boundaries are where a code changes, and its sums are
``numpy.add.reduceat`` over those runs, a few milliseconds for 600,000 answers where a hash
group-by over four string keys took about 70. Nothing depends on the order being favourable: runs
of one key that occur apart are merged exactly afterwards, so shuffled rows give the same tallies,
only slower. Every sum is an exact int64 sum.

Distinct markets: a group's scored answers are each a question of their own when its market codes
strictly increase along its single run (as they do when one card's seats answer its questions in
one order). Where that is not shown, the group is marked unproven and the leaderboard counts its
questions exactly over the strings. No count depends on the order, only the speed.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Final

import numpy as np
import polars as pl

KEYS: Final = ("kind", "seat", "gladiator", "card")
SUMMED: Final = ("_n", "_wins", "_losses", "_voids", "_sharp", "_edge", "_crown", "_forfeits", "_bad")
WIN: Final = "win"
LOSS: Final = "loss"
VOID: Final = "void"
CONFIDENCES: Final = tuple(range(1, 11))
BRIER_CEILING: Final = 400  # brier_units of a certain, wrong call: (20 · 1)²
_TALLY_SCHEMA: Final[dict[str, pl.DataType]] = {
    **{k: pl.String() for k in KEYS},
    **{name: pl.Int64() for name in (*SUMMED, "_rows", "_edge_abs")},
    "_proven": pl.Boolean(),
}
_CELL_SCHEMA: Final[dict[str, pl.DataType]] = {
    **{k: pl.String() for k in KEYS[:3]},
    "confidence": pl.Int64(),
    "_stated": pl.Int64(),
    "_hit": pl.Int64(),
}


def _categorical(column: pl.Series, what: str) -> pl.Series:
    """``column`` with dictionary codes: as it is if Categorical or Enum, else made Categorical."""
    if column.null_count():
        raise ValueError(f"a score row has no {what} (null {column.name!r})")
    if isinstance(column.dtype, pl.Categorical | pl.Enum):
        return column
    return column.cast(pl.String).cast(pl.Categorical)


def _codes(column: pl.Series, what: str) -> np.ndarray:
    """The column's dictionary codes (equal codes ⟺ equal strings within this column)."""
    return _categorical(column, what).to_physical().to_numpy()


_OUTCOMES: Final = (WIN, LOSS, VOID)  # a row's outcome index; len(_OUTCOMES) is anything else
_EDGE_BOUND: Final = 4 * 10**12  # |edge_units| of a valid row: |market_units − 10¹⁰ · brier_units|


def _dense(codes: list[np.ndarray]) -> np.ndarray | None:
    """One int64 per position combining ``codes`` (first most significant), or None if too wide."""
    sizes = [int(c.max()) + 1 if c.size else 1 for c in codes]
    if float(np.prod(sizes, dtype=np.float64)) >= 2.0**62:
        return None
    combined = codes[0].astype(np.int64)
    for code, size in zip(codes[1:], sizes[1:], strict=True):
        combined = combined * size + code
    return combined


def _first_positions(group: np.ndarray, groups: int) -> np.ndarray:
    """The first position of each of ``groups`` groups numbered in ``group``."""
    first = np.empty(groups, dtype=np.int64)
    first[group[::-1]] = np.arange(group.size - 1, -1, -1)  # the last write is the first
    return first


def _groups_of(codes: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each position's group (equal codes in every array) and the first position of every group.

    Groups are numbered in the order of their combined codes.
    """
    combined = _dense(codes)
    if combined is not None:
        if combined.size < 2 or bool((combined[1:] > combined[:-1]).all()):
            every = np.arange(combined.size)  # already one position per group, in order
            return every, every
        span = int(combined.max()) + 1
        if span <= 8 * combined.size + 1024:  # a table over the codes beats a sort
            present = np.zeros(span, dtype=bool)
            present[combined] = True
            group = (np.cumsum(present) - 1)[combined]
            return group, _first_positions(group, int(present.sum()))
        if combined.size < 100_000:  # few distinct keys: a sort and a binary search are quickest
            ordered = np.sort(combined)
            distinct = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]
            group = np.searchsorted(distinct, combined)
            return group, _first_positions(group, distinct.size)
        order = np.argsort(combined, kind="stable")  # stable: a group's first position leads it
        ordered = combined[order]
        new = np.concatenate(([True], ordered[1:] != ordered[:-1]))
        group = np.empty(combined.size, dtype=np.int64)
        group[order] = np.cumsum(new) - 1
        return group, order[new]
    order = np.lexsort(codes[::-1])
    new = np.zeros(order.size, dtype=bool)
    new[:1] = True
    for code in codes:
        ordered = code[order]
        new[1:] |= ordered[1:] != ordered[:-1]
    group = np.empty(order.size, dtype=np.int64)
    group[order] = np.cumsum(new) - 1
    return group, order[new]


def _numbers(rows: pl.DataFrame, column: str, voids: int) -> np.ndarray:
    """``column`` with the voids' nulls as 0, after checking that exactly the voids are null."""
    values = rows[column]
    if values.null_count() != voids:
        # Rare, so the cheap count goes first and the row-by-row search only when it fails.
        wrong = rows.filter(values.is_null() != (rows["result"] == VOID))
        row = wrong.row(0, named=True)
        state = "a void with" if row["result"] == VOID else "a scored answer without"
        raise ValueError(
            f"card {row['card']}, seat {row['seat']}, market {row['market_id']}: {state} {column}"
        )
    if not values.dtype.is_integer():
        raise ValueError(f"{column} must be integers, not {values.dtype}")
    # Kept as narrow as stored (the archive keeps brier_units and crown small): less to read.
    return values.fill_null(0).to_numpy()


@dataclasses.dataclass(frozen=True)
class Tallies:
    """The answers' groups: every run's group, and the rows that start them."""

    rows: pl.DataFrame
    starts: np.ndarray  # first row of every run
    run_group: np.ndarray  # the group of every run
    group_rows: np.ndarray  # one row of every group (for its key strings and codes)
    group_codes: dict[str, np.ndarray]  # every group's code of each key
    groups: int
    row_cards: np.ndarray  # every row's card code (for exact question counts)

    @classmethod
    def of(cls, rows: pl.DataFrame) -> Tallies:
        codes = {k: _codes(rows[k], k) for k in KEYS}
        change = np.zeros(rows.height, dtype=bool)
        change[:1] = True
        for code in codes.values():
            change[1:] |= code[1:] != code[:-1]
        starts = np.flatnonzero(change)
        # The card first: rows come card by card, so in record order the groups already ascend.
        ordered = ("card", "kind", "seat", "gladiator")
        run_codes = {k: codes[k][starts] for k in ordered}
        run_group, first_run = _groups_of(list(run_codes.values()))
        group_rows = starts[first_run]
        group_codes = {k: run_codes[k][first_run] for k in KEYS}
        return cls(rows, starts, run_group, group_rows, group_codes, int(first_run.size), codes["card"])

    # ----------------------------------------------------------------------------------------

    @property
    def _merged(self) -> bool:
        """Some group is made of several runs."""
        return self.groups < self.starts.size

    @functools.cached_property
    def _in_order(self) -> bool:
        """Run i is group i (rows in record order): nothing to move."""
        return not self._merged and bool((self.run_group == np.arange(self.groups)).all())

    def _by_group(self, per_run: np.ndarray, how: np.ufunc = np.add) -> np.ndarray:
        if self._in_order:
            return per_run
        if not self._merged:  # one run per group: a permutation
            out = np.empty(self.groups, dtype=per_run.dtype)
            out[self.run_group] = per_run
            return out
        out = np.zeros(self.groups, dtype=per_run.dtype)
        how.at(out, self.run_group, per_run)
        return out

    @functools.cached_property
    def _row_groups(self) -> np.ndarray:
        return np.repeat(self.run_group, np.diff(np.append(self.starts, self.rows.height)))

    def _keys(self, keys: tuple[str, ...] = KEYS, groups: np.ndarray | None = None) -> pl.DataFrame:
        at = pl.Series(self.group_rows if groups is None else self.group_rows[groups])
        return self.rows.select(pl.col(k).gather(at).cast(pl.String) for k in keys)

    def kinds(self) -> list[str]:
        codes = self.group_codes["kind"]
        first = np.full(int(codes.max()) + 1 if codes.size else 0, -1)
        first[codes[::-1]] = np.arange(codes.size)[::-1]  # the earliest group of every kind code
        return self._keys(("kind",), first[first >= 0])["kind"].to_list()

    def one_group_per_card(self, entrant: str) -> bool:
        """No (kind, ``entrant``, card) spans two groups (no seat changed gladiator mid-card, no
        gladiator sat in two seats of one card)."""
        return self._cells[entrant][1].size == self.groups

    @functools.cached_property
    def _cells(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per entrant type, every group's (card, kind, entrant) cell and one group of each."""
        return {
            entrant: _groups_of([self.group_codes[k] for k in ("card", "kind", entrant)])
            for entrant in ("seat", "gladiator")
        }

    def _outcomes(self) -> np.ndarray:
        """Every row's index into ``_OUTCOMES``; anything else is refused, naming the row."""
        codes = self._result_codes
        lookup = np.full(int(codes.max()) + 1 if codes.size else 1, len(_OUTCOMES), dtype=np.uint8)
        for index, code in enumerate(self._outcome_codes):
            if code < lookup.size:
                lookup[code] = index
        outcome = lookup[codes]
        odd = np.flatnonzero(outcome == len(_OUTCOMES))
        if odd.size:
            row = self.rows.row(int(odd[0]), named=True)
            raise ValueError(
                f"{row['kind']} card {row['card']}, seat {row['seat']}: result {row['result']!r} is not "
                f"{WIN!r}, {LOSS!r} or {VOID!r}"
            )
        return outcome

    @functools.cached_property
    def _results(self) -> pl.Series:
        return _categorical(self.rows["result"], "result")

    @functools.cached_property
    def _result_codes(self) -> np.ndarray:
        return self._results.to_physical().to_numpy()

    @functools.cached_property
    def _scored(self) -> np.ndarray:
        """Every row: is it scored (not a void)?"""
        return self._result_codes != self._outcome_codes[_OUTCOMES.index(VOID)]

    @functools.cached_property
    def _outcome_codes(self) -> list[int]:
        """The codes of ``_OUTCOMES`` in the result column's dictionary."""
        # An Enum without one of them gives null: no row can hold it, so any unused code will do.
        codes = pl.Series(_OUTCOMES).cast(self._results.dtype, strict=False).to_physical().to_list()
        unused = 2**32 - 1
        return [unused if code is None else code for code in codes]

    @functools.cached_property
    def _markets(self) -> np.ndarray:
        return _codes(self.rows["market_id"], "market_id")

    @functools.cached_property
    def _sums(self) -> dict[str, np.ndarray]:
        """Every group's sums (``SUMMED``, ``_rows``), ``_edge_abs`` and ``_proven``.

        ``_edge_abs`` is the group's max |edge_units| when some row exceeds 4·10¹² (more than a
        valid row can hold), else 0: it only bounds the exactness check.
        """
        per_run = self._run_sums()
        if self._merged:
            per_run["_proven"] &= np.bincount(self.run_group, minlength=self.groups)[self.run_group] == 1
        sums = {name: self._by_group(per_run[name]) for name in (*SUMMED, "_rows")}
        sums["_edge_abs"] = self._by_group(per_run["_edge_abs"], np.maximum)
        sums["_proven"] = self._by_group(per_run["_proven"], np.logical_and)
        return sums

    def _run_sums(self) -> dict[str, np.ndarray]:
        """Every run's sums."""
        rows, starts = self.rows, self.starts
        codes = self._result_codes
        per_run = {
            name: np.add.reduceat(codes == code, starts, dtype=np.int64)
            for name, code in zip(("_wins", "_losses", "_voids"), self._outcome_codes, strict=True)
        }
        per_run["_n"] = per_run["_wins"] + per_run["_losses"]
        per_run["_rows"] = np.diff(np.append(starts, rows.height))
        if (per_run["_n"] + per_run["_voids"] != per_run["_rows"]).any():
            self._outcomes()  # names the first row with another result
        for column, name in (("forfeit", "_forfeits"), ("bad_formatting", "_bad")):
            flags = rows[column]
            counted = (flags.fill_null(False) if flags.null_count() else flags).to_numpy()
            counted &= self._scored
            per_run[name] = np.add.reduceat(counted, starts, dtype=np.int64)
        voids = int(per_run["_voids"].sum())
        brier, edge, crown = (_numbers(rows, c, voids) for c in ("brier_units", "edge_units", "crown"))
        per_run["_sharp"] = BRIER_CEILING * per_run["_n"] - np.add.reduceat(brier, starts, dtype=np.int64)
        per_run["_edge"] = np.add.reduceat(edge, starts, dtype=np.int64)
        per_run["_crown"] = np.add.reduceat(crown, starts, dtype=np.int64)
        if edge.size and max(int(edge.max()), -int(edge.min())) > _EDGE_BOUND:
            per_run["_edge_abs"] = np.maximum.reduceat(np.abs(edge), starts)
        else:
            per_run["_edge_abs"] = np.zeros(starts.size, dtype=np.int64)
        # Proven distinct: market codes strictly rise inside the run (and it is its group's only run).
        markets = self._markets
        fall = markets[1:] <= markets[:-1]
        fall[starts[1:] - 1] = False  # a new run may start anywhere
        per_run["_proven"] = np.ones(starts.size, dtype=bool)
        per_run["_proven"][np.searchsorted(starts, np.flatnonzero(fall) + 1, side="right") - 1] = False
        return per_run

    def table(self) -> pl.DataFrame:
        """One row per (kind, seat, gladiator, card) with every sum the leaderboard needs."""
        if self.rows.is_empty():
            return pl.DataFrame(schema=_TALLY_SCHEMA)
        return self._keys().with_columns(
            pl.Series(name, values, dtype=_TALLY_SCHEMA[name]) for name, values in self._sums.items()
        )

    def all_proven(self) -> bool:
        """Every group's scored markets are shown distinct (see the module's note)."""
        return self.rows.is_empty() or bool(self._sums["_proven"].all())

    def owners(self, entrant: str) -> tuple[np.ndarray, np.ndarray]:
        """Every group's (kind, ``entrant``) index, and one group of each, in ``by_entrant``'s order."""
        return _groups_of([self.group_codes["kind"], self.group_codes[entrant]])

    def by_entrant(self, entrant: str, owner: np.ndarray, owners: int) -> dict[str, np.ndarray]:
        """Per owner (``owners(entrant)``): the sums of its groups (``SUMMED``), the widest
        |edge_units| bound (``_edge_abs``) and its distinct ``cards``."""
        sums = self._sums
        totals = {}
        for name in SUMMED:
            totals[name] = np.zeros(owners, dtype=np.int64)
            np.add.at(totals[name], owner, sums[name])
        totals["_edge_abs"] = np.zeros(owners, dtype=np.int64)
        np.maximum.at(totals["_edge_abs"], owner, sums["_edge_abs"])
        if self.one_group_per_card(entrant):
            totals["cards"] = np.bincount(owner, minlength=owners)
        else:
            _, distinct = _groups_of([owner, self.group_codes["card"]])
            totals["cards"] = np.bincount(owner[distinct], minlength=owners)
        return totals

    def entrant_names(self, firsts: dict[str, np.ndarray]) -> pl.DataFrame:
        """kind, entrant_type, entrant of the owners whose first groups ``firsts`` gives per
        entrant type, in that order (one gather for all of them)."""
        at = pl.Series(np.concatenate([self.group_rows[first] for first in firsts.values()]))
        picked = self.rows.select(pl.col("kind", *firsts).gather(at).cast(pl.String)).to_dict(as_series=False)
        entrant_type, entrant, offset = [], [], 0
        for name, first in firsts.items():
            entrant_type += [name] * first.size
            entrant += picked[name][offset : offset + first.size]
            offset += first.size
        return pl.DataFrame(
            {"kind": picked["kind"], "entrant_type": entrant_type, "entrant": entrant},
            schema={"kind": pl.String, "entrant_type": pl.String, "entrant": pl.String},
        )

    def questions(self, entrant: str, owner: np.ndarray, owners: int) -> np.ndarray:
        """Per owner (index into ``by_entrant``'s rows): distinct scored (card, market), exactly.

        A (kind, entrant, card) with one group proven distinct counts its scored answers; every
        other one counts the distinct markets of its scored rows.
        """
        sums = self._sums
        cell, _ = self._cells[entrant]
        clear = (np.bincount(cell)[cell] == 1) & sums["_proven"]
        questions = np.zeros(owners, dtype=np.int64)
        np.add.at(questions, owner[clear], sums["_n"][clear])
        if clear.all():
            return questions
        row_group = self._row_groups
        rows = np.flatnonzero(~clear[row_group] & self._scored)
        row_owner = owner[row_group[rows]]
        _, first = _groups_of([row_owner, self.row_cards[rows], self._markets[rows]])
        return questions + np.bincount(row_owner[first], minlength=owners)

    def calibration_cells(self) -> pl.DataFrame:
        """Stated answers and hits per (kind, seat, gladiator, confidence), forfeits left out."""
        rows = self.rows
        if rows.is_empty():
            return pl.DataFrame(schema=_CELL_SCHEMA)
        outcome = self._outcomes()
        stated = (outcome < _OUTCOMES.index(VOID)) & ~rows["forfeit"].fill_null(False).to_numpy()
        confidence = rows["confidence"].fill_null(0).cast(pl.Int64).to_numpy()
        odd = np.flatnonzero(stated & ((confidence < CONFIDENCES[0]) | (confidence > CONFIDENCES[-1])))
        if odd.size:
            row = rows.row(int(odd[0]), named=True)
            raise ValueError(
                f"{row['kind']} seat {row['seat']}: a scored answer with confidence "
                f"{row['confidence']!r}, not 1..10"
            )
        # The entrant of a cell ignores the card: groups that differ only by card share a cell.
        entrant, first = _groups_of([self.group_codes[k] for k in ("kind", "seat", "gladiator")])
        levels = len(CONFIDENCES) + 1
        slot = (entrant[self._row_groups] * levels + confidence) * 2 + (outcome == _OUTCOMES.index(WIN))
        counts = np.bincount(slot[stated], minlength=first.size * levels * 2).reshape(-1, 2)
        n = counts.sum(axis=1)
        cells = np.flatnonzero(n)
        return self._keys(KEYS[:3], first[cells // levels]).with_columns(
            confidence=pl.Series(cells % levels, dtype=pl.Int64),
            _stated=pl.Series(n[cells], dtype=pl.Int64),
            _hit=pl.Series(counts[cells, 1], dtype=pl.Int64),
        )
