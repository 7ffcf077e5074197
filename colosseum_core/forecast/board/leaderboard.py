"""The boards, from the ``scores`` table: the leaderboard and the calibration board.

One leaderboard row per (kind, entrant type, entrant): entrant type ``seat`` groups by seat (the
seat owns the record), ``gladiator`` by model id across every seat it sat in. FIGHT and
CALIBRATION are computed completely apart: separate rows, separate clusters, separate bootstrap
draws. They are never mixed on any board (method, defined terms).

Every number comes from integer sums and one division (COLOSSEUM-SCORING-2.1):

- n = scored answers (result ≠ void); RECORD = wins − losses; CROWN = Σ crown.
- SHARP = (1 − mean Brier) × 100 = Σ (400 − brier_units) / (4 · n).
- EDGE = mean (market Brier − Brier) = Σ edge_units / (4·10¹² · n).
- EARLY when n < 30. Forfeits, answers read by a recovery step and voids are counted beside them.

The sums come from one pass over the answers (``forecast/tallies``: per (kind, seat, gladiator,
card), over dictionary codes), which both entrant types and the calibration board re-aggregate.
The record is read whole through the scores archive (``read_scores``).

Intervals (``build_boards``): a question-clustered percentile bootstrap
(``colosseum_core.statistics.bootstrap``) per kind. The clusters are the kind's distinct
(card, market_id) among scored rows, in sorted order; one multiplicity draw per kind is shared by
SHARP and EDGE of every seat and gladiator of that kind. Each row records the seed, the replicate
count, the generator, the method, the cluster count and the numpy version, so it can be replayed.

The calibration board: per entrant and stated confidence s = 1..10 (all ten, always), how often
the call was right against the probability it stated, 0.5 + s/20. Forfeits state nothing and are
left out.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Final

import numpy as np
import polars as pl

from colosseum_core.forecast.board.tallies import CONFIDENCES, LOSS, VOID, WIN, Tallies
from colosseum_core.forecast.rules import COLOSSEUM_SCORING
from colosseum_core.record.archive import ArchivedRead, TableArchive
from colosseum_core.record.tables import RecordTables
from colosseum_core.statistics.bootstrap import (
    BOOTSTRAP_GENERATOR,
    BootstrapSpec,
    RatioIntervals,
    ratio_intervals_many,
)

BOOTSTRAP_SEED: Final = 20260101
BOOTSTRAP_REPLICATES: Final = 1999
EARLY_BELOW: Final = 30
SHARP_SCALE: Final = 4  # SHARP = Σ (400 − brier_units) / (4 · n)
EDGE_SCALE: Final = 4 * 10**12  # EDGE = Σ edge_units / (4·10¹² · n)
KINDS: Final = ("CALIBRATION", "FIGHT")
ENTRANT_TYPES: Final = ("gladiator", "seat")  # sorted: the row order of the boards
STATED: Final = {s: (10 + s) / 20 for s in CONFIDENCES}  # the probability a call at confidence s is right

REQUIRED_COLUMNS: Final = (
    "card",
    "kind",
    "seat",
    "gladiator",
    "market_id",
    "result",
    "forfeit",
    "bad_formatting",
    "confidence",
    "brier_units",
    "edge_units",
    "crown",
    "formula",
)

# The key columns the archive keeps as dictionary codes: the tallies group over their codes.
ARCHIVED_CATEGORICAL: Final = ("card", "kind", "seat", "gladiator", "market_id", "result", "formula")
# Narrower still where every value fits (one byte per code or number): less for the tallies to read.
ARCHIVED_NARROW: Final[dict[str, pl.DataType]] = {
    "kind": pl.Enum(KINDS),
    "result": pl.Enum(sorted((WIN, LOSS, VOID))),
    "brier_units": pl.Int16(),
    "crown": pl.Int8(),
    "confidence": pl.Int8(),
}
_KEYS: Final = ("kind", "entrant_type", "entrant")
POINT_COLUMNS: Final = (
    *_KEYS,
    "n",
    "wins",
    "losses",
    "record",
    "sharp",
    "edge",
    "crown",
    "early",
    "forfeits",
    "bad_formatting",
    "voids",
    "cards",
    "questions",
    "formula",
)
LEADERBOARD_SCHEMA: Final[dict[str, pl.DataType]] = {
    "kind": pl.String(),
    "entrant_type": pl.String(),
    "entrant": pl.String(),
    "n": pl.Int64(),
    "wins": pl.Int64(),
    "losses": pl.Int64(),
    "record": pl.Int64(),
    "sharp": pl.Float64(),
    "sharp_low": pl.Float64(),
    "sharp_high": pl.Float64(),
    "edge": pl.Float64(),
    "edge_low": pl.Float64(),
    "edge_high": pl.Float64(),
    "crown": pl.Int64(),
    "early": pl.Boolean(),
    "forfeits": pl.Int64(),
    "bad_formatting": pl.Int64(),
    "voids": pl.Int64(),
    "cards": pl.Int64(),
    "questions": pl.Int64(),
    "interval_extended": pl.Boolean(),
    "degenerate_replicates": pl.Int64(),
    "formula": pl.String(),
    "bootstrap_seed": pl.Int64(),
    "bootstrap_replicates": pl.Int64(),
    "bootstrap_generator": pl.String(),
    "bootstrap_method": pl.String(),
    "bootstrap_clusters": pl.Int64(),
    "numpy_version": pl.String(),
}
CALIBRATION_SCHEMA: Final[dict[str, pl.DataType]] = {
    "kind": pl.String(),
    "entrant_type": pl.String(),
    "entrant": pl.String(),
    "confidence": pl.Int64(),
    "n": pl.Int64(),
    "hits": pl.Int64(),
    "hit_rate": pl.Float64(),
    "stated": pl.Float64(),
    "gap": pl.Float64(),
    "formula": pl.String(),
}
CLUSTER_RULE: Final = (
    "clusters = the kind's distinct (card, market_id) among scored rows, sorted by (card, market_id); "
    "one draw per kind shared by SHARP and EDGE of every seat and gladiator of that kind"
)


@dataclasses.dataclass(frozen=True)
class Boards:
    leaderboard: pl.DataFrame
    calibration: pl.DataFrame


# --------------------------------------------------------------------------------------------
# Input


def scores_archive(tables: RecordTables, cache: Path) -> TableArchive:
    """The archive of ``scores`` under ``cache``: the columns the boards read, keys as codes."""
    return TableArchive(
        tables,
        "scores",
        cache / "archive",
        columns=REQUIRED_COLUMNS,
        categorical=ARCHIVED_CATEGORICAL,
        narrow=ARCHIVED_NARROW,
    )


def read_scores(tables: RecordTables, cache: Path) -> ArchivedRead | None:
    """Every card's ``scores`` rows (the columns the boards read), through the archive under
    ``cache`` (see ``colosseum_core.record.archive``); None before any card has scores."""
    return scores_archive(tables, cache).read()


def _rows(scores: pl.DataFrame | pl.LazyFrame, formula: str) -> pl.DataFrame:
    """The rows of ``formula`` only (history kept under another version is never mixed in), in memory.

    Every board takes several passes over the answers; a lazy scan is read once, here.
    """
    frame = scores.lazy()
    present = scores.columns if isinstance(scores, pl.DataFrame) else frame.collect_schema().names()
    missing = [c for c in REQUIRED_COLUMNS if c not in present]
    if missing:
        raise ValueError(f"the scores table lacks column(s): {', '.join(missing)}")
    if isinstance(scores, pl.DataFrame) and scores["formula"].eq(formula).all():
        if scores.n_chunks() == 1:
            return scores  # nothing to drop: no copy
        # A frame read from one file per card comes in thousands of chunks; every pass over it
        # ran about 1.5× slower than over the same rows in one chunk, which costs less to make.
        return scores.select(REQUIRED_COLUMNS).rechunk()
    return frame.filter(pl.col("formula") == formula).select(REQUIRED_COLUMNS).collect().rechunk()


def _check_kinds(tallies: Tallies) -> None:
    dtype = tallies.rows["kind"].dtype
    if isinstance(dtype, pl.Enum) and set(dtype.categories.to_list()) <= set(KINDS):
        return  # the archive's dtype admits no other kind
    unknown = sorted(set(tallies.kinds()) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown kind {unknown[0]!r}; kinds are {', '.join(KINDS)}")


def _check_exact(names: pl.DataFrame, sums: dict[str, np.ndarray]) -> None:
    """Σ edge_units ≤ n · max|edge_units| and n · 4·10¹² must fit int64 for every entrant, or the sums lie."""
    for i, (n, widest) in enumerate(zip(sums["_n"].tolist(), sums["_edge_abs"].tolist(), strict=True)):
        if n * max(widest, EDGE_SCALE) >= 2**63:
            kind, entrant_type, name = names.row(i)
            raise ValueError(
                f"{kind} {entrant_type} {name}: {n} answers are too many for exact int64 sums of edge_units"
            )


def _ratio(numerator: np.ndarray, n: np.ndarray, scale: int) -> pl.Series:
    """Σ units / (scale · n) as one float64 division of exact integers; null where n = 0.

    The same division the bootstrap makes, so board and intervals agree to the bit.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        values = numerator.astype(np.float64) / (n * scale).astype(np.float64)
    return pl.Series(np.where(n > 0, values, np.nan), dtype=pl.Float64, nan_to_null=True)


def _points(tallies: Tallies, formula: str) -> pl.DataFrame:
    firsts, parts = {}, []
    for entrant in ENTRANT_TYPES:
        owner, first = tallies.owners(entrant)
        sums = tallies.by_entrant(entrant, owner, first.size)
        if tallies.all_proven() and tallies.one_group_per_card(entrant):
            # One proven group per (kind, entrant, card): every scored answer is its own question.
            sums["questions"] = sums["_n"]
        else:
            sums["questions"] = tallies.questions(entrant, owner, first.size)
        firsts[entrant] = first
        parts.append(sums)
    summed = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    names = tallies.entrant_names(firsts)
    _check_exact(names, summed)
    n = summed["_n"]
    return (
        names.with_columns(
            pl.Series("n", n, dtype=pl.Int64),
            pl.Series("wins", summed["_wins"], dtype=pl.Int64),
            pl.Series("losses", summed["_losses"], dtype=pl.Int64),
            pl.Series("record", summed["_wins"] - summed["_losses"], dtype=pl.Int64),
            _ratio(summed["_sharp"], n, SHARP_SCALE).alias("sharp"),
            _ratio(summed["_edge"], n, EDGE_SCALE).alias("edge"),
            pl.Series("crown", summed["_crown"], dtype=pl.Int64),
            pl.Series("early", n < EARLY_BELOW, dtype=pl.Boolean),
            pl.Series("forfeits", summed["_forfeits"], dtype=pl.Int64),
            pl.Series("bad_formatting", summed["_bad"], dtype=pl.Int64),
            pl.Series("voids", summed["_voids"], dtype=pl.Int64),
            pl.Series("cards", summed["cards"], dtype=pl.Int64),
            pl.Series("questions", summed["questions"], dtype=pl.Int64),
            formula=pl.lit(formula),
        )
        .select(POINT_COLUMNS)
        .sort(_KEYS)
    )


def leaderboard_points(
    scores: pl.DataFrame | pl.LazyFrame, *, formula: str = COLOSSEUM_SCORING
) -> pl.DataFrame:
    """The leaderboard's point aggregates, no intervals: one row per (kind, entrant type, entrant)."""
    rows = _rows(scores, formula)
    tallies = Tallies.of(rows)
    _check_kinds(tallies)
    return _points(tallies, formula)


# --------------------------------------------------------------------------------------------
# Calibration


def _calibration(cells: pl.DataFrame, entrants: pl.DataFrame, formula: str) -> pl.DataFrame:
    counts = pl.concat(
        [
            cells.filter(pl.col("_stated") > 0)
            .group_by("kind", pl.col(entrant).alias("entrant"), "confidence")
            .agg(
                pl.col("_stated").sum().cast(pl.Int64).alias("n"),
                pl.col("_hit").sum().cast(pl.Int64).alias("hits"),
            )
            .with_columns(pl.lit(entrant).alias("entrant_type"))
            for entrant in ENTRANT_TYPES
        ],
        how="diagonal",
    )
    levels = pl.DataFrame({"confidence": list(CONFIDENCES)}, schema={"confidence": pl.Int64})
    n, hits = pl.col("n"), pl.col("hits")
    return (
        entrants.select(_KEYS)
        .join(levels, how="cross")
        .join(counts, on=[*_KEYS, "confidence"], how="left")
        .with_columns(n.fill_null(0), hits.fill_null(0))
        .with_columns(
            hit_rate=pl.when(n > 0).then(hits.cast(pl.Float64) / n.cast(pl.Float64)),
            # 0.5 + s/20 as (10 + s) / 20, one correctly rounded division: taken from Python, since
            # polars turns a division by a literal into a multiplication by its reciprocal.
            stated=pl.col("confidence").replace_strict(STATED, return_dtype=pl.Float64),
        )
        .with_columns(gap=pl.col("hit_rate") - pl.col("stated"), formula=pl.lit(formula))
        .select(list(CALIBRATION_SCHEMA))
        .sort(*_KEYS, "confidence")
    )


def calibration_points(
    scores: pl.DataFrame | pl.LazyFrame, *, formula: str = COLOSSEUM_SCORING
) -> pl.DataFrame:
    """The calibration board alone: ten rows (confidence 1..10) per (kind, entrant type, entrant)."""
    cells = Tallies.of(_rows(scores, formula)).calibration_cells()
    entrants = pl.concat(
        [
            cells.select("kind", pl.col(entrant).alias("entrant"))
            .unique()
            .with_columns(pl.lit(entrant).alias("entrant_type"))
            for entrant in ENTRANT_TYPES
        ],
        how="diagonal",
    )
    return _calibration(cells, entrants, formula)


# --------------------------------------------------------------------------------------------
# Intervals


def _kind_intervals(
    rows: pl.DataFrame, kind: str, entrants: pl.DataFrame, spec: BootstrapSpec
) -> tuple[int, RatioIntervals, RatioIntervals] | None:
    """SHARP and EDGE intervals of every entrant of ``kind`` (rows of ``entrants``, in order)."""
    scored = (
        rows.lazy()
        .filter((pl.col("kind") == kind) & (pl.col("result") != VOID))
        .select(
            # Strings: the clusters are sorted by their text, whatever dictionary the rows came in.
            pl.col("card", "market_id", "seat", "gladiator").cast(pl.String),
            _sharp=pl.lit(400, pl.Int64) - pl.col("brier_units"),
            _edge=pl.col("edge_units"),
        )
    )
    clusters = (
        scored.select("card", "market_id").unique().sort("card", "market_id").with_row_index("_q").collect()
    )
    if clusters.height == 0:
        return None
    columns = entrants.with_row_index("_j")
    cells = pl.concat(
        pl.collect_all(
            [
                scored.join(clusters.lazy(), on=["card", "market_id"])
                .group_by("_q", pl.col(entrant).alias("entrant"))
                .agg(
                    pl.col("_sharp").sum().alias("_sharp"),
                    pl.col("_edge").sum().alias("_edge"),
                    pl.len().cast(pl.Int64).alias("_cnt"),
                )
                .join(columns.lazy().filter(pl.col("entrant_type") == entrant), on="entrant")
                for entrant in ENTRANT_TYPES
            ]
        )
    )
    shape = (clusters.height, entrants.height)
    q, j = cells["_q"].to_numpy(), cells["_j"].to_numpy()
    sharp, edge, count = (np.zeros(shape, dtype=np.int64) for _ in range(3))
    sharp[q, j] = cells["_sharp"].to_numpy()
    edge[q, j] = cells["_edge"].to_numpy()
    count[q, j] = cells["_cnt"].to_numpy()
    sharp_ci, edge_ci = ratio_intervals_many([(sharp, count, SHARP_SCALE), (edge, count, EDGE_SCALE)], spec)
    return clusters.height, sharp_ci, edge_ci


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b, equal_nan=True))


def _intervals(rows: pl.DataFrame, points: pl.DataFrame, spec: BootstrapSpec) -> pl.DataFrame:
    frames = []
    for kind in sorted(set(points["kind"])):
        entrants = points.filter(pl.col("kind") == kind).select(*_KEYS, "sharp", "edge")
        found = _kind_intervals(rows, kind, entrants, spec)
        if found is None:  # only voids in this kind: no question to resample
            clusters, nan = 0, pl.lit(None, pl.Float64)
            frames.append(
                entrants.select(
                    *_KEYS,
                    sharp_low=nan,
                    sharp_high=nan,
                    edge_low=nan,
                    edge_high=nan,
                    interval_extended=pl.lit(False),
                    degenerate_replicates=pl.lit(spec.replicates, pl.Int64),
                    bootstrap_clusters=pl.lit(clusters, pl.Int64),
                )
            )
            continue
        clusters, sharp, edge = found
        shown = (entrants["sharp"].to_numpy(), entrants["edge"].to_numpy())
        if not (_same(sharp.point, shown[0]) and _same(edge.point, shown[1])):
            raise RuntimeError(f"{kind}: the bootstrap's full-data points differ from the board's")
        frames.append(
            entrants.select(_KEYS).with_columns(
                sharp_low=_nullable(sharp.low),
                sharp_high=_nullable(sharp.high),
                edge_low=_nullable(edge.low),
                edge_high=_nullable(edge.high),
                interval_extended=pl.Series(sharp.extended | edge.extended),
                degenerate_replicates=pl.Series(sharp.degenerate, dtype=pl.Int64),
                bootstrap_clusters=pl.lit(clusters, pl.Int64),
            )
        )
    return pl.concat(frames)


def _nullable(values: np.ndarray) -> pl.Series:
    return pl.Series(values, dtype=pl.Float64, nan_to_null=True)


def build_boards(
    scores: pl.DataFrame | pl.LazyFrame,
    *,
    seed: int = BOOTSTRAP_SEED,
    replicates: int = BOOTSTRAP_REPLICATES,
    formula: str = COLOSSEUM_SCORING,
) -> Boards:
    """The leaderboard with 95% question-clustered bootstrap intervals, and the calibration board."""
    spec = BootstrapSpec(seed=seed, replicates=replicates)
    rows = _rows(scores, formula)
    tallies = Tallies.of(rows)
    _check_kinds(tallies)
    points = _points(tallies, formula)
    if points.is_empty():
        return Boards(pl.DataFrame(schema=LEADERBOARD_SCHEMA), pl.DataFrame(schema=CALIBRATION_SCHEMA))
    leaderboard = (
        points.join(_intervals(rows, points, spec), on=list(_KEYS), how="left")
        .with_columns(
            bootstrap_seed=pl.lit(spec.seed, pl.Int64),
            bootstrap_replicates=pl.lit(spec.replicates, pl.Int64),
            bootstrap_generator=pl.lit(BOOTSTRAP_GENERATOR),
            bootstrap_method=pl.lit(f"{spec.method}; {CLUSTER_RULE}"),
            numpy_version=pl.lit(np.__version__),
        )
        .select(list(LEADERBOARD_SCHEMA))
        .cast(LEADERBOARD_SCHEMA)  # type: ignore[arg-type]
        .sort(_KEYS)
    )
    return Boards(
        leaderboard=leaderboard, calibration=_calibration(tallies.calibration_cells(), points, formula)
    )


# --------------------------------------------------------------------------------------------
# The independent re-count


def mixing_problems(scores: pl.DataFrame, boards: Boards) -> list[str]:
    """Every board row's counts re-derived from the score rows of ITS kind only.

    A second derivation on purpose, sharing nothing with the boards' aggregation: per kind, the
    kind's rows are filtered first and counted per seat and per gladiator; every leaderboard row's
    n and voids and every calibration row's n must match, every entrant must have its row, and the
    seat rows' n of a kind must add up to the kind's scored rows.
    """
    formulas = set(boards.leaderboard["formula"]) | set(boards.calibration["formula"]) or {COLOSSEUM_SCORING}
    problems: list[str] = []
    if len(formulas) != 1:
        return [f"the boards mix formulas: {', '.join(sorted(formulas))}"]
    (formula,) = formulas
    rows = scores.filter(pl.col("formula") == formula)
    board_kinds = set(boards.leaderboard["kind"]) | set(boards.calibration["kind"])
    for kind in sorted(set(rows["kind"]) | board_kinds):
        mine = rows.filter(pl.col("kind") == kind)
        is_void = mine["result"] == VOID
        scored = mine.filter(~is_void)
        board = boards.leaderboard.filter(pl.col("kind") == kind)
        for entrant_type in ENTRANT_TYPES:
            expected = _tally(mine, entrant_type)
            shown = board.filter(pl.col("entrant_type") == entrant_type).select("entrant", "n", "voids")
            problems += _compare(
                kind, entrant_type, "leaderboard", expected, shown, ["entrant"], ["n", "voids"]
            )
            stated = scored.filter(~pl.col("forfeit")).group_by(
                pl.col(entrant_type).cast(pl.String).alias("entrant"), pl.col("confidence").cast(pl.Int64)
            )
            expected_levels = stated.agg(pl.len().cast(pl.Int64).alias("n"))
            shown_levels = (
                boards.calibration.filter((pl.col("kind") == kind) & (pl.col("entrant_type") == entrant_type))
                .filter(pl.col("n") > 0)
                .select("entrant", "confidence", "n")
            )
            problems += _compare(
                kind,
                entrant_type,
                "calibration",
                expected_levels,
                shown_levels,
                ["entrant", "confidence"],
                ["n"],
            )
        seat_total = int(board.filter(pl.col("entrant_type") == "seat")["n"].sum())
        if seat_total != scored.height:
            problems.append(
                f"{kind}: the seat rows' n add up to {seat_total}, but {kind} has {scored.height} scored rows"
            )
    return problems


def _tally(rows: pl.DataFrame, entrant_type: str) -> pl.DataFrame:
    return rows.group_by(pl.col(entrant_type).cast(pl.String).alias("entrant")).agg(
        (pl.col("result") != VOID).sum().cast(pl.Int64).alias("n"),
        (pl.col("result") == VOID).sum().cast(pl.Int64).alias("voids"),
    )


def _compare(
    kind: str,
    entrant_type: str,
    board: str,
    expected: pl.DataFrame,
    shown: pl.DataFrame,
    keys: list[str],
    values: list[str],
) -> list[str]:
    joined = expected.join(shown, on=keys, how="full", coalesce=True, suffix="_board").sort(keys)
    problems = []
    for row in joined.iter_rows(named=True):
        where = f"{board} {kind} {entrant_type} {row['entrant']}" + (
            f" at confidence {row['confidence']}" if "confidence" in keys else ""
        )
        for value in values:
            counted, on_board = row[value] or 0, row[f"{value}_board"]
            if on_board is None and counted == 0:
                continue
            if on_board is None:
                problems.append(
                    f"{where}: no row on the board, but {kind} score rows count {value} = {counted}"
                )
            elif on_board != counted:
                problems.append(
                    f"{where}: {value} is {on_board} on the board, {counted} in the {kind} score rows"
                )
    return problems
