"""The leaderboard's point numbers as a plain polars group-by over the scores: verify's reference.

Written apart from the board builder (``leaderboard.py``, which sums through ``tallies.py`` in
numpy) on purpose, straight from the published formula (COLOSSEUM-SCORING-2.1): for every kind,
entrant type and entrant, over the rows of that formula,

    n = wins + losses          voids counted apart, never scored
    RECORD = wins − losses      CROWN = Σ crown
    SHARP = Σ (400 − brier_units) / (4 · n)      EDGE = Σ edge_units / (4·10¹² · n)

each ratio one float64 division of exact integer sums, as the board makes it. If the builder ever
computes a number some other way, the board and this reference disagree and ``verify`` names the
entrant, the column and both values: verify checks the formula, not only the bytes.
"""

from __future__ import annotations

import polars as pl

from colosseum_core.forecast.rules import COLOSSEUM_SCORING

_KEYS = ["kind", "entrant_type", "entrant"]
CHECKED_COLUMNS = (
    "n",
    "wins",
    "losses",
    "voids",
    "record",
    "crown",
    "forfeits",
    "bad_formatting",
    "sharp",
    "edge",
)


def reference_points(scores: pl.DataFrame, formula: str = COLOSSEUM_SCORING) -> pl.DataFrame:
    """One row per (kind, entrant type, entrant) of ``formula``'s score rows: ``CHECKED_COLUMNS``."""
    rows = scores.filter(pl.col("formula") == formula)
    scored = pl.col("result") != "void"
    per_type = [
        rows.with_columns(
            pl.lit(entrant_type).alias("entrant_type"), pl.col(entrant_type).cast(pl.String).alias("entrant")
        )
        for entrant_type in ("seat", "gladiator")
    ]
    sums = (
        pl.concat(per_type, how="vertical_relaxed")
        .group_by(_KEYS)
        .agg(
            (pl.col("result") == "win").sum().cast(pl.Int64).alias("wins"),
            (pl.col("result") == "loss").sum().cast(pl.Int64).alias("losses"),
            (~scored).sum().cast(pl.Int64).alias("voids"),
            pl.col("crown").filter(scored).cast(pl.Int64).sum().alias("crown"),
            pl.col("forfeit").filter(scored).fill_null(False).cast(pl.Int64).sum().alias("forfeits"),
            pl.col("bad_formatting")
            .filter(scored)
            .fill_null(False)
            .cast(pl.Int64)
            .sum()
            .alias("bad_formatting"),
            (400 - pl.col("brier_units").filter(scored).cast(pl.Int64)).sum().alias("_sharp"),
            pl.col("edge_units").filter(scored).cast(pl.Int64).sum().alias("_edge"),
        )
        .with_columns(n=pl.col("wins") + pl.col("losses"))
    )
    ratio = {"sharp": ("_sharp", 4), "edge": ("_edge", 4 * 10**12)}
    return sums.with_columns(
        (pl.col("wins") - pl.col("losses")).alias("record"),
        *(
            pl.when(pl.col("n") > 0)
            .then(pl.col(numerator).cast(pl.Float64) / (pl.col("n") * scale).cast(pl.Float64))
            .alias(name)
            for name, (numerator, scale) in ratio.items()
        ),
    ).select(*_KEYS, *CHECKED_COLUMNS)


def reference_problems(
    scores: pl.DataFrame, leaderboard: pl.DataFrame, label: str = "leaderboard"
) -> list[str]:
    """Every point number of ``leaderboard`` that the reference group-by over ``scores`` gives otherwise."""
    expected = reference_points(scores).filter(pl.col("n") + pl.col("voids") > 0)
    shown = leaderboard.select(*_KEYS, *(c for c in CHECKED_COLUMNS if c in leaderboard.columns))
    joined = expected.join(shown, on=_KEYS, how="full", coalesce=True, suffix="_board").sort(_KEYS)
    problems = []
    for row in joined.iter_rows(named=True):
        where = f"{label} {row['kind']} {row['entrant_type']} {row['entrant']}"
        if row["n"] is None:
            problems.append(f"{where}: on the board, but no {COLOSSEUM_SCORING} score row has this entrant")
            continue
        for column in CHECKED_COLUMNS:
            if f"{column}_board" not in row:
                continue
            board, reference = row[f"{column}_board"], row[column]
            if board is None and row["n"] + row["voids"] == 0:
                continue
            if board != reference:
                problems.append(
                    f"{where}: {column} is {board} on the board; the reference group-by over the scores "
                    f"({COLOSSEUM_SCORING}) gives {reference}"
                )
    return problems
