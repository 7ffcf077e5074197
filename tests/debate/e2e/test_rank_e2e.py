"""The debate ratings' rank column, versioned as the events' placements are: an epoch sealed before
COLOSSEUM-PLACEMENT-2 keeps its rank by Elo (COMPELLE-RANK-1) and re-derives with it; an epoch closed
now ranks each rating key by its Bradley–Terry interval; each board says which rule ranked it; and an
epoch whose run stopped after its seal finishes under the rule the seal vouches for."""

from __future__ import annotations

import datetime as dt
import html
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

import colosseum_core.debate.crown.closing as closing
from colosseum_core.arenas import AUDITS, PUBLIC_SITE
from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.crown.closing import RULES, close_epoch, close_vouched, epoch_inputs
from colosseum_core.debate.rules import COMPELLE_RANK_1
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import publish_site, published_problems
from colosseum_core.statistics.placement import PLACEMENT_2
from colosseum_core.trust.keys import KeyStore
from colosseum_core.verify import verify_record
from tests.support.debate import OTHERS, Arena, debate_servers, enter_field

BUILT = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.UTC)
Season = tuple[Path, str, str, str, str]  # the record, the two epochs, the board's text after each


def _board_text(data: Path, out: Path) -> str:
    record = Record(data)
    published = publish_site(PUBLIC_SITE, record, KeyStore.for_data(data), out, built_at=BUILT)
    assert published_problems(PUBLIC_SITE, published.site, record) == []
    page = (published.site / "debate" / "index.html").read_text(encoding="utf-8")
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _placed_here(ratings: pl.DataFrame) -> list[int | None]:
    """1 + the keys whose interval (at 0.1 Elo) lies wholly above, written out here."""
    rows = ratings.to_dicts()
    low = {r["rating_key"]: round(r["bt_low"], 1) for r in rows if r["bt_rating"] is not None}
    high = {r["rating_key"]: round(r["bt_high"], 1) for r in rows if r["bt_rating"] is not None}
    return [
        None if r["rating_key"] not in high else 1 + sum(1 for k in low if low[k] > high[r["rating_key"]])
        for r in rows
    ]


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Season:
    root = tmp_path_factory.mktemp("rank")
    data = root / "data"
    with debate_servers() as (ledger_url, ledger, sparring, exchange):
        enter_field(ledger, OTHERS[1] + " Then close.")
        ledger.register("late")
        ledger.commit("late", "Concede nothing; ask the judge to weigh the evidence.")
        arena = Arena(data, ledger_url, ledger, sparring, exchange)
        with pytest.MonkeyPatch.context() as patch:
            # Closed by the code before COLOSSEUM-PLACEMENT-2, whose rank was the row number by Elo.
            patch.setattr(closing, "PLACEMENT", COMPELLE_RANK_1)
            first = arena.epoch()
        before = _board_text(data, root / "site-1")
        second = arena.epoch()
    after = _board_text(data, root / "site-2")
    return data, first, second, before, after


def test_an_epoch_sealed_before_keeps_its_rank_by_elo_and_says_so(
    season: tuple[Path, str, str, str, str],
) -> None:
    data, first, _, before, _ = season
    tables = Record(data).tables(DEBATE)
    assert tables.read("epoch_manifest", first)["rules"].to_list()[0] == [*RULES, "COMPELLE-FENCE-2"]
    ratings = tables.read("ratings", first)
    assert ratings.height >= 4
    assert ratings["rank"].to_list() == list(range(1, ratings.height + 1))
    assert ratings["rating"].to_list() == sorted(ratings["rating"], reverse=True)
    assert f"# is the order by Elo ({COMPELLE_RANK_1}, the rank this epoch was sealed under" in before


def test_an_epoch_closed_now_ranks_by_the_bradley_terry_interval(
    season: tuple[Path, str, str, str, str],
) -> None:
    data, _, second, _, after = season
    tables = Record(data).tables(DEBATE)
    assert tables.read("epoch_manifest", second)["rules"].to_list()[0] == [
        *RULES,
        "COMPELLE-FENCE-2",
        PLACEMENT_2,
    ]
    ratings = tables.read("ratings", second)
    assert ratings["rank"].to_list() == _placed_here(ratings)
    ranks = [r if r is not None else 10**9 for r in ratings["rank"]]
    assert ranks == sorted(ranks)  # rows by rank, then Elo
    # A key whose interval lies wholly below another's never shares its rank.
    rows = ratings.filter(pl.col("bt_rating").is_not_null()).to_dicts()
    for a in rows:
        for b in rows:
            if round(b["bt_high"], 1) < round(a["bt_low"], 1):
                assert b["rank"] > a["rank"]
    assert f"Place ({PLACEMENT_2}) is 1 + the number of miners whose Bradley–Terry interval" in after


def test_both_rules_re_derive_and_a_close_cut_short_after_its_seal_finishes_under_its_own(
    season: Season, tmp_path: Path
) -> None:
    data, first, _, _, _ = season
    report = verify_record(data, AUDITS, workers=1)
    assert report.ok(), report.problems[:5]
    assert report.checked["closes"] == 2
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    record = Record(copy)
    tables = record.tables(DEBATE)
    stored = {t: tables.read("ratings", first) for t in ("ratings",)}
    manifest = tables.read("epoch_manifest", first)
    # The run that sealed the first epoch stopped before writing its manifest.
    tables.path("epoch_manifest", first).unlink()
    inputs = epoch_inputs(record, first)
    assert inputs.rank_rule is None
    seal = record.seals(DEBATE).get(first)
    assert seal is not None
    assert close_epoch(inputs).tables["epoch_manifest"]["rules"].to_list()[0][-1] == PLACEMENT_2
    close = close_vouched(inputs, seal)
    assert close.manifest_id == seal.content_id
    assert close.tables["ratings"].equals(stored["ratings"])
    assert close.tables["epoch_manifest"].equals(manifest)
