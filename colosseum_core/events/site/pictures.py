"""The events board's pictures: pure functions from the tables a page already shows to the shared
charts (``site.charts``, COLOSSEUM-CHARTS-1).

- ``standings_chart``: beside every standings table, one row per contender in the table's order
  (``in_table_order``), its point and 95 % interval, its place marked (medals coloured by the medal
  won; a place 1–3 that won no medal, as an authoring place without 80 % of its slots verified, is
  written in brackets and left uncoloured), and a contender with nothing counted drawn as such.
- ``head_to_head_chart`` (chess): each player's share of the points against each other player and
  the games, tallied from ``chess_games`` (``white_score``: a forfeit is the loss the rules make it).
- ``calibration_charts`` (Solve or Object): per contender, its stated P(defective) in tenths against
  the share of those items that were defective (a twin), from ``soo_replies``.

Every contender is named as its table names it (``glossary.Names``: in a CALIBRATION event the house
player first, with the contender it stands in for beside it), and each chart's title says which
table and fields its numbers come from, so anyone can draw it again from the downloads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

from colosseum_core.events.site.glossary import Names
from colosseum_core.site.charts import (
    CalibrationPoint,
    Cell,
    Interval,
    calibration_chart,
    interval_chart,
    matrix_chart,
)

# The points of Solve or Object and of both challenge rankings lie in [−1, +1]: one scale for all.
POINTS_DOMAIN: Final = (-1.1, 1.1)
MEDALLED_PLACES: Final = frozenset({1, 2, 3})
BIN_WIDTH: Final = 10  # percent: the calibration bins are tenths of the stated P(defective)


def in_table_order(standings: pl.DataFrame, point: str) -> pl.DataFrame:
    """The standings in the order their table lists them: by place, then the point, then the id."""
    return standings.sort(["placement", point, "contender"], descending=[False, True, False], nulls_last=True)


def place_mark(placement: int | None, medal: str | None) -> str:
    """A row's place as the chart marks it: a place 1–3 that won no medal is written in brackets, so
    it does not read as a medal (the chart colours only medals); no place is empty."""
    if placement is None:
        return ""
    return f"({placement})" if placement in MEDALLED_PLACES and not medal else str(placement)


def standings_intervals(ordered: pl.DataFrame, names: Names, point: str) -> list[Interval]:
    """One chart row per standings row, in ``ordered``'s order; a row without its point or interval
    (nothing counted, or no finite fit) is drawn as nothing counted."""
    return [
        Interval(
            label=names(r["contender"]),
            point=r[point],
            low=r["low"],
            high=r["high"],
            place=place_mark(r["placement"], r["medal"]),
            medal=r["medal"] or "",
        )
        for r in ordered.select("contender", point, "low", "high", "placement", "medal").iter_rows(named=True)
    ]


def standings_chart(
    ident: str,
    title: str,
    ordered: pl.DataFrame,
    names: Names,
    *,
    point: str,
    axis: str,
    digits: int,
    points_scale: bool = False,
) -> str:
    """The interval chart of a standings table (``ordered``: its rows in the table's order);
    ``points_scale``: the mean points' fixed scale from −1 to +1, with 0 marked."""
    rows = standings_intervals(ordered, names, point)
    if any(r.place.startswith("(") for r in rows):
        title += ". A place in brackets won no medal"
    return interval_chart(
        ident,
        title,
        rows,
        axis=axis,
        digits=digits,
        reference=0.0 if points_scale else None,
        domain=POINTS_DOMAIN if points_scale else None,
    )


def head_to_head(games: pl.DataFrame, order: Sequence[str]) -> dict[tuple[int, int], Cell]:
    """Row i against column j (positions in ``order``): the share of the points i took from j and
    their games. A game is counted as recorded (``white_score``: 1, ½ or 0; a forfeit is a loss)."""
    position = pl.DataFrame({"contender": list(order), "at": list(range(len(order)))})
    sides = pl.concat(
        [
            games.select(row="white", column="black", points=pl.col("white_score")),
            games.select(row="black", column="white", points=1.0 - pl.col("white_score")),
        ]
    )
    tally = (
        sides.group_by("row", "column")
        .agg(points=pl.col("points").sum(), games=pl.len())
        .join(position.rename({"contender": "row", "at": "i"}), on="row")
        .join(position.rename({"contender": "column", "at": "j"}), on="column")
        .select("i", "j", score=pl.col("points") / pl.col("games"), games="games")
    )
    return {(i, j): Cell(score, games) for i, j, score, games in tally.iter_rows()}


def head_to_head_chart(ident: str, games: pl.DataFrame, ordered: pl.DataFrame, names: Names) -> str:
    """The chess event's head-to-head matrix, its players in the standings' order."""
    order = ordered["contender"].to_list()
    return matrix_chart(
        ident,
        "Head to head: each row player's share of the points against each column player, with the "
        "games (chess_games: white, black, white_score; a draw is half a point, and a game lost by "
        "forfeit counts as the loss the rules make it)",
        [names(c) for c in order],
        head_to_head(games, order),
        what="share of the points the row's player took from the column's",
    )


def calibration_bins(replies: pl.DataFrame) -> pl.DataFrame:
    """Per contender and tenth of the stated P(defective) (0–9, 100 % in the last): the mean stated
    probability (0–1), the share of those items that were defective (a twin), and how many. Replies
    with no readable P(defective) state nothing and are left out."""
    return (
        replies.filter(pl.col("p_defective").is_not_null())
        .with_columns(tenth=pl.min_horizontal(pl.col("p_defective") // BIN_WIDTH, 100 // BIN_WIDTH - 1))
        .group_by("contender", "tenth")
        .agg(
            stated=pl.col("p_defective").mean() / 100,
            share=(pl.col("role") == "twin").mean(),
            n=pl.len(),
        )
        .sort("contender", "tenth")
    )


def calibration_charts(replies: pl.DataFrame, ordered: pl.DataFrame, names: Names) -> str:
    """One calibration plot per contender, in the standings' order, as small multiples."""
    bins = calibration_bins(replies)
    asked = dict(replies.group_by("contender").agg(n=pl.len()).iter_rows())
    stated = dict(bins.group_by("contender").agg(n=pl.col("n").sum()).iter_rows())
    figures = []
    for k, contender in enumerate(ordered["contender"].to_list(), start=1):
        mine = bins.filter(pl.col("contender") == contender)
        points = [
            CalibrationPoint(s, share, n) for s, share, n in mine.select("stated", "share", "n").iter_rows()
        ]
        figures.append(
            calibration_chart(
                f"soo-calibration-{k}",
                f"{names(contender)}: stated P(defective) against the share defective "
                f"({stated.get(contender, 0)} of {asked.get(contender, 0)} items stated one)",
                points,
                x_axis="stated P(defective), mean in its tenth",
                y_axis="share defective",
            )
        )
    return f'<div class="charts">\n{chr(10).join(figures)}\n</div>'
