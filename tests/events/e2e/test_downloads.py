"""An event's placements re-derive from its downloads alone, with code written here (numpy, not the
project's statistics), and ``colosseum verify`` names a download of an event that is missing or does
not agree.

A Solve-or-Object event of house solvers is frozen, asked, scored and sealed through the real
Definitions and published. From the files under ``events/<event>/downloads/`` alone this module
re-derives each contender's mean points and its 95 % interval (the pairs as clusters in the published
order, the published seed, draw and percentile rule), then the placements and medals by the placement
rule the event's recipes name. A chess event's White's share is re-derived from its published
clusters, in their published order.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.record import with_ids
from colosseum_core.trust.bundle import ARENA_PEM, ENVELOPE_NAME, MANIFEST_NAME, sign_bundle
from colosseum_core.trust.keys import ARENA, KeyStore
from colosseum_core.verify import verify_path
from tests.events.e2e.test_soo_event_e2e import EVENT
from tests.events.e2e.test_soo_event_e2e import FREEZE as FREEZE_SOO
from tests.support import events_e2e as e2e
from tests.support.sandbox import need_sandbox


@pytest.fixture(scope="module")
def soo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the record, the site published from it: the record's own ``site/``)."""
    need_sandbox()
    data = e2e.played(tmp_path_factory, "solve-or-object", EVENT, *FREEZE_SOO)
    return data, e2e.published(data, data / "site")


def _downloads(site: Path) -> Path:
    return site / "events" / EVENT / "downloads"


# -- written here, from the recipes: the ratio bootstrap and the placement rule ----------------------


def _ratio_intervals(
    num: np.ndarray, cnt: np.ndarray, scale: int, seed: int, replicates: int, level: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point and percentile interval of Σ_q num / (scale · Σ_q cnt) per column, clusters q resampled."""
    clusters = num.shape[0]
    stream = np.random.RandomState(seed)
    values = np.empty((replicates, num.shape[1]))
    for b in range(replicates):
        m = np.bincount(stream.randint(0, clusters, size=clusters, dtype=np.uint32), minlength=clusters)
        top, bottom = m @ num, scale * (m @ cnt)  # exact integer sums
        with np.errstate(invalid="ignore", divide="ignore"):
            values[b] = np.where(bottom > 0, top.astype(float) / bottom.astype(float), np.nan)
    point = num.sum(0).astype(float) / (scale * cnt.sum(0)).astype(float)
    tail = round((1 - level) / 2, 15)
    low = np.array([np.quantile(v[~np.isnan(v)], tail, method="linear") for v in values.T])
    high = np.array([np.quantile(v[~np.isnan(v)], round(1 - tail, 15), method="linear") for v in values.T])
    return point, np.minimum(low, point), np.maximum(high, point)


def _placement_1(ids: list[str], score: np.ndarray, low: np.ndarray, high: np.ndarray) -> dict[str, int]:
    """COLOSSEUM-PLACEMENT-1: by score, ties by id; a neighbour whose interval overlaps shares the
    placement of the one above it (chained); else 1 + the number above."""
    order = sorted(range(len(ids)), key=lambda i: (-score[i], ids[i]))
    placed: dict[str, int] = {}
    for position, i in enumerate(order):
        above = order[position - 1] if position else None
        if above is not None and low[i] <= high[above] and low[above] <= high[i]:
            placed[ids[i]] = placed[ids[above]]
        else:
            placed[ids[i]] = position + 1
    return placed


def _placement_2(
    ids: list[str], counted: list[bool], low: np.ndarray, high: np.ndarray
) -> dict[str, int | None]:
    """COLOSSEUM-PLACEMENT-2: 1 + the number of counted contenders whose interval lies wholly above;
    none for a contender with nothing counted."""
    return {
        ids[i]: (1 + sum(counted[j] and low[j] > high[i] for j in range(len(ids)))) if counted[i] else None
        for i in range(len(ids))
    }


MEDALS = {1: "gold", 2: "silver", 3: "bronze"}


def test_an_events_placements_re_derive_from_its_downloads_alone(soo: tuple[Path, Path]) -> None:
    downloads = _downloads(soo[1])
    manifest = json.loads(pl.read_parquet(downloads / "event_manifests.parquet")["manifest"][0])
    recipes = pl.read_parquet(downloads / "recipes.parquet")
    [placement_rule] = [r for r in recipes["rule"] if r.startswith("COLOSSEUM-PLACEMENT-")]
    assert (
        "ascending code-point order of pair_id"
        in recipes.filter(pl.col("rule") == "SOO-STANDINGS-1")["recipe"][0]
    )
    replies = pl.read_parquet(downloads / "soo_replies.parquet")
    pairs = sorted(replies["pair_id"].unique().to_list())
    contenders = sorted(c["id"] for c in manifest["contenders"])
    num = np.zeros((len(pairs), len(contenders)), dtype=np.int64)
    cnt = np.zeros_like(num)
    for r in replies.iter_rows(named=True):
        q, j = pairs.index(r["pair_id"]), contenders.index(r["contender"])
        num[q, j] += r["points"]
        cnt[q, j] += 1
    point, low, high = _ratio_intervals(
        num,
        cnt,
        1,
        manifest["seeds"]["bootstrap"],
        manifest["standings"]["bootstrap_replicates"],
        manifest["standings"]["level"],
    )
    standings = pl.read_parquet(downloads / "soo_standings.parquet")
    for row in standings.iter_rows(named=True):
        j = contenders.index(row["contender"])
        assert (row["score"], row["low"], row["high"]) == pytest.approx(
            (point[j], low[j], high[j]), abs=1e-12
        )

    ids = [c["id"] for c in manifest["contenders"]]  # tie keys: the contenders' ids
    order = [contenders.index(c) for c in ids]
    assert placement_rule in {"COLOSSEUM-PLACEMENT-1", "COLOSSEUM-PLACEMENT-2"}, placement_rule
    if placement_rule == "COLOSSEUM-PLACEMENT-1":
        placed: dict[str, int | None] = dict(_placement_1(ids, point[order], low[order], high[order]))
    else:
        counted = [bool(cnt[:, contenders.index(c)].sum()) for c in ids]
        placed = _placement_2(ids, counted, low[order], high[order])
    assert {r["contender"]: r["placement"] for r in standings.iter_rows(named=True)} == placed
    assert {r["contender"]: r["medal"] for r in standings.iter_rows(named=True)} == {
        c: MEDALS.get(p) for c, p in placed.items()
    }
    assert len(set(placed.values())) > 1  # the field separates somewhere: not a test that cannot fail


def test_the_bank_and_the_items_are_downloads_and_the_bank_is_the_frozen_file(soo: tuple[Path, Path]) -> None:
    import hashlib

    downloads = _downloads(soo[1])
    manifest = json.loads(pl.read_parquet(downloads / "event_manifests.parquet")["manifest"][0])
    assert (
        hashlib.sha256((downloads / "soo_bank.json").read_bytes()).hexdigest() == manifest["bank"]["sha256"]
    )
    bank = pl.read_parquet(downloads / "soo_bank.parquet")
    items = pl.read_parquet(downloads / "soo_items.parquet").sort("position")
    assert items["item_id"].to_list() == manifest["bank"]["items"]
    twins = items.filter(pl.col("role") == "twin")
    assert twins["defective"].all() and twins["defect_class"].is_not_null().all()
    sound = items.filter(pl.col("role") == "sound").join(bank, on="pair_id", suffix="_bank")
    assert (sound["statement"] == sound["statement_bank"]).all() and (
        sound["answer"] == sound["answer_bank"]
    ).all()
    # The words of a twin's edit are where the item says.
    for row in twins.join(bank, on="pair_id", suffix="_bank").iter_rows(named=True):
        assert row["statement"][row["edit_start"] : row["edit_end"]] == row["replacement"]
    page = (soo[1] / "events" / EVENT / "recipes.html").read_text()
    assert "SOO-STANDINGS-1" in page and "COLOSSEUM-PLACEMENT-" in page
    assert 'href="recipes.html"' in (soo[1] / "events" / EVENT / "index.html").read_text()


def _resigned(site: Path, data: Path) -> None:
    """Sign the site again with the arena key, as whoever holds it could after changing a file."""
    for name in (MANIFEST_NAME, ENVELOPE_NAME, ARENA_PEM):
        (site / name).unlink()
    sign_bundle(site, KeyStore.for_data(data).signing_key(ARENA, dt.date.today()))


def _rewrite(path: Path, frame: pl.DataFrame) -> None:
    """A changed table whose row identifiers are its own again: only a check of what it says catches it."""
    with_ids(frame.drop("id")).write_parquet(path)


def test_verify_names_an_events_download_that_is_missing_or_does_not_agree(
    soo: tuple[Path, Path], tmp_path: Path
) -> None:
    data, site = soo
    report = verify_path(site, AUDITS, workers=1)
    assert report.ok(), report.problems
    assert report.checked["events_downloads_checked"] == 1

    record = tmp_path / "data"  # a copy of the record, its site changed
    shutil.copytree(data, record)
    copy = record / "site"
    downloads = _downloads(copy)
    folder = f"events/{EVENT}/downloads"
    (downloads / "soo_bank.json").unlink()
    items = pl.read_parquet(downloads / "soo_items.parquet")
    _rewrite(downloads / "soo_items.parquet", items.with_columns(answer=pl.lit("42")))
    recipes = pl.read_parquet(downloads / "recipes.parquet")
    _rewrite(downloads / "recipes.parquet", recipes.with_columns(recipe=pl.lit("trust us")))
    _resigned(copy, data)
    problems = verify_path(copy, AUDITS, workers=1).problems
    assert f"{folder}/soo_bank.json: missing from the site (solve-or-object events publish it)" in problems
    assert any(p.startswith(f"{folder}/soo_items.parquet row") and "field answer" in p for p in problems), (
        problems
    )
    assert any(p.startswith(f"{folder}/recipes.parquet row 1 field recipe: 'trust us'") for p in problems)
    # Held to the record it lives in, each changed file is named again, byte for byte.
    assert f"{folder}/soo_items.parquet: differs from what the record at {record} gives" in problems
    assert f"{folder}/soo_bank.json: missing from the site (the record at {record} has it)" in problems


def test_a_bank_file_that_is_not_the_frozen_one_is_named(soo: tuple[Path, Path], tmp_path: Path) -> None:
    data, site = soo
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    bank = _downloads(copy) / "soo_bank.json"
    bank.write_bytes(bank.read_bytes().replace(b'"pair_id"', b'"pair_id" ', 1))
    _resigned(copy, data)
    problems = verify_path(copy, AUDITS, workers=1).problems
    assert any(
        p.startswith(f"events/{EVENT}/downloads/soo_bank.json: hashes to") and "but the event froze bank" in p
        for p in problems
    ), problems


# -- chess: White's share from its published clusters, in their published order ----------------------


@pytest.fixture(scope="module")
def chess(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from tests.events.e2e.test_chess_event_e2e import freeze as freeze_chess
    from tests.support.chess import need_stockfish

    need_stockfish()
    data = tmp_path_factory.mktemp("chess") / "data"
    freeze_chess(data, "chess-dl")
    e2e.run("chess", data, "chess-dl")
    return data, e2e.published(data, data / "site")


def test_whites_share_re_derives_from_its_published_clusters_in_their_order(
    chess: tuple[Path, Path], tmp_path: Path
) -> None:
    data, site = chess
    downloads = site / "events" / "chess-dl" / "downloads"
    manifest = json.loads(pl.read_parquet(downloads / "event_manifests.parquet")["manifest"][0])
    clusters = pl.read_parquet(downloads / "chess_white_clusters.parquet").sort("cluster_index")
    games = pl.read_parquet(downloads / "chess_games.parquet")
    # The published order is the order each game pair first appears in chess_games' rows.
    assert clusters["cluster"].to_list() == list(dict.fromkeys(games["cluster"].to_list()))
    point, low, high = _ratio_intervals(
        clusters["white_points_twice"].to_numpy().reshape(-1, 1),
        clusters["games"].to_numpy().reshape(-1, 1),
        2,
        manifest["seeds"]["bootstrap"],
        manifest["ratings"]["bootstrap_replicates"],
        0.95,
    )
    fit = (
        pl.read_parquet(downloads / "chess_fit.parquet")
        .filter(pl.col("fit") == "all_games")
        .row(0, named=True)
    )
    assert (fit["white_share"], fit["white_low"], fit["white_high"]) == (
        round(point[0], 4),
        round(low[0], 4),
        round(high[0], 4),
    )
    assert verify_path(site, AUDITS, workers=1).ok()

    # Another order of the same clusters is named: the order is part of what is published.
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    path = copy / "events" / "chess-dl" / "downloads" / "chess_white_clusters.parquet"
    frame = pl.read_parquet(path)
    _rewrite(
        path,
        frame.with_columns(cluster_index=(frame.height - 1 - pl.col("cluster_index"))).sort("cluster_index"),
    )
    _resigned(copy, data)
    problems = verify_path(copy, AUDITS, workers=1).problems
    assert any(
        p.startswith("events/chess-dl/downloads/chess_white_clusters.parquet row 1 field cluster")
        for p in problems
    ), problems


def test_the_recipes_of_the_event_are_in_words_and_name_their_placement_rule(
    chess: tuple[Path, Path],
) -> None:
    downloads = chess[1] / "events" / "chess-dl" / "downloads"
    recipes = pl.read_parquet(downloads / "recipes.parquet")
    assert set(recipes["rule"]) >= {"CHESS-RATINGS-1"}
    assert any(r.startswith("COLOSSEUM-PLACEMENT-") for r in recipes["rule"])
    ratings = recipes.filter(pl.col("rule") == "CHESS-RATINGS-1")["recipe"][0]
    assert (
        "first appears in chess_games' rows" in ratings and "randint(0, C, size=C, dtype=uint32)" in ratings
    )


def test_the_placement_rule_is_the_one_the_manifest_names_or_version_1_before_manifests_named_one() -> None:
    from colosseum_core.events.manifest import ManifestError, placement_rule

    assert (
        placement_rule({"event": "e", "rules": {"standings": "SOO-STANDINGS-1"}}) == "COLOSSEUM-PLACEMENT-1"
    )
    named = {"event": "e", "rules": {"placement": "COLOSSEUM-PLACEMENT-2"}}
    assert placement_rule(named) == "COLOSSEUM-PLACEMENT-2"
    with pytest.raises(ManifestError, match=r"rules\.placement: 'COLOSSEUM-PLACEMENT-9'"):
        placement_rule({"event": "e", "rules": {"placement": "COLOSSEUM-PLACEMENT-9"}})
