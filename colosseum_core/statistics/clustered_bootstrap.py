"""Cluster bootstrap of pairwise ratings, with percentile intervals that replay bit for bit.

Games are grouped in clusters (a chess line's two games with colours swapped, a task's games);
C_c is the count table of cluster c. Clusters are numbered c = 0..C−1 in ascending order of the
caller's cluster key, so the numbering does not depend on the order the games arrive in.
Replicate b = 1..B draws u_1..u_C iid uniform on {0..C−1}, in that order, from ONE
``numpy.random.RandomState(seed)`` stream, as ``randint(0, C, size=C, dtype=uint32)``, one
replicate after the other: the convention of ``bootstrap`` (the forecast arena's question
bootstrap), whose ``BootstrapSpec`` and generator this module shares. Then

    m_c = #{k : u_k = c},   C^(b) = Σ_c m_c C_c,   θ^(b) = MLE(C^(b)),   R^(b) = 1000 + 400/ln 10 · θ^(b)

Speed, exactly. Clusters with the same multiset of cells are exchangeable: they are grouped
into K types once (a cluster's sorted cell ids packed into one int64 key; when the key would not
fit, every cluster is its own type). A replicate maps its draws to types and counts them,
M_k = Σ_{c of type k} m_c, and scatters M over the types' cells. The draws are still the
per-cluster uint32 stream, so the replicate tables are exactly those of resampling clusters one
by one: Σ_k M_k C_k = Σ_c m_c C_c, in integers (every partial sum is an integer below 2⁵³, so
the float64 scatter is exact).

The draws of the next block of replicates are made in a second thread while this block is
summed and fitted (``cluster_draws``); one thread draws, block after block, so the stream is
the single-threaded one. Blocks are fitted two at a time, in threads of their own; a replicate's
fit does not depend on the block it is in, so every bit is the single-threaded one too.

Replicates are fitted together, a block at a time (``fit_bradley_terry_scores`` of the block's
tables summed straight into S = W + ½T, or ``fit_davidson_many``). A replicate
whose fit is not finite (its graph not strongly connected, no decisive game, separable, not
converged) is degenerate: its ratings are NaN, it is excluded from the quantiles and it is
counted, never dropped silently. Interval: [Q_α, Q_1−α], α = (1 − level)/2, of the other replicates, numpy
``method="linear"`` (type 7, what FastChat, arena-rank and ForecastBench report). The point is
the full-data fit, not a bootstrap median; as in ``bootstrap``, if it falls outside its
percentile interval the interval is extended to contain it, and that is reported.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

import numpy as np
import polars as pl

from colosseum_core.statistics._checks import whole
from colosseum_core.statistics.bootstrap import (
    BLOCK_CELLS,
    BLOCK_REPLICATES,
    BOOTSTRAP_GENERATOR,
    DRAW_DTYPE,
    MAX_CLUSTERS,
    BootstrapSpec,
)
from colosseum_core.statistics.bradley_terry import (
    OK,
    PRIOR_NONE,
    BradleyTerryFit,
    RatingBatch,
    check_prior,
    elo_scale,
    fit_bradley_terry,
    fit_bradley_terry_scores,
)
from colosseum_core.statistics.davidson import FINITE_STATUSES, DavidsonFit, fit_davidson, fit_davidson_many
from colosseum_core.statistics.pairwise import (
    B_WON,
    DRAW,
    PairCounts,
    cell_ids,
    counts_from_cells,
    frame_games,
    wins_and_draws,
)

CLUSTERED_BOOTSTRAP: Final = "COLOSSEUM-CLUSTER-BOOTSTRAP-1"
PACKED_TYPES: Final = "packed-cell-key"
ONE_TYPE_PER_CLUSTER: Final = "one-type-per-cluster"
# Replicates are drawn in at least this many blocks, so that drawing overlaps the fits.
PIPELINE_BLOCKS: Final = 4
# Blocks of replicates fitted at once, each in its own thread (two cores: the design card's machine).
FIT_THREADS: Final = 2
# A block's fit streams over (b, P) arrays of its b replicates' P pairs a dozen times a Newton
# step: about 2¹⁵ doubles of them (256 kB) stay in the cache beside the other thread's. Measured
# on 64 miners (P = 2,016), 1,999 replicates: blocks of 16 took 1.3–1.5 s, blocks of 256 took
# 3.0 s. The bits are the same for any block size: every operation of the fits is row by row.
FIT_BLOCK_PAIRS: Final = 1 << 15
_KEY_BITS: Final = 63
_FLOAT_EXACT: Final = 2**53


@dataclasses.dataclass(frozen=True)
class ClusteredGames:
    """Games grouped in clusters, kept as K types of identical clusters and their cells."""

    entrants: int
    cluster_keys: np.ndarray  # (C,) the caller's keys, ascending: cluster c is cluster_keys[c]
    cluster_type: np.ndarray  # (C,) int64 in 0..K−1; types numbered in ascending order of their key
    entry_type: np.ndarray  # (E,) int64: (type, cell, count) entries, each type's cells
    entry_cell: np.ndarray  # (E,) int64
    entry_count: np.ndarray  # (E,) int64
    types: int  # K
    grouping: str  # "packed-cell-key" or "one-type-per-cluster"
    total: PairCounts  # the full data

    @property
    def clusters(self) -> int:
        return int(self.cluster_type.shape[0])

    @property
    def games(self) -> int:
        return self.total.total_games


def _cluster_numbers(cluster: object) -> tuple[np.ndarray, np.ndarray]:
    keys = np.asarray(cluster)
    if keys.ndim != 1:
        raise ValueError(f"cluster must be 1-D, not shape {keys.shape}")
    if keys.size and keys.dtype.kind not in "iuUSO":
        raise ValueError(f"cluster must hold whole numbers or strings, not dtype {keys.dtype}")
    if keys.dtype.kind == "O" and not all(isinstance(key, str) for key in keys.tolist()):
        raise ValueError("cluster must hold whole numbers or strings, not mixed objects")
    if keys.size and keys.dtype.kind in "iu":
        low, high = int(keys.min()), int(keys.max())
        if high - low < 4 * keys.size and high < 2**63:
            # Integer keys in a compact range (game-pair numbers, task numbers): a count by value
            # gives np.unique's ascending numbering without sorting the games.
            offset = keys.astype(np.int64) - low
            present = np.bincount(offset, minlength=high - low + 1) > 0
            number = np.cumsum(present) - 1
            return np.flatnonzero(present).astype(keys.dtype) + keys.dtype.type(low), number[offset]
    unique, number = np.unique(keys, return_inverse=True)
    return unique, number.astype(np.int64).reshape(-1)


def clustered_games(a: object, b: object, outcome: object, cluster: object, entrants: int) -> ClusteredGames:
    """Games (a, b, outcome) as in ``pairwise``, each in the cluster ``cluster`` names (ints or strings)."""
    cells = cell_ids(a, b, outcome, entrants)
    p = int(entrants)
    keys, number = _cluster_numbers(cluster)
    if number.shape[0] != cells.shape[0]:
        raise ValueError(f"cluster has {number.shape[0]} entries for {cells.shape[0]} games")
    if number.shape[0] == 0:
        raise ValueError("there are no games, so no clusters to resample")
    clusters = keys.shape[0]
    if clusters > MAX_CLUSTERS:
        raise ValueError(f"at most {MAX_CLUSTERS} clusters, not {clusters}")
    cell_count = 3 * p * p
    if clusters * cell_count < 2**63:  # one int64 sort of (cluster, cell) instead of a lexsort
        combined = np.sort(number * cell_count + cells)
        sorted_cluster, sorted_cells = np.divmod(combined, cell_count)
    else:
        order = np.lexsort((cells, number))
        sorted_cells, sorted_cluster = cells[order], number[order]
    sizes = np.bincount(number, minlength=clusters)
    if clusters * int(sizes.max()) >= _FLOAT_EXACT:
        raise ValueError(
            f"{clusters} clusters of up to {int(sizes.max())} games: replicate counts could pass 2**53"
        )
    widest = int(sizes.max())
    cell_bits = max(1, (cell_count - 1).bit_length())
    if widest * cell_bits + widest.bit_length() <= _KEY_BITS:
        key = np.asarray(sizes, dtype=np.int64) << (widest * cell_bits)  # the size tells padding from cell 0
        if int(sizes.min()) == widest:  # clusters all of one size (game pairs): the slots are a reshape
            slots = sorted_cells.reshape(clusters, widest)
            for slot in range(widest):
                key |= slots[:, slot] << (slot * cell_bits)
        else:
            starts = np.cumsum(sizes) - sizes
            position = np.arange(sorted_cells.shape[0]) - starts[sorted_cluster]
            for slot in range(widest):
                here = position == slot
                key[sorted_cluster[here]] |= sorted_cells[here] << (slot * cell_bits)
        cluster_type = np.unique(key, return_inverse=True)[1].astype(np.int64).reshape(-1)
        grouping = PACKED_TYPES
    else:
        cluster_type = np.arange(clusters, dtype=np.int64)
        grouping = ONE_TYPE_PER_CLUSTER
    types = int(cluster_type.max()) + 1
    # Any cluster of a type can stand for it: they all hold the same cells.
    stand_in = np.empty(types, dtype=np.int64)
    stand_in[cluster_type] = np.arange(clusters)
    representative = np.zeros(clusters, dtype=bool)
    representative[stand_in] = True
    kept = representative[sorted_cluster]
    entries, counts = np.unique(
        cluster_type[sorted_cluster[kept]] * cell_count + sorted_cells[kept], return_counts=True
    )
    return ClusteredGames(
        entrants=p,
        cluster_keys=keys,
        cluster_type=cluster_type,
        entry_type=entries // cell_count,
        entry_cell=entries % cell_count,
        entry_count=counts.astype(np.int64),
        types=types,
        grouping=grouping,
        total=counts_from_cells(cells, p),
    )


def clustered_games_from_frame(
    frame: pl.DataFrame,
    entrants: int | Sequence[str],
    *,
    a: str = "a",
    b: str = "b",
    outcome: str = "outcome",
    cluster: str = "cluster",
) -> ClusteredGames:
    """``clustered_games`` of a polars frame's columns (entrants as a count or as names)."""
    if cluster not in frame.columns:
        raise ValueError(f"frame has no column {cluster!r} (columns: {frame.columns})")
    if frame[cluster].null_count():
        raise ValueError(f"column {cluster!r} has {frame[cluster].null_count()} missing values")
    first, second, result, p = frame_games(frame, entrants, (a, b, outcome))
    return clustered_games(first, second, result, frame[cluster].to_numpy(), p)


# --------------------------------------------------------------------------------------------
# Draws and replicate tables


def cluster_draws(
    clusters: int, spec: BootstrapSpec, block_replicates: int | None = None
) -> Iterator[tuple[int, np.ndarray]]:
    """(first replicate index, uint32 draws (b, C)) for blocks of replicates in order.

    The draws of ``bootstrap.multiplicity_blocks`` before their bincount: the same stream, for
    every block size (uint32 draws are unbuffered). The next block is drawn in a second thread
    while the caller works on this one: ``randint`` releases the GIL and the draws are about half
    the bootstrap's time. Only that one thread ever draws, one block after the other, so the
    stream's order is the single-threaded one.
    """
    clusters = whole(clusters, "clusters")
    if not 0 < clusters <= MAX_CLUSTERS:
        raise ValueError(f"clusters must be in 1..{MAX_CLUSTERS}, not {clusters}")
    if block_replicates is None:
        per_block = min(BLOCK_REPLICATES, BLOCK_CELLS // clusters, -(-spec.replicates // PIPELINE_BLOCKS))
    else:
        per_block = whole(block_replicates, "block_replicates")
        if per_block < 1:
            raise ValueError(f"block_replicates must be at least 1, not {block_replicates!r}")
    per_block = max(1, min(per_block, spec.replicates))
    stream = np.random.RandomState(spec.seed)
    starts = list(range(0, spec.replicates, per_block))

    def draw(start: int) -> np.ndarray:
        size = min(per_block, spec.replicates - start)
        return stream.randint(0, clusters, size=(size, clusters), dtype=DRAW_DTYPE)

    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="cluster-draws") as pool:
        pending = pool.submit(draw, starts[0])
        for index, start in enumerate(starts):
            draws = pending.result()
            if index + 1 < len(starts):  # submitted only once the previous block is drawn: in order
                pending = pool.submit(draw, starts[index + 1])
            yield start, draws


def _summed(
    games: ClusteredGames,
    draws: np.ndarray,
    entry: np.ndarray,
    slot: np.ndarray,
    weight: np.ndarray,
    slots: int,
) -> np.ndarray:
    """(b, slots) float64: Σ over entries of M[entry]·weight into each replicate's slot, M_k the
    draws on clusters of type k (exact, see the module docstring; compiled in ``replicate_sums``)."""
    from colosseum_core.statistics.replicate_sums import summed  # numba's import only when one runs

    return summed(draws, games.cluster_type, games.types, entry, slot, weight, slots)


def _tables(games: ClusteredGames, draws: np.ndarray) -> np.ndarray:
    """(b, p, p, 3) int64: Σ_c m_c C_c for each row of draws."""
    p = games.entrants
    summed = _summed(games, draws, games.entry_type, games.entry_cell, games.entry_count, 3 * p * p)
    return summed.astype(np.int64).reshape(draws.shape[0], p, p, 3)


def _score_entries(games: ClusteredGames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each type's games go in S = W + ½T: (type, flat cell i·p + j of S, weight) per entry.

    A win of a over b adds its count at (a, b), a loss at (b, a), a draw half at each. The same for
    every block of a bootstrap, so made once.
    """
    p = games.entrants
    pair, outcome = np.divmod(games.entry_cell, 3)
    a, b = np.divmod(pair, p)
    draw = outcome == DRAW
    into = np.where(outcome == B_WON, b * p + a, a * p + b)
    entry = np.concatenate([np.arange(into.shape[0]), np.flatnonzero(draw)])
    slot = np.concatenate([into, (b * p + a)[draw]])
    weight = games.entry_count[entry] * np.where(np.concatenate([draw, draw[draw]]), 0.5, 1.0)
    return games.entry_type[entry], slot, weight


def _score_tables(
    games: ClusteredGames, draws: np.ndarray, entries: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> np.ndarray:
    """(b, p, p) float64: S = W + ½T of Σ_c m_c C_c for each row of draws, all Bradley–Terry reads.

    Summed straight into S by ``entries`` (``_score_entries``). Every weight and partial sum is a
    multiple of ½ below 2⁵², so S is exact: the same numbers as W + ½T of ``_tables``, without the
    (b, p, p, 3) tables in between.
    """
    p = games.entrants
    return _summed(games, draws, *entries, p * p).reshape(draws.shape[0], p, p)


def block_replicates(games: ClusteredGames, spec: BootstrapSpec) -> int:
    """Replicates per block: cache-sized for the fits (``FIT_BLOCK_PAIRS``), within the draws' caps."""
    pairs = max(1, games.entrants * (games.entrants - 1) // 2)
    return max(
        1,
        min(
            BLOCK_REPLICATES,
            BLOCK_CELLS // games.clusters,
            -(-spec.replicates // PIPELINE_BLOCKS),
            max(8, FIT_BLOCK_PAIRS // pairs),
        ),
    )


def replicate_tables(games: ClusteredGames, spec: BootstrapSpec) -> Iterator[tuple[int, np.ndarray]]:
    """(first replicate index, count tables (b, p, p, 3) int64) for blocks of replicates in order."""
    for start, draws in cluster_draws(games.clusters, spec, block_replicates(games, spec)):
        yield start, _tables(games, draws)


# --------------------------------------------------------------------------------------------
# Intervals


@dataclasses.dataclass(frozen=True)
class RatingIntervals:
    """Full-data ratings with their cluster-bootstrap percentile intervals, and how they were made."""

    version: str  # CLUSTERED_BOOTSTRAP
    model: str  # BRADLEY_TERRY or DAVIDSON
    method: str
    generator: str
    numpy_version: str
    spec: BootstrapSpec
    cluster_definition: str
    point: BradleyTerryFit | DavidsonFit
    low: np.ndarray  # (p,) Elo
    high: np.ndarray  # (p,) Elo
    extended: np.ndarray  # (p,) bool: the percentile interval was widened to contain the point
    replicate_ratings: np.ndarray  # (B, p) Elo, NaN rows for degenerate replicates
    replicate_status: tuple[str, ...]  # (B,)
    degenerate: int
    replicate_nu: np.ndarray | None  # (B,) Davidson's ν per replicate; None for Bradley–Terry
    nu_low: float | None  # ν's percentile interval as it is (not extended to the point)
    nu_high: float | None
    entrants: int
    games: int
    draws: int
    clusters: int
    types: int
    grouping: str

    @property
    def ratings(self) -> np.ndarray:
        return self.point.ratings

    @property
    def status_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for status in self.replicate_status:
            counts[status] = counts.get(status, 0) + 1
        return dict(sorted(counts.items()))

    def record(self) -> dict[str, Any]:
        """What produced these numbers, as plain JSON values."""
        low, high = self.spec.probabilities
        return {
            "version": self.version,
            "model": self.model,
            "model_method": self.point.method,
            "method": self.method,
            "generator": self.generator,
            "numpy_version": self.numpy_version,
            "seed": self.spec.seed,
            "replicates": self.spec.replicates,
            "level": self.spec.level,
            "quantiles": [low, high],
            "cluster_definition": self.cluster_definition,
            "cluster_numbering": "ascending order of the cluster key",
            "clusters": self.clusters,
            "types": self.types,
            "grouping": self.grouping,
            "entrants": self.entrants,
            "games": self.games,
            "draws": self.draws,
            "point_status": self.point.status,
            "degenerate_replicates": self.degenerate,
            "replicate_statuses": self.status_counts,
            "intervals_extended": int(self.extended.sum()),
        }


def interval_method(spec: BootstrapSpec) -> str:
    """The recipe of ``bradley_terry_intervals`` and ``davidson_intervals`` in words, as they record it
    (the point fit's own method is the fit's ``method``)."""
    low, high = spec.probabilities
    return (
        "cluster bootstrap: clusters c = 0..C−1 in ascending key order; "
        f"per replicate b = 1..{spec.replicates} in order, "
        "u_1..u_C = randint(0, C, size=C, dtype=uint32) from one RandomState(seed) stream; "
        "m_c = #{k: u_k = c}; C^(b) = Σ_c m_c C_c exactly (identical clusters grouped into types); "
        "MLE per replicate; replicates without a finite fit degenerate (NaN, excluded, counted); "
        f"percentile [Q_{low:g}, Q_{high:g}], linear (type 7); point = full-data fit, "
        "interval extended to contain it"
    )


def _quantiles(values: np.ndarray, spec: BootstrapSpec) -> tuple[np.ndarray, np.ndarray]:
    low, high = np.quantile(values, list(spec.probabilities), axis=0, method="linear")
    return low, high


def _intervals(
    games: ClusteredGames,
    spec: BootstrapSpec,
    cluster_definition: str,
    point: BradleyTerryFit | DavidsonFit,
    fit_block: Callable[[np.ndarray], RatingBatch],
    finite: tuple[str, ...],
) -> RatingIntervals:
    """``fit_block`` fits the replicates of one block of draws (b, C)."""
    p = games.entrants
    theta = np.full((spec.replicates, p), np.nan)
    log_nu = np.full(spec.replicates, np.nan)
    status: list[str] = []

    def keep(start: int, batch: RatingBatch) -> None:
        size = batch.theta.shape[0]
        theta[start : start + size] = batch.theta
        if batch.log_nu is not None:
            log_nu[start : start + size] = batch.log_nu
        status.extend(batch.status)

    # Blocks are summed and fitted FIT_THREADS at a time: numpy releases the GIL in the fits' array
    # work, and a replicate's fit is its own whatever block it is in, so the threads change no bit.
    # Results are kept in block order; at most FIT_THREADS blocks wait in memory.
    pending: collections.deque[tuple[int, concurrent.futures.Future[RatingBatch]]] = collections.deque()
    with concurrent.futures.ThreadPoolExecutor(FIT_THREADS, thread_name_prefix="bootstrap-fits") as pool:
        for start, draws in cluster_draws(games.clusters, spec, block_replicates(games, spec)):
            if len(pending) >= FIT_THREADS:
                keep(pending[0][0], pending.popleft()[1].result())
            pending.append((start, pool.submit(fit_block, draws)))
        while pending:
            keep(pending[0][0], pending.popleft()[1].result())
    valid = np.array([entry in finite for entry in status], dtype=bool)
    theta[~valid] = np.nan
    ratings = elo_scale(theta)
    low, high = np.full(p, np.nan), np.full(p, np.nan)
    extended = np.zeros(p, dtype=bool)
    if valid.any():
        low, high = _quantiles(ratings[valid], spec)
    if point.ok:
        if not valid.any():  # every replicate degenerate: the interval is the point alone
            low, high = point.ratings.copy(), point.ratings.copy()
            extended[:] = True
        else:
            extended = (point.ratings < low) | (point.ratings > high)
            low, high = np.minimum(low, point.ratings), np.maximum(high, point.ratings)
    davidson_fit = isinstance(point, DavidsonFit)
    nu = np.where(valid, np.exp(log_nu), np.nan) if davidson_fit else None
    nu_low = nu_high = None
    if nu is not None and valid.any():
        nu_low, nu_high = (float(x) for x in _quantiles(nu[valid], spec))
    return RatingIntervals(
        version=CLUSTERED_BOOTSTRAP,
        model=point.version,
        method=interval_method(spec),
        generator=BOOTSTRAP_GENERATOR,
        numpy_version=np.__version__,
        spec=spec,
        cluster_definition=cluster_definition,
        point=point,
        low=low,
        high=high,
        extended=extended,
        replicate_ratings=ratings,
        replicate_status=tuple(status),
        degenerate=int((~valid).sum()),
        replicate_nu=nu,
        nu_low=nu_low,
        nu_high=nu_high,
        entrants=p,
        games=games.games,
        draws=games.total.total_draws,
        clusters=games.clusters,
        types=games.types,
        grouping=games.grouping,
    )


def _check_request(games: object, spec: object, cluster_definition: object) -> ClusteredGames:
    if not isinstance(games, ClusteredGames):
        raise ValueError(f"games must be ClusteredGames (see clustered_games), not {type(games).__name__}")
    if not isinstance(spec, BootstrapSpec):
        raise ValueError(f"spec must be a BootstrapSpec, not {type(spec).__name__}")
    if not isinstance(cluster_definition, str) or not cluster_definition.strip():
        raise ValueError(f"cluster_definition must say what a cluster is, not {cluster_definition!r}")
    return games


def bradley_terry_intervals(
    games: ClusteredGames, spec: BootstrapSpec, cluster_definition: str, *, prior: str = PRIOR_NONE
) -> RatingIntervals:
    """Bradley–Terry (draw = ½ win) ratings with cluster-bootstrap intervals.

    ``cluster_definition`` is recorded as given, e.g. "game pair: one opening line, colours swapped".
    """
    games = _check_request(games, spec, cluster_definition)
    prior = check_prior(prior)

    entries = _score_entries(games)

    def fit_block(draws: np.ndarray) -> RatingBatch:
        return fit_bradley_terry_scores(_score_tables(games, draws, entries), prior=prior)

    point = fit_bradley_terry(games.total, prior=prior)
    return _intervals(games, spec, cluster_definition, point, fit_block, (OK,))


def davidson_intervals(
    games: ClusteredGames, spec: BootstrapSpec, cluster_definition: str, *, prior: str = PRIOR_NONE
) -> RatingIntervals:
    """Davidson ratings with cluster-bootstrap intervals for the ratings and for ν.

    A replicate without draws has the boundary fit (ν = 0, status no_draws): finite, so kept, and
    counted in ``status_counts``.
    """
    games = _check_request(games, spec, cluster_definition)
    prior = check_prior(prior)

    def fit_block(draws: np.ndarray) -> RatingBatch:
        return fit_davidson_many(*wins_and_draws(_tables(games, draws)), prior=prior)

    point = fit_davidson(games.total, prior=prior)
    return _intervals(games, spec, cluster_definition, point, fit_block, FINITE_STATUSES)
