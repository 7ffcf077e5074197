"""One epoch of sixteen house miners through the real Definitions: every miner enters, the Swiss rounds
pair every miner once a round with no rematch and the published side rule, every game is rated, and
``verify`` re-derives all of it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.debate.game.pairing import ROUNDS
from colosseum_core.standins.ledger import running_ledger
from colosseum_core.standins.simulated_exchange.server import running_exchange
from colosseum_core.standins.sparring.server import running_sparring
from colosseum_core.verify import verify_record
from tests.test_debate_close_e2e import START, Arena

MINERS = 16
VOICES = ("Ask the questions the other side cannot answer.", "Argue by analogy, like a teacher would.",
          "Be bold and confident.", "Stay calm and concrete.")  # fmt: skip
GROUNDS = ("cost", "fairness", "evidence", "precedent")


@dataclasses.dataclass(frozen=True)
class Epoch:
    data: Path
    key: str
    entries: pl.DataFrame
    games: pl.DataFrame
    ratings: pl.DataFrame
    changes: pl.DataFrame


@pytest.fixture(scope="module")
def epoch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Epoch]:
    data = tmp_path_factory.mktemp("sixteen") / "data"
    with (
        running_ledger(now=lambda: START) as (ledger_url, ledger),
        running_sparring(clock=lambda: START) as sparring,
        running_exchange(clock=lambda: START) as exchange,
    ):
        for n in range(MINERS):
            ledger.register(f"miner-{n:02d}")
            ledger.commit(f"miner-{n:02d}", f"{VOICES[n % 4]} Win on {GROUNDS[n // 4]}.")
        arena = Arena(data, ledger_url, ledger, sparring, exchange)
        key = arena.epoch()
        tables = arena.tables
        yield Epoch(
            data, key, *(tables.read(t, key) for t in ("entries", "games", "ratings", "rating_changes"))
        )


def test_every_miner_enters_and_plays_once_a_round(epoch: Epoch) -> None:
    assert (epoch.entries["status"] == "entered").sum() == MINERS
    assert sorted(epoch.games["round"].unique()) == list(range(1, ROUNDS + 1))
    for _, games in epoch.games.group_by("round"):
        players = [*games["pro_hotkey"], *games["con_hotkey"]]
        assert games.height == MINERS // 2 and len(set(players)) == MINERS


def test_no_pair_meets_twice_and_the_side_rule_holds_round_by_round(epoch: Epoch) -> None:
    pairs = [frozenset(p) for p in epoch.games.select("pro_hotkey", "con_hotkey").iter_rows()]
    assert len(set(pairs)) == len(pairs)
    pro_so_far: dict[str, int] = {}
    for round_number in range(1, ROUNDS + 1):
        games = epoch.games.filter(pl.col("round") == round_number)
        for pro, con in games.select("pro_hotkey", "con_hotkey").iter_rows():
            # The one who argued Pro less argues Pro (equal counts: a seeded coin).
            assert pro_so_far.get(pro, 0) <= pro_so_far.get(con, 0), (round_number, pro, con)
        for pro in games["pro_hotkey"]:
            pro_so_far[pro] = pro_so_far.get(pro, 0) + 1


def test_every_decided_game_moves_the_ratings_and_every_miner_is_rated(epoch: Epoch) -> None:
    assert epoch.ratings.filter(pl.col("entered")).height == MINERS
    assert epoch.changes.height == epoch.games.height
    rated = epoch.changes.filter(pl.col("result") != "void")
    assert (rated["pro_after"] != rated["pro_before"]).all()
    assert epoch.ratings["games"].sum() == 2 * rated.height
    assert epoch.ratings["bt_games"].to_list() == epoch.ratings["games"].to_list()  # every number its n


def test_verify_rederives_the_epoch(epoch: Epoch) -> None:
    report = verify_record(epoch.data, AUDITS, workers=1)
    assert report.ok(), report.problems[:10]
    assert report.checked["closes"] == 1
