"""How settled an order is (COMPELLE-BT-1): Bradley–Terry beside Elo, with intervals and their n.

Elo depends on the order games were played in; a Bradley–Terry fit over the same games does not,
and its bootstrap intervals show how far the data pin each strength down. Over the rated games
(voids excluded, a draw as half a win, Pro as side a), the shared library fits Bradley–Terry with
Newman's virtual-entrant prior (one win and one loss for everyone against a fixed virtual entrant,
so a miner who has won every game still has a finite strength), and resamples clusters: a
cluster is one pair of miners (their rating keys, unordered), every game between them, whichever
side each argued, so the side-swapped games of one pairing are drawn together. The seed, the
replicate count and the level are recorded with what they produced.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

import polars as pl

from colosseum_core.debate.rules import COMPELLE_BT
from colosseum_core.statistics.bootstrap import BOOTSTRAP_GENERATOR, BootstrapSpec
from colosseum_core.statistics.bradley_terry import BRADLEY_TERRY, PRIOR_VIRTUAL_ENTRANT, method_text
from colosseum_core.statistics.clustered_bootstrap import (
    CLUSTERED_BOOTSTRAP,
    bradley_terry_intervals,
    clustered_games_from_frame,
    interval_method,
)
from colosseum_core.statistics.pairwise import A_WON, B_WON, DRAW

CLUSTER_DEFINITION: Final = (
    "one pair of miners (rating keys, unordered): every game between them, either side"
)
# What an outsider needs beside the library's method to replay the fit from the games alone
# (``fit_method``, published as the board's ``bt_fit`` download).
GAMES_FITTED: Final = (
    "every game of every epoch up to and including this one (the games tables, not the title fights'; "
    "an epoch overtaken before its close keeps its games) whose status is decided or draw (voids "
    "excluded); Pro is side a, Con side b; a draw is half a win to each side"
)
ENTRANT_ORDER: Final = (
    "entrants i = 0..p−1: the rating keys of those games (either side), in ascending code-point order"
)
CLUSTER_KEY: Final = (
    "the smaller of the two rating keys, then ' | ', then the larger (code-point order): "
    "min(pro_rating_key, con_rating_key) + ' | ' + max(pro_rating_key, con_rating_key)"
)
CLUSTER_NUMBERING: Final = "clusters c = 0..C−1 in ascending code-point order of the cluster key"
REPLICATES: Final = 1999
LEVEL: Final = 0.95
# The fits' last bits are the machine's: LAPACK's kernels and numpy's SIMD paths for e^x and
# ln(1 + x) differ between CPUs (measured: between OpenBLAS's Haswell and Sandybridge kernels, 65
# of 375 strengths and bounds differed, by at most 2.3e-13 Elo). ``verify`` re-derives these
# columns within TOLERANCE_ELO, far above that and far below anything the board shows; every
# other column, and the seal's hash of what was recorded, must match exactly.
TOLERANCE_ELO: Final = 1e-6
MACHINE_DEPENDENT_COLUMNS: Final = ("bt_rating", "bt_low", "bt_high")
STRENGTH_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rating_key": pl.String(),
    "bt_rating": pl.Float64(),
    "bt_low": pl.Float64(),
    "bt_high": pl.Float64(),
    "bt_games": pl.Int64(),  # the n behind the interval: rated games the key played
    "extended": pl.Boolean(),  # the percentile interval was widened to contain the point
    "rules": pl.String(),
}


@dataclasses.dataclass(frozen=True)
class Strengths:
    table: pl.DataFrame  # STRENGTH_SCHEMA, by strength then key
    record: dict[str, Any]  # what produced it: version, seed, replicates, level, clusters, …


def rated_pairs(games: pl.DataFrame, *keep: str) -> pl.DataFrame:
    """The rated games as the fit reads them: (a, b, outcome, cluster), ``GAMES_FITTED`` and
    ``CLUSTER_KEY`` of ``games`` (any epochs), with the columns ``keep`` of each game."""
    rated = games.filter(pl.col("status").is_in(["decided", "draw"]))
    return rated.select(
        *keep,
        a=pl.col("pro_rating_key"),
        b=pl.col("con_rating_key"),
        outcome=pl.when(pl.col("status") == "draw")
        .then(DRAW)
        .when(pl.col("winner") == "Pro")
        .then(A_WON)
        .otherwise(B_WON),
        cluster=pl.concat_str(
            pl.min_horizontal("pro_rating_key", "con_rating_key"),
            pl.max_horizontal("pro_rating_key", "con_rating_key"),
            separator=" | ",
        ),
    )


def fit_method(*, seed: int, replicates: int) -> dict[str, Any]:
    """What ``bt_strengths`` does, in words and parameters: the recipe an outsider replays it from
    (the seed's derivation is the caller's: ``crown.closing.BT_SEED_RULE``; the counts, ``fit_counts``)."""
    spec = BootstrapSpec(seed=seed, replicates=replicates, level=LEVEL)
    low, high = spec.probabilities
    return {
        "rules": COMPELLE_BT,
        "model": BRADLEY_TERRY,
        "bootstrap": CLUSTERED_BOOTSTRAP,
        "seed": seed,
        "replicates": replicates,
        "level": LEVEL,
        "quantile_low": low,
        "quantile_high": high,
        "generator": BOOTSTRAP_GENERATOR,
        "games_fitted": GAMES_FITTED,
        "entrant_order": ENTRANT_ORDER,
        "cluster_definition": CLUSTER_DEFINITION,
        "cluster_key": CLUSTER_KEY,
        "cluster_numbering": CLUSTER_NUMBERING,
        "prior": PRIOR_VIRTUAL_ENTRANT,
        "method": f"{interval_method(spec)}; point: {method_text(PRIOR_VIRTUAL_ENTRANT)}",
        "tolerance_elo": TOLERANCE_ELO,
    }


def fit_counts(games: pl.DataFrame) -> dict[str, int]:
    """The rated games, draws, entrants and clusters ``bt_strengths`` fits over ``games``."""
    frame = rated_pairs(games)
    return {
        "games": frame.height,
        "draws": int((frame["outcome"] == DRAW).sum()),
        "entrants": pl.concat([frame["a"], frame["b"]]).n_unique(),
        "clusters": frame["cluster"].n_unique(),
    }


def bt_strengths(games: pl.DataFrame, *, seed: int, replicates: int = REPLICATES) -> Strengths:
    """Bradley–Terry strengths with cluster-bootstrap intervals over ``games`` (any epochs)."""
    frame = rated_pairs(games)
    if frame.height == 0:
        return Strengths(pl.DataFrame(schema=STRENGTH_SCHEMA), {"version": COMPELLE_BT, "games": 0})
    keys = sorted(set(frame["a"]) | set(frame["b"]))
    intervals = bradley_terry_intervals(
        clustered_games_from_frame(frame, keys),
        BootstrapSpec(seed=seed, replicates=replicates, level=LEVEL),
        CLUSTER_DEFINITION,
        prior=PRIOR_VIRTUAL_ENTRANT,
    )
    played = (
        pl.concat([frame.select(rating_key="a"), frame.select(rating_key="b")])
        .group_by("rating_key")
        .len("bt_games")
    )
    table = (
        pl.DataFrame(
            {
                "rating_key": pl.Series(keys, dtype=pl.String),
                "bt_rating": intervals.ratings,
                "bt_low": intervals.low,
                "bt_high": intervals.high,
                "extended": intervals.extended,
            }
        )
        .join(played, on="rating_key", how="left")
        .with_columns(rules=pl.lit(COMPELLE_BT))
        .select([pl.col(name).cast(dtype) for name, dtype in STRENGTH_SCHEMA.items()])
        .sort(["bt_rating", "rating_key"], descending=[True, False])
    )
    return Strengths(table, {"rules": COMPELLE_BT, **intervals.record()})
