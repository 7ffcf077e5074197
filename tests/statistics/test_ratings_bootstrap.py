"""The cluster bootstrap of ratings: its stream, its exact replicate tables, its intervals, its record."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from colosseum_core.statistics import clustered_bootstrap
from colosseum_core.statistics.bootstrap import BOOTSTRAP_GENERATOR, BootstrapSpec, multiplicity_blocks
from colosseum_core.statistics.bradley_terry import (
    BRADLEY_TERRY,
    NOT_STRONGLY_CONNECTED,
    OK,
    PRIORS,
    fit_bradley_terry,
    fit_bradley_terry_many,
    fit_bradley_terry_scores,
)
from colosseum_core.statistics.clustered_bootstrap import (
    CLUSTERED_BOOTSTRAP,
    ONE_TYPE_PER_CLUSTER,
    PACKED_TYPES,
    bradley_terry_intervals,
    cluster_draws,
    clustered_games,
    clustered_games_from_frame,
    davidson_intervals,
    replicate_tables,
)
from colosseum_core.statistics.davidson import DAVIDSON, fit_davidson
from colosseum_core.statistics.pairwise import A_WON, B_WON, DRAW, PairCounts, pair_counts, wins_and_draws

PAIRS = "game pair: one opening line, colours swapped"


def paired_games(seed: int, entrants: int = 5, pairs: int = 60) -> tuple[np.ndarray, ...]:
    """Pairs of games with sides swapped, Davidson outcomes; cluster = the pair's number."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.0, 1.0, entrants)
    a = rng.integers(0, entrants, pairs)
    b = (a + rng.integers(1, entrants, pairs)) % entrants
    first, second = np.concatenate([a, b]), np.concatenate([b, a])
    half = (strength[first] - strength[second]) / 2
    win, loss, nu = np.exp(half), np.exp(-half), 0.5
    u = rng.random(2 * pairs)
    outcome = np.where(
        u < win / (win + loss + nu), A_WON, np.where(u < (win + nu) / (win + loss + nu), DRAW, B_WON)
    )
    cluster = np.concatenate([np.arange(pairs), np.arange(pairs)])
    return first, second, outcome, cluster


def reference_tables(
    a: np.ndarray, b: np.ndarray, outcome: np.ndarray, cluster: np.ndarray, entrants: int, spec: BootstrapSpec
) -> list[PairCounts]:
    """Resampling written out: clusters in ascending key order, one randint call per replicate,
    and each drawn cluster's table added on, one draw at a time."""
    keys = sorted(set(cluster.tolist()))
    tables = []
    for key in keys:
        mine = cluster == key
        tables.append(pair_counts(a[mine], b[mine], outcome[mine], entrants))
    stream = np.random.RandomState(spec.seed)
    replicates = []
    for _ in range(spec.replicates):
        total = PairCounts(np.zeros((entrants, entrants, 3), dtype=np.int64))
        for u in stream.randint(0, len(keys), size=len(keys), dtype=np.uint32).tolist():
            total = total + tables[u]
        replicates.append(total)
    return replicates


def all_tables(games: clustered_bootstrap.ClusteredGames, spec: BootstrapSpec) -> np.ndarray:
    return np.concatenate([tables for _, tables in replicate_tables(games, spec)])


# --------------------------------------------------------------------------------------------
# The stream and the replicate tables


def test_replicate_tables_are_the_per_cluster_resampling_loop() -> None:
    a, b, o, cluster = paired_games(1)
    spec = BootstrapSpec(seed=20260101, replicates=25)
    games = clustered_games(a, b, o, cluster, 5)
    assert games.grouping == PACKED_TYPES and games.types < games.clusters == 60
    got = all_tables(games, spec)
    expected = reference_tables(a, b, o, cluster, 5, spec)
    assert got.dtype == np.int64 and got.shape == (25, 5, 5, 3)
    assert [PairCounts(table) for table in got] == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entrants=st.integers(2, 4),
    data=st.data(),
    seed=st.integers(0, 2**32 - 1),
    packed=st.booleans(),
)
def test_the_type_trick_is_exact_for_any_clusters(
    entrants: int, data: st.DataObject, seed: int, packed: bool
) -> None:
    size = data.draw(st.integers(1, 25))
    a = np.array(data.draw(st.lists(st.integers(0, entrants - 1), min_size=size, max_size=size)))
    shift = np.array(data.draw(st.lists(st.integers(1, entrants - 1), min_size=size, max_size=size)))
    o = np.array(data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=size, max_size=size)))
    cluster = np.array(data.draw(st.lists(st.integers(-3, 6), min_size=size, max_size=size)))
    b = (a + shift) % entrants
    spec = BootstrapSpec(seed=seed, replicates=6)
    with pytest.MonkeyPatch.context() as patch:
        if not packed:  # no key fits: every cluster is its own type, the fallback path
            patch.setattr(clustered_bootstrap, "_KEY_BITS", 0)
        games = clustered_games(a, b, o, cluster, entrants)
    if not packed:
        assert games.grouping == ONE_TYPE_PER_CLUSTER and games.types == games.clusters
    got = [PairCounts(table) for table in all_tables(games, spec)]
    assert got == reference_tables(a, b, o, cluster, entrants, spec)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entrants=st.integers(2, 5), data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_score_tables_are_w_plus_half_t_and_fit_the_same_bits(
    entrants: int, data: st.DataObject, seed: int
) -> None:
    size = data.draw(st.integers(1, 30))
    a = np.array(data.draw(st.lists(st.integers(0, entrants - 1), min_size=size, max_size=size)))
    shift = np.array(data.draw(st.lists(st.integers(1, entrants - 1), min_size=size, max_size=size)))
    o = np.array(data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=size, max_size=size)))
    cluster = np.array(data.draw(st.lists(st.integers(0, 5), min_size=size, max_size=size)))
    games = clustered_games(a, (a + shift) % entrants, o, cluster, entrants)
    for _, draws in cluster_draws(games.clusters, BootstrapSpec(seed=seed, replicates=9), 4):
        wins, draws_of = wins_and_draws(clustered_bootstrap._tables(games, draws))
        scores = clustered_bootstrap._score_tables(games, draws, clustered_bootstrap._score_entries(games))
        assert np.array_equal(scores, wins + 0.5 * draws_of)
        for prior in PRIORS:  # with no prior some replicates are not strongly connected
            by_tables = fit_bradley_terry_many(wins, draws_of, prior=prior)
            by_scores = fit_bradley_terry_scores(scores, prior=prior)
            assert by_scores.status == by_tables.status
            assert by_scores.theta.tobytes() == by_tables.theta.tobytes()


def test_the_draws_are_the_forecast_bootstraps_stream_for_any_block_size() -> None:
    spec = BootstrapSpec(seed=99, replicates=11)
    for clusters in (1, 2, 7, 300):
        expected = np.vstack([block.copy() for _, block in multiplicity_blocks(clusters, spec)])
        for per_block in (None, 1, 3, 11, 50):
            draws = np.vstack([d for _, d in cluster_draws(clusters, spec, per_block)])
            assert draws.dtype == np.uint32 and draws.shape == (11, clusters)
            counted = np.stack([np.bincount(row, minlength=clusters) for row in draws]).astype(np.float64)
            assert np.array_equal(counted, expected), (clusters, per_block)
    stream = np.random.RandomState(99)
    first = [stream.randint(0, 7, size=7, dtype=np.uint32).tolist() for _ in range(3)]
    assert np.vstack([d for _, d in cluster_draws(7, BootstrapSpec(seed=99, replicates=3))]).tolist() == first


def test_the_same_seed_replays_bit_for_bit_and_another_does_not() -> None:
    a, b, o, cluster = paired_games(2)
    games = clustered_games(a, b, o, cluster, 5)
    spec = BootstrapSpec(seed=7, replicates=40)
    one = bradley_terry_intervals(games, spec, PAIRS)
    two = bradley_terry_intervals(clustered_games(a, b, o, cluster, 5), spec, PAIRS)
    assert one.replicate_ratings.tobytes() == two.replicate_ratings.tobytes()
    assert one.low.tobytes() == two.low.tobytes() and one.high.tobytes() == two.high.tobytes()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(clustered_bootstrap, "PIPELINE_BLOCKS", 13)  # other blocks, same replicates
        three = bradley_terry_intervals(games, spec, PAIRS)
    assert np.array_equal(three.replicate_ratings, one.replicate_ratings)
    other = bradley_terry_intervals(games, BootstrapSpec(seed=8, replicates=40), PAIRS)
    assert not np.array_equal(other.replicate_ratings, one.replicate_ratings)


def test_game_order_and_cluster_labels_do_not_matter_only_their_order() -> None:
    a, b, o, cluster = paired_games(3)
    spec = BootstrapSpec(seed=5, replicates=10)
    base = all_tables(clustered_games(a, b, o, cluster, 5), spec)
    order = np.random.default_rng(0).permutation(a.shape[0])
    shuffled = all_tables(clustered_games(a[order], b[order], o[order], cluster[order], 5), spec)
    assert np.array_equal(base, shuffled)
    # Labels that sort the same way give the same numbering; as text, "10" sorts before "2".
    relabelled = all_tables(clustered_games(a, b, o, cluster * 10 + 3, 5), spec)
    assert np.array_equal(base, relabelled)
    text = np.array([f"pair-{key:03d}" for key in cluster])
    assert np.array_equal(all_tables(clustered_games(a, b, o, text, 5), spec), base)


# --------------------------------------------------------------------------------------------
# Intervals


def test_intervals_are_type_7_percentiles_around_the_full_data_fit() -> None:
    a, b, o, cluster = paired_games(4, pairs=80)
    spec = BootstrapSpec(seed=11, replicates=60)
    games = clustered_games(a, b, o, cluster, 5)
    got = bradley_terry_intervals(games, spec, PAIRS)
    point = fit_bradley_terry(pair_counts(a, b, o, 5))
    assert np.array_equal(got.ratings, point.ratings) and got.point.status == OK
    expected = np.stack([fit_bradley_terry(t).ratings for t in reference_tables(a, b, o, cluster, 5, spec)])
    assert np.array_equal(got.replicate_ratings, expected)  # each replicate is its own fit, bit for bit
    for j in range(5):
        kept = np.sort(got.replicate_ratings[:, j])
        for q, bound in ((0.025, got.low[j]), (0.975, got.high[j])):
            h = (kept.size - 1) * q  # R type 7, written out
            low = int(np.floor(h))
            assert bound == pytest.approx(kept[low] + (h - low) * (kept[low + 1] - kept[low]), abs=1e-9)
    assert (got.low <= got.ratings).all() and (got.ratings <= got.high).all()
    assert not got.extended.any() and got.degenerate == 0 and got.status_counts == {OK: 60}


def test_degenerate_replicates_are_nan_excluded_and_counted() -> None:
    # Entrant 2's only point is one draw, in cluster 0; clusters 1..5 each hold wins both ways
    # between 0 and 1 and a win of each over 2. A replicate without cluster 0 leaves 2 scoreless
    # (no finite fit); so does one drawing cluster 0 alone.
    a = [2] + [0, 1, 0, 1] * 5
    b = [0] + [1, 0, 2, 2] * 5
    o = [DRAW] + [A_WON] * 20
    cluster = [0] + [c for c in range(1, 6) for _ in range(4)]
    spec = BootstrapSpec(seed=3, replicates=200)
    games = clustered_games(a, b, o, cluster, 3)
    got = bradley_terry_intervals(games, spec, "a made-up clustering")
    counts = [np.bincount(d, minlength=6) for _, block in cluster_draws(6, spec) for d in block]
    missing = np.array([m[0] == 0 or m[1:].sum() == 0 for m in counts])
    assert got.degenerate == int(missing.sum()) > 20
    assert got.status_counts == {NOT_STRONGLY_CONNECTED: int(missing.sum()), OK: int((~missing).sum())}
    assert np.isnan(got.replicate_ratings[missing]).all()
    kept = got.replicate_ratings[~missing]
    assert np.isfinite(kept).all()
    low, high = np.quantile(kept, [0.025, 0.975], axis=0, method="linear")
    assert np.array_equal(np.minimum(low, got.ratings), got.low)
    assert np.array_equal(np.maximum(high, got.ratings), got.high)
    assert got.record()["degenerate_replicates"] == int(missing.sum())


def test_an_infinite_point_fit_makes_every_replicate_degenerate() -> None:
    a, b, o = np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([A_WON, A_WON, DRAW])
    got = bradley_terry_intervals(clustered_games(a, b, o, np.arange(3), 3), BootstrapSpec(1, 30), "games")
    assert got.point.status == NOT_STRONGLY_CONNECTED and got.degenerate == 30
    assert np.isnan(got.low).all() and np.isnan(got.high).all() and np.isnan(got.ratings).all()
    prior = bradley_terry_intervals(
        clustered_games(a, b, o, np.arange(3), 3),
        BootstrapSpec(1, 30),
        "games",
        prior="newman-virtual-entrant",
    )
    assert prior.point.ok and prior.degenerate == 0 and prior.point.prior == "newman-virtual-entrant"
    assert (prior.low <= prior.ratings).all() and (prior.ratings <= prior.high).all()


def test_davidson_intervals_and_the_tie_parameter() -> None:
    a, b, o, cluster = paired_games(6, pairs=150)
    spec = BootstrapSpec(seed=2026, replicates=50)
    games = clustered_games(a, b, o, cluster, 5)
    got = davidson_intervals(games, spec, PAIRS)
    assert got.model == DAVIDSON and got.point.status == OK
    expected = [fit_davidson(t) for t in reference_tables(a, b, o, cluster, 5, spec)]
    assert np.array_equal(got.replicate_ratings, np.stack([f.ratings for f in expected]))
    assert got.replicate_nu is not None
    # The tie parameter's last bit depends on numpy's summation order (numpy 2.4 differs from 2.3 by
    # one ulp on one replicate of fifty); the strengths above stay bit-identical.
    np.testing.assert_allclose(got.replicate_nu, np.array([f.nu for f in expected]), rtol=0, atol=1e-15)
    assert got.nu_low is not None and got.nu_high is not None
    assert got.nu_low <= got.point.nu <= got.nu_high  # type: ignore[attr-defined]
    assert (got.low <= got.ratings).all() and (got.ratings <= got.high).all()
    bt = bradley_terry_intervals(games, spec, PAIRS)
    assert bt.replicate_nu is None and bt.nu_low is None and bt.model == BRADLEY_TERRY


def test_the_record_says_what_produced_the_numbers() -> None:
    a, b, o, cluster = paired_games(7)
    got = bradley_terry_intervals(
        clustered_games(a, b, o, cluster, 5), BootstrapSpec(seed=42, replicates=20), PAIRS
    )
    record = got.record()
    assert record["version"] == CLUSTERED_BOOTSTRAP == got.version
    assert record["model"] == BRADLEY_TERRY and record["model_method"] == got.point.method
    assert record["generator"] == BOOTSTRAP_GENERATOR and record["numpy_version"] == np.__version__
    assert (record["seed"], record["replicates"], record["level"]) == (42, 20, 0.95)
    assert record["quantiles"] == [0.025, 0.975]
    assert record["cluster_definition"] == PAIRS and record["cluster_numbering"].startswith("ascending")
    assert (record["clusters"], record["games"], record["entrants"]) == (60, 120, 5)
    assert record["draws"] == int((o == DRAW).sum()) and record["types"] == got.types
    assert record["degenerate_replicates"] == 0 and record["replicate_statuses"] == {OK: 20}
    assert record["point_status"] == OK and record["intervals_extended"] == 0
    assert "randint(0, C, size=C, dtype=uint32)" in record["method"] and "type 7" in record["method"]
    import json

    assert json.loads(json.dumps(record)) == record  # plain JSON values


def test_the_frame_constructor() -> None:
    a, b, o, cluster = paired_games(8)
    names = ["ada", "bo", "cy", "di", "ed"]
    frame = pl.DataFrame(
        {
            "white": [names[i] for i in a],
            "black": [names[i] for i in b],
            "result": o,
            "line": [f"line-{key}" for key in cluster],
        }
    )
    games = clustered_games_from_frame(frame, names, a="white", b="black", outcome="result", cluster="line")
    direct = clustered_games(a, b, o, np.array([f"line-{key}" for key in cluster]), 5)
    spec = BootstrapSpec(seed=1, replicates=5)
    assert np.array_equal(all_tables(games, spec), all_tables(direct, spec))
    assert games.total == pair_counts(a, b, o, 5)
    with pytest.raises(ValueError, match="no column 'pair'"):
        clustered_games_from_frame(frame, names, a="white", b="black", outcome="result", cluster="pair")
    with pytest.raises(ValueError, match="missing values"):
        clustered_games_from_frame(
            frame.with_columns(pl.lit(None, dtype=pl.String).alias("line")),
            names,
            a="white",
            b="black",
            outcome="result",
            cluster="line",
        )


def test_bad_bootstrap_input_is_refused() -> None:
    a, b, o, cluster = paired_games(9)
    games = clustered_games(a, b, o, cluster, 5)
    with pytest.raises(ValueError, match="cluster has 3 entries for 120 games"):
        clustered_games(a, b, o, cluster[:3], 5)
    with pytest.raises(ValueError, match="no games"):
        clustered_games([], [], [], [], 5)
    with pytest.raises(ValueError, match="cluster must hold whole numbers or strings"):
        clustered_games(a, b, o, cluster.astype(float), 5)
    with pytest.raises(ValueError, match="cluster must be 1-D"):
        clustered_games(a, b, o, cluster.reshape(2, -1), 5)
    with pytest.raises(ValueError, match=r"outcome\[0\] = 5"):
        clustered_games(a, b, np.full_like(o, 5), cluster, 5)
    with pytest.raises(ValueError, match="cluster_definition must say what a cluster is"):
        bradley_terry_intervals(games, BootstrapSpec(seed=1, replicates=5), "  ")
    with pytest.raises(ValueError, match="spec must be a BootstrapSpec"):
        davidson_intervals(games, 1, PAIRS)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="games must be ClusteredGames"):
        bradley_terry_intervals(pair_counts(a, b, o, 5), BootstrapSpec(seed=1), PAIRS)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="prior must be one of"):
        bradley_terry_intervals(games, BootstrapSpec(seed=1, replicates=5), PAIRS, prior="flat")
    with pytest.raises(ValueError, match="seed must be a whole number in"):
        BootstrapSpec(seed=2**32)
    with pytest.raises(ValueError, match="clusters must be in"):
        next(cluster_draws(0, BootstrapSpec(seed=1)))
    with pytest.raises(ValueError, match="block_replicates must be at least 1"):
        next(cluster_draws(3, BootstrapSpec(seed=1), 0))
