"""SOO-STANDINGS-1: each contender's mean points and mean Brier, with pair-clustered 95 % intervals.

- **Points**: the mean of a contender's item points (+1, 0, −1) over every item of the event.
- **Brier**: the mean of its Brier terms, (P − 100·y)² / 10,000, over every item; lower is better.
- **Intervals**: 95 %, from the shared exact bootstrap (``statistics.bootstrap``: integer sums, one
  ``RandomState(seed)`` stream, the manifest's seed and replicates) resampling *pairs*: a twin and
  its original are one cluster, as they share their words.
- **Placements and medals** by points (``statistics.placement``), by the rule the manifest names
  (``events.manifest.placement_rule``: COLOSSEUM-PLACEMENT-2, placement = 1 + the contenders whose
  interval lies wholly above; version 1 for an event frozen before it; the ``rules`` column names
  the rule when the manifest does); a contender with no item counted has none. Medals for placements
  1–3. Brier is published beside them and ranks nothing.

Every number is a pure function of the ``soo_replies`` table and the manifest: ``verify`` computes it
again and must find the same bits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import polars as pl

from colosseum_core.events.manifest import placement_rule
from colosseum_core.events.solve_or_object.rules import SOO_STANDINGS
from colosseum_core.events.solve_or_object.scoring import BRIER_SCALE
from colosseum_core.record import with_ids
from colosseum_core.statistics.bootstrap import BootstrapSpec, ratio_intervals_many
from colosseum_core.statistics.placement import placements

STANDING_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "contender": pl.String(),
    "items": pl.Int64(),
    "points": pl.Int64(),
    "score": pl.Float64(),
    "low": pl.Float64(),
    "high": pl.Float64(),
    "placement": pl.Int64(),
    "medal": pl.String(),
    "solved": pl.Int64(),
    "substantiated": pl.Int64(),
    "abstained": pl.Int64(),
    "penalised": pl.Int64(),
    "unreadable": pl.Int64(),
    "brier": pl.Float64(),
    "brier_low": pl.Float64(),
    "brier_high": pl.Float64(),
    "clusters": pl.Int64(),
    "evidence": pl.String(),
    "rules": pl.String(),
    "manifest_sha256": pl.String(),
}


def soo_standings(manifest: Mapping[str, Any], cited: str, replies: pl.DataFrame) -> pl.DataFrame:
    """The standings of the event's scored replies (``soo_replies``: one row per contender and item)."""
    contenders = [c["id"] for c in manifest["contenders"]]
    pairs = sorted(replies["pair_id"].unique().to_list())
    spec = BootstrapSpec(
        seed=int(manifest["seeds"]["bootstrap"]),
        replicates=int(manifest["standings"]["bootstrap_replicates"]),
        level=float(manifest["standings"]["level"]),
    )
    cells = replies.group_by("pair_id", "contender").agg(
        points=pl.col("points").sum(), brier=pl.col("brier_units").sum(), items=pl.len()
    )
    grid = pl.DataFrame({"pair_id": pairs}).join(pl.DataFrame({"contender": contenders}), how="cross")
    full = grid.join(cells, on=["pair_id", "contender"], how="left").fill_null(0).sort("pair_id", "contender")
    position = {name: index for index, name in enumerate(sorted(contenders))}
    shape = (len(pairs), len(contenders))

    def matrix(column: str) -> np.ndarray:
        return full[column].to_numpy().astype(np.int64).reshape(shape)

    # The grid's columns are the contenders sorted by id; back to the manifest's order below.
    points, brier = ratio_intervals_many(
        [(matrix("points"), matrix("items"), 1), (matrix("brier"), matrix("items"), BRIER_SCALE)], spec
    )
    columns = [position[name] for name in contenders]
    counts = replies.group_by("contender").agg(
        items=pl.len(),
        points=pl.col("points").sum(),
        solved=(pl.col("outcome") == "solved").sum(),
        substantiated=pl.col("outcome").is_in(["substantiated", "witness_checked"]).sum(),
        abstained=(pl.col("outcome") == "abstained").sum(),
        penalised=(pl.col("points") < 0).sum(),
        unreadable=pl.col("outcome").is_in(["unreadable", "no_response"]).sum(),
    )
    rule = placement_rule(manifest)
    asked = dict(counts.select("contender", "items").iter_rows())
    placed = placements(
        points.point[columns],
        points.low[columns],
        points.high[columns],
        tie_keys=contenders,
        rule=rule,
        counted=[asked.get(c, 0) > 0 for c in contenders],
    )
    named = [rule] if "placement" in manifest["rules"] else []  # none in a manifest frozen before version 2
    cites = [SOO_STANDINGS, manifest["rules"]["scoring"], *named]
    frame = pl.DataFrame(
        {
            "contender": contenders,
            "score": points.point[columns],
            "low": points.low[columns],
            "high": points.high[columns],
            "placement": list(placed.placement),
            "medal": list(placed.medal),
            "brier": brier.point[columns],
            "brier_low": brier.low[columns],
            "brier_high": brier.high[columns],
        }
    )
    standing = (
        frame.join(counts, on="contender", how="left")
        .with_columns(
            event=pl.lit(manifest["event"]),
            clusters=pl.lit(len(pairs)),
            evidence=pl.lit("verified"),
            rules=pl.lit(",".join(cites)),
            manifest_sha256=pl.lit(cited),
        )
        .select([pl.col(name).cast(dtype) for name, dtype in STANDING_SCHEMA.items()])
        .sort(["placement", "score", "contender"], descending=[False, True, False], nulls_last=True)
    )
    return with_ids(standing)
