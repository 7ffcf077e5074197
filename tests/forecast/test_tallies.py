"""Tallies over dictionary codes and runs, against a plain group-by over the strings."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from colosseum_core.forecast.board.leaderboard import leaderboard_points
from colosseum_core.forecast.board.tallies import KEYS, SUMMED, Tallies

CODED = ("card", "kind", "seat", "gladiator", "market_id", "result")


def answers(cards: int, seats: int, questions: int, seed: int) -> pl.DataFrame:
    """Answers in record order (card, seat, question), with every awkward case mixed in."""
    rng = np.random.default_rng(seed)
    card = np.repeat(np.arange(cards), seats * questions)
    seat = np.tile(np.repeat(np.arange(seats), questions), cards)
    question = np.tile(np.arange(questions), cards * seats)
    rows = card.size
    result = rng.choice(["win", "loss", "void"], rows, p=[0.5, 0.45, 0.05])
    repeated = (card == 4) & (seat == 1) & (question < 2)  # one market answered twice, both scored
    result = np.where(repeated, "win", result)
    void = result == "void"
    brier = rng.integers(0, 401, rows)
    edge = rng.integers(-4 * 10**12, 4 * 10**12, rows)
    crown = rng.integers(-10, 11, rows)
    # Seat 0 changes gladiator in the middle of card 2; seat 1's gladiator also sits in seat 2 on card 3.
    gladiator = np.char.add("model-", seat.astype(str))
    gladiator = np.where(
        (seat == 0) & ((card > 2) | (card == 2) & (question >= questions // 2)), "next", gladiator
    )
    gladiator = np.where((seat == 2) & (card == 3), "model-1", gladiator)
    market = 7_000 + card * questions + question
    market = np.where(repeated & (question == 1), market - 1, market)
    return pl.DataFrame(
        {
            "card": np.char.add("2026-03-", np.char.zfill((card + 1).astype(str), 2)),
            "kind": np.where(card % 4 == 0, "CALIBRATION", "FIGHT"),
            "seat": np.char.add("seat-", seat.astype(str)),
            "gladiator": gladiator,
            "market_id": market.astype(str),
            "result": result,
            "forfeit": rng.random(rows) < 0.05,  # some on voids: those are not counted
            "bad_formatting": rng.random(rows) < 0.05,
            "confidence": rng.integers(1, 11, rows),
            "brier_units": brier,
            "edge_units": edge,
            "crown": crown,
            "formula": "COLOSSEUM-SCORING-2.1",
        }
    ).with_columns(
        pl.when(~pl.lit(pl.Series(void))).then(pl.col(c)).alias(c)
        for c in ("brier_units", "edge_units", "crown")
    )


def reference(rows: pl.DataFrame) -> pl.DataFrame:
    """The tallies by a plain group-by over the strings."""
    scored = pl.col("result") != "void"
    return (
        rows.with_columns(pl.col(CODED).cast(pl.String))
        .group_by(*KEYS)
        .agg(
            _n=scored.sum(),
            _wins=(pl.col("result") == "win").sum(),
            _losses=(pl.col("result") == "loss").sum(),
            _voids=(~scored).sum(),
            _sharp=pl.when(scored).then(400 - pl.col("brier_units")).sum(),
            _edge=pl.when(scored).then(pl.col("edge_units")).sum(),
            _crown=pl.when(scored).then(pl.col("crown")).sum(),
            _forfeits=(pl.col("forfeit") & scored).sum(),
            _bad=(pl.col("bad_formatting") & scored).sum(),
            _rows=pl.len(),
        )
        .with_columns(pl.col(*SUMMED, "_rows").cast(pl.Int64))
        .sort(*KEYS)
    )


def coded(rows: pl.DataFrame) -> pl.DataFrame:
    return rows.with_columns(pl.col(CODED).cast(pl.Categorical))


ORDERS = {
    "record order": lambda f: f,
    "shuffled": lambda f: f.sample(fraction=1.0, shuffle=True, seed=3),
    "reversed": lambda f: f.reverse(),
    "by question": lambda f: f.sort("market_id", "seat"),
}


@pytest.mark.parametrize("order", list(ORDERS))
@pytest.mark.parametrize("as_codes", [False, True], ids=["strings", "categorical"])
def test_tallies_equal_a_plain_group_by_in_any_order(order: str, as_codes: bool) -> None:
    rows = ORDERS[order](answers(cards=9, seats=4, questions=6, seed=11))
    rows = coded(rows) if as_codes else rows
    table = Tallies.of(rows).table().sort(*KEYS)
    assert table.select(*KEYS, *SUMMED, "_rows").equals(reference(rows))


def test_distinct_markets_are_proven_only_where_the_order_shows_it() -> None:
    rows = answers(cards=9, seats=4, questions=6, seed=11)
    table = Tallies.of(rows).table()
    unproven = table.filter(~pl.col("_proven")).select("card", "seat").unique().sort("card", "seat").rows()
    # The repeated answer (card 5, seat 1), the gladiator change inside card 3's seat 0 is two
    # groups of one run each (proven), and so on: only the repeat is not shown distinct.
    assert unproven == [("2026-03-05", "seat-1")]
    shuffled = Tallies.of(rows.sample(fraction=1.0, shuffle=True, seed=1)).table()
    assert not shuffled["_proven"].all()


def test_the_board_counts_questions_exactly_whatever_the_proof() -> None:
    rows = answers(cards=9, seats=4, questions=6, seed=11)
    expected = leaderboard_points(rows)
    for order in ORDERS.values():
        assert leaderboard_points(coded(order(rows))).equals(expected)
    # Card 5 (CALIBRATION) holds the repeated answer of seat 1.
    seat_1 = expected.filter((pl.col("entrant") == "seat-1") & (pl.col("kind") == "CALIBRATION")).row(
        0, named=True
    )
    scored = rows.filter(
        (pl.col("seat") == "seat-1") & (pl.col("kind") == "CALIBRATION") & (pl.col("result") != "void")
    )
    assert seat_1["questions"] == scored.select("card", "market_id").n_unique() < seat_1["n"]


def test_a_long_run_is_one_group() -> None:
    rows = answers(cards=1, seats=1, questions=70_000, seed=2)  # one group, counts past 16 bits
    table = Tallies.of(rows).table()
    assert table.select(*KEYS, *SUMMED, "_rows").equals(reference(rows))
    assert table["_rows"].to_list() == [70_000] and table["_proven"].all()


def test_calibration_cells_equal_a_plain_group_by() -> None:
    rows = answers(cards=9, seats=4, questions=6, seed=5).sample(fraction=1.0, shuffle=True, seed=9)
    cells = Tallies.of(coded(rows)).calibration_cells().sort(*KEYS[:3], "confidence")
    stated = (pl.col("result") != "void") & ~pl.col("forfeit")
    expected = (
        rows.filter(stated)
        .group_by(*KEYS[:3], "confidence")
        .agg(_stated=pl.len().cast(pl.Int64), _hit=(pl.col("result") == "win").sum().cast(pl.Int64))
        .sort(*KEYS[:3], "confidence")
    )
    assert cells.equals(expected)


def test_bad_rows_are_refused_by_name() -> None:
    rows = answers(cards=2, seats=2, questions=3, seed=4)
    with pytest.raises(ValueError, match=r"seat seat-1: result 'draw' is not 'win', 'loss' or 'void'"):
        Tallies.of(
            rows.with_columns(
                result=pl.when(pl.col("seat") == "seat-1").then(pl.lit("draw")).otherwise("result")
            )
        ).table()
    scored = pl.col("result") != "void"
    with pytest.raises(ValueError, match="a scored answer without brier_units"):
        Tallies.of(rows.with_columns(brier_units=pl.when(scored).then(None).otherwise("brier_units"))).table()
    with pytest.raises(ValueError, match="a void with edge_units"):
        Tallies.of(rows.with_columns(edge_units=pl.col("edge_units").fill_null(0))).table()
    with pytest.raises(ValueError, match="a score row has no seat"):
        Tallies.of(rows.with_columns(seat=pl.lit(None, pl.String)))
    with pytest.raises(ValueError, match=r"confidence 0, not 1\.\.10"):
        Tallies.of(rows.with_columns(confidence=pl.lit(0))).calibration_cells()
