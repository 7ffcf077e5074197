"""Question-clustered bootstrap of ratio statistics, exact and reproducible bit for bit.

A ratio statistic over clusters q = 0..Q−1 (questions) and entrants j (columns, e.g. seats):

    value_j = Σ_q num[q, j] / (scale · Σ_q cnt[q, j])

Replicate b = 1..B draws u_1..u_Q iid uniform on {0..Q−1}, in that order, from ONE
``numpy.random.RandomState(seed)`` stream (legacy MT19937, frozen since numpy 1.16), as
``randint(0, Q, size=Q, dtype=uint32)``, one replicate after the other. The multiplicities are
m_q = #{k : u_k = q} and value_j^(b) = Σ_q m_q num[q, j] / (scale · Σ_q m_q cnt[q, j]).

Why uint32 for every Q: its draws are unbuffered (one masked 32-bit word per candidate), so drawing
several replicates in one call gives exactly the stream of drawing them one by one, and blocks of
any size replay the same replicates. uint16 is buffered (two candidates per word, the spare half
dropped at the end of each call) and so would tie the stream to the call sizes. For Q < 2³² the
uint32 stream is also the stream of numpy's default int64 ``randint``.

Exactness. The sums Σ_q m_q x[q, j] are integers and are computed exactly, whatever the BLAS, the
machine or the thread count: every column is shifted to be non-negative and cut into limbs of
L = 53 − bit_length(Q) bits, so every product m_q · limb and every partial sum (all non-negative,
all at most Σ_q m_q · (2^L − 1) = Q · (2^L − 1) < 2^53) is an integer that float64 holds exactly,
in whatever order the BLAS adds them. The float64 matmul results are converted back to int64 and
the limbs recombined in integers. Each replicate value then takes one IEEE division:
float64(Σ m·num) / float64(scale · Σ m·cnt). A replicate with Σ m·cnt = 0 for an entrant is
degenerate for it: NaN, excluded from its quantiles, and counted.

Interval: [Q_α, Q_1−α] with α = (1 − level)/2 of the non-degenerate replicate values, numpy
``method="linear"`` (type 7). The point is the full-data value, not a bootstrap median; if it ever
falls outside the percentile interval the interval is extended to contain it, and that is reported.
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Iterator, Sequence
from typing import Final

import numpy as np

BOOTSTRAP_GENERATOR: Final = "numpy.random.RandomState (MT19937, legacy stream)"
DRAW_DTYPE: Final = np.uint32
MAX_CLUSTERS: Final = 2**32
# Multiplicity cells per block of replicates: at most 16 Mi float64 (128 MiB), so Q = 300,000 with
# B = 1,999 stays well under a gigabyte. Big enough blocks matter when Q is large, since the matmul
# streams the whole limb matrix once per block: at Q = 300,000, 55 replicates a block ran the whole
# bootstrap in 18 s where 13 took 28 s. Small Q gains nothing past a few hundred replicates a block.
BLOCK_CELLS: Final = 1 << 24
BLOCK_REPLICATES: Final = 256
_FLOAT_EXACT_BITS: Final = 53
_INT64_LIMIT: Final = 2**63


@dataclasses.dataclass(frozen=True)
class BootstrapSpec:
    """What a recorded interval needs to be replayed: the seed, the replicate count and the level."""

    seed: int
    replicates: int = 1999
    level: float = 0.95

    def __post_init__(self) -> None:
        seed = _whole(self.seed, "seed")
        if not 0 <= seed < 2**32:
            raise ValueError(f"seed must be a whole number in [0, 2**32), not {self.seed!r}")
        replicates = _whole(self.replicates, "replicates")
        if replicates < 1:
            raise ValueError(f"replicates must be at least 1, not {self.replicates!r}")
        if isinstance(self.level, bool) or not isinstance(self.level, int | float):
            raise TypeError(f"level must be a number, not {type(self.level).__name__}")
        if not (math.isfinite(self.level) and 0 < self.level < 1):
            raise ValueError(f"level must be strictly between 0 and 1, not {self.level!r}")
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "replicates", replicates)
        object.__setattr__(self, "level", float(self.level))

    @property
    def probabilities(self) -> tuple[float, float]:
        """The two quantile probabilities; rounded so that level 0.95 gives exactly 0.025 and 0.975."""
        tail = round((1 - self.level) / 2, 15)
        return tail, round(1 - tail, 15)

    @property
    def method(self) -> str:
        low, high = self.probabilities
        return (
            f"question-clustered; per replicate b = 1..{self.replicates} in order, "
            "u_1..u_Q = randint(0, Q, size=Q, dtype=uint32) from one RandomState(seed) stream "
            "(uint32 for every Q); m_q = #{k: u_k = q}; "
            "value = float64(Σ m·num) / float64(scale·Σ m·cnt) from exact integer sums; "
            "replicates with Σ m·cnt = 0 degenerate (NaN, excluded, counted); "
            f"percentile [Q_{low:g}, Q_{high:g}], linear (type 7); point = full data, "
            "interval extended to contain it"
        )


@dataclasses.dataclass(frozen=True)
class RatioIntervals:
    point: np.ndarray  # (N,) float64, full data, NaN where Σ cnt = 0
    low: np.ndarray  # (N,) float64
    high: np.ndarray  # (N,) float64
    degenerate: np.ndarray  # (N,) int64: replicates with Σ m·cnt = 0
    extended: np.ndarray  # (N,) bool: the percentile interval was widened to contain the point
    clusters: int  # Q


def _whole(value: object, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a whole number, not a bool")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__}") from None


def _as_int64(values: object, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer array (int64), not dtype {array.dtype}")
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D (clusters × entrants), not shape {array.shape}")
    if array.dtype.kind == "u" and array.size and int(array.max()) >= _INT64_LIMIT:
        raise ValueError(f"{name} has values beyond the int64 range")
    return array.astype(np.int64, copy=False)


def _check_range(array: np.ndarray, clusters: int, name: str, factor: int = 1) -> None:
    """Every sum Σ_q m_q · x and its limb shift must fit int64: the callers' sums are computed there."""
    if array.size == 0:
        return
    low, high = int(array.min()), int(array.max())
    if clusters * factor * max(abs(low), abs(high), high - low) >= _INT64_LIMIT:
        raise ValueError(
            f"{name}: values in [{low}, {high}] over {clusters} clusters could overflow int64 sums"
        )


def _validate(
    stats: Sequence[tuple[object, object, int]],
) -> list[tuple[np.ndarray, np.ndarray, int]]:
    if len(stats) == 0:
        raise ValueError("no statistics given")
    checked: list[tuple[np.ndarray, np.ndarray, int]] = []
    shape: tuple[int, ...] | None = None
    for index, stat in enumerate(stats):
        if len(stat) != 3:
            raise ValueError(f"statistic {index} must be (num, cnt, scale)")
        raw_num, raw_cnt, raw_scale = stat
        num = _as_int64(raw_num, f"statistic {index}: num")
        cnt = _as_int64(raw_cnt, f"statistic {index}: cnt")
        if num.shape != cnt.shape:
            raise ValueError(f"statistic {index}: num {num.shape} and cnt {cnt.shape} differ in shape")
        if shape is None:
            shape = num.shape
        elif num.shape[0] != shape[0]:
            raise ValueError(
                f"statistic {index} has {num.shape[0]} clusters, statistic 0 has {shape[0]}: "
                "statistics sharing one draw must share their clusters"
            )
        scale = _whole(raw_scale, f"statistic {index}: scale")
        if scale <= 0:
            raise ValueError(f"statistic {index}: scale must be positive, not {raw_scale!r}")
        clusters = num.shape[0]
        if clusters == 0:
            raise ValueError("there are no clusters to resample (Q = 0)")
        if clusters > MAX_CLUSTERS:
            raise ValueError(f"at most {MAX_CLUSTERS} clusters, not {clusters}")
        if cnt.size and int(cnt.min()) < 0:
            raise ValueError(f"statistic {index}: cnt has negative counts")
        _check_range(num, clusters, f"statistic {index}: num")
        _check_range(cnt, clusters, f"statistic {index}: scale · cnt", factor=scale)
        checked.append((num, cnt, scale))
    return checked


# --------------------------------------------------------------------------------------------
# Draws


def multiplicity_blocks(
    clusters: int, spec: BootstrapSpec, block_replicates: int | None = None
) -> Iterator[tuple[int, np.ndarray]]:
    """(first replicate index, float64 multiplicities of shape (b, Q)) for blocks of replicates in order.

    The concatenated blocks are the same for every block size: the uint32 draws are unbuffered.
    The yielded array is reused by the next block; copy it to keep it.
    """
    clusters = _whole(clusters, "clusters")
    if not 0 < clusters <= MAX_CLUSTERS:
        raise ValueError(f"clusters must be in 1..{MAX_CLUSTERS}, not {clusters}")
    per_block = block_replicates or max(1, min(BLOCK_REPLICATES, BLOCK_CELLS // clusters))
    per_block = min(per_block, spec.replicates)
    stream = np.random.RandomState(spec.seed)
    block = np.empty((per_block, clusters), dtype=np.float64)
    for start in range(0, spec.replicates, per_block):
        size = min(per_block, spec.replicates - start)
        draws = stream.randint(0, clusters, size=(size, clusters), dtype=DRAW_DTYPE)
        # A bincount per replicate stays in cache; one over the flattened block with offsets is slower.
        for row in range(size):
            block[row] = np.bincount(draws[row], minlength=clusters)
        yield start, block[:size]


# --------------------------------------------------------------------------------------------
# Exact sums


@dataclasses.dataclass(frozen=True)
class _Limbs:
    shift: np.ndarray  # (N,) int64: the column minimum, added back as shift · Q
    bits: int
    count: int
    first_column: int


def _limbs(values: np.ndarray, first_column: int) -> tuple[_Limbs, list[np.ndarray]]:
    clusters, entrants = values.shape
    shift = values.min(axis=0) if clusters else np.zeros(entrants, dtype=np.int64)
    shifted = values - shift
    bits = _FLOAT_EXACT_BITS - clusters.bit_length()
    widest = int(shifted.max()).bit_length() if shifted.size else 0
    count = max(1, -(-widest // bits))
    mask = (1 << bits) - 1
    parts = [((shifted >> (k * bits)) & mask).astype(np.float64) for k in range(count)]
    return _Limbs(shift.astype(np.int64), bits, count, first_column), parts


def _recombine(products: np.ndarray, limbs: _Limbs, entrants: int, clusters: int) -> np.ndarray:
    total = np.zeros((products.shape[0], entrants), dtype=np.int64)
    for k in range(limbs.count):
        first = limbs.first_column + k * entrants
        # Exact: each product is an integer below 2^53 (see the module docstring).
        total += products[:, first : first + entrants].astype(np.int64) << (k * limbs.bits)
    return total + limbs.shift * clusters


class _Layout:
    """The limb columns of several integer matrices side by side, for one matmul per block."""

    def __init__(self, clusters: int) -> None:
        self.clusters = clusters
        self.parts: list[np.ndarray] = []
        self.columns = 0
        self._seen: list[tuple[np.ndarray, _Limbs]] = []

    def add(self, values: np.ndarray) -> _Limbs:
        for known, limbs in self._seen:  # SHARP and EDGE share their counts: one set of columns
            if known is values or (known.shape == values.shape and np.array_equal(known, values)):
                return limbs
        limbs, parts = _limbs(values, self.columns)
        self.parts.extend(parts)
        self.columns += limbs.count * values.shape[1]
        self._seen.append((values, limbs))
        return limbs

    def matrix(self) -> np.ndarray:
        if not self.parts:
            return np.zeros((self.clusters, 0), dtype=np.float64)
        return np.ascontiguousarray(np.hstack(self.parts))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(num.shape, np.nan, dtype=np.float64)
    np.divide(num.astype(np.float64), den.astype(np.float64), out=out, where=den > 0)
    return out


def _replicates(checked: list[tuple[np.ndarray, np.ndarray, int]], spec: BootstrapSpec) -> list[np.ndarray]:
    clusters = checked[0][0].shape[0]
    layout = _Layout(clusters)
    plans = [(layout.add(num), layout.add(cnt), num.shape[1], scale) for num, cnt, scale in checked]
    parts = layout.matrix()
    layout.parts.clear()
    outputs = [np.empty((spec.replicates, entrants), dtype=np.float64) for _, _, entrants, _ in plans]
    for start, block in multiplicity_blocks(clusters, spec):
        products = block @ parts
        stop = start + block.shape[0]
        for out, (num_limbs, cnt_limbs, entrants, scale) in zip(outputs, plans, strict=True):
            num_sum = _recombine(products, num_limbs, entrants, clusters)
            den = _recombine(products, cnt_limbs, entrants, clusters) * scale
            out[start:stop] = _ratio(num_sum, den)
    return outputs


def replicate_sums(values: np.ndarray, spec: BootstrapSpec) -> np.ndarray:
    """(B, N) int64: Σ_q m_q^(b) · values[q, j], exactly, for the replicates of ``spec``."""
    checked = _validate([(values, np.zeros_like(np.asarray(values)), 1)])
    array = checked[0][0]
    clusters, entrants = array.shape
    layout = _Layout(clusters)
    limbs = layout.add(array)
    parts = layout.matrix()
    out = np.empty((spec.replicates, entrants), dtype=np.int64)
    for start, block in multiplicity_blocks(clusters, spec):
        out[start : start + block.shape[0]] = _recombine(block @ parts, limbs, entrants, clusters)
    return out


def replicate_ratios(num: np.ndarray, cnt: np.ndarray, scale: int, spec: BootstrapSpec) -> np.ndarray:
    """(B, N) float64 replicate values, NaN where a replicate is degenerate for an entrant."""
    return _replicates(_validate([(num, cnt, scale)]), spec)[0]


# --------------------------------------------------------------------------------------------
# Intervals


def _intervals(
    num: np.ndarray, cnt: np.ndarray, scale: int, replicates: np.ndarray, spec: BootstrapSpec
) -> RatioIntervals:
    point = _ratio(num.sum(axis=0), cnt.sum(axis=0) * scale)
    entrants = point.shape[0]
    low = np.full(entrants, np.nan)
    high = np.full(entrants, np.nan)
    extended = np.zeros(entrants, dtype=bool)
    valid = ~np.isnan(replicates)
    degenerate = (spec.replicates - valid.sum(axis=0)).astype(np.int64)
    probabilities = list(spec.probabilities)
    for j in range(entrants):
        values = replicates[valid[:, j], j]
        if values.size:
            low[j], high[j] = np.quantile(values, probabilities, method="linear")
        if math.isnan(point[j]):
            continue
        if values.size == 0:  # every replicate missed the entrant: the interval is the point alone
            low[j] = high[j] = point[j]
            extended[j] = True
        elif point[j] < low[j] or point[j] > high[j]:
            low[j], high[j] = min(low[j], point[j]), max(high[j], point[j])
            extended[j] = True
    return RatioIntervals(
        point=point,
        low=low,
        high=high,
        degenerate=degenerate,
        extended=extended,
        clusters=num.shape[0],
    )


def ratio_intervals_many(
    stats: Sequence[tuple[np.ndarray, np.ndarray, int]], spec: BootstrapSpec
) -> list[RatioIntervals]:
    """Intervals for several (num, cnt, scale) statistics over the same clusters, from ONE draw.

    Each statistic gets exactly the intervals ``ratio_intervals`` gives it alone with the same spec.
    """
    checked = _validate(stats)
    replicates = _replicates(checked, spec)
    return [
        _intervals(num, cnt, scale, values, spec)
        for (num, cnt, scale), values in zip(checked, replicates, strict=True)
    ]


def ratio_intervals(num: np.ndarray, cnt: np.ndarray, scale: int, spec: BootstrapSpec) -> RatioIntervals:
    return ratio_intervals_many([(num, cnt, scale)], spec)[0]
