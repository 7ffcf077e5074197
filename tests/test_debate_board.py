"""The debate board: built from sealed epochs played through the real Definitions, signed by the
shared engine, read back against the record; a changed page or record is named."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.arenas import SITES
from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.prompts import PROMPTS
from colosseum_core.debate.site.stats import judge_statistics
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import UnverifiedRecordError, publish_site, published_problems
from colosseum_core.standins.ledger import running_ledger
from colosseum_core.standins.simulated_exchange.server import running_exchange
from colosseum_core.standins.sparring.server import running_sparring
from colosseum_core.trust.keys import KeyStore
from tests.test_debate_close_e2e import START, Arena, _field

BUILT = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    data = tmp_path_factory.mktemp("board") / "data"
    with (
        running_ledger(now=lambda: START) as (ledger_url, ledger),
        running_sparring(clock=lambda: START) as sparring,
        running_exchange(clock=lambda: START) as exchange,
    ):
        _field(ledger, "Be thorough: build a comprehensive case.")
        arena = Arena(data, ledger_url, ledger, sparring, exchange)
        epochs = [arena.epoch() for _ in range(3)]
    yield data, epochs


def _publish(data: Path, out: Path):
    plugin = SITES["debate"]
    tables = Record(data).tables(DEBATE)
    return plugin, tables, publish_site(plugin, tables, KeyStore.for_data(data), out, built_at=BUILT)


def test_the_board_shows_every_sealed_epoch_and_game_and_reads_back_clean(season, tmp_path: Path) -> None:
    data, epochs = season
    plugin, tables, published = _publish(data, tmp_path / "site")
    site = published.site
    assert published_problems(plugin, site, tables) == []
    assert published.report.summary["epochs"] == 3
    games = pl.concat([tables.read("games", e) for e in epochs])
    assert published.report.summary["games"] == games.height
    for epoch in epochs:
        assert (site / "epochs" / f"{epoch}.html").is_file()
    for game_id in games["game_id"]:
        page = (site / "games" / f"{game_id}.html").read_text()
        assert "Transcript (raw)" in page and "judge_calls" in page
    index = (site / "index.html").read_text()
    last = tables.read("ratings", epochs[-1])
    assert "Standings after epoch" in index and all(h in index for h in last["hotkey"])
    prompts = (site / "prompts.html").read_text()
    assert all(p.version in prompts and p.sha256 in prompts for p in PROMPTS)
    shares = judge_statistics(games).shares()
    judges = (site / "judges.html").read_text()
    assert all(value.replace("%", "%") in judges for value in shares.values())
    # Every sealed table is downloadable, byte for byte the record's.
    for epoch in epochs:
        for table in ("games", "ratings", "crown", "weights"):
            assert (site / "downloads" / table / f"epoch={epoch}.parquet").read_bytes() == tables.read_bytes(
                table, epoch
            )


def test_a_changed_page_value_is_named(season, tmp_path: Path) -> None:
    data, epochs = season
    plugin, tables, published = _publish(data, tmp_path / "site")
    page = published.site / "index.html"
    rating = tables.read("ratings", epochs[-1]).row(0, named=True)
    shown = f"{rating['rating']:.1f}"
    text = page.read_text()
    assert shown in text
    page.write_text(text.replace(f">{shown}<", ">9999.9<", 1))
    problems = published_problems(plugin, published.site, tables)
    assert any(
        p.startswith("index.html: ratings row") and "field rating: shows '9999.9'" in p for p in problems
    ), problems
    assert any("index.html: differs from the board the record gives" in p for p in problems)
    assert "index.html: SHA-256 does not match the signed manifest" in problems


def test_a_record_that_does_not_verify_is_not_published(season, tmp_path: Path) -> None:
    data, epochs = season
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    tables = Record(copy).tables(DEBATE)
    weights = tables.read("weights", epochs[-1])
    tables.write("weights", with_ids(weights.with_columns(weight=pl.lit(0.5)).drop("id")), epochs[-1])
    with pytest.raises(UnverifiedRecordError, match=f"weights epoch {epochs[-1]}: does not re-derive"):
        _publish(copy, tmp_path / "site")
    assert not (tmp_path / "site").exists()
