"""Title fights the king survives, through the real Definitions (slow): two challengers build their
streaks in one season; the first meets a panel revision whose judges split on every game and hold to
it in deliberation, so every game is a draw (fewer than 80 decided: inconclusive, the king holds);
the second a revision whose judges read every debate backwards (the challenger loses); each
challenger's streak is zeroed and starts again.

The field is eight plain house strategies; at the second epoch two strong ones register (thorough
strategies argue a paragraph more, and COMPELLE-HOUSE-JUDGE-1 scores distinct words). Panels are
model documents, one per epoch, as a deployment revises its own (the revision's SHA-256 is in the
epoch's manifest); a fight's epoch plays one Swiss round, so the panel's taste barely moves the
ratings before the fight.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import polars as pl
import pytest

import colosseum_core.debate
from colosseum_core.arenas import AUDITS, PUBLIC_SITE
from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.crown.fight import HOLDS, INCONCLUSIVE, MIN_DECIDED
from colosseum_core.debate.crown.reign import HELD
from colosseum_core.debate.crown.streak import HOLD, LEAD
from colosseum_core.debate.site.pictures import CROWN_CHART, STREAK_CHART
from colosseum_core.debate.topics.rotation import rotation_key
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import publish_site, published_problems
from colosseum_core.trust.keys import KeyStore
from colosseum_core.verify import verify_record
from tests.debate.e2e.test_crown_e2e import FIELD, ROUNDS, screenshot
from tests.debate.e2e.test_pictures import _figure, _title_desc
from tests.support.debate import START, Arena, debate_servers, enter

pytestmark = pytest.mark.slow

CHALLENGERS = {
    "steady": "Be thorough: answer the strongest claim, then build a comprehensive case on every ground.",
    "patient": "Be exhaustive and calm: take every example in turn and show what it proves.",
}
# Past this, the season has failed to give both fights (a streak needs HOLD epochs to build).
MAX_EPOCHS = 40
EPOCHS_AFTER = 2  # normal epochs after the second fight: the streaks start again


def _judges(tmp: Path, name: str, *models: str) -> Path:
    """The house models with the two judges replaced by ``models``."""
    document = json.loads(resources.files(colosseum_core.debate).joinpath("house_models.json").read_text())
    document["judges"] = [
        {"slot": f"judge-{s}", "chain": [{"protocol": "openai", "model": model, "base_url": "sparring"}]}
        for s, model in zip("ab", models, strict=True)
    ]
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(document))
    return path


@dataclasses.dataclass(frozen=True)
class Season:
    data: Path
    epochs: list[str]
    crowns: pl.DataFrame
    streaks: pl.DataFrame
    fights: pl.DataFrame
    manifests: pl.DataFrame


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Season]:
    tmp = tmp_path_factory.mktemp("fights")
    data = tmp / "data"
    # The revisions a fight's epoch is judged by, in the order the fights come.
    # Two stubborn judges of opposite tastes split on every game and neither moves in deliberation: a
    # draw, every time. Two contrarians agree on every game, for the side the heuristic scores lower.
    panels = [
        _judges(tmp, "all-draws", "house-judge-stubborn", "house-judge-contrarian-stubborn"),
        _judges(tmp, "backwards", "house-judge-contrarian", "house-judge-contrarian"),
    ]
    with debate_servers() as (ledger_url, ledger, sparring, exchange):
        enter(ledger, FIELD)
        arena = Arena(data, ledger_url, ledger, sparring, exchange)
        for back in range(8, 0, -1):  # eight earlier rotations give a fight its motions
            when = ledger.now() - dt.timedelta(hours=6 * back)
            arena.run("debate_topics_job", rotation_key(when), now=when)
        epochs: list[str] = []
        fights_left, after = list(panels), EPOCHS_AFTER
        while len(epochs) < MAX_EPOCHS and after > 0:
            if len(epochs) == 1:
                for hotkey, text in CHALLENGERS.items():
                    ledger.register(hotkey)
                    ledger.commit(hotkey, text)
            due = bool(epochs) and fights_left and _streak_due(arena, epochs[-1])
            models = fights_left.pop(0) if due else None
            rounds = 1 if due else ROUNDS
            epochs.append(arena.epoch(models, debate__epoch_games={"config": {"rounds": rounds}}))
            if not fights_left and not due:
                after -= 1
        tables = arena.tables

        def every(table: str) -> pl.DataFrame:
            return pl.concat([tables.read(table, e) for e in epochs], how="diagonal_relaxed")

        yield Season(
            data, epochs, every("crown"), every("streaks"), every("title_fights"), every("epoch_manifest")
        )


def _streak_due(arena: Arena, last: str) -> bool:
    """Whether a challenger goes into the next epoch one epoch short of its title fight or past it."""
    streaks = arena.tables.read("streaks", last)
    return streaks.height > 0 and streaks["streak"].max() >= HOLD - 1  # type: ignore[operator]


def test_both_challengers_earn_their_fights_and_the_king_holds_both(season: Season) -> None:
    assert season.fights.height == 2, season.fights
    first, second = season.fights.sort("epoch").iter_rows(named=True)
    king = season.crowns["king"][0]
    assert {first["king"], second["king"]} == {king} and set(season.crowns["king"]) == {king}
    assert {first["challenger"].split("@")[0], second["challenger"].split("@")[0]} == set(CHALLENGERS)
    for fight in (first, second):
        held = season.crowns.filter(pl.col("epoch") == fight["epoch"]).row(0, named=True)
        assert held["event"] == HELD and held["challenger"] == fight["challenger"]
        assert held["reason"].endswith(fight["outcome"]) or fight["outcome"] in held["reason"]


def test_a_panel_that_calls_every_game_a_draw_leaves_the_fight_inconclusive(season: Season) -> None:
    first = season.fights.sort("epoch").row(0, named=True)
    assert first["outcome"] == INCONCLUSIVE
    assert first["decided"] == 0 < MIN_DECIDED and first["draws"] == first["games"] > 0


def test_a_panel_that_reads_backwards_makes_the_challenger_lose(season: Season) -> None:
    second = season.fights.sort("epoch").row(1, named=True)
    assert second["outcome"] == HOLDS and second["decided"] >= MIN_DECIDED
    assert second["challenger_wins"] < second["bar"] and second["king_wins"] > second["challenger_wins"]


def test_each_challengers_streak_is_zeroed_by_its_fight_and_starts_again(season: Season) -> None:
    for fight in season.fights.iter_rows(named=True):
        hotkey = fight["challenger"].split("@")[0]
        mine = season.streaks.filter(pl.col("hotkey") == hotkey).sort("epoch")
        at = mine.filter(pl.col("epoch") == fight["epoch"])
        # Zeroed by the fight; leading again afterwards, the count restarts from one.
        assert at.is_empty() or at["streak"][0] == 0
        later = mine.filter(pl.col("epoch") > fight["epoch"])
        assert later.height >= 1 and later["streak"][0] == 1 and (later["lead"] >= LEAD).all()
        before = mine.filter(pl.col("epoch") < fight["epoch"]).tail(HOLD - 1)
        assert before["streak"].to_list() == list(range(1, HOLD)) or before["streak"].max() >= HOLD - 1


def test_each_epoch_names_the_panel_revision_it_was_judged_by(season: Season) -> None:
    revisions = season.manifests.select("epoch", "models_sha256").sort("epoch")
    fight_epochs = set(season.fights["epoch"])
    by_fight = revisions.filter(pl.col("epoch").is_in(fight_epochs))["models_sha256"]
    others = set(revisions.filter(~pl.col("epoch").is_in(fight_epochs))["models_sha256"])
    assert by_fight.n_unique() == 2 and len(others) == 1 and not others & set(by_fight)


def test_verify_rederives_both_fights(season: Season) -> None:
    report = verify_record(season.data, AUDITS, workers=2)
    assert report.ok(), report.problems[:10]
    assert report.checked["closes"] == len(season.epochs)
    tables = Record(season.data).tables(DEBATE)
    for epoch in season.fights["epoch"]:
        games = tables.read("fight_games", epoch)
        assert games.height == 2 * games["motion_id"].n_unique()  # both sides of every motion


def test_the_crown_page_shows_both_fights_the_king_survived(season: Season, tmp_path: Path) -> None:
    record = Record(season.data)
    published = publish_site(
        PUBLIC_SITE, record, KeyStore.for_data(season.data), tmp_path / "site", built_at=START
    )
    assert published_problems(PUBLIC_SITE, published.site, record) == []
    crown = (published.site / "debate" / "crown.html").read_text()
    assert INCONCLUSIVE in crown and f">{HOLDS}<" in crown
    # Both fights marked on the crown's history, with how each ended; one king throughout.
    first, second = season.fights.sort("epoch")["epoch"]
    _, desc = _title_desc(_figure(crown, CROWN_CHART)[1])
    assert f"title fight: inconclusive, held at {first}. title fight: held at {second}." in desc
    king = season.crowns["king_hotkey"][0]
    assert f"King: {king} from {season.epochs[0]} to {season.epochs[-1]}." in desc
    _, desc = _title_desc(_figure(crown, STREAK_CHART)[1])
    assert f"Streak that called a fight: {first} {HOLD:.1f}, {second} {HOLD:.1f}." in desc
    screenshot(published.site / "debate" / "crown.html", "debate-fights-the-king-survived-crown.png")


def test_the_streak_that_called_each_fight_is_published_and_verify_holds_it(
    season: Season, tmp_path: Path
) -> None:
    """The fight zeroes the challenger's streak in the epoch that called it, so ``streaks`` never shows
    it at HOLD: ``fight_calls`` does, and the fight's motions re-derive from the rotations' downloads."""
    import shutil

    from colosseum_core.record import with_ids
    from colosseum_core.trust.bundle import ARENA_PEM, ENVELOPE_NAME, MANIFEST_NAME, sign_bundle
    from colosseum_core.trust.keys import ARENA
    from colosseum_core.verify import verify_path

    data = tmp_path / "data"
    shutil.copytree(season.data, data)
    site = publish_site(
        PUBLIC_SITE, Record(data), KeyStore.for_data(data), data / "site", built_at=START
    ).site
    downloads = site / "debate" / "downloads"
    for fight in season.fights.iter_rows(named=True):
        epoch = fight["epoch"]
        [call] = pl.read_parquet(downloads / "fight_calls" / f"epoch={epoch}.parquet").iter_rows(named=True)
        assert (call["challenger"], call["king"]) == (fight["challenger"], fight["king"])
        assert call["streak"] == call["previous_streak"] + 1 == HOLD and call["lead"] >= LEAD
        after = season.streaks.filter(
            (pl.col("epoch") == epoch) & (pl.col("rating_key") == call["challenger"])
        )
        assert after.is_empty() or after["streak"][0] == 0  # what the streaks table alone would show
    assert len(list((downloads / "motions").glob("*.parquet"))) >= 8
    report = verify_path(site, AUDITS, workers=2)
    assert report.ok(), report.problems[:10]

    # A streak the record never had, under a fresh signature, is named.
    epoch = season.fights["epoch"][0]
    path = downloads / "fight_calls" / f"epoch={epoch}.parquet"
    with_ids(
        pl.read_parquet(path).with_columns(streak=pl.lit(HOLD + 3, dtype=pl.Int64)).drop("id")
    ).write_parquet(path)
    for name in (MANIFEST_NAME, ENVELOPE_NAME, ARENA_PEM):
        (site / name).unlink()
    sign_bundle(site, KeyStore.for_data(data).signing_key(ARENA, START.date()))
    problems = verify_path(site, AUDITS, workers=2).problems
    name = f"debate/downloads/fight_calls/epoch={epoch}.parquet"
    assert any(p.startswith(f"{name} field streak: {HOLD + 3}") for p in problems), problems
    assert f"{name}: differs from the record's (what it derives, fight_calls)" in problems
