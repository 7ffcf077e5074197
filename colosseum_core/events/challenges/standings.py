"""CHALLENGE-STANDINGS-1: solving and authoring ranked apart, each on two bases, with intervals.

For each ranking (``solving``, ``authoring``) and basis (``verified``: only outcomes a checker or a
sandboxed run decided; ``with_reviewed``: those and the outcomes review decided; Unresolved
outcomes are in neither) a contender's score is the mean of its points (authoring: over every
registered slot, so a missing or failed submission counts 0). Its 95 % interval comes from the
shared exact bootstrap (integer units, the manifest's seed and replicates) resampling tasks: for
solving, a task and every reply to it are one cluster; for authoring, each slot is its own.
Placements by the rule the manifest names (``events.manifest.placement_rule``: COLOSSEUM-PLACEMENT-2,
placement = 1 + the contenders whose interval lies wholly above; version 1, neighbours whose
intervals overlap share, for an event frozen before it; the ``rules`` column names the rule when the
manifest does); a contender with no counted outcome on a basis has no placement there. Medals for
placements 1–3, and an authoring medal needs at least 80 % of the author's slots verified.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import polars as pl

from colosseum_core.events.challenges.rules import CHALLENGE_STANDINGS
from colosseum_core.events.challenges.scoring import REVIEWED, VERIFIED
from colosseum_core.events.manifest import placement_rule
from colosseum_core.record import with_ids
from colosseum_core.statistics.bootstrap import BootstrapSpec, ratio_intervals
from colosseum_core.statistics.placement import placements

BASES: Final = {"verified": (VERIFIED,), "with_reviewed": (VERIFIED, REVIEWED)}
AUTHOR_MEDAL_SHARE: Final = 0.8
STANDING_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "ranking": pl.String(),
    "basis": pl.String(),
    "contender": pl.String(),
    "n": pl.Int64(),
    "score": pl.Float64(),
    "low": pl.Float64(),
    "high": pl.Float64(),
    "placement": pl.Int64(),
    "medal": pl.String(),
    "excluded": pl.Int64(),
    "verified_slots": pl.Int64(),
    "slots": pl.Int64(),
    "rules": pl.String(),
    "manifest_sha256": pl.String(),
}


def _ranked(
    manifest: Mapping[str, Any],
    scores: pl.DataFrame,
    ranking: str,
    basis: str,
    verified_slots: dict[str, int],
) -> list[dict[str, Any]]:
    contenders = [c["id"] for c in manifest["contenders"]]
    slots = int(manifest["slots"])
    mine = scores.filter(pl.col("ranking") == ranking)
    kept = mine.filter(pl.col("evidence").is_in(list(BASES[basis])))
    cluster = (
        pl.col("task_id") if ranking == "solving" else pl.concat_str("contender", pl.lit(":"), pl.col("slot"))
    )
    kept = kept.with_columns(cluster=cluster.fill_null(pl.lit("-")))
    clusters = sorted(kept["cluster"].unique().to_list())
    scale = int(mine["scale"].max() or 1) if mine.height else 1
    num = np.zeros((max(len(clusters), 1), len(contenders)), dtype=np.int64)
    cnt = np.zeros_like(num)
    row_of = {c: i for i, c in enumerate(clusters)}
    column_of = {c: j for j, c in enumerate(contenders)}
    for r in kept.iter_rows(named=True):
        num[row_of[r["cluster"]], column_of[r["contender"]]] += r["units"]
        cnt[row_of[r["cluster"]], column_of[r["contender"]]] += 1
    spec = BootstrapSpec(
        seed=int(manifest["seeds"]["bootstrap"]),
        replicates=int(manifest["standings"]["bootstrap_replicates"]),
        level=float(manifest["standings"]["level"]),
    )
    fitted = ratio_intervals(num, cnt, scale, spec)
    counted = cnt.sum(axis=0)
    placed = placements(
        fitted.point,
        fitted.low,
        fitted.high,
        tie_keys=contenders,
        rule=placement_rule(manifest),
        counted=counted > 0,
    )
    rows = []
    for contender in contenders:
        j = column_of[contender]
        placement, medal = placed.placement[j], placed.medal[j]
        if ranking == "authoring" and verified_slots.get(contender, 0) < AUTHOR_MEDAL_SHARE * slots:
            medal = None
        point = float(fitted.point[j]) if counted[j] else None
        rows.append(
            {
                "event": manifest["event"],
                "ranking": ranking,
                "basis": basis,
                "contender": contender,
                "n": int(counted[j]),
                "score": point,
                "low": float(fitted.low[j]) if point is not None else None,
                "high": float(fitted.high[j]) if point is not None else None,
                "placement": placement,
                "medal": medal,
                "excluded": mine.filter(pl.col("contender") == contender).height - int(counted[j]),
                "verified_slots": verified_slots.get(contender, 0),
                "slots": slots,
            }
        )
    return rows


def challenge_standings(
    manifest: Mapping[str, Any], cited: str, scores: pl.DataFrame, submissions: pl.DataFrame
) -> pl.DataFrame:
    verified = submissions.filter(pl.col("status") == "verified").group_by("author").len()
    verified_slots = {r["author"]: int(r["len"]) for r in verified.iter_rows(named=True)}
    rows = [
        row
        for ranking in ("solving", "authoring")
        for basis in BASES
        for row in _ranked(manifest, scores, ranking, basis, verified_slots)
    ]
    frame = pl.DataFrame(
        rows, schema={k: v for k, v in STANDING_SCHEMA.items() if k not in ("rules", "manifest_sha256")}
    )
    named = [placement_rule(manifest)] if "placement" in manifest["rules"] else []
    frame = frame.with_columns(
        rules=pl.lit(",".join([CHALLENGE_STANDINGS, manifest["rules"]["scoring"], *named])),
        manifest_sha256=pl.lit(cited),
    ).sort(
        ["ranking", "basis", "placement", "score", "contender"],
        descending=[False, False, False, True, False],
        nulls_last=True,
    )
    return with_ids(frame.select([pl.col(n).cast(t) for n, t in STANDING_SCHEMA.items()]))
