"""Statistics shared by the boards and the arenas.

- ``bootstrap``: the question-clustered bootstrap of ratio statistics and its percentile intervals
  (the forecast boards).
- The ratings library, for arenas that rate entrants from pairwise games:
  ``pairwise`` (one count structure C[a, b, outcome] for every fit), ``existence`` (when the MLE is
  finite), ``bradley_terry`` (draw = ½ win) and ``davidson`` (ties as their own outcome), both by
  batched Newton (``newton``), ``clustered_bootstrap`` (their intervals from a cluster bootstrap on
  the bootstrap's frozen RandomState stream), ``elo`` (sequential Elo with a draw penalty),
  ``significance`` (the exact binomial title bar) and ``placement`` (placements from intervals, and medals:
  COLOSSEUM-PLACEMENT-1 and -2).

Every formula carries a version constant, and every result carries its version, its method and
the counts it was computed from.

Imported by: the arenas (the forecast's boards, the debate's ratings and title bar, the events'
standings), the benchmarks and the tests. It imports no arena (``.importlinter``).
"""

from colosseum_core.statistics.bootstrap import (
    BOOTSTRAP_GENERATOR,
    BootstrapSpec,
    RatioIntervals,
    multiplicity_blocks,
    ratio_intervals,
    ratio_intervals_many,
    replicate_ratios,
    replicate_sums,
)
from colosseum_core.statistics.bradley_terry import (
    BRADLEY_TERRY,
    PRIOR_NONE,
    PRIOR_VIRTUAL_ENTRANT,
    BradleyTerryFit,
    RatingBatch,
    elo_scale,
    fit_bradley_terry,
    fit_bradley_terry_many,
)
from colosseum_core.statistics.clustered_bootstrap import (
    CLUSTERED_BOOTSTRAP,
    ClusteredGames,
    RatingIntervals,
    bradley_terry_intervals,
    cluster_draws,
    clustered_games,
    clustered_games_from_frame,
    davidson_intervals,
    replicate_tables,
)
from colosseum_core.statistics.davidson import DAVIDSON, DavidsonFit, fit_davidson, fit_davidson_many
from colosseum_core.statistics.elo import SEQUENTIAL_ELO, VOID, EloRun, sequential_elo
from colosseum_core.statistics.existence import MLE_EXISTENCE, is_strongly_connected, strong_components
from colosseum_core.statistics.pairwise import (
    A_WON,
    B_WON,
    DRAW,
    PAIR_COUNTS,
    PairCounts,
    pair_counts,
    pair_counts_from_frame,
)
from colosseum_core.statistics.placement import PLACEMENT, PLACEMENT_1, PLACEMENT_2, Placements, placements
from colosseum_core.statistics.significance import (
    TITLE_BAR,
    TitleFight,
    title_bar,
    title_fight,
    wins_clear_bar,
)

__all__ = [
    "A_WON",
    "BOOTSTRAP_GENERATOR",
    "BRADLEY_TERRY",
    "B_WON",
    "CLUSTERED_BOOTSTRAP",
    "DAVIDSON",
    "DRAW",
    "MLE_EXISTENCE",
    "PAIR_COUNTS",
    "PLACEMENT",
    "PLACEMENT_1",
    "PLACEMENT_2",
    "PRIOR_NONE",
    "PRIOR_VIRTUAL_ENTRANT",
    "SEQUENTIAL_ELO",
    "TITLE_BAR",
    "VOID",
    "BootstrapSpec",
    "BradleyTerryFit",
    "ClusteredGames",
    "DavidsonFit",
    "EloRun",
    "PairCounts",
    "Placements",
    "RatingBatch",
    "RatingIntervals",
    "RatioIntervals",
    "TitleFight",
    "bradley_terry_intervals",
    "cluster_draws",
    "clustered_games",
    "clustered_games_from_frame",
    "davidson_intervals",
    "elo_scale",
    "fit_bradley_terry",
    "fit_bradley_terry_many",
    "fit_davidson",
    "fit_davidson_many",
    "is_strongly_connected",
    "multiplicity_blocks",
    "pair_counts",
    "pair_counts_from_frame",
    "placements",
    "ratio_intervals",
    "ratio_intervals_many",
    "replicate_ratios",
    "replicate_sums",
    "replicate_tables",
    "sequential_elo",
    "strong_components",
    "title_bar",
    "title_fight",
    "wins_clear_bar",
]
