"""An outsider with only the site's downloads re-derives what the debate pages show, with code written
here: numpy and the recipes the downloads publish, never the project's statistics.

A season of three epochs is played through the real Definitions and published; from the files under
``debate/downloads/`` alone this module re-derives the last epoch's Bradley–Terry ratings and their
95 % intervals (the seed from its published derivation, the clusters from their published key and
numbering, the draws from the published generator, the fits by its own Newton, the percentile rule),
every Elo rating, and the intent panel's verdicts from its votes. Placements of an event are
re-derived in ``tests/events/e2e/test_downloads.py``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from colosseum_core.arenas import PUBLIC_SITE
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import publish_site
from colosseum_core.trust.keys import KeyStore
from tests.debate.e2e.test_board import _playing

BUILT = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.UTC)
ELO_PER_NAT = 400 / np.log(10)


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    data = tmp_path_factory.mktemp("season") / "data"
    with _playing(data) as arena:
        for _ in range(3):
            arena.epoch()
    site = publish_site(
        PUBLIC_SITE,
        Record(data),
        KeyStore.for_data(data),
        tmp_path_factory.mktemp("site") / "site",
        built_at=BUILT,
    ).site
    yield site / "debate" / "downloads"


def _table(downloads: Path, table: str) -> pl.DataFrame:
    """Every partition of one download, as an outsider reads them: the files, nothing else."""
    files = sorted((downloads / table).glob("*.parquet"))
    assert files, f"no {table} download"
    return pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed")


# -- Bradley–Terry as the recipe states it, in numpy ------------------------------------------------


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


def _objective(theta: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Σ_{i≠j} S_ij ln σ(θ_i − θ_j) + Σ_i [ln σ(θ_i) + ln σ(−θ_i)]: the data and Newman's prior."""
    d = theta[:, :, None] - theta[:, None, :]
    return (score * _log_sigmoid(d)).sum(axis=(1, 2)) + (_log_sigmoid(theta) + _log_sigmoid(-theta)).sum(1)


def _fit(score: np.ndarray) -> np.ndarray:
    """Elo ratings of B tables S = W + ½T (B, p, p) by Newton with step halving, centred to mean 0."""
    tables, p, _ = score.shape
    games = score + score.transpose(0, 2, 1)
    points = score.sum(axis=2)
    theta = np.zeros((tables, p))
    value = _objective(theta, score)
    active = np.ones(tables, dtype=bool)
    diagonal = np.arange(p)
    for _ in range(100):
        if not active.any():
            break
        rows = np.flatnonzero(active)
        t = theta[rows]
        sig = 1 / (1 + np.exp(-(t[:, :, None] - t[:, None, :])))
        own = 1 / (1 + np.exp(-t))
        gradient = points[rows] - (games[rows] * sig).sum(axis=2) + 1 - 2 * own
        v = games[rows] * sig * (1 - sig)
        system = -v
        system[:, diagonal, diagonal] = v.sum(axis=2) + 2 * own * (1 - own)
        step = np.linalg.solve(system, gradient[..., None])[..., 0]
        scale = np.ones(rows.size)
        for _ in range(60):
            trial = _objective(t + scale[:, None] * step, score[rows])
            worse = trial < value[rows] - 1e-13 * (1 + np.abs(value[rows]))
            if not worse.any():
                break
            scale[worse] /= 2
        theta[rows] = t + scale[:, None] * step
        value[rows] = _objective(theta[rows], score[rows])
        active[rows] = np.abs(scale[:, None] * step).max(axis=1) >= 1e-12
    assert not active.any(), "a fit did not converge in 100 Newton steps"
    theta -= theta.mean(axis=1, keepdims=True)
    return 1000 + ELO_PER_NAT * theta


def test_one_epoch_s_bradley_terry_intervals_re_derive_from_the_downloads_alone(downloads: Path) -> None:
    manifests = _table(downloads, "epoch_manifest")
    epoch = manifests["epoch"].max()
    [method] = pl.read_parquet(downloads / "bt_fit" / f"epoch={epoch}.parquet").iter_rows(named=True)
    # The published recipe is the one implemented here.
    assert method["generator"].startswith("numpy.random.RandomState")
    assert method["prior"] == "newman-virtual-entrant" and method["quantile_low"] == 0.025
    assert "ascending code-point order of the cluster key" in method["cluster_numbering"]
    assert (
        "min(pro_rating_key, con_rating_key) + ' | ' + max(pro_rating_key, con_rating_key)"
        in method["cluster_key"]
    )
    # The seed, from its published derivation: the first 4 bytes of SHA-256, big-endian.
    seed = int.from_bytes(hashlib.sha256(f"{method['rules']}\n{epoch}".encode()).digest()[:4], "big")
    assert seed == method["seed"] == manifests.filter(pl.col("epoch") == epoch)["bt_seed"][0]

    games = _table(downloads, "games").filter(
        (pl.col("epoch") <= epoch) & pl.col("status").is_in(["decided", "draw"])
    )
    keys = sorted(set(games["pro_rating_key"]) | set(games["con_rating_key"]))
    index = {k: i for i, k in enumerate(keys)}
    p = len(keys)
    clusters = sorted(
        {
            " | ".join(sorted(pair))
            for pair in zip(games["pro_rating_key"], games["con_rating_key"], strict=True)
        }
    )
    number = {c: i for i, c in enumerate(clusters)}
    counts = np.zeros((len(clusters), p, p))  # S = W + ½T of each cluster
    for pro, con, status, winner in games.select(
        "pro_rating_key", "con_rating_key", "status", "winner"
    ).rows():
        c, a, b = number[" | ".join(sorted((pro, con)))], index[pro], index[con]
        if status == "draw":
            counts[c, a, b] += 0.5
            counts[c, b, a] += 0.5
        elif winner == "Pro":
            counts[c, a, b] += 1
        else:
            counts[c, b, a] += 1
    assert (games.height, len(clusters), p) == (method["games"], method["clusters"], method["entrants"])

    stream = np.random.RandomState(seed)
    draws = np.stack(
        [
            stream.randint(0, len(clusters), size=len(clusters), dtype=np.uint32)
            for _ in range(method["replicates"])
        ]
    )
    multiplicity = np.stack([np.bincount(row, minlength=len(clusters)) for row in draws]).astype(float)
    point = _fit(counts.sum(axis=0)[None])[0]
    replicates = _fit(np.einsum("bc,cij->bij", multiplicity, counts))
    low, high = np.quantile(
        replicates, [method["quantile_low"], method["quantile_high"]], axis=0, method="linear"
    )
    low, high = np.minimum(low, point), np.maximum(high, point)

    ratings = pl.read_parquet(downloads / "ratings" / f"epoch={epoch}.parquet")
    assert ratings.height >= 2
    tolerance = method["tolerance_elo"]
    for row in ratings.iter_rows(named=True):
        i = index[row["rating_key"]]
        assert abs(row["bt_rating"] - point[i]) <= tolerance, row["rating_key"]
        assert abs(row["bt_low"] - low[i]) <= tolerance, row["rating_key"]
        assert abs(row["bt_high"] - high[i]) <= tolerance, row["rating_key"]
    # The rank: the recipe its epoch names, from the published intervals (rounded to 0.1 Elo first).
    rules = manifests.filter(pl.col("epoch") == epoch)["rules"][0].to_list()
    rows = ratings.to_dicts()
    if "COLOSSEUM-PLACEMENT-2" in rules:
        rated = [r for r in rows if r["bt_rating"] is not None]
        for r in rows:
            if r["bt_rating"] is None:
                assert r["rank"] is None, r["rating_key"]
                continue
            above = sum(round(o["bt_low"], 1) > round(r["bt_high"], 1) for o in rated)
            assert r["rank"] == 1 + above, r["rating_key"]
    else:
        by_elo = sorted(rows, key=lambda r: (-r["rating"], r["rating_key"]))
        assert [r["rank"] for r in by_elo] == list(range(1, len(rows) + 1))
    # Not a test that cannot fail: another seed gives other intervals.
    other = np.random.RandomState(seed + 1)
    moved = _fit(
        np.einsum(
            "bc,cij->bij",
            np.stack(
                [
                    np.bincount(
                        other.randint(0, len(clusters), size=len(clusters), dtype=np.uint32),
                        minlength=len(clusters),
                    )
                    for _ in range(200)
                ]
            ).astype(float),
            counts,
        )
    )
    assert not np.allclose(np.quantile(moved, 0.025, axis=0), low, atol=tolerance)


def test_every_elo_rating_re_derives_from_the_games_downloads(downloads: Path) -> None:
    games = _table(downloads, "games").sort("epoch", "round", "game_id")
    ratings = _table(downloads, "ratings")
    for epoch in sorted(ratings["epoch"].unique()):
        elo: dict[str, float] = {}
        for pro, con, status, winner in (
            games.filter(pl.col("epoch") <= epoch)
            .select("pro_rating_key", "con_rating_key", "status", "winner")
            .rows()
        ):
            if status == "void":
                continue
            a, b = elo.get(pro, 1000.0), elo.get(con, 1000.0)
            expected = 1 / (1 + 10 ** ((b - a) / 400))
            score = 0.5 if status == "draw" else float(winner == "Pro")
            penalty = 1.6 if status == "draw" else 0.0
            elo[pro], elo[con] = a + 32 * (score - expected) - penalty, b - 32 * (score - expected) - penalty
        for row in ratings.filter(pl.col("epoch") == epoch).iter_rows(named=True):
            assert row["rating"] == pytest.approx(elo[row["rating_key"]], abs=1e-9)


def test_the_intent_panel_s_verdicts_re_derive_from_its_published_votes(downloads: Path) -> None:
    calls = _table(downloads, "panel_calls")
    assert {"vote", "reason", "reply", "receipt_ids"} <= set(calls.columns)
    entries = _table(downloads, "entries").filter(pl.col("panel_valid").is_not_null())
    assert entries.height
    for entry in entries.iter_rows(named=True):
        votes = calls.filter(
            (pl.col("epoch") == entry["panel_epoch"]) & (pl.col("strategy_hash") == entry["strategy_hash"])
        )["vote"]
        valid, bad = int(votes.is_not_null().sum()), int((votes == "BAD").sum())
        assert (valid, bad) == (entry["panel_valid"], entry["panel_bad"])
        verdict = "BAD" if valid >= 2 and bad == valid else "GOOD" if valid >= 2 and bad == 0 else "PENDING"
        assert verdict == entry["verdict"]
