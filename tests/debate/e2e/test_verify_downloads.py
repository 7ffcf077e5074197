"""``colosseum verify`` on a built site holds the debate board's downloads to each other and to the
record: a download that is missing or disagrees is named, even under a fresh signature.

A season of three epochs is played through the real Definitions and published into the record's own
``site/``; each test changes a copy (the change re-signed with the arena key, as whoever holds it
could) and reads what verify says.
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.arenas import AUDITS, PUBLIC_SITE
from colosseum_core.debate.crown.closing import bt_seed
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import publish_site
from colosseum_core.trust.bundle import ARENA_PEM, ENVELOPE_NAME, MANIFEST_NAME, sign_bundle
from colosseum_core.trust.keys import ARENA, KeyStore
from colosseum_core.verify import verify_path
from tests.debate.e2e.test_board import _playing

BUILT = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.UTC)
D = "debate/downloads"


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    data = tmp_path_factory.mktemp("season") / "data"
    with _playing(data) as arena:
        epochs = [arena.epoch() for _ in range(3)]
    publish_site(PUBLIC_SITE, Record(data), KeyStore.for_data(data), data / "site", built_at=BUILT)
    yield data, epochs


@pytest.fixture
def copy(season: tuple[Path, list[str]], tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(season[0] / "site", site)
    return site


def _resign(site: Path, data: Path) -> None:
    for name in (MANIFEST_NAME, ENVELOPE_NAME, ARENA_PEM):
        (site / name).unlink()
    sign_bundle(site, KeyStore.for_data(data).signing_key(ARENA, BUILT.date()))


def _rewrite(path: Path, **change: pl.Expr) -> None:
    """The download with ``change`` applied and its row identifiers made its own again."""
    with_ids(pl.read_parquet(path).with_columns(**change).drop("id")).write_parquet(path)


def test_the_published_site_verifies_with_every_download_and_every_fit(
    season: tuple[Path, list[str]],
) -> None:
    data, epochs = season
    report = verify_path(data / "site", AUDITS, workers=1)
    assert report.ok(), report.problems
    assert report.checked["debate_fits"] == len(epochs)
    site = data / "site" / "debate" / "downloads"
    for epoch in epochs:
        for table in ("panel_calls", "weight_sets", "bt_fit"):
            assert (site / table / f"epoch={epoch}.parquet").is_file()
    [rotation] = sorted((site / "motions").glob("*.parquet"))
    assert (site / "topic_candidates" / rotation.name).is_file()
    # The downloads page states the recipes in words and what was set on the chain.
    page = (data / "site" / "debate" / "downloads.html").read_text()
    assert "How every number re-derives" in page and "COMPELLE-BT-1" in page and "big-endian" in page
    sets = pl.read_parquet(site / "weight_sets" / f"epoch={epochs[-1]}.parquet")
    assert "What was set on the chain" in page and sets["receipt_ids"][0][0] in page


def test_a_missing_download_is_named(season: tuple[Path, list[str]], copy: Path) -> None:
    data, epochs = season
    downloads = copy / D
    (downloads / "bt_fit" / f"epoch={epochs[1]}.parquet").unlink()
    (downloads / "panel_calls" / f"epoch={epochs[0]}.parquet").unlink()
    [motions] = list((downloads / "motions").glob("*.parquet"))
    motions.unlink()
    _resign(copy, data)
    problems = verify_path(copy, AUDITS, workers=1).problems
    assert (
        f"{D}/bt_fit/epoch={epochs[1]}.parquet: missing from the site (epoch {epochs[1]} has it)" in problems
    )
    assert (
        f"{D}/panel_calls/epoch={epochs[0]}.parquet: missing from the site (epoch {epochs[0]} has it)"
        in problems
    )
    assert any(p.startswith(f"{D}/motions/{motions.name}: missing from the site") for p in problems), problems


def test_downloads_that_disagree_are_named(season: tuple[Path, list[str]], copy: Path) -> None:
    data, epochs = season
    downloads = copy / D
    last = epochs[-1]
    # A vote turned: the entry's published counts no longer follow from the votes.
    _rewrite(
        downloads / "panel_calls" / f"epoch={last}.parquet",
        vote=pl.when(pl.int_range(pl.len()) == 0).then(pl.lit("BAD")).otherwise("vote"),
    )
    # Another seed than its published derivation gives; an interval moved; another weight set.
    _rewrite(downloads / "bt_fit" / f"epoch={epochs[0]}.parquet", seed=pl.lit(12345, dtype=pl.Int64))
    _rewrite(
        downloads / "ratings" / f"epoch={last}.parquet",
        bt_low=pl.when(pl.int_range(pl.len()) == 0).then(pl.col("bt_low") - 5).otherwise("bt_low"),
    )
    _rewrite(
        downloads / "weight_sets" / f"epoch={epochs[1]}.parquet",
        weights=pl.col("weights").list.eval(pl.element() / 2),
    )
    _rewrite(downloads / "recipes.parquet", recipe=pl.lit("trust us"))
    _rewrite(
        downloads / "ratings" / f"epoch={epochs[0]}.parquet",
        rating=pl.when(pl.int_range(pl.len()) == 1).then(pl.col("rating") + 0.5).otherwise("rating"),
    )
    _resign(copy, data)
    problems = verify_path(copy, AUDITS, workers=1).problems
    assert any(
        p.startswith(f"{D}/entries/epoch={last}.parquet hotkey ")
        and f"but the votes in {D}/panel_calls/epoch={last}.parquet give" in p
        for p in problems
    ), problems
    assert any(
        p.startswith(f"{D}/bt_fit/epoch={epochs[0]}.parquet row 1 field seed: 12345") for p in problems
    ), problems
    assert (
        f"{D}/bt_fit/epoch={epochs[0]}.parquet field seed: 12345, but its published derivation gives "
        f"{bt_seed(epochs[0])}" in problems
    )
    assert any(
        p.startswith(f"{D}/ratings/epoch={last}.parquet rating_key ")
        and "field bt_low" in p
        and f"the fit {D}/bt_fit/epoch={last}.parquet states gives" in p
        for p in problems
    ), problems
    assert any(p.startswith(f"{D}/weight_sets/epoch={epochs[1]}.parquet field weights") for p in problems)
    assert any(p.startswith(f"{D}/recipes.parquet row 1 field recipe: 'trust us'") for p in problems)
    assert any(
        p.startswith(f"{D}/ratings/epoch={epochs[0]}.parquet rating_key ")
        and "field rating" in p
        and "the games downloads replayed give" in p
        for p in problems
    ), problems


def test_a_download_that_is_not_the_records_file_is_named_in_the_record(
    season: tuple[Path, list[str]], copy: Path, tmp_path: Path
) -> None:
    """The same rows in other bytes agree with every other download, but not with the record the
    site lives in."""
    data, epochs = season
    games = copy / D / "games" / f"epoch={epochs[0]}.parquet"
    pl.read_parquet(games).write_parquet(games, compression="gzip")
    _resign(copy, data)
    assert verify_path(copy, AUDITS, workers=1).ok()  # on its own, nothing to hold it to but itself
    record = tmp_path / "data"
    shutil.copytree(data, record)
    shutil.rmtree(record / "site")
    shutil.copytree(copy, record / "site")
    problems = verify_path(record / "site", AUDITS, workers=1).problems
    assert problems == [f"{D}/games/epoch={epochs[0]}.parquet: differs from the record's (its file, games)"]


def test_a_rule_version_without_a_recipe_stops_the_board() -> None:
    from colosseum_core.debate.site.downloads import RecipeMissing, recipes_for

    recipes = recipes_for({"COMPELLE-ELO-1", "COMPELLE-BT-1"})
    assert {"COMPELLE-ELO-1", "COMPELLE-BT-1", "COMPELLE-JUDGING-1"} <= set(recipes["rule"])
    with pytest.raises(RecipeMissing, match="no recipe for rule COMPELLE-ELO-2, which a sealed table names"):
        recipes_for({"COMPELLE-ELO-1", "COMPELLE-ELO-2"})
