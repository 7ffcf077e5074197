"""The debate ratings' rank on hand-made tables: COLOSSEUM-PLACEMENT-2 over the Bradley–Terry intervals
at 0.1 Elo (a key with no rated game has none; the machine's last bits never split a tie), and
COMPELLE-RANK-1, the row number by Elo, exactly as epochs sealed before it were ranked."""

from __future__ import annotations

import polars as pl
import pytest

from colosseum_core.debate.crown.closing import RANK_RULES, ClosingError, rank_rule_named, ranked
from colosseum_core.debate.rules import COMPELLE_RANK_1
from colosseum_core.statistics.placement import PLACEMENT_1, PLACEMENT_2

# Elo order a, b, c, d, e, f; Bradley–Terry: a and b apart, c's interval wide, d touching c only in
# the machine's last bits, e with no rated game (voids only), f tied with d.
RATINGS = pl.DataFrame(
    {
        "rating_key": ["a", "b", "c", "d", "e", "f"],
        "rating": [1090.0, 1050.0, 1010.0, 990.0, 1000.0, 990.0],
        "bt_rating": [1200.0, 1000.0, 1100.0, 900.0, None, 900.0],
        "bt_low": [1150.0, 980.0, 850.0, 880.0, None, 880.0],
        "bt_high": [1250.0, 1020.0, 1300.0, 1000.00000000004, None, 1000.00000000004],
    },
    schema_overrides={"bt_rating": pl.Float64, "bt_low": pl.Float64, "bt_high": pl.Float64},
)


def test_placement_2_ranks_by_the_interval_and_orders_rows_by_rank_then_elo() -> None:
    got = ranked(RATINGS, PLACEMENT_2)
    rank = dict(zip(got["rating_key"], got["rank"], strict=True))
    # a: nothing wholly above. b: a (1150 > 1020). c: nothing (its interval reaches 1300).
    # d and f: a (1150 > 1000); b's low 980 is not above 1000.0. e: none (no rated game).
    assert rank == {"a": 1, "b": 2, "c": 1, "d": 2, "e": None, "f": 2}
    assert got["rating_key"].to_list() == ["a", "c", "b", "d", "f", "e"]  # by rank, then Elo, then key


def test_the_machines_last_bits_do_not_move_a_rank() -> None:
    # b's low 1e-11 above d's high on one machine, 1e-11 below on another: at 0.1 Elo, the same tie.
    tied = pl.col("rating_key").is_in(["d", "f"])
    for low in (1000.00000000001, 999.99999999999):
        frame = RATINGS.with_columns(
            bt_low=pl.when(pl.col("rating_key") == "b").then(low).otherwise("bt_low"),
            bt_high=pl.when(tied).then(1000.0).otherwise("bt_high"),
        )
        rank = dict(zip(*ranked(frame, PLACEMENT_2).select("rating_key", "rank"), strict=True))
        assert rank["d"] == rank["f"] == 2  # only a lies wholly above


def test_rank_1_is_the_row_number_by_elo_and_unknown_rules_are_refused() -> None:
    got = ranked(RATINGS, COMPELLE_RANK_1)
    assert got["rating_key"].to_list() == ["a", "b", "c", "e", "d", "f"]
    assert got["rank"].to_list() == [1, 2, 3, 4, 5, 6] and got["rank"].dtype == pl.Int64
    with pytest.raises(ClosingError, match="rank rule 'COLOSSEUM-PLACEMENT-1' is not one of"):
        ranked(RATINGS, PLACEMENT_1)  # never a debate rule


def test_the_rank_rule_an_epoch_manifest_names() -> None:
    assert RANK_RULES == (PLACEMENT_2, COMPELLE_RANK_1)
    assert rank_rule_named(["COMPELLE-ELO-1", "COMPELLE-FENCE-2", PLACEMENT_2]) == PLACEMENT_2
    assert rank_rule_named(["COMPELLE-ELO-1", "COMPELLE-FENCE-2"]) == COMPELLE_RANK_1
    assert rank_rule_named(None) == COMPELLE_RANK_1
    assert rank_rule_named(pl.Series(["COMPELLE-BT-1", PLACEMENT_2])) == PLACEMENT_2
