"""Scoring benchmark: the boards' aggregates, the full recompute from Parquet, the clustered bootstrap.

Generates deterministic synthetic ``scores`` tables (13 seats × 25 questions a card, 3 cards a day,
every tenth card CALIBRATION, gladiators replaced over time, about 1% void questions, 2% forfeits,
3% answers read by a recovery step, prices in whole half micro-dollars) and times three things,
each against a plain pandas baseline run side by side on the same data:

1. ``leaderboard_points`` over 600,000 answers (median of several runs); target ≤ 30 ms. The frame
   is the one the board gets from the scores archive (key columns as Categorical); the same rows
   as plain strings and shuffled are timed beside it. Baseline: pandas ``groupby`` with the columns
   computed in Python per group.
2. The full recompute of the leaderboard's points and the calibration board from Parquet: ten years
   of answers (~3.56 million) as one file per card, laid out like the record
   (``<tmp>/scores/card=<key>/data.parquet``, ~10,950 files), read as the ``leaderboard`` asset
   reads them, through the archive (``colosseum_core/record/archive.py``: one Parquet segment per
   month, checked against every card file's stat signature on each read); target ≤ 2 s. The first
   read, which builds the archive from the card files, and a read of the card files without the
   archive are timed once beside it. Baseline: pandas reading the files and aggregating as in 1.
   (pandas has no Parquet engine here, neither pyarrow nor fastparquet is installed, so the
   baseline reads each file with ``polars.read_parquet`` and hands pandas its numpy columns; that
   read is charged to the baseline.)
3. A 1,999-replicate question-clustered bootstrap of EDGE over 5,000 questions × 13 seats,
   intervals included; target ≤ 0.5 s. Baseline: a pandas loop, one replicate at a time, resampling
   the questions with the same ``RandomState`` stream and aggregating with ``groupby``. The two sets
   of replicate values are compared; the largest absolute difference is reported.

    python benchmarks/scoring.py                        # full sizes, 5 runs each
    python benchmarks/scoring.py --runs 9 --seed 7      # more runs, other data
    python benchmarks/scoring.py --scores-dir /tmp/sc   # keep (and reuse) the 10,950 Parquet files
    python benchmarks/scoring.py --quick --json         # small sizes, one JSON object (the smoke test)

Exit status 0 when every median is within its target and every baseline agrees, else 1. Files are
generated once per data directory; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
from timing import median_seconds

from colosseum_core.forecast.board.leaderboard import (
    REQUIRED_COLUMNS,
    calibration_points,
    leaderboard_points,
    read_scores,
    scores_archive,
)
from colosseum_core.forecast.rules import COLOSSEUM_SCORING
from colosseum_core.record.tables import PARQUET_NAME, RecordTables, parquet_bytes
from colosseum_core.statistics.bootstrap import BootstrapSpec, ratio_intervals, replicate_ratios

SEATS = (
    "openai-flagship",
    "openai-small",
    "anthropic-flagship",
    "anthropic-small",
    "google-flagship",
    "google-small",
    "xai-flagship",
    "deepseek-flagship",
    "mistral-flagship",
    "meta-flagship",
    "alibaba-flagship",
    "moonshot-flagship",
    "cohere-flagship",
)
QUESTIONS = 25
SLOTS = ("0500", "1000", "1800")
FIRST_DAY = dt.date(2026, 1, 1)
PRICE_SCALE = 2_000_000
EDGE_SCALE = 4 * 10**12
TARGETS = {"leaderboard": 0.030, "recompute": 2.0, "bootstrap": 0.5}
FULL = {
    "leaderboard_answers": 600_000,
    "recompute_days": 3650,
    "bootstrap_questions": 5_000,
    "replicates": 1999,
}
QUICK = {"leaderboard_answers": 10_000, "recompute_days": 10, "bootstrap_questions": 200, "replicates": 99}


# --------------------------------------------------------------------------------------------
# Data


def card_keys(cards: int) -> list[str]:
    return [f"{FIRST_DAY + dt.timedelta(days=i // 3):%Y-%m-%d}-{SLOTS[i % 3]}" for i in range(cards)]


def answers(cards: int, seed: int) -> dict[str, np.ndarray]:
    """Seat × question answers in record order (card, seat, label), as integer arrays."""
    rng = np.random.default_rng(seed)
    seats, per_card = len(SEATS), len(SEATS) * QUESTIONS
    rows = cards * per_card
    card = np.repeat(np.arange(cards), per_card)
    seat = np.tile(np.repeat(np.arange(seats), QUESTIONS), cards)
    question = np.tile(np.arange(QUESTIONS), cards * seats)
    market = card * QUESTIONS + question
    outcome = rng.integers(0, 2, cards * QUESTIONS)[market]
    void = (rng.random(cards * QUESTIONS) < 0.01)[market]
    price = rng.integers(0, PRICE_SCALE + 1, cards * QUESTIONS)[market]
    forfeit = rng.random(rows) < 0.02
    confidence = rng.integers(1, 11, rows)
    right = rng.random(rows) < 0.5 + confidence / 25
    yes = np.where(right, outcome == 1, outcome == 0)
    confidence = np.where(forfeit, 1, confidence)
    yes = np.where(forfeit, outcome == 0, yes)  # a forfeit is confidence 1 on the losing side
    right = yes == (outcome == 1)
    twenty_p = np.where(yes, 10 + confidence, 10 - confidence)
    brier_units = (twenty_p - 20 * outcome) ** 2
    market_units = (price - PRICE_SCALE * outcome) ** 2
    return {
        "card": card,
        "seat": seat,
        "question": question,
        "market": market,
        "kind_calibration": card % 10 == 0,
        "generation": (card + seat * 37) // 400,  # a new gladiator takes each seat every ~4 months
        "outcome": outcome,
        "void": void,
        "price": price,
        "forfeit": forfeit,
        "bad_formatting": (rng.random(rows) < 0.03) & ~forfeit,
        "yes": yes,
        "confidence": confidence,
        "right": right,
        "twenty_p": twenty_p,
        "brier_units": brier_units,
        "market_units": market_units,
        "edge_units": market_units - brier_units * 10**10,
    }


def synthetic_scores(cards: int, seed: int) -> pl.DataFrame:
    """The ``scores`` table of ``cards`` cards, every column of COLOSSEUM-SCORING-2.1."""
    a = answers(cards, seed)
    keys = pl.Series(card_keys(cards))
    seat_names = pl.Series(SEATS)
    labels = pl.Series([f"M{i:02d}" for i in range(1, QUESTIONS + 1)])
    frame = pl.DataFrame(
        {
            "card": keys.gather(a["card"]),
            "kind": np.where(a["kind_calibration"], "CALIBRATION", "FIGHT"),
            "seat": seat_names.gather(a["seat"]),
            "generation": a["generation"],
            "house": a["kind_calibration"],
            "label": labels.gather(a["question"]),
            "market_id": a["market"] + 500_000,
            "result": np.where(a["void"], "void", np.where(a["right"], "win", "loss")),
            "forfeit": a["forfeit"],
            "bad_formatting": a["bad_formatting"],
            "call": np.where(a["yes"], "YES", "NO"),
            "confidence": a["confidence"],
            "outcome": a["outcome"],
            "p": a["twenty_p"] / 20,
            "brier": a["brier_units"] / 400,
            "brier_units": a["brier_units"],
            "market_price": a["price"] / PRICE_SCALE,
            "market_price_source": np.where(a["price"] % 2 == 1, "midpoint", "last_trade"),
            "market_brier": a["market_units"] / EDGE_SCALE,
            "market_brier_units": a["market_units"],
            "edge": a["edge_units"] / EDGE_SCALE,
            "edge_units": a["edge_units"],
            "crown": np.where(a["right"], a["confidence"], -a["confidence"]),
            "void": a["void"],
        }
    )
    # A void carries no numbers (COLOSSEUM-SCORING-2.1).
    settled_only = ("outcome", "p", "brier", "brier_units", "market_brier", "market_brier_units", "edge")
    frame = frame.with_columns(
        pl.when(~pl.col("void")).then(pl.col(c)).alias(c) for c in (*settled_only, "edge_units", "crown")
    )
    return frame.select(
        pl.format("{}/{}/{}", "card", "seat", "label").alias("id"),
        "card",
        pl.col("card").str.slice(0, 10).alias("card_date"),
        "kind",
        "seat",
        pl.format("{}-model-{}", "seat", "generation").alias("gladiator"),
        "house",
        "label",
        pl.col("market_id").cast(pl.String),
        "result",
        "forfeit",
        "bad_formatting",
        "call",
        "confidence",
        "outcome",
        "p",
        "brier",
        "brier_units",
        "market_price",
        "market_price_source",
        "market_brier",
        "market_brier_units",
        "edge",
        "edge_units",
        "crown",
        pl.format("settlement-{}", "market_id").alias("settlement_id"),
        pl.format("line/{}/{}/{}", "card", "seat", "label").alias("answer_line_id"),
        pl.lit(COLOSSEUM_SCORING).alias("formula"),
    )


def as_archived(scores: pl.DataFrame) -> pl.DataFrame:
    """``scores`` as the archive returns it, by the archive's own encoding (which touches no file:
    the paths are placeholders)."""
    return scores_archive(RecordTables(Path(), "card"), Path()).encode(scores).rechunk()


def write_record(scores: pl.DataFrame, root: Path, cards: int) -> int:
    """One Parquet file per card under ``root/scores/card=<key>/``, encoded as the record encodes it."""
    per_card = len(SEATS) * QUESTIONS
    keys = card_keys(cards)
    started = time.perf_counter()
    for i, key in enumerate(keys):
        path = root / "scores" / f"card={key}" / PARQUET_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(parquet_bytes(scores.slice(i * per_card, per_card)))
        if (i + 1) % 500 == 0 or i + 1 == cards:
            rate = (i + 1) / (time.perf_counter() - started)
            print(f"  wrote {i + 1:,}/{cards:,} card files ({rate:,.0f}/s)", file=sys.stderr, flush=True)
    return cards


# --------------------------------------------------------------------------------------------
# The pandas baselines


def pandas_frame(scores: pl.DataFrame, columns: tuple[str, ...] = REQUIRED_COLUMNS) -> pd.DataFrame:
    # Without pyarrow, polars cannot call to_pandas(): hand pandas the numpy columns.
    return pd.DataFrame({c: scores[c].to_numpy() for c in columns})


def pandas_points(frame: pd.DataFrame) -> dict[tuple[str, str, str], tuple[Any, ...]]:
    """The leaderboard's points, computed in Python per pandas group (integer sums, one division)."""
    out: dict[tuple[str, str, str], tuple[Any, ...]] = {}
    frame = frame[frame["formula"] == COLOSSEUM_SCORING]
    for entrant_type in ("gladiator", "seat"):
        for (kind, entrant), group in frame.groupby(["kind", entrant_type], sort=True):
            scored = group[group["result"] != "void"]
            n = len(scored)
            wins = int((scored["result"] == "win").sum())
            losses = int((scored["result"] == "loss").sum())
            sharp_units = int((400 - scored["brier_units"].astype("int64")).sum())
            edge_units = int(scored["edge_units"].astype("int64").sum())
            out[(kind, entrant_type, entrant)] = (
                n,
                wins,
                losses,
                wins - losses,
                float(sharp_units) / float(4 * n) if n else None,
                float(edge_units) / float(EDGE_SCALE * n) if n else None,
                int(scored["crown"].astype("int64").sum()),
                n < 30,
                int(scored["forfeit"].sum()),
                int(scored["bad_formatting"].sum()),
                len(group) - n,
                group["card"].nunique(),
                len(scored[["card", "market_id"]].drop_duplicates()),
            )
    return out


def pandas_calibration(frame: pd.DataFrame) -> dict[tuple[str, str, str, int], tuple[int, int]]:
    stated = frame[(frame["formula"] == COLOSSEUM_SCORING) & (frame["result"] != "void") & ~frame["forfeit"]]
    out: dict[tuple[str, str, str, int], tuple[int, int]] = {}
    for entrant_type in ("gladiator", "seat"):
        for (kind, entrant, confidence), group in stated.groupby(["kind", entrant_type, "confidence"]):
            out[(kind, entrant_type, entrant, int(confidence))] = (
                len(group),
                int((group["result"] == "win").sum()),
            )
    return out


def ours_as_baseline(points: pl.DataFrame) -> dict[tuple[str, str, str], tuple[Any, ...]]:
    columns = ["n", "wins", "losses", "record", "sharp", "edge", "crown", "early", "forfeits"]
    columns += ["bad_formatting", "voids", "cards", "questions"]
    return {
        (row["kind"], row["entrant_type"], row["entrant"]): tuple(row[c] for c in columns)
        for row in points.iter_rows(named=True)
    }


def ours_calibration(calibration: pl.DataFrame) -> dict[tuple[str, str, str, int], tuple[int, int]]:
    return {
        (row["kind"], row["entrant_type"], row["entrant"], row["confidence"]): (row["n"], row["hits"])
        for row in calibration.filter(pl.col("n") > 0).iter_rows(named=True)
    }


def pandas_recompute(files: list[Path]) -> tuple[dict, dict]:
    parts = [pandas_frame(pl.read_parquet(path, columns=list(REQUIRED_COLUMNS))) for path in files]
    frame = pd.concat(parts, ignore_index=True)
    return pandas_points(frame), pandas_calibration(frame)


def pandas_bootstrap(edge: np.ndarray, count: np.ndarray, spec: BootstrapSpec, replicates: int) -> np.ndarray:
    """Per replicate: resample the questions (same stream), then a pandas groupby per seat."""
    clusters, seats = edge.shape
    long = pd.DataFrame(
        {
            "question": np.repeat(np.arange(clusters), seats),
            "seat": np.tile(np.arange(seats), clusters),
            "edge_units": edge.ravel(),
            "answers": count.ravel(),
        }
    ).set_index("question")
    stream = np.random.RandomState(spec.seed)
    out = np.full((replicates, seats), np.nan)
    for b in range(replicates):
        drawn = stream.randint(0, clusters, size=clusters, dtype=np.uint32)
        totals = long.loc[drawn].groupby("seat")[["edge_units", "answers"]].sum()
        answered = totals["answers"] > 0
        values = totals["edge_units"][answered] / (EDGE_SCALE * totals["answers"][answered])
        out[b, values.index.to_numpy()] = values.to_numpy()
    return out


# --------------------------------------------------------------------------------------------


def _figure(median: float, times: list[float], target: float) -> dict[str, Any]:
    return {
        "median_s": round(median, 4),
        "runs_s": [round(t, 4) for t in times],
        "target_s": target,
        "within_target": median <= target,
    }


def bench_leaderboard(answers_wanted: int, seed: int, runs: int) -> dict[str, Any]:
    cards = max(1, round(answers_wanted / (len(SEATS) * QUESTIONS)))
    as_strings = synthetic_scores(cards, seed)
    # The board reads the scores through the archive, which hands the key columns over as
    # dictionary codes (Categorical): time the aggregation on that frame, the strings beside it.
    scores = as_archived(as_strings)
    median, times, points = median_seconds(lambda: leaderboard_points(scores), runs)
    strings_median, _, from_strings = median_seconds(lambda: leaderboard_points(as_strings), runs)
    frame = pandas_frame(as_strings)
    base_median, base_times, expected = median_seconds(lambda: pandas_points(frame), max(1, min(runs, 3)))
    # Determinism: the same answers in another order give the same board, to the last bit.
    shuffled = leaderboard_points(scores.sample(fraction=1.0, shuffle=True, seed=seed))
    shuffled_median, _, _ = median_seconds(
        lambda: leaderboard_points(scores.sample(fraction=1.0, shuffle=True, seed=seed)), 1
    )
    # The floor on this box: ONE polars group_by (kind, seat) with nine integer sums and nothing else
    # (no gladiators, no distinct cards or questions, no checks).
    sums = [(pl.col("result") == r).sum().alias(r) for r in ("win", "loss", "void")]
    sums += [pl.col(c).sum() for c in ("brier_units", "edge_units", "crown", "forfeit", "bad_formatting")]
    floor, _, _ = median_seconds(lambda: as_strings.group_by("kind", "seat").agg(pl.len(), *sums), runs)
    return {
        "answers": scores.height,
        "cards": cards,
        **_figure(median, times, TARGETS["leaderboard"]),
        "one_group_by_floor_s": round(floor, 4),
        "string_columns_median_s": round(strings_median, 4),
        "shuffled_rows_s": round(shuffled_median, 4),
        "baseline": "pandas groupby, columns computed in Python per group",
        "baseline_median_s": round(base_median, 4),
        "baseline_runs_s": [round(t, 4) for t in base_times],
        "baseline_over_ours": round(base_median / median, 2),
        "baseline_agrees": expected == ours_as_baseline(points),
        "same_board_shuffled": shuffled.equals(points),
        "same_board_from_strings": from_strings.equals(points),
    }


def bench_recompute(days: int, seed: int, runs: int, scores_dir: Path | None) -> dict[str, Any]:
    cards = days * len(SLOTS)
    with tempfile.TemporaryDirectory(prefix="colosseum-scores-") as tmp:
        root = scores_dir or Path(tmp)
        files = sorted((root / "scores").glob(f"card=*/{PARQUET_NAME}"))
        if len(files) != cards:
            print(f"generating {cards:,} card files under {root}/scores …", file=sys.stderr, flush=True)
            started = time.perf_counter()
            write_record(synthetic_scores(cards, seed), root, cards)
            print(f"  done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
            files = sorted((root / "scores").glob(f"card=*/{PARQUET_NAME}"))
        glob = str(root / "scores" / f"card=*/{PARQUET_NAME}")
        tables, cache = RecordTables(root, "card"), root / "cache"
        shutil.rmtree(cache, ignore_errors=True)

        def direct() -> pl.DataFrame:
            # Without the archive: every card file, one chunk per file unless rechunked.
            return pl.scan_parquet(glob, hive_partitioning=False).select(REQUIRED_COLUMNS).collect().rechunk()

        def read() -> pl.DataFrame:
            archived = read_scores(tables, cache)
            assert archived is not None
            return archived.frame

        def recompute(load: Callable[[], pl.DataFrame]) -> tuple[pl.DataFrame, pl.DataFrame]:
            scores = load()
            return leaderboard_points(scores), calibration_points(scores)

        print("  first read: building the archive from every card file …", file=sys.stderr, flush=True)
        started = time.perf_counter()
        recompute(read)
        cold = time.perf_counter() - started
        median, times, (points, calibration) = median_seconds(lambda: recompute(read), runs)
        read_median, _, scores = median_seconds(read, runs)
        points_median, _, _ = median_seconds(lambda: leaderboard_points(scores), runs)
        calibration_median, _, _ = median_seconds(lambda: calibration_points(scores), runs)
        started = time.perf_counter()
        direct_points, direct_calibration = recompute(direct)
        without_archive = time.perf_counter() - started
        started = time.perf_counter()
        expected_points, expected_calibration = pandas_recompute(files)
        base_seconds = time.perf_counter() - started
        agrees = expected_points == ours_as_baseline(points) and expected_calibration == ours_calibration(
            calibration
        )
        parts = {"read": read_median, "leaderboard_points": points_median, "calibration": calibration_median}
        return {
            "files": len(files),
            "answers": scores.height,
            **_figure(median, times, TARGETS["recompute"]),
            "read_median_s": round(read_median, 4),
            "leaderboard_points_median_s": round(points_median, 4),
            "calibration_median_s": round(calibration_median, 4),
            "dominant": max(parts, key=parts.__getitem__),
            "first_read_building_archive_s": round(cold, 4),
            "without_archive_s": round(without_archive, 4),
            "same_boards_without_archive": direct_points.equals(points)
            and direct_calibration.equals(calibration),
            "baseline": "polars.read_parquet per file → pandas (no pandas Parquet engine here), "
            "groupby with Python per group; one run",
            "baseline_median_s": round(base_seconds, 4),
            "baseline_over_ours": round(base_seconds / median, 2),
            "baseline_agrees": agrees,
        }


def bench_bootstrap(questions: int, replicates: int, seed: int, runs: int) -> dict[str, Any]:
    cards = -(-questions // QUESTIONS)
    a = answers(cards, seed)
    seats = len(SEATS)
    # Rows are in (card, seat, label) order: reshape to one row per question, one column per seat.
    edge = a["edge_units"].reshape(cards, seats, QUESTIONS).transpose(0, 2, 1).reshape(-1, seats)[:questions]
    voided = a["void"].reshape(cards, seats, QUESTIONS).transpose(0, 2, 1).reshape(-1, seats)[:questions]
    count = (~voided).astype(np.int64)
    edge = np.where(voided, 0, edge)
    spec = BootstrapSpec(seed=seed, replicates=replicates)
    median, times, intervals = median_seconds(lambda: ratio_intervals(edge, count, EDGE_SCALE, spec), runs)
    ours = replicate_ratios(edge, count, EDGE_SCALE, spec)
    started = time.perf_counter()
    theirs = pandas_bootstrap(edge, count, spec, replicates)
    base_seconds = time.perf_counter() - started
    both = ~np.isnan(ours) & ~np.isnan(theirs)
    return {
        "questions": edge.shape[0],
        "seats": seats,
        "replicates": replicates,
        **_figure(median, times, TARGETS["bootstrap"]),
        "baseline": "pandas loop, one replicate at a time (same RandomState stream), groupby per seat; "
        "one run",
        "baseline_median_s": round(base_seconds, 4),
        "baseline_over_ours": round(base_seconds / median, 2),
        "same_degenerate_replicates": bool((np.isnan(ours) == np.isnan(theirs)).all()),
        "max_abs_difference": float(np.abs(ours[both] - theirs[both]).max()) if both.any() else 0.0,
        "intervals_contain_points": bool(
            ((intervals.low <= intervals.point) & (intervals.point <= intervals.high)).all()
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs", type=int, default=5, help="timed runs of each (default 5; the median counts)"
    )
    parser.add_argument("--seed", type=int, default=2026, help="data and bootstrap seed (default 2026)")
    parser.add_argument("--quick", action="store_true", help="small sizes, for the smoke test")
    parser.add_argument(
        "--scores-dir", type=Path, help="where to keep the Parquet files (default: a temp dir)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    sizes = QUICK if args.quick else FULL

    report: dict[str, Any] = {
        "seed": args.seed,
        "runs": args.runs,
        "quick": args.quick,
        "numpy_version": np.__version__,
        "polars_version": pl.__version__,
        "pandas_version": pd.__version__,
        "polars_threads": pl.thread_pool_size(),
        "leaderboard": bench_leaderboard(sizes["leaderboard_answers"], args.seed, args.runs),
        "recompute": bench_recompute(sizes["recompute_days"], args.seed, args.runs, args.scores_dir),
        "bootstrap": bench_bootstrap(sizes["bootstrap_questions"], sizes["replicates"], args.seed, args.runs),
    }
    lead, recompute, boot = report["leaderboard"], report["recompute"], report["bootstrap"]
    ok = (
        all(report[part]["within_target"] for part in TARGETS)
        and lead["baseline_agrees"]
        and lead["same_board_shuffled"]
        and recompute["baseline_agrees"]
        and recompute["same_boards_without_archive"]
        and lead["same_board_from_strings"]
        and boot["same_degenerate_replicates"]
        and boot["intervals_contain_points"]
    )
    report["ok"] = ok
    if args.json:
        print(json.dumps(report))
        return 0 if ok else 1

    def verdict(part: dict[str, Any]) -> str:
        return "within target" if part["within_target"] else "OVER TARGET"

    print(f"scoring benchmark, median of {args.runs} runs, seed {args.seed}, {pl.thread_pool_size()} threads")
    print(f"1. leaderboard_points, {lead['answers']:,} answers; target ≤ {lead['target_s'] * 1000:.0f} ms")
    print(f"   ours (codes as archived)         {lead['median_s'] * 1000:9.1f} ms   {verdict(lead)}")
    print(f"     same rows as plain strings     {lead['string_columns_median_s'] * 1000:9.1f} ms")
    print(f"     same rows shuffled (one run)   {lead['shuffled_rows_s'] * 1000:9.1f} ms")
    floor = lead["one_group_by_floor_s"] * 1000
    print(
        f"     for scale: ONE polars group_by {floor:9.1f} ms   (strings, (kind, seat), 9 sums, nothing else)"
    )
    print(f"   baseline (pandas, per group)     {lead['baseline_median_s'] * 1000:9.1f} ms")
    print(f"   ratio baseline / ours            {lead['baseline_over_ours']:9.2f} ×")
    print(f"   same numbers as the baseline     {'yes' if lead['baseline_agrees'] else 'NO'}")
    print(f"   same board, rows shuffled        {'yes' if lead['same_board_shuffled'] else 'NO'}")
    print(f"   same board from plain strings    {'yes' if lead['same_board_from_strings'] else 'NO'}")
    print(
        f"2. recompute from {recompute['files']:,} Parquet files, {recompute['answers']:,} answers; "
        f"target ≤ {recompute['target_s']:.1f} s"
    )
    print(f"   ours (read + points + calib.)    {recompute['median_s']:9.3f} s    {verdict(recompute)}")
    print(f"     of which: read (archive)       {recompute['read_median_s']:9.3f} s")
    print(f"               leaderboard_points   {recompute['leaderboard_points_median_s']:9.3f} s")
    print(f"               calibration board    {recompute['calibration_median_s']:9.3f} s")
    print(f"     the largest part: {recompute['dominant']}")
    cold = recompute["first_read_building_archive_s"]
    print(f"   first run, building the archive  {cold:9.3f} s    (once; then per changed month)")
    print(f"   without the archive (card files) {recompute['without_archive_s']:9.3f} s")
    same = "yes" if recompute["same_boards_without_archive"] else "NO"
    print(f"   same boards without the archive  {same}")
    base = recompute["baseline_median_s"]
    print(f"   baseline (pandas, one run)       {base:9.3f} s    (files read by polars)")
    print(f"   ratio baseline / ours            {recompute['baseline_over_ours']:9.2f} ×")
    print(f"   same numbers as the baseline     {'yes' if recompute['baseline_agrees'] else 'NO'}")
    print(
        f"3. bootstrap of EDGE, {boot['questions']:,} questions × {boot['seats']} seats, "
        f"{boot['replicates']:,} replicates; target ≤ {boot['target_s']:.1f} s"
    )
    print(f"   ours (exact limb matmul)         {boot['median_s']:9.3f} s    {verdict(boot)}")
    print(f"   baseline (pandas, one run)       {boot['baseline_median_s']:9.3f} s")
    print(f"   ratio baseline / ours            {boot['baseline_over_ours']:9.2f} ×")
    print(f"   max |ours − baseline| replicate  {boot['max_abs_difference']:9.2e}")
    print(f"   same degenerate replicates       {'yes' if boot['same_degenerate_replicates'] else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
