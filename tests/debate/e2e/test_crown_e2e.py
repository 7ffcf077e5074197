"""The crown through the real Definitions: 25 epochs of house miners, a streak, a title fight, a
change of crown, the weights on the chain, and ``verify`` re-deriving all of it (slow).

The field is eight plain house strategies of about equal strength; at the second epoch a strong one
(COMPELLE-HOUSE-JUDGE-1 scores distinct words, and a thorough strategy argues in every voice)
registers, and so does a twin that commits the sitting king's text word for word. Every epoch is
one ``debate_epoch_job`` run (entries, eight Swiss rounds, the title fight when due, the seal, the
weights set on the local ledger) at the block the ledger has reached; rotations are drawn as the
clock reaches them, after eight earlier ones give the title fight its motions.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
import httpx
import polars as pl
import pytest

from colosseum_core.arenas import AUDITS, PUBLIC_SITE, sparring_houses
from colosseum_core.debate.arena import DEBATE, DEBATE_TOPICS
from colosseum_core.debate.crown.fight import MIN_DECIDED, TAKES, fight_motions
from colosseum_core.debate.crown.reign import CHANGED, CROWNED, HELD
from colosseum_core.debate.crown.streak import HOLD, LEAD
from colosseum_core.debate.crown.weights import TAIL_SHARE
from colosseum_core.debate.epochs import epoch_key, epoch_of
from colosseum_core.debate.site.pictures import CROWN_CHART, STREAK_CHART
from colosseum_core.debate.topics.rotation import rotation_key
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import publish_site, published_problems
from colosseum_core.statistics.significance import title_fight
from colosseum_core.trust.keys import KeyStore
from colosseum_core.verify import verify_record
from colosseum_dagster.definitions import defs
from colosseum_standins.ledger import DEFAULT_GENESIS, running_ledger
from colosseum_standins.simulated_exchange.server import running_exchange
from colosseum_standins.sparring.server import running_sparring
from tests.debate.e2e.test_pictures import _figure, _title_desc
from tests.support import REPO
from tests.support.debate import debate_resources, enter

pytestmark = pytest.mark.slow

ARTIFACTS = Path(os.environ.get("COLOSSEUM_TEST_ARTIFACTS", REPO / "test-artifacts"))
EPOCHS = 25
ROUNDS = 8
FIELD = (
    "Answer the strongest claim first, then build your own case in plain words.",
    "Take the opponent's best example and show what it actually proves.",
    "Stay calm and concrete; one clear reason per turn.",
    "Argue from first principles and keep every sentence plain.",
    "Find the weakest premise in the other case and press on it.",
    "Speak plainly and answer what was said, not what you wish was said.",
    "Build the case from everyday examples a listener would recognise.",
    "Concentrate on consequences; say who gains and who pays.",
)
STRONG = "Be thorough: answer the strongest claim, then build a comprehensive case on every ground."


@dataclasses.dataclass(frozen=True)
class Season:
    data: Path
    epochs: list[str]
    crowns: pl.DataFrame  # every epoch's crown row
    streaks: pl.DataFrame
    fights: pl.DataFrame
    weights: pl.DataFrame
    chain_weights: list[dict[str, Any]]
    twin_of: str  # the king's hotkey whose text the twin copied
    rerun: dg.ExecuteInProcessResult
    rerun_bytes: tuple[dict[str, bytes], dict[str, bytes]]
    requests: tuple[int, int]  # the sparring server's count before and after the re-run


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Season]:
    data = tmp_path_factory.mktemp("season") / "data"
    start = DEFAULT_GENESIS + dt.timedelta(days=3, seconds=7)
    clock = [start]
    with (
        running_ledger(now=lambda: clock[0]) as (ledger_url, ledger),
        running_sparring(houses=sparring_houses(), clock=lambda: clock[0]) as sparring_url,
        running_exchange(clock=lambda: clock[0]) as exchange_url,
    ):
        enter(ledger, FIELD)
        instance = dg.DagsterInstance.ephemeral()

        def config(now: dt.datetime, **ops: Any) -> dict[str, Any]:
            resources = debate_resources(data, ledger_url, sparring_url, exchange_url, now)
            return {"resources": resources, "ops": ops}

        def run(job: str, key: str, now: dt.datetime, **ops: Any) -> dg.ExecuteInProcessResult:
            result = defs.resolve_job_def(job).execute_in_process(
                partition_key=key, run_config=config(now, **ops), instance=instance, raise_on_error=False
            )
            failures = [
                e.event_specific_data.error.to_string() for e in result.all_events if e.is_step_failure
            ]
            assert result.success, failures
            return result

        topics = Record(data).seals(DEBATE_TOPICS)
        for back in range(8, 0, -1):
            when = start - dt.timedelta(hours=6 * back)
            run("debate_topics_job", rotation_key(when), when)
        tables = Record(data).tables(DEBATE)
        epochs: list[str] = []
        twin_of = ""
        games_config = {"debate__epoch_games": {"config": {"rounds": ROUNDS}}}
        for number in range(EPOCHS):
            now = ledger.now()
            if topics.get(rotation_key(now)) is None:
                run("debate_topics_job", rotation_key(now), now)
            key = epoch_key(epoch_of(ledger.current_block()))
            if number == 1:
                ledger.register("strong")
                ledger.commit("strong", STRONG)
                twin_of = tables.read("crown", epochs[-1])["king_hotkey"][0]
                entries = tables.read("entries", epochs[-1])
                ledger.register("twin")
                ledger.commit("twin", entries.filter(pl.col("hotkey") == twin_of)["strategy"][0])
            instance.add_dynamic_partitions("debate_epochs", [key])
            run("debate_epoch_job", key, now, **games_config)
            epochs.append(key)
            ledger.advance(360)

        # A sealed epoch run again: the same bytes, nothing asked of any model.
        sealed = epochs[-2]
        names = [t for t in tables.tables() if tables.exists(t, sealed)]
        before = {t: tables.path(t, sealed).read_bytes() for t in names}
        asked = httpx.get(f"{sparring_url}/status", timeout=10).json()["requests"]
        rerun = run("debate_epoch_job", sealed, ledger.now(), **games_config)
        after = {t: tables.path(t, sealed).read_bytes() for t in names}
        asked_after = httpx.get(f"{sparring_url}/status", timeout=10).json()["requests"]
        chain_weights = httpx.get(f"{ledger_url}/chain/weights", timeout=10).json()

        def every(table: str) -> pl.DataFrame:
            return pl.concat([tables.read(table, e) for e in epochs], how="diagonal_relaxed")

        yield Season(
            data, epochs, every("crown"), every("streaks"), every("title_fights"), every("weights"),
            chain_weights, twin_of, rerun, (before, after), (asked, asked_after),
        )  # fmt: skip


def test_the_first_epoch_crowns_its_top_rated_miner(season: Season) -> None:
    first = season.crowns.row(0, named=True)
    assert first["event"] == CROWNED and first["crowned_epoch"] == season.epochs[0]
    ratings = Record(season.data).tables(DEBATE).read("ratings", season.epochs[0])
    assert first["king"] == ratings.filter(pl.col("entered"))["rating_key"][0]


def test_a_strong_strategy_builds_a_streak_earns_a_title_fight_and_takes_the_crown(season: Season) -> None:
    strong = season.streaks.filter(pl.col("hotkey") == "strong").sort("epoch")
    # Consecutive epochs, each 200 or more above the king, counting up; at the twentieth it fights,
    # and the crown's streaks after that epoch start again against the new king.
    run = strong.tail(HOLD - 1)
    assert run["streak"].to_list() == list(range(1, HOLD))
    assert (run["lead"] >= LEAD).all()
    assert season.fights.height == 1
    fight = season.fights.row(0, named=True)
    following = season.epochs[season.epochs.index(run["epoch"][-1]) + 1]
    assert fight["epoch"] == following and fight["challenger"].startswith("strong@")
    due = season.crowns.filter(pl.col("epoch") == following).row(0, named=True)
    assert due["challenger"] == fight["challenger"]
    assert fight["outcome"] == TAKES and fight["decided"] >= MIN_DECIDED
    # The decision is the exact binomial bar over the decided games.
    test = title_fight(fight["challenger_wins"], fight["king_wins"])
    assert (fight["bar"], fight["tail"], fight["p_value"]) == (test.bar, str(test.tail), test.p_value)
    assert fight["challenger_wins"] >= test.bar and fight["p_value"] <= 0.01
    changed = season.crowns.filter(pl.col("epoch") == fight["epoch"]).row(0, named=True)
    assert changed["event"] == CHANGED and changed["king"] == fight["challenger"]
    assert changed["deposed"] == fight["king"] and "challenger takes the crown" in changed["reason"]
    assert set(season.crowns.filter(pl.col("epoch") < fight["epoch"])["event"][1:]) == {HELD}


def test_the_fight_argues_both_sides_of_the_most_recent_unique_motions_and_is_not_rated(
    season: Season,
) -> None:
    epoch = season.fights["epoch"][0]
    record = Record(season.data)
    games = record.tables(DEBATE).read("fight_games", epoch)
    argued = record.tables(DEBATE).read("games", epoch)["rotation"].max()
    motions = fight_motions(record.tables(DEBATE_TOPICS).scan("motions").collect(), argued)
    assert games.height == 2 * motions.height and motions.height > MIN_DECIDED // 2
    assert games.group_by("motion_id").len()["len"].to_list() == [2] * motions.height
    assert set(games["pairing"]) == {"COMPELLE-TITLE-FIGHT-1"}
    changes = pl.concat([record.tables(DEBATE).read("rating_changes", e) for e in season.epochs])
    assert not set(changes["game_id"]) & set(games["game_id"])


def test_the_copied_kings_twin_is_rated_apart_and_never_holds_a_streak(season: Season) -> None:
    twin = season.streaks.filter(pl.col("hotkey") == "twin")
    assert twin.height == 0 or twin["streak"].max() < HOLD  # type: ignore[operator]
    record = Record(season.data).tables(DEBATE)
    last = record.read("ratings", season.epochs[-1])
    keys = dict(last.select("hotkey", "rating_key").iter_rows())
    assert keys["twin"].split(":")[1] == keys[season.twin_of].split(":")[1]  # the same strategy hash
    assert keys["twin"] != keys[season.twin_of]


def test_the_weights_follow_the_crown_with_the_deposed_kings_tail_and_reach_the_chain(season: Season) -> None:
    change = season.fights["epoch"][0]
    by_epoch = season.weights.group_by("epoch", maintain_order=True).agg("role", "weight")
    for epoch, roles, weights in by_epoch.iter_rows():
        assert abs(sum(weights) - 1.0) < 1e-12
        if epoch < change:
            assert roles == ["king"] and weights == [1.0]
        else:  # the change of crown and the epochs after it, inside the five-epoch tail
            assert sorted(zip(roles, weights, strict=True)) == [
                ("deposed", TAIL_SHARE),
                ("king", 1 - TAIL_SHARE),
            ]
    # Every epoch's vector was set on the chain, by the house validator, in order.
    sets = pl.concat([Record(season.data).tables(DEBATE).read("weight_sets", e) for e in season.epochs])
    assert len(season.chain_weights) == len(season.epochs)
    for posted, row in zip(season.chain_weights, sets.iter_rows(named=True), strict=True):
        assert posted["validator"] == row["validator"] == "house-validator"
        assert {int(k): v for k, v in posted["weights"].items()} == dict(
            zip(row["uids"], row["weights"], strict=True)
        )


def test_a_sealed_epoch_run_again_reproduces_its_bytes_and_asks_nothing(season: Season) -> None:
    before, after = season.rerun_bytes
    assert before == after and len(before) >= 15
    assert season.requests[0] == season.requests[1]


def test_verify_rederives_the_season(season: Season) -> None:
    report = verify_record(season.data, AUDITS, workers=2)
    assert report.ok(), report.problems[:10]
    assert report.checked["closes"] == EPOCHS


def _tampered(season: Season, tmp_path: Path, table: str, epoch: str, change: Any) -> list[str]:
    copy = tmp_path / "data"
    shutil.copytree(season.data, copy)
    tables = Record(copy).tables(DEBATE)
    frame = tables.read(table, epoch)
    # Through the record's own writer, ids recomputed: only the re-derivation can see it.
    tables.write(table, with_ids(change(frame).drop("id")), epoch)
    return verify_record(copy, AUDITS, workers=2).problems


def test_verify_names_a_changed_judge_reply(season: Season, tmp_path: Path) -> None:
    epoch = season.fights["epoch"][0]

    def forge(calls: pl.DataFrame) -> pl.DataFrame:
        first = calls.filter(pl.col("status") == "answered")["id"][0]
        return calls.with_columns(
            reply=pl.when(pl.col("id") == first).then(pl.lit("CON\nForged.")).otherwise(pl.col("reply"))
        )

    problems = _tampered(season, tmp_path, "fight_judge_calls", epoch, forge)
    assert any(
        p.startswith(f"fight_judge_calls epoch {epoch} game") and "field reply" in p for p in problems
    ), problems


def test_verify_names_a_changed_game_result(season: Season, tmp_path: Path) -> None:
    epoch = season.epochs[3]

    def forge(games: pl.DataFrame) -> pl.DataFrame:
        target = games.filter(pl.col("status") == "decided")["game_id"][0]
        flip = pl.when(pl.col("winner") == "Pro").then(pl.lit("Con")).otherwise(pl.lit("Pro"))
        return games.with_columns(
            winner=pl.when(pl.col("game_id") == target).then(flip).otherwise(pl.col("winner"))
        )

    problems = _tampered(season, tmp_path, "games", epoch, forge)
    assert any(p.startswith(f"games epoch {epoch} game") and "recorded ('decided'" in p for p in problems)
    # The forged result moves the epoch's ratings too: its close no longer re-derives.
    assert any(p.startswith(f"ratings epoch {epoch}: does not re-derive") for p in problems), problems


def test_verify_names_a_changed_weight(season: Season, tmp_path: Path) -> None:
    epoch = season.epochs[-1]

    def forge(weights: pl.DataFrame) -> pl.DataFrame:
        return weights.with_columns(
            weight=pl.when(pl.col("role") == "king").then(1.0).otherwise(pl.col("weight"))
        )

    problems = _tampered(season, tmp_path, "weights", epoch, forge)
    assert any(
        p.startswith(f"weights epoch {epoch}: does not re-derive") and "field weight" in p for p in problems
    )
    # What was set on the chain is what the epoch re-derives: the forged table alone is named.
    assert not any(p.startswith(f"weight_sets epoch {epoch}") for p in problems), problems


def test_the_board_after_the_season_shows_the_crown_and_reads_back_clean(
    season: Season, tmp_path: Path
) -> None:
    record = Record(season.data)
    published = publish_site(
        PUBLIC_SITE,
        record,
        KeyStore.for_data(season.data),
        tmp_path / "site",
        built_at=dt.datetime(2026, 1, 6, tzinfo=dt.UTC),
    )
    assert published_problems(PUBLIC_SITE, published.site, record) == []
    assert published.report.parts["debate"].summary["epochs"] == EPOCHS
    site = published.site / "debate"
    fight = season.fights.row(0, named=True)
    crown = (site / "crown.html").read_text()
    assert "challenger takes the crown" in crown and fight["epoch"] in crown
    # The crown's pictures: the fight marked where the challenger took the crown, a new reign from
    # there, and the streak of 20 that called it, which the epoch's streaks table never shows.
    _, desc = _title_desc(_figure(crown, CROWN_CHART)[1])
    assert f"title fight: crowned at {fight['epoch']}." in desc
    new_king = season.crowns.filter(pl.col("epoch") == fight["epoch"])["king_hotkey"][0]
    assert f"; {new_king} from {fight['epoch']} to " in desc
    _, desc = _title_desc(_figure(crown, STREAK_CHART)[1])
    assert f"Streak that called a fight: {fight['epoch']} {HOLD:.1f}" in desc
    index = (site / "index.html").read_text()
    assert "King: " in index and "strong" in index
    for page, name in (
        ("index.html", "standings"),
        ("crown.html", "crown"),
        (f"epochs/{fight['epoch']}.html", "epoch"),
    ):
        screenshot(site / page, f"debate-after-25-epochs-{name}.png")


def screenshot(page: Path, name: str) -> None:
    """A picture of ``page`` in the test artifacts, when a browser is installed (the pages' values are
    checked without one)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / name
    subprocess.run(
        [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1800",
         f"--screenshot={shot}", page.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    assert shot.stat().st_size > 10_000
