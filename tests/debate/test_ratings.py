"""COMPELLE-ELO-1 over recorded games: the formula by hand, voids apart, order, keys, standing."""

from __future__ import annotations

import random

import polars as pl
import pytest

from colosseum_core.debate.rating_key import rating_key
from colosseum_core.debate.ratings import START, RatingsError, elo_ratings, standing

ADA = rating_key("ada", 10, "a" * 64)
BOB = rating_key("bob", 12, "b" * 64)
CY = rating_key("cy", 30, "c" * 64)


def game(
    game_id: str, pro: str, con: str, status: str, winner: str | None, epoch: str = "0000040", rnd: int = 1
):
    hotkey = {ADA: "ada", BOB: "bob", CY: "cy"}
    return {
        "epoch": epoch,
        "round": rnd,
        "game_id": game_id,
        "pro_hotkey": hotkey[pro],
        "con_hotkey": hotkey[con],
        "pro_strategy_hash": pro.rsplit(":", 1)[1],
        "con_strategy_hash": con.rsplit(":", 1)[1],
        "pro_rating_key": pro,
        "con_rating_key": con,
        "status": status,
        "winner": winner,
    }


GAMES = pl.DataFrame(
    [
        game("0000040-r1-g01", ADA, BOB, "decided", "Pro"),
        game("0000040-r2-g01", BOB, ADA, "draw", None, rnd=2),
        game("0000040-r3-g01", ADA, BOB, "void", None, rnd=3),
    ]
)


def test_the_formula_by_hand_with_the_draw_penalty_and_a_void() -> None:
    done = elo_ratings(GAMES)
    by = {r["rating_key"]: r for r in done.ratings.iter_rows(named=True)}
    # Game 1: equal ratings, Ada wins: ±16.
    # Game 2: Bob (984) Pro against Ada (1016), a draw: E_Bob = 1/(1 + 10^(32/400)); both pay 1.6 more.
    expected = 1 / (1 + 10 ** ((1016 - 984) / 400))
    change = 32 * (0.5 - expected)
    assert by[BOB]["rating"] == pytest.approx(984 + change - 1.6, abs=1e-9)
    assert by[ADA]["rating"] == pytest.approx(1016 - change - 1.6, abs=1e-9)
    # The void touches neither the ratings nor the records, and is counted apart.
    assert (by[ADA]["wins"], by[ADA]["draws"], by[ADA]["losses"], by[ADA]["voids"], by[ADA]["games"]) == (
        1,
        1,
        0,
        1,
        2,
    )
    assert (by[BOB]["wins"], by[BOB]["draws"], by[BOB]["losses"], by[BOB]["voids"]) == (0, 1, 1, 1)
    void = done.changes.filter(pl.col("result") == "void").row(0, named=True)
    assert (void["pro_before"], void["con_before"]) == (void["pro_after"], void["con_after"])
    assert done.changes["game_id"].to_list() == GAMES["game_id"].to_list()
    assert set(done.ratings["rules"]) == {"COMPELLE-ELO-1"}


def test_games_are_applied_in_epoch_round_and_game_order_whatever_the_rows_order() -> None:
    rows = [
        game(
            f"{e}-r{r}-g0{g}",
            *random.Random(e * 10 + r).sample([ADA, BOB, CY], 2),
            "decided",
            w,
            epoch=f"{e:07d}",
            rnd=r,
        )
        for e in (40, 41)
        for r in (1, 2)
        for g, w in ((1, "Pro"), (2, "Con"))
    ]
    ordered = elo_ratings(pl.DataFrame(rows)).ratings
    shuffled = rows[:]
    random.Random(7).shuffle(shuffled)
    assert elo_ratings(pl.DataFrame(shuffled)).ratings.equals(ordered)


def test_a_new_key_starts_at_1000_and_a_deregistered_one_is_dropped() -> None:
    later = pl.concat(
        [GAMES, pl.DataFrame([game("0000041-r1-g01", CY, BOB, "decided", "Con", epoch="0000041")])]
    )
    done = elo_ratings(later)
    cy = done.changes.filter(pl.col("pro_rating_key") == CY).row(0, named=True)
    assert cy["pro_before"] == START
    # Bob has deregistered: his rating is not standing, whoever registers on his UID next.
    kept = standing(done.ratings, pl.DataFrame({"rating_key": [ADA, CY]}))
    assert set(kept["rating_key"]) == {ADA, CY}


def test_a_game_that_is_neither_decided_draw_nor_void_is_named() -> None:
    bad = GAMES.with_columns(status=pl.lit("decided"), winner=pl.lit("Maybe"))
    with pytest.raises(RatingsError, match="game 0000040-r1-g01 field status: 'decided' with winner 'Maybe'"):
        elo_ratings(bad)
    assert elo_ratings(GAMES.head(0)).ratings.height == 0


def _field(seed: int = 3, games: int = 120) -> pl.DataFrame:
    """A field where Ada is strongest and Cy weakest, sides alternating."""
    rng = random.Random(seed)
    strength = {ADA: 0.8, BOB: 0.5, CY: 0.2}
    rows = []
    for g in range(games):
        x, y = rng.sample([ADA, BOB, CY], 2)
        p = strength[x] / (strength[x] + strength[y])
        roll = rng.random()
        status, winner = ("draw", None) if roll > 0.95 else ("decided", "Pro" if roll < p * 0.95 else "Con")
        rows.append(game(f"0000040-r{g // 3 + 1}-g{g % 3 + 1:02d}", x, y, status, winner, rnd=g // 3 + 1))
    rows.append(game("0000040-r99-g01", ADA, CY, "void", None, rnd=99))
    return pl.DataFrame(rows)


def test_bradley_terry_orders_the_field_with_intervals_and_their_n() -> None:
    from colosseum_core.debate.strength import bt_strengths

    field = _field()
    done = bt_strengths(field, seed=11, replicates=199)
    table = done.table
    assert table["rating_key"].to_list() == [ADA, BOB, CY]
    assert (table["bt_low"] <= table["bt_rating"]).all() and (table["bt_rating"] <= table["bt_high"]).all()
    # n is the rated games each key played: the void is not among them.
    rated = field.filter(pl.col("status") != "void")
    played = {
        k: int(((rated["pro_rating_key"] == k) | (rated["con_rating_key"] == k)).sum())
        for k in (ADA, BOB, CY)
    }
    assert dict(table.select("rating_key", "bt_games").iter_rows()) == played
    assert (
        done.record["rules"] == "COMPELLE-BT-1" and done.record["seed"] == 11 and done.record["clusters"] == 3
    )
    # The same seed replays the same intervals; the rows' order does not matter.
    again = bt_strengths(field.sample(fraction=1.0, shuffle=True, seed=5), seed=11, replicates=199).table
    assert again.equals(table)


def test_a_field_with_an_unbeaten_miner_still_fits() -> None:
    from colosseum_core.debate.strength import bt_strengths

    one_sided = pl.DataFrame(
        [game(f"0000040-r{i}-g01", ADA, BOB, "decided", "Pro", rnd=i) for i in range(1, 4)]
    )
    table = bt_strengths(one_sided, seed=1, replicates=99).table
    assert table["rating_key"].to_list() == [ADA, BOB] and table["bt_rating"].is_finite().all()
    assert bt_strengths(one_sided.head(0), seed=1).table.height == 0
