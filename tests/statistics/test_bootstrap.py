"""The question-clustered bootstrap: its stream, its exact sums, its intervals, its errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from colosseum_core.statistics import bootstrap
from colosseum_core.statistics.bootstrap import (
    BOOTSTRAP_GENERATOR,
    BootstrapSpec,
    multiplicity_blocks,
    ratio_intervals,
    ratio_intervals_many,
    replicate_ratios,
    replicate_sums,
)

EDGE_SCALE = 4 * 10**12
EDGE_MAX = 8 * 10**12


def reference_multiplicities(clusters: int, spec: BootstrapSpec) -> list[list[int]]:
    """The stream as defined: one randint call per replicate, replicates in order."""
    stream = np.random.RandomState(spec.seed)
    return [
        np.bincount(stream.randint(0, clusters, size=clusters, dtype=np.uint32), minlength=clusters).tolist()
        for _ in range(spec.replicates)
    ]


def reference_ratios(num: np.ndarray, cnt: np.ndarray, scale: int, spec: BootstrapSpec) -> np.ndarray:
    """Per replicate, per entrant, in Python integers, then one division of the two floats."""
    clusters, entrants = num.shape
    out = np.empty((spec.replicates, entrants))
    for b, m in enumerate(reference_multiplicities(clusters, spec)):
        for j in range(entrants):
            top = sum(m[q] * int(num[q, j]) for q in range(clusters))
            bottom = scale * sum(m[q] * int(cnt[q, j]) for q in range(clusters))
            out[b, j] = float(top) / float(bottom) if bottom else np.nan
    return out


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# --------------------------------------------------------------------------------------------
# The stream


@pytest.mark.parametrize("clusters", [1, 2, 7, 300, 65_537])
def test_blocks_of_any_size_replay_the_one_by_one_stream(clusters: int) -> None:
    spec = BootstrapSpec(seed=12345, replicates=11)
    expected = np.array(reference_multiplicities(clusters, spec), dtype=np.float64)
    for per_block in (None, 1, 3, 4, 11, 50):
        blocks = [block.copy() for _, block in multiplicity_blocks(clusters, spec, per_block)]
        got = np.vstack(blocks)
        assert same_bits(got, expected), per_block
        assert (got.sum(axis=1) == clusters).all()


PINNED = [58, 134, 443, 625, 238, 110, 12, 738]  # RandomState(20260101).randint(0, 1000, size=8)


def test_the_legacy_stream_is_pinned() -> None:
    # RandomState is frozen: these draws must replay for as long as the record is kept.
    assert np.random.RandomState(20260101).randint(0, 1000, size=8, dtype=np.uint32).tolist() == PINNED
    # For Q < 2³² the uint32 draws are numpy's default int64 ones: the rule is no exotic stream.
    assert np.random.RandomState(20260101).randint(0, 1000, size=8).tolist() == PINNED
    blocks = [block.tolist() for _, block in multiplicity_blocks(5, BootstrapSpec(seed=1, replicates=2))]
    assert blocks == [[[1.0, 1.0, 0.0, 2.0, 1.0], [2.0, 1.0, 0.0, 0.0, 2.0]]]


def test_block_size_does_not_change_a_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    num = rng.integers(-EDGE_MAX, EDGE_MAX, size=(97, 5))
    cnt = rng.integers(0, 3, size=(97, 5))
    spec = BootstrapSpec(seed=99, replicates=41)
    whole = replicate_ratios(num, cnt, EDGE_SCALE, spec)
    monkeypatch.setattr(bootstrap, "BLOCK_CELLS", 97 * 4)  # four replicates a block, the last one short
    assert same_bits(replicate_ratios(num, cnt, EDGE_SCALE, spec), whole)


# --------------------------------------------------------------------------------------------
# Exactness


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    clusters=st.integers(1, 12),
    entrants=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    scale=st.sampled_from([1, 4, EDGE_SCALE]),
    exact_bits=st.sampled_from([53, 20]),
)
def test_replicates_equal_the_python_integer_loop(
    data: st.DataObject, clusters: int, entrants: int, seed: int, scale: int, exact_bits: int
) -> None:
    values = st.integers(-EDGE_MAX, EDGE_MAX)
    num = np.array(data.draw(st.lists(values, min_size=clusters * entrants, max_size=clusters * entrants)))
    counts = st.lists(st.integers(0, 3), min_size=clusters * entrants, max_size=clusters * entrants)
    cnt = np.array(data.draw(counts))
    num, cnt = num.reshape(clusters, entrants), cnt.reshape(clusters, entrants)
    spec = BootstrapSpec(seed=seed, replicates=7)
    with pytest.MonkeyPatch.context() as patch:
        # 20 "exact" bits instead of 53 cuts every value into three or more limbs: the
        # recombination is exercised at sizes a Python loop can check.
        patch.setattr(bootstrap, "_FLOAT_EXACT_BITS", exact_bits)
        got = replicate_ratios(num, cnt, scale, spec)
    assert same_bits(got, reference_ratios(num, cnt, scale, spec))


def test_sums_beyond_two_to_the_53_are_exact_at_300000_questions() -> None:
    clusters = 300_000
    rng = np.random.default_rng(5)
    num = np.stack(
        [
            np.full(clusters, EDGE_MAX),  # every sum ≈ 2.4·10¹⁸, far past 2⁵³
            np.full(clusters, -EDGE_MAX),
            rng.integers(-EDGE_MAX, EDGE_MAX + 1, size=clusters),
            rng.choice([-EDGE_MAX, EDGE_MAX - 1], size=clusters),  # odd: float rounding would show
        ],
        axis=1,
    )
    spec = BootstrapSpec(seed=7, replicates=3)
    got = replicate_sums(num, spec)
    as_objects = num.astype(object)
    for b, m in enumerate(reference_multiplicities(clusters, spec)):
        weights = np.array(m, dtype=object)
        assert got[b].tolist() == [int((weights * as_objects[:, j]).sum()) for j in range(num.shape[1])]
    assert got[0, 0] == EDGE_MAX * clusters


def test_one_division_of_the_exact_sums() -> None:
    num = np.array([[2**53 + 1], [0]])
    cnt = np.array([[1], [0]])
    spec = BootstrapSpec(seed=0, replicates=5)
    ratios = replicate_ratios(num, cnt, 3, spec)
    for b, m in enumerate(reference_multiplicities(2, spec)):
        if m[0]:
            assert ratios[b, 0] == float(m[0] * (2**53 + 1)) / float(3 * m[0])
        else:
            assert np.isnan(ratios[b, 0])


# --------------------------------------------------------------------------------------------
# Intervals


def test_intervals_are_type_7_percentiles_of_the_non_degenerate_replicates() -> None:
    rng = np.random.default_rng(11)
    num = rng.integers(0, 401, size=(40, 3))
    cnt = np.ones((40, 3), dtype=np.int64)
    cnt[:, 2] = 0
    cnt[5, 2] = 1  # entrant 2 answered one question of forty: about a third of the replicates miss it
    num[:, 2] *= cnt[:, 2]
    spec = BootstrapSpec(seed=2026, replicates=199)
    got = ratio_intervals(num, cnt, 4, spec)
    replicates = replicate_ratios(num, cnt, 4, spec)
    for j in range(3):
        kept = np.sort(replicates[~np.isnan(replicates[:, j]), j])
        assert got.degenerate[j] == 199 - kept.size
        for q, bound in ((0.025, got.low[j]), (0.975, got.high[j])):
            h = (kept.size - 1) * q  # R type 7, written out
            low = int(np.floor(h))
            value = kept[low] + (h - low) * (kept[min(low + 1, kept.size - 1)] - kept[low])
            assert bound == pytest.approx(value, rel=1e-15, abs=1e-15)
            assert bound == np.quantile(kept, q, method="linear")
        assert got.point[j] == float(num[:, j].sum()) / float(4 * cnt[:, j].sum())
        assert got.low[j] <= got.point[j] <= got.high[j]
    assert got.degenerate[0] == got.degenerate[1] == 0 and 40 < got.degenerate[2] < 110  # ≈ 199·(39/40)⁴⁰
    assert got.clusters == 40


def test_a_point_outside_its_percentile_interval_extends_it() -> None:
    num = np.array([[0], [0], [0], [0], [100]])
    cnt = np.ones((5, 1), dtype=np.int64)
    spec = BootstrapSpec(seed=2, replicates=9, level=0.2)
    got = ratio_intervals(num, cnt, 1, spec)
    raw_high = np.quantile(replicate_ratios(num, cnt, 1, spec)[:, 0], spec.probabilities[1], method="linear")
    assert raw_high < got.point[0] == 20.0
    assert got.high[0] == 20.0 and bool(got.extended[0])


def test_an_entrant_without_answers_has_no_point_and_no_interval() -> None:
    num = np.array([[5, 0], [7, 0]])
    cnt = np.array([[1, 0], [1, 0]])
    got = ratio_intervals(num, cnt, 1, BootstrapSpec(seed=1, replicates=20))
    assert np.isnan(got.point[1]) and np.isnan(got.low[1]) and np.isnan(got.high[1])
    assert got.degenerate.tolist() == [0, 20] and got.extended.tolist() == [False, False]


def test_statistics_sharing_one_draw_equal_each_alone_and_reproduce_bit_for_bit() -> None:
    rng = np.random.default_rng(8)
    cnt = rng.integers(0, 2, size=(60, 4))
    sharp = rng.integers(0, 401, size=(60, 4)) * cnt
    edge = rng.integers(-4 * 10**12, 4 * 10**12, size=(60, 4)) * cnt
    spec = BootstrapSpec(seed=31, replicates=99)
    together = ratio_intervals_many([(sharp, cnt, 4), (edge, cnt, EDGE_SCALE)], spec)
    again = ratio_intervals_many([(sharp, cnt, 4), (edge, cnt, EDGE_SCALE)], spec)
    alone = [ratio_intervals(sharp, cnt, 4, spec), ratio_intervals(edge, cnt, EDGE_SCALE, spec)]
    for one, two, three in zip(together, again, alone, strict=True):
        for field in ("point", "low", "high", "degenerate", "extended"):
            assert same_bits(getattr(one, field), getattr(two, field))
            assert same_bits(getattr(one, field), getattr(three, field))


def test_the_recorded_method_names_the_rule() -> None:
    spec = BootstrapSpec(seed=1)
    assert spec.replicates == 1999 and spec.probabilities == (0.025, 0.975)
    assert "uint32" in spec.method and "type 7" in spec.method and "Q_0.025" in spec.method
    assert "RandomState" in BOOTSTRAP_GENERATOR and "legacy" in BOOTSTRAP_GENERATOR


# --------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"seed": -1}, ValueError, "seed"),
        ({"seed": 2**32}, ValueError, "seed"),
        ({"seed": 1.5}, TypeError, "seed"),
        ({"seed": True}, TypeError, "seed"),
        ({"seed": 1, "replicates": 0}, ValueError, "replicates"),
        ({"seed": 1, "level": 1.0}, ValueError, "level"),
        ({"seed": 1, "level": float("nan")}, ValueError, "level"),
    ],
)
def test_a_bad_spec_is_refused(kwargs: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        BootstrapSpec(**kwargs)


GOOD = np.ones((3, 2), dtype=np.int64)


@pytest.mark.parametrize(
    ("num", "cnt", "scale", "error", "message"),
    [
        (GOOD.astype(float), GOOD, 1, TypeError, "integer array"),
        (GOOD, GOOD.astype(bool), 1, TypeError, "integer array"),
        (GOOD[0], GOOD[0], 1, ValueError, "2-D"),
        (GOOD, np.ones((3, 3), dtype=np.int64), 1, ValueError, "differ in shape"),
        (GOOD, -GOOD, 1, ValueError, "negative"),
        (GOOD, GOOD, 0, ValueError, "scale"),
        (GOOD, GOOD, 2.5, TypeError, "scale"),
        (np.ones((0, 2), dtype=np.int64), np.ones((0, 2), dtype=np.int64), 1, ValueError, "no clusters"),
        (GOOD * 2**62, GOOD, 1, ValueError, "overflow"),
        (GOOD, GOOD, 2**62, ValueError, "overflow"),
    ],
)
def test_bad_inputs_are_refused_with_a_clear_error(
    num: np.ndarray, cnt: np.ndarray, scale: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        ratio_intervals(num, cnt, scale, BootstrapSpec(seed=1, replicates=3))  # type: ignore[arg-type]


def test_statistics_sharing_a_draw_must_share_their_clusters() -> None:
    with pytest.raises(ValueError, match="share their clusters"):
        ratio_intervals_many([(GOOD, GOOD, 1), (GOOD[:2], GOOD[:2], 1)], BootstrapSpec(seed=1, replicates=3))
