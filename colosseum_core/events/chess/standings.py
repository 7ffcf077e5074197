"""CHESS-RATINGS-1: the chess event's standings, from its games alone.

- Ratings: Bradley–Terry–Davidson (``statistics.davidson``: draws as their own outcome) over every
  game, a forfeit counting as the loss it is, on the Elo scale (mean 1000); 95 % intervals from the
  bootstrap that resamples game pairs (the two games of a line between two contenders, colours
  swapped: ``statistics.clustered_bootstrap``), with the manifest's seed and replicate count.
  Ratings are published at 0.1 Elo: the replicates' multiplicities are exact, the Newton fits are
  not bit-identical across BLAS builds, so ``verify`` re-fits within ``TOLERANCE_ELO``.
- Placements and medals (``statistics.placement``) from the published ratings and intervals, by the
  rule the manifest names (``events.manifest.placement_rule``: COLOSSEUM-PLACEMENT-2 from its
  introduction, placement = 1 + the contenders whose interval lies wholly above; version 1 for an
  event frozen before it); the standings' ``ratings`` column names the rule when the manifest does.
  No placement is given where the fit has no finite solution (for example when one contender won
  every game: its rating is unbounded), nor to a contender with no game, and why is recorded.
- Also: each contender's points, W/D/L, forfeits and the share of its games lost by forfeit,
  its rejected attempts and their share of its attempts; a sensitivity fit over the games that
  ended without a forfeit; White's share of the points, with its interval from the same game-pair
  bootstrap, and its Elo equivalent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import polars as pl

from colosseum_core.events.chess.rules import CHESS_RATINGS
from colosseum_core.events.manifest import placement_rule
from colosseum_core.events.tables import id_tables
from colosseum_core.statistics import (
    A_WON,
    B_WON,
    DRAW,
    PRIOR_VIRTUAL_ENTRANT,
    BootstrapSpec,
    RatingIntervals,
    clustered_games_from_frame,
    davidson_intervals,
    placements,
    ratio_intervals,
)
from colosseum_core.statistics.placement import PLACEMENT_1

# Newman's virtual entrant (one win and one loss against every contender): an event where one
# contender lost every game (a player that forfeits them all) still has finite ratings for all.
PRIOR: Final = PRIOR_VIRTUAL_ENTRANT
TOLERANCE_ELO: Final = 0.15  # two roundings of 0.1 Elo apart, and the solver's last bits
CLUSTER_DEFINITION: Final = "game pair: the two games of one line between two contenders, colours swapped"
ALL_GAMES: Final = "all_games"
WITHOUT_FORFEITS: Final = "without_forfeits"

STANDING_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "contender": pl.String(),
    "kind": pl.String(),
    "model": pl.String(),
    "rating": pl.Float64(),
    "low": pl.Float64(),
    "high": pl.Float64(),
    "placement": pl.Int64(),
    "medal": pl.String(),
    "games": pl.Int64(),
    "points": pl.Float64(),
    "wins": pl.Int64(),
    "draws": pl.Int64(),
    "losses": pl.Int64(),
    "forfeits": pl.Int64(),
    "forfeit_rate": pl.Float64(),
    "attempts": pl.Int64(),
    "rejected": pl.Int64(),
    "rejected_rate": pl.Float64(),
    "sensitivity_rating": pl.Float64(),
    "sensitivity_low": pl.Float64(),
    "sensitivity_high": pl.Float64(),
    "sensitivity_games": pl.Int64(),
    "ratings": pl.String(),
    "manifest_sha256": pl.String(),
}
FIT_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "fit": pl.String(),
    "model": pl.String(),
    "status": pl.String(),
    "games": pl.Int64(),
    "draws": pl.Int64(),
    "clusters": pl.Int64(),
    "nu": pl.Float64(),
    "nu_low": pl.Float64(),
    "nu_high": pl.Float64(),
    "seed": pl.Int64(),
    "replicates": pl.Int64(),
    "degenerate": pl.Int64(),
    "generator": pl.String(),
    "numpy_version": pl.String(),
    "method": pl.String(),
    "white_share": pl.Float64(),
    "white_low": pl.Float64(),
    "white_high": pl.Float64(),
    "white_elo": pl.Float64(),
    "tolerance_elo": pl.Float64(),
    "ratings": pl.String(),
    "manifest_sha256": pl.String(),
}


def _tenth(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), 1)


def _outcomes(games: pl.DataFrame) -> pl.DataFrame:
    return games.select(
        a=pl.col("white"),
        b=pl.col("black"),
        outcome=pl.when(pl.col("white_score") == 1.0)
        .then(A_WON)
        .when(pl.col("white_score") == 0.0)
        .then(B_WON)
        .otherwise(DRAW),
        cluster=pl.col("cluster"),
    )


def fit_games(games: pl.DataFrame, contenders: list[str], spec: BootstrapSpec) -> RatingIntervals | None:
    """The Davidson fit with its game-pair intervals; None with no game to fit."""
    if games.is_empty():
        return None
    clustered = clustered_games_from_frame(_outcomes(games), contenders)
    return davidson_intervals(clustered, spec, CLUSTER_DEFINITION, prior=PRIOR)


def _elo_of_share(share: float) -> float | None:
    if not 0 < share < 1:
        return None
    return 400 * math.log10(share / (1 - share))


def standings(
    manifest: Mapping[str, Any], manifest_sha256: str, games: pl.DataFrame, moves: pl.DataFrame
) -> dict[str, pl.DataFrame]:
    """``chess_standings`` (one row per contender) and ``chess_fit`` (the two fits) of an event."""
    event = manifest["event"]
    contenders = [c["id"] for c in manifest["contenders"]]
    spec = BootstrapSpec(
        seed=manifest["seeds"]["bootstrap"], replicates=manifest["ratings"]["bootstrap_replicates"]
    )
    fits = {
        ALL_GAMES: fit_games(games, contenders, spec),
        WITHOUT_FORFEITS: fit_games(games.filter(pl.col("forfeited_by").is_null()), contenders, spec),
    }
    full = fits[ALL_GAMES]
    rated = full is not None and full.point.ok
    rating = [(_tenth(full.point.ratings[i]) if rated else None) for i in range(len(contenders))]
    low = [(_tenth(full.low[i]) if rated else None) for i in range(len(contenders))]
    high = [(_tenth(full.high[i]) if rated else None) for i in range(len(contenders))]
    sensitivity = fits[WITHOUT_FORFEITS]
    sensitive = sensitivity is not None and sensitivity.point.ok
    per_side = pl.concat(
        [
            games.select(contender="white", score="white_score", forfeited_by="forfeited_by"),
            games.select(contender="black", score=1 - pl.col("white_score"), forfeited_by="forfeited_by"),
        ]
    )
    tally = {
        row["contender"]: row
        for row in per_side.group_by("contender")
        .agg(
            games=pl.len(),
            points=pl.col("score").sum(),
            wins=(pl.col("score") == 1).sum(),
            draws=(pl.col("score") == 0.5).sum(),
            losses=(pl.col("score") == 0).sum(),
            forfeits=(pl.col("forfeited_by") == pl.col("contender")).sum(),
        )
        .iter_rows(named=True)
    }
    tried = {
        row["contender"]: row
        for row in moves.group_by("contender")
        .agg(attempts=pl.len(), rejected=(~pl.col("accepted")).sum())
        .iter_rows(named=True)
    }
    rule = placement_rule(manifest)
    placed = None
    if rule == PLACEMENT_1:
        if rated and all(x is not None for x in (*rating, *low, *high)):
            placed = placements(
                np.array(rating), np.array(low), np.array(high), tie_keys=contenders, rule=rule
            )
    elif rated:
        counted = [c in tally and rating[i] is not None for i, c in enumerate(contenders)]
        placed = placements(rating, low, high, tie_keys=contenders, rule=rule, counted=counted)
    # The standings cite the placement rule beside the ratings rule when the manifest names it (an
    # event frozen before version 2 cites the ratings rule alone, as it did).
    cites = CHESS_RATINGS if "placement" not in manifest["rules"] else f"{CHESS_RATINGS},{rule}"
    by_id = {c["id"]: c for c in manifest["contenders"]}
    sensitivity_games = games.filter(pl.col("forfeited_by").is_null())
    rows = []
    for index, contender in enumerate(contenders):
        t = tally.get(contender, {})
        a = tried.get(contender, {})
        played = int(t.get("games", 0))
        attempts = int(a.get("attempts", 0))
        rejected = int(a.get("rejected", 0))
        forfeits = int(t.get("forfeits", 0))
        config = by_id[contender]
        played_clean = sensitivity_games.filter(
            (pl.col("white") == contender) | (pl.col("black") == contender)
        ).height
        # A contender with no game that ended without a forfeit has no rating of its own there.
        clean = sensitive and played_clean > 0
        rows.append(
            {
                "event": event,
                "contender": contender,
                "kind": config["kind"],
                "model": config.get("model") or f"{config.get('engine')} nodes={config.get('nodes')}",
                "rating": rating[index],
                "low": low[index],
                "high": high[index],
                "placement": placed.placement[index] if placed else None,
                "medal": placed.medal[index] if placed else None,
                "games": played,
                "points": float(t.get("points", 0.0)),
                "wins": int(t.get("wins", 0)),
                "draws": int(t.get("draws", 0)),
                "losses": int(t.get("losses", 0)),
                "forfeits": forfeits,
                "forfeit_rate": forfeits / played if played else None,
                "attempts": attempts,
                "rejected": rejected,
                "rejected_rate": rejected / attempts if attempts else None,
                "sensitivity_rating": _tenth(sensitivity.point.ratings[index]) if clean else None,
                "sensitivity_low": _tenth(sensitivity.low[index]) if clean else None,
                "sensitivity_high": _tenth(sensitivity.high[index]) if clean else None,
                "sensitivity_games": played_clean,
                "ratings": cites,
                "manifest_sha256": manifest_sha256,
            }
        )
    clusters = games.group_by("cluster", maintain_order=True).agg(
        twice=(pl.col("white_score") * 2).sum().cast(pl.Int64), games=pl.len()
    )
    white = (
        ratio_intervals(
            clusters["twice"].to_numpy().reshape(-1, 1), clusters["games"].to_numpy().reshape(-1, 1), 2, spec
        )
        if clusters.height
        else None
    )
    fit_rows = []
    for name, fit in fits.items():
        fitted = games if name == ALL_GAMES else sensitivity_games
        fit_rows.append(
            {
                "event": event,
                "fit": name,
                "model": fit.model if fit else None,
                "status": fit.point.status if fit else "no_games",
                "games": fitted.height,
                "draws": int((fitted["white_score"] == 0.5).sum()),
                "clusters": fitted["cluster"].n_unique(),
                "nu": _round(fit.point.nu) if fit else None,
                "nu_low": _round(fit.nu_low) if fit else None,
                "nu_high": _round(fit.nu_high) if fit else None,
                "seed": spec.seed,
                "replicates": spec.replicates,
                "degenerate": fit.degenerate if fit else None,
                "generator": fit.generator if fit else None,
                "numpy_version": fit.numpy_version if fit else None,
                "method": f"{fit.method}; point: {fit.point.method}" if fit else None,
                "white_share": _round(float(white.point[0])) if white and name == ALL_GAMES else None,
                "white_low": _round(float(white.low[0])) if white and name == ALL_GAMES else None,
                "white_high": _round(float(white.high[0])) if white and name == ALL_GAMES else None,
                "white_elo": _tenth(_elo_of_share(float(white.point[0])) or math.nan)
                if white and name == ALL_GAMES
                else None,
                "tolerance_elo": TOLERANCE_ELO,
                "ratings": CHESS_RATINGS,
                "manifest_sha256": manifest_sha256,
            }
        )
    return id_tables(chess_standings=(rows, STANDING_SCHEMA), chess_fit=(fit_rows, FIT_SCHEMA))


def _round(value: float | None) -> float | None:
    """Shares and ν to 4 decimals: what is published, and what ``verify`` compares."""
    return None if value is None or not math.isfinite(value) else round(float(value), 4)
