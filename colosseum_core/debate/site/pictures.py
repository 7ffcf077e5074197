"""The debate board's pictures, drawn by the shared engine (``site.charts``, COLOSSEUM-CHARTS-1): pure
functions from the tables the board publishes to the figures its pages hold, so anyone can redraw
each one from the downloads.

- the standings: every rated miner's Bradley–Terry strength with its 95 % interval, in the table's
  order with its place (``ratings``), and the head-to-head matrix of the rated games (``games``);
- a miner's page: its Elo and Bradley–Terry epoch by epoch, the interval as a band (``ratings``);
- the crown page: who was king epoch by epoch (``crown``), the leading challenger's lead over the
  king against the 200 line (``ratings`` less the ``crown``'s king_rating), the title fights
  (``title_fights``), and the longest streak against the 20 that earns a fight (``streaks``, and
  ``fight_calls`` for the streak that called a fight, which that epoch's ``streaks`` never shows).

A miner is named as the tables name it, by its hotkey: whatever its owner registered, so the engine
escapes it and every hidden code point in it shows as its escape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from colosseum_core.debate.crown.fight import HOLDS, INCONCLUSIVE, TAKES
from colosseum_core.debate.crown.streak import HOLD, LEAD
from colosseum_core.debate.ratings import START
from colosseum_core.debate.site.glossary import short_key
from colosseum_core.debate.strength import rated_pairs
from colosseum_core.site.charts import (
    Cell,
    Interval,
    Line,
    Segment,
    interval_chart,
    line_chart,
    matrix_chart,
)
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.statistics.bradley_terry import ELO_CENTRE
from colosseum_core.statistics.pairwise import A_WON, DRAW

# Each figure's id on its page.
STANDINGS_CHART, HEAD_TO_HEAD, MINER_CHART = "bt-intervals", "head-to-head", "miner-ratings"
CROWN_CHART, STREAK_CHART = "crown-timeline", "crown-streaks"
FIGHT_MARKS: Final = {
    TAKES: "title fight: crowned",
    HOLDS: "title fight: held",
    INCONCLUSIVE: "title fight: inconclusive, held",
}


def _empty(sentence: str) -> str:
    return f'<p class="empty">{esc(sentence)}</p>'


def miner_labels(ratings: pl.DataFrame) -> list[str]:
    """Each ratings row's miner as the table names it, by its hotkey; where one hotkey holds more
    than one rating key among the rows, each with its key's short form beside it."""
    if ratings.height == 0:
        return []
    shared = ratings.select(pl.col("rating_key").n_unique().over("hotkey") > 1).to_series()
    return [
        f"{hotkey} ({short_key(key)})" if twice else str(hotkey)
        for hotkey, key, twice in zip(ratings["hotkey"], ratings["rating_key"], shared, strict=True)
    ]


def standings_chart(ratings: pl.DataFrame, epoch: str) -> str:
    """Every row of the standings' ratings, in the table's order: its Bradley–Terry point and 95 %
    interval with its place; a miner with no rated game is drawn as nothing counted."""
    if ratings.height == 0:
        return _empty(f"No miner is rated after epoch {epoch}, so there is no interval to draw.")
    rows = []
    for label, row in zip(miner_labels(ratings), ratings.iter_rows(named=True), strict=True):
        counted = row["games"] and None not in (row["bt_rating"], row["bt_low"], row["bt_high"])
        rows.append(
            Interval(
                label,
                row["bt_rating"] if counted else None,
                row["bt_low"] if counted else None,
                row["bt_high"] if counted else None,
                str(row["rank"]) if counted and row["rank"] is not None else "",
            )
        )
    return interval_chart(
        STANDINGS_CHART,
        f"Bradley–Terry strength with its 95 % interval after epoch {epoch}",
        rows,
        axis="Bradley–Terry strength (Elo scale)",
        digits=0,
        reference=ELO_CENTRE,
        reference_label=f"{ELO_CENTRE:.0f}, the fit's centre",
    )


def head_to_head_cells(keys: Sequence[str], games: pl.DataFrame | None) -> dict[tuple[int, int], Cell]:
    """Row key i against column key j over the rated games (decided or drawn, as the fit reads them:
    ``strength.rated_pairs``): the share of the points it took (a win 1, a draw ½) and the games."""
    if games is None or games.height == 0 or not keys:
        return {}
    pairs = rated_pairs(games)
    a_points = (
        pl.when(pl.col("outcome") == A_WON).then(1.0).when(pl.col("outcome") == DRAW).then(0.5).otherwise(0.0)
    )
    sides = pl.concat(
        [
            pairs.select(row="a", column="b", points=a_points),
            pairs.select(row="b", column="a", points=1.0 - a_points),
        ]
    )
    index = pl.DataFrame({"key": list(keys), "i": list(range(len(keys)))})
    tally = (
        sides.group_by("row", "column")
        .agg(pl.col("points").sum(), games=pl.len())
        .join(index.rename({"key": "row"}), on="row")
        .join(index.rename({"key": "column", "i": "j"}), on="column")
    )
    return {
        (i, j): Cell(points / games, games)
        for i, j, points, games in tally.select("i", "j", "points", "games").iter_rows()
    }


def head_to_head(ratings: pl.DataFrame, games: pl.DataFrame | None, epoch: str) -> str:
    """The matrix of the standings' miners that have a rated game, in the standings' order."""
    rated = ratings.filter(pl.col("games") > 0)
    if rated.height < 2:
        return _empty(f"Fewer than two miners have a rated game after epoch {epoch}: no one to set against.")
    return matrix_chart(
        HEAD_TO_HEAD,
        f"Head to head after epoch {epoch}: the row's score against the column",
        miner_labels(rated),
        head_to_head_cells(rated["rating_key"].to_list(), games),
        what="row's share of the points against the column (a win 1, a draw ½, voids left out)",
    )


def miner_chart(hotkey: str, ratings: pl.DataFrame, epochs: Sequence[str]) -> str:
    """``hotkey``'s Elo and Bradley–Terry (its interval a band) over the sealed ``epochs`` from the
    first it was rated in to the last, one pair of lines per rating key it held."""
    mine = ratings.filter(pl.col("hotkey") == hotkey)
    if mine.height == 0:
        return _empty("Never rated: nothing to draw.")
    rated = set(mine["epoch"])
    shown = [e for e in epochs if min(rated) <= e <= max(rated)]
    keys = mine.sort("epoch").unique("rating_key", keep="first", maintain_order=True)["rating_key"]
    lines = []
    for key in keys:
        rows = {r["epoch"]: r for r in mine.filter(pl.col("rating_key") == key).iter_rows(named=True)}
        low, point, high = (_at(rows, shown, f) for f in ("bt_low", "bt_rating", "bt_high"))
        suffix = f", key {short_key(key)}" if len(keys) > 1 else ""
        lines.append(Line(f"Elo{suffix}", _at(rows, shown, "rating")))
        lines.append(Line(f"Bradley–Terry (band: 95 %){suffix}", point, low, high))
    return line_chart(
        MINER_CHART,
        f"{hotkey}: Elo and Bradley–Terry by epoch",
        shown,
        lines,
        axis="rating (Elo scale)",
        references=[(START, f"{START:.0f}, where every key starts")],
    )


def _at(rows: Mapping[str, Mapping[str, Any]], epochs: Sequence[str], field: str) -> list[float | None]:
    """``field`` of the row of each of ``epochs`` (None where there is none)."""
    return [rows[e][field] if e in rows else None for e in epochs]


def _epoch_positions(epochs: Sequence[str]) -> pl.DataFrame:
    return pl.DataFrame(
        {"epoch": list(epochs), "at": list(range(len(epochs)))}, schema={"epoch": pl.String, "at": pl.Int64}
    )


def fight_markers(epochs: Sequence[str], fights: pl.DataFrame | None) -> list[tuple[int, str]]:
    """A marker at each title fight's epoch, saying how it ended."""
    if fights is None or fights.height == 0:
        return []
    found = fights.join(_epoch_positions(epochs), on="epoch").sort("at")
    return [
        (at, FIGHT_MARKS.get(outcome, f"title fight: {outcome}"))
        for at, outcome in found.select("at", "outcome").iter_rows()
    ]


def reigns(epochs: Sequence[str], crowns: pl.DataFrame) -> list[Segment]:
    """One segment per run of epochs with the same king (its rating key), named by its hotkey; a
    run with no king is nobody's."""
    runs = (
        crowns.join(_epoch_positions(epochs), on="epoch")
        .sort("at")
        .with_columns(run=pl.col("king").fill_null("").rle_id())
        .group_by("run", maintain_order=True)
        .agg(pl.col("king_hotkey").first(), start=pl.col("at").min(), end=pl.col("at").max())
    )
    return [
        Segment(hotkey or "", start, end)
        for hotkey, start, end in runs.select("king_hotkey", "start", "end").iter_rows()
    ]


def leading_challengers(crowns: pl.DataFrame, ratings: pl.DataFrame | None) -> pl.DataFrame:
    """Per epoch with a king: the entered miner other than the king with the highest Elo (then the
    rating key), its hotkey and its lead, its Elo less the crown's king_rating."""
    if ratings is None or ratings.height == 0:
        return pl.DataFrame(schema={"epoch": pl.String, "hotkey": pl.String, "lead": pl.Float64})
    return (
        ratings.filter(pl.col("entered"))
        .join(crowns.select("epoch", "king", "king_rating"), on="epoch")
        .filter(pl.col("king").is_not_null() & (pl.col("rating_key") != pl.col("king")))
        .sort(["epoch", "rating", "rating_key"], descending=[False, True, False])
        .group_by("epoch", maintain_order=True)
        .first()
        .select("epoch", "hotkey", lead=pl.col("rating") - pl.col("king_rating"))
    )


def crown_chart(
    epochs: Sequence[str], crowns: pl.DataFrame, ratings: pl.DataFrame | None, fights: pl.DataFrame | None
) -> str:
    """The crown's history: the king as a strip, the leading challenger's lead with the 200 line,
    the title fights as markers."""
    leaders = leading_challengers(crowns, ratings)
    by_epoch = {e: (h, lead) for e, h, lead in leaders.iter_rows()}
    notes = [
        "Leading challenger: "
        + ("; ".join(f"{e} {by_epoch[e][0]}" for e in epochs if e in by_epoch) or "none in any epoch")
    ]
    return line_chart(
        CROWN_CHART,
        "The crown by epoch: the king, the leading challenger's lead and the title fights",
        epochs,
        [
            Line(
                "Leading challenger's lead",
                [by_epoch[e][1] if e in by_epoch else None for e in epochs],
            )
        ],
        axis="Elo lead over the king",
        references=[(LEAD, f"{LEAD:.0f}: a streak's bar")],
        strip=reigns(epochs, crowns),
        strip_label="King",
        markers=fight_markers(epochs, fights),
        notes=notes,
    )


def streak_chart(
    epochs: Sequence[str],
    streaks: pl.DataFrame | None,
    fight_calls: pl.DataFrame | None,
    fights: pl.DataFrame | None,
) -> str:
    """The longest streak at each epoch's end (0 where none), the streak that called each title fight
    (it reached 20; the fight reset it, so only ``fight_calls`` holds it), the line at 20."""
    longest: dict[str, int] = {}
    if streaks is not None and streaks.height:
        longest = dict(streaks.group_by("epoch").agg(pl.col("streak").max()).iter_rows())
    lines = [Line("Longest streak", [float(longest.get(e, 0)) for e in epochs])]
    if fight_calls is not None and fight_calls.height:
        called = dict(fight_calls.select("epoch", "streak").iter_rows())
        lines.append(
            Line(
                "Streak that called a fight",
                [float(called[e]) if e in called else None for e in epochs],
                dashed=True,
            )
        )
    return line_chart(
        STREAK_CHART,
        "Streaks by epoch: epochs in a row 200 Elo or more above the king",
        epochs,
        lines,
        axis="epochs in a row",
        references=[(float(HOLD), f"{HOLD}: a title fight")],
        markers=fight_markers(epochs, fights),
    )
