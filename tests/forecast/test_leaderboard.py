"""The boards from the scores table: hand-computed cards, groupings, intervals, the mixing re-count."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import Any

import numpy as np
import polars as pl
import pytest

from colosseum_core.forecast.board.leaderboard import (
    BOOTSTRAP_SEED,
    CALIBRATION_SCHEMA,
    LEADERBOARD_SCHEMA,
    POINT_COLUMNS,
    Boards,
    build_boards,
    calibration_points,
    leaderboard_points,
    mixing_problems,
)
from colosseum_core.forecast.rules import COLOSSEUM_SCORING
from colosseum_core.forecast.settlement import scoring
from colosseum_core.statistics.bootstrap import BootstrapSpec, ratio_intervals_many
from tests.support import REPO

# The scores table as the record holds it: its id first, then the columns scoring writes.
SCORES_SCHEMA: dict[str, pl.DataType] = {"id": pl.String(), **scoring.SCORES_SCHEMA}
FIGHT, CALIBRATION = "FIGHT", "CALIBRATION"
REPLICATES = 199  # the default 1,999 is exercised by the benchmark; these tests keep their pace


@dataclasses.dataclass
class Answer:
    card: str
    seat: str
    market_id: str
    call: str | None = "YES"  # as answered; a forfeit is scored on the losing side
    confidence: int | None = 5
    outcome: int | None = 1  # None: void
    price_units: int = 1_000_000  # half micro-dollars: 1,000,000 is $0.50
    kind: str = FIGHT
    gladiator: str | None = None
    forfeit: bool = False
    bad_formatting: bool = False
    formula: str = COLOSSEUM_SCORING


def score_row(a: Answer, index: int) -> dict[str, Any]:
    """One scores row by COLOSSEUM-SCORING-2.1, written out as the method states it."""
    settled = a.outcome is not None
    call, confidence = a.call, a.confidence
    if a.forfeit:
        call, confidence = (("NO" if a.outcome == 1 else "YES"), 1) if settled else (None, None)
    row: dict[str, Any] = {
        "id": f"row-{index}",
        "card": a.card,
        "card_date": a.card[:10],
        "kind": a.kind,
        "seat": a.seat,
        "gladiator": a.gladiator or f"{a.seat}-model",
        "house": False,
        "label": f"M{index % 25 + 1:02d}",
        "market_id": a.market_id,
        "forfeit": a.forfeit,
        "bad_formatting": a.bad_formatting,
        "call": call,
        "confidence": confidence,
        "market_price": a.price_units / 2_000_000,
        "market_price_source": "midpoint",
        "settlement_id": f"s-{a.market_id}",
        "answer_line_id": f"l-{index}",
        "formula": a.formula,
        "outcome": a.outcome,
    }
    if not settled:
        return row | {"result": "void"}
    assert call is not None and confidence is not None
    twenty_p = 10 + confidence if call == "YES" else 10 - confidence
    brier_units = (twenty_p - 20 * a.outcome) ** 2
    market_units = (a.price_units - 2_000_000 * a.outcome) ** 2
    right = (call == "YES") == (a.outcome == 1)
    return row | {
        "result": "win" if right else "loss",
        "p": twenty_p / 20,
        "brier": brier_units / 400,
        "brier_units": brier_units,
        "market_brier": market_units / 4e12,
        "market_brier_units": market_units,
        "edge": (market_units - brier_units * 10**10) / 4e12,
        "edge_units": market_units - brier_units * 10**10,
        "crown": confidence if right else -confidence,
    }


def scores_of(answers: list[Answer]) -> pl.DataFrame:
    return pl.DataFrame([score_row(a, i) for i, a in enumerate(answers)], schema=SCORES_SCHEMA)


def synthetic_scores(cards: int, questions: int, seats: int, seed: int) -> pl.DataFrame:
    """A bigger frame, vectorised: FIGHT cards with every fifth one CALIBRATION, some voids and forfeits."""
    rng = np.random.default_rng(seed)
    rows = cards * questions * seats
    card = np.repeat(np.arange(cards), questions * seats)
    question = np.tile(np.repeat(np.arange(questions), seats), cards)
    seat = np.tile(np.arange(seats), cards * questions)
    outcome = rng.integers(0, 2, rows)
    void = rng.random(rows) < 0.03
    forfeit = rng.random(rows) < 0.04
    confidence = np.where(forfeit, 1, rng.integers(1, 11, rows))
    yes = np.where(forfeit, outcome == 0, rng.random(rows) < 0.5)
    twenty_p = np.where(yes, 10 + confidence, 10 - confidence)
    brier_units = (twenty_p - 20 * outcome) ** 2
    price = rng.integers(0, 2_000_001, rows)
    market_units = (price - 2_000_000 * outcome) ** 2
    right = yes == (outcome == 1)
    settled = ~void
    keys = np.array(
        [
            f"2026-{1 + c // 90:02d}-{1 + c // 3 % 30:02d}-{('0500', '1000', '1800')[c % 3]}"
            for c in range(cards)
        ]
    )
    frame = pl.DataFrame(
        {
            "card": keys[card],
            "kind": np.where(card % 5 == 0, CALIBRATION, FIGHT),
            "seat": np.char.add("seat-", seat.astype(str)),
            # Seat 0 changes gladiator half way through; the new one also sits in seat 1 on a few cards.
            "gladiator": np.where(
                (seat == 0) & (card >= cards // 2) | (seat == 1) & (card % 7 == 3),
                "successor",
                np.char.add("model-", seat.astype(str)),
            ),
            "market_id": (10_000 + card * questions + question).astype(str),
            "result": np.where(void, "void", np.where(right, "win", "loss")),
            "forfeit": forfeit,
            "bad_formatting": rng.random(rows) < 0.05,
            "confidence": confidence,
            "brier_units": np.where(settled, brier_units, 0),
            "edge_units": np.where(settled, market_units - brier_units * 10**10, 0),
            "crown": np.where(right, confidence, -confidence),
            "settled": settled,
        }
    )
    nulls = {c: pl.when(pl.col("settled")).then(pl.col(c)) for c in ("brier_units", "edge_units", "crown")}
    return frame.with_columns(**nulls, formula=pl.lit(COLOSSEUM_SCORING)).drop("settled")


def row_of(frame: pl.DataFrame, kind: str, entrant_type: str, entrant: str) -> dict[str, Any]:
    found = frame.filter(
        (pl.col("kind") == kind) & (pl.col("entrant_type") == entrant_type) & (pl.col("entrant") == entrant)
    )
    assert found.height == 1, (kind, entrant_type, entrant, found)
    return found.row(0, named=True)


# --------------------------------------------------------------------------------------------
# The small card, by hand

FIGHT_CARD, PRACTICE_CARD = "2026-11-29-1000", "2026-11-29-0500"
SMALL = [
    # Seat A: a win at 8 against a $0.60 price, a forfeit on m2 (NO settled), m3 void.
    Answer(FIGHT_CARD, "A", "m1", "YES", 8, 1, price_units=1_200_000),
    Answer(FIGHT_CARD, "A", "m2", None, None, 0, price_units=600_000, forfeit=True),
    Answer(FIGHT_CARD, "A", "m3", "YES", 4, None),
    # Seat B: a loss at 5, a win at 10 read by a recovery step, m3 void.
    Answer(FIGHT_CARD, "B", "m1", "NO", 5, 1, price_units=1_200_000),
    Answer(FIGHT_CARD, "B", "m2", "NO", 10, 0, price_units=600_000, bad_formatting=True),
    Answer(FIGHT_CARD, "B", "m3", "NO", 2, None),
    # Seat A again, on a CALIBRATION card: a loss at 3 against $0.50.
    Answer(PRACTICE_CARD, "A", "m9", "YES", 3, 0, kind=CALIBRATION),
]


def test_a_small_card_by_hand() -> None:
    points = leaderboard_points(scores_of(SMALL))
    a = row_of(points, FIGHT, "seat", "A")
    # Brier units: m1 (18 − 20)² = 4; the forfeit YES at 1 on NO: 11² = 121. SHARP = (396 + 279) / 8.
    # EDGE units: m1 0.8²·4e12 − 4e10 = 6e11; m2 0.3²·4e12 − 121e10 = −8.5e11. EDGE = −2.5e11 / 8e12.
    assert a == a | {"n": 2, "wins": 1, "losses": 1, "record": 0, "sharp": 84.375, "edge": -0.03125}
    assert a == a | {"crown": 7, "early": True, "forfeits": 1, "bad_formatting": 0, "voids": 1}
    assert a == a | {"cards": 1, "questions": 2, "formula": COLOSSEUM_SCORING}
    b = row_of(points, FIGHT, "seat", "B")
    # B: m1 NO at 5 on YES: (5 − 20)² = 225; m2 NO at 10 on NO: 0. EDGE (6.4e11 − 2.25e12 + 3.6e11) / 8e12.
    assert b == b | {"n": 2, "wins": 1, "losses": 1, "record": 0, "sharp": 71.875, "edge": -0.15625}
    assert b == b | {"crown": 5, "forfeits": 0, "bad_formatting": 1, "voids": 1, "cards": 1, "questions": 2}
    assert points.columns == list(POINT_COLUMNS)
    assert all(points.schema[c] == LEADERBOARD_SCHEMA[c] for c in POINT_COLUMNS)


def test_fight_and_calibration_of_one_seat_are_separate_rows_with_separate_numbers() -> None:
    boards = build_boards(scores_of(SMALL), replicates=REPLICATES)
    fight = row_of(boards.leaderboard, FIGHT, "seat", "A")
    practice = row_of(boards.leaderboard, CALIBRATION, "seat", "A")
    # CALIBRATION: YES at 3 on NO: 13² = 169, SHARP 231 / 4; EDGE (1e12 − 1.69e12) / 4e12.
    assert practice == practice | {
        "n": 1,
        "wins": 0,
        "losses": 1,
        "record": -1,
        "sharp": 57.75,
        "edge": -0.1725,
    }
    assert practice == practice | {
        "crown": -3,
        "voids": 0,
        "forfeits": 0,
        "cards": 1,
        "bootstrap_clusters": 1,
    }
    assert fight["n"] == 2 and fight["bootstrap_clusters"] == 2  # m1, m2: the void m3 is no cluster
    assert [row["kind"] for row in boards.leaderboard.iter_rows(named=True)] == [CALIBRATION] * 2 + [
        FIGHT
    ] * 4
    assert mixing_problems(scores_of(SMALL), boards) == []


def test_the_boards_carry_their_schema_order_and_recorded_bootstrap() -> None:
    boards = build_boards(scores_of(SMALL), replicates=REPLICATES)
    assert boards.leaderboard.schema == pl.Schema(LEADERBOARD_SCHEMA)
    assert boards.calibration.schema == pl.Schema(CALIBRATION_SCHEMA)
    assert "id" not in boards.leaderboard.columns and "id" not in boards.calibration.columns
    row = boards.leaderboard.row(0, named=True)
    assert row["bootstrap_seed"] == BOOTSTRAP_SEED and row["bootstrap_replicates"] == REPLICATES
    assert "RandomState" in row["bootstrap_generator"] and row["numpy_version"] == np.__version__
    assert "sorted by (card, market_id)" in row["bootstrap_method"] and "type 7" in row["bootstrap_method"]
    keys = boards.leaderboard.select("kind", "entrant_type", "entrant")
    assert keys.equals(keys.sort(keys.columns))


def test_a_gladiator_is_counted_across_every_seat_it_sat_in() -> None:
    answers = [
        Answer("2026-11-28-1000", "A", "m1", "YES", 6, 1, gladiator="shared"),
        Answer("2026-11-28-1000", "A", "m2", "NO", 6, 1, gladiator="shared"),
        Answer("2026-11-29-1000", "B", "m3", "YES", 9, 1, gladiator="shared"),
        # The same model in two seats of one card answers the same questions twice: two answers
        # each, but those are two questions, not four.
        Answer("2026-11-30-1000", "A", "m4", "YES", 2, 0, gladiator="shared"),
        Answer("2026-11-30-1000", "B", "m4", "YES", 2, 0, gladiator="shared"),
        Answer("2026-11-30-1000", "A", "m5", "NO", 7, 0, gladiator="shared"),
        Answer("2026-11-30-1000", "B", "m5", "NO", 7, None, gladiator="shared"),
        Answer("2026-11-29-1000", "B", "m6", "NO", 1, 0, gladiator="other"),
    ]
    points = leaderboard_points(scores_of(answers))
    shared = row_of(points, FIGHT, "gladiator", "shared")
    assert shared == shared | {"n": 6, "wins": 3, "losses": 3, "voids": 1, "cards": 3, "questions": 5}
    seat_a, seat_b = row_of(points, FIGHT, "seat", "A"), row_of(points, FIGHT, "seat", "B")
    assert (seat_a["n"], seat_a["cards"], seat_a["questions"]) == (4, 2, 4)
    assert (seat_b["n"], seat_b["cards"], seat_b["questions"]) == (3, 2, 3)
    assert seat_b["voids"] == 1 and row_of(points, FIGHT, "gladiator", "other")["n"] == 1
    assert shared["crown"] == 6 - 6 + 9 - 2 - 2 + 7


def test_a_repeated_answer_is_two_answers_but_one_question() -> None:
    repeated = Answer(FIGHT_CARD, "A", "m1", "YES", 8, 1)
    points = leaderboard_points(scores_of([*SMALL, repeated]))
    a = row_of(points, FIGHT, "seat", "A")
    assert (a["n"], a["questions"], a["wins"]) == (3, 2, 2)
    assert row_of(points, FIGHT, "gladiator", "A-model")["questions"] == 2
    assert row_of(points, FIGHT, "seat", "B")["questions"] == 2


def test_early_is_under_thirty_scored_answers() -> None:
    answers = [Answer(FIGHT_CARD, "S29", f"q{i}") for i in range(29)]
    answers += [Answer(FIGHT_CARD, "S30", f"q{i}") for i in range(30)]
    answers += [Answer(FIGHT_CARD, "S29", "void", outcome=None)]  # a void is no answer scored
    points = leaderboard_points(scores_of(answers))
    assert row_of(points, FIGHT, "seat", "S29")["early"] is True
    assert row_of(points, FIGHT, "seat", "S30")["early"] is False
    assert row_of(points, FIGHT, "seat", "S29")["n"] == 29


def test_an_entrant_with_only_voids_keeps_its_row_without_numbers() -> None:
    answers = [*SMALL, Answer(FIGHT_CARD, "V", "m3", "YES", 4, None)]
    boards = build_boards(scores_of(answers), replicates=REPLICATES)
    v = row_of(boards.leaderboard, FIGHT, "seat", "V")
    assert v == v | {"n": 0, "voids": 1, "sharp": None, "edge": None, "sharp_low": None, "edge_high": None}
    assert v == v | {"early": True, "cards": 1, "questions": 0, "degenerate_replicates": REPLICATES}
    levels = boards.calibration.filter(pl.col("entrant").is_in(["V", "V-model"]) & (pl.col("kind") == FIGHT))
    assert levels.height == 20 and levels["n"].sum() == 0 and levels["hit_rate"].null_count() == 20


def test_the_calibration_board_has_all_ten_levels_and_leaves_forfeits_out() -> None:
    boards = build_boards(scores_of(SMALL), replicates=REPLICATES)
    calibration = boards.calibration
    per_entrant = calibration.group_by("kind", "entrant_type", "entrant").agg(pl.col("confidence"))
    assert all(sorted(levels) == list(range(1, 11)) for levels in per_entrant["confidence"])
    a = calibration.filter((pl.col("kind") == FIGHT) & pl.col("entrant").is_in(["A", "A-model"]))
    assert a.height == 20
    assert a.filter(pl.col("n") > 0).select("confidence", "n", "hits").rows() == [(8, 1, 1)] * 2
    b = calibration.filter(
        (pl.col("kind") == FIGHT) & pl.col("entrant").is_in(["B", "B-model"]) & (pl.col("n") > 0)
    )
    gladiator_then_seat = [(5, 1, 0, 0.0, 0.75), (10, 1, 1, 1.0, 1.0)] * 2
    assert b.select("confidence", "n", "hits", "hit_rate", "stated").rows() == gladiator_then_seat
    assert b["gap"].to_list() == [-0.75, 0.0, -0.75, 0.0]
    assert calibration["stated"].unique().sort().to_list() == [(10 + s) / 20 for s in range(1, 11)]
    assert calibration.equals(calibration_points(scores_of(SMALL)))


# --------------------------------------------------------------------------------------------
# Intervals


def test_intervals_contain_their_points_and_replay_bit_for_bit() -> None:
    scores = synthetic_scores(cards=60, questions=5, seats=4, seed=1)
    first = build_boards(scores, replicates=REPLICATES)
    second = build_boards(scores, replicates=REPLICATES)
    board = first.leaderboard
    assert board.equals(second.leaderboard) and first.calibration.equals(second.calibration)
    for stat in ("sharp", "edge"):
        inside = (pl.col(f"{stat}_low") <= pl.col(stat)) & (pl.col(stat) <= pl.col(f"{stat}_high"))
        assert board.filter(pl.col("n") > 0).select(inside.all()).item()
        assert board.filter(pl.col(f"{stat}_low") < pl.col(f"{stat}_high")).height == board.height
    other_seed = build_boards(scores, seed=BOOTSTRAP_SEED + 1, replicates=REPLICATES).leaderboard
    assert not other_seed["sharp_low"].equals(board["sharp_low"])
    assert other_seed["sharp"].equals(board["sharp"])
    assert mixing_problems(scores, first) == []


def test_the_board_intervals_are_the_bootstrap_over_sorted_question_clusters() -> None:
    scores = synthetic_scores(cards=30, questions=4, seats=3, seed=2)
    boards = build_boards(scores, seed=77, replicates=REPLICATES)
    # Rebuild the FIGHT seats' matrices the long way, one score row at a time.
    fight = scores.filter((pl.col("kind") == FIGHT) & (pl.col("result") != "void"))
    clusters = sorted(set(fight.select("card", "market_id").iter_rows()))
    index = {question: q for q, question in enumerate(clusters)}
    seats = sorted(set(fight["seat"]))
    gladiators = sorted(set(scores.filter(pl.col("kind") == FIGHT)["gladiator"]))
    entrants = [("gladiator", g) for g in gladiators] + [("seat", s) for s in seats]
    sharp, edge, count = (np.zeros((len(clusters), len(entrants)), dtype=np.int64) for _ in range(3))
    for row in fight.iter_rows(named=True):
        q = index[(row["card"], row["market_id"])]
        for j, (entrant_type, entrant) in enumerate(entrants):
            if row[entrant_type] == entrant:
                sharp[q, j] += 400 - row["brier_units"]
                edge[q, j] += row["edge_units"]
                count[q, j] += 1
    spec = BootstrapSpec(seed=77, replicates=REPLICATES)
    sharp_ci, edge_ci = ratio_intervals_many([(sharp, count, 4), (edge, count, 4 * 10**12)], spec)
    board = boards.leaderboard.filter(pl.col("kind") == FIGHT)
    assert board.select("entrant_type", "entrant").rows() == entrants
    assert board["sharp_low"].to_list() == sharp_ci.low.tolist()
    assert board["edge_high"].to_list() == edge_ci.high.tolist()
    assert board["sharp"].to_list() == sharp_ci.point.tolist()
    assert board["edge"].to_list() == edge_ci.point.tolist()
    assert set(board["bootstrap_clusters"]) == {len(clusters)}


# --------------------------------------------------------------------------------------------
# Order, versions, the re-count


def test_the_boards_do_not_depend_on_row_order() -> None:
    scores = synthetic_scores(cards=40, questions=5, seats=4, seed=3)
    boards = build_boards(scores, replicates=REPLICATES)
    for seed in (1, 2):
        shuffled = build_boards(scores.sample(fraction=1.0, shuffle=True, seed=seed), replicates=REPLICATES)
        assert shuffled.leaderboard.equals(boards.leaderboard)
        assert shuffled.calibration.equals(boards.calibration)
    assert leaderboard_points(scores.reverse()).equals(leaderboard_points(scores))
    assert build_boards(scores.lazy(), replicates=REPLICATES).leaderboard.equals(boards.leaderboard)
    chunked = pl.concat([scores.slice(0, 333), scores.slice(333)], rechunk=False)  # as read from many files
    assert chunked.n_chunks() == 2 and leaderboard_points(chunked).equals(leaderboard_points(scores))


def test_rows_of_another_formula_version_are_never_mixed_in() -> None:
    old = [dataclasses.replace(a, formula="COLOSSEUM-SCORING-1.0", confidence=1) for a in SMALL]
    mixed = scores_of([*SMALL, *old])
    assert leaderboard_points(mixed).equals(leaderboard_points(scores_of(SMALL)))
    assert leaderboard_points(mixed.lazy()).equals(leaderboard_points(scores_of(SMALL)))


def test_mixing_problems_catches_a_fight_row_counted_into_calibration() -> None:
    scores = scores_of(SMALL)
    boards = build_boards(scores, replicates=REPLICATES)
    fight_n = row_of(boards.leaderboard, FIGHT, "seat", "A")["n"]
    is_practice_a = (pl.col("kind") == CALIBRATION) & pl.col("entrant").is_in(["A", "A-model"])
    tampered = Boards(
        leaderboard=boards.leaderboard.with_columns(
            n=pl.when(is_practice_a).then(pl.col("n") + fight_n).otherwise(pl.col("n"))
        ),
        calibration=boards.calibration.with_columns(
            n=pl.when(is_practice_a & (pl.col("confidence") == 8)).then(1).otherwise(pl.col("n"))
        ),
    )
    problems = mixing_problems(scores, tampered)
    assert "leaderboard CALIBRATION seat A: n is 3 on the board, 1 in the CALIBRATION score rows" in problems
    assert (
        "leaderboard CALIBRATION gladiator A-model: n is 3 on the board, 1 in the CALIBRATION score rows"
        in (problems)
    )
    assert any(
        "CALIBRATION: the seat rows' n add up to 3" in p and "has 1 scored rows" in p for p in problems
    )
    assert any(
        "calibration CALIBRATION seat A at confidence 8: n is 1 on the board, 0" in p for p in problems
    )
    missing = Boards(boards.leaderboard.filter(pl.col("entrant") != "B"), boards.calibration)
    assert any("leaderboard FIGHT seat B: no row on the board" in p for p in mixing_problems(scores, missing))


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="lacks column"):
        leaderboard_points(scores_of(SMALL).drop("edge_units"))
    with pytest.raises(ValueError, match="seat A: result 'draw' is not 'win', 'loss' or 'void'"):
        leaderboard_points(scores_of(SMALL).with_columns(result=pl.lit("draw")))
    with pytest.raises(ValueError, match="unknown kind"):
        leaderboard_points(scores_of(SMALL).with_columns(kind=pl.lit("SPARRING")))


def test_an_empty_table_gives_empty_boards() -> None:
    boards = build_boards(scores_of([]), replicates=REPLICATES)
    assert boards.leaderboard.is_empty() and boards.leaderboard.schema == pl.Schema(LEADERBOARD_SCHEMA)
    assert boards.calibration.is_empty() and mixing_problems(scores_of([]), boards) == []


# --------------------------------------------------------------------------------------------


def test_the_scoring_benchmark_runs_quick() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "scoring.py"), "--quick", "--json", "--runs", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    report = json.loads(done.stdout)
    assert {"leaderboard", "recompute", "bootstrap"} <= report.keys(), done.stderr
    for part in ("leaderboard", "recompute", "bootstrap"):
        assert {"median_s", "target_s", "baseline_median_s", "baseline_over_ours"} <= report[part].keys()
    assert report["bootstrap"]["max_abs_difference"] < 1e-9
    assert report["leaderboard"]["baseline_agrees"] and report["recompute"]["baseline_agrees"]
