"""Statistics shared by the boards: the question-clustered bootstrap and its percentile intervals."""

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

__all__ = [
    "BOOTSTRAP_GENERATOR",
    "BootstrapSpec",
    "RatioIntervals",
    "multiplicity_blocks",
    "ratio_intervals",
    "ratio_intervals_many",
    "replicate_ratios",
    "replicate_sums",
]
