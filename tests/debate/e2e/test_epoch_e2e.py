"""One epoch of sixteen house miners through the real Definitions: every miner enters, the Swiss rounds
pair every miner once a round with no rematch and the published side rule, every game is rated, and
``verify`` re-derives all of it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.debate import audit, strength
from colosseum_core.debate.crown import closing
from colosseum_core.debate.pairing import ROUNDS
from colosseum_core.record.identifiers import with_ids
from colosseum_core.verify import verify_record
from tests.support.debate import Arena, debate_servers

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
    with debate_servers() as (ledger_url, ledger, sparring, exchange):
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


def _bt_shifted(monkeypatch: pytest.MonkeyPatch, shift: Callable[[pl.Expr], pl.Expr]) -> None:
    """Verify's re-fits give bt_low moved by ``shift``, as another machine's floating point might."""
    original = closing.bt_strengths

    def moved(*args: Any, **kwargs: Any) -> strength.Strengths:
        found = original(*args, **kwargs)
        return dataclasses.replace(found, table=found.table.with_columns(bt_low=shift(pl.col("bt_low"))))

    monkeypatch.setattr(closing, "bt_strengths", moved)


def test_verify_takes_another_machines_last_bits_of_bradley_terry_and_says_so(
    epoch: Epoch, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One ulp on every lower bound: what a different BLAS kernel gives (measured up to 2.3e-13 Elo).
    _bt_shifted(monkeypatch, lambda low: low + low.abs() * 2.0**-52)
    report = verify_record(epoch.data, AUDITS, workers=1)
    assert report.ok(), report.problems[:10]
    assert any(
        f"epoch {epoch.key}: the Bradley–Terry columns re-derive within 1e-06 Elo" in n for n in report.notes
    )


def test_verify_names_a_bradley_terry_bound_beyond_the_machines_tolerance(
    epoch: Epoch, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bt_shifted(monkeypatch, lambda low: low + 0.01)
    report = verify_record(epoch.data, AUDITS, workers=1)
    problems = [p for p in report.problems if p.startswith(f"ratings epoch {epoch.key}: does not re-derive")]
    assert problems and "field bt_low" in problems[0] and "(tolerance 1e-06)" in problems[0], report.problems
    assert any(p.startswith(f"epoch {epoch.key} seal: vouches for") for p in report.problems)


def test_only_the_bradley_terry_columns_may_carry_the_machines_last_bits() -> None:
    recorded = with_ids(
        pl.DataFrame(
            {
                "rating_key": ["a", "b"],
                "games": [3, 4],
                "bt_low": [990.5, None],
                "bt_high": [None, 1010.25],
            }
        )
    )
    tolerances = {"bt_low": 1e-6, "bt_high": 1e-6}
    last_bits = with_ids(recorded.with_columns(bt_low=pl.Series([990.5 + 1.2e-13, None])))
    assert audit._machine_bits_only(recorded, last_bits, tolerances)
    beyond = with_ids(recorded.with_columns(bt_low=pl.Series([990.5 + 1e-3, None])))
    assert not audit._machine_bits_only(recorded, beyond, tolerances)
    # Anything else, even a change of type that keeps every value equal, is not the machine's bits.
    retyped = with_ids(last_bits.with_columns(pl.col("games").cast(pl.Float64)))
    assert not audit._machine_bits_only(recorded, retyped, tolerances)
    assert audit._first_difference(recorded, retyped, tolerances) == "its row identifiers differ"
    assert not audit._machine_bits_only(recorded, last_bits, {})
