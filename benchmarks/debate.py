"""Debate arena benchmark: the tournament's arithmetic at scale, and one epoch of 64 house miners.

(a) Elo (COMPELLE-ELO-1) replayed from a 200,000-game ``games`` frame, as the epoch's close and
    ``verify`` run it (``ratings.elo_ratings``: sort, encode, the shared sequential Elo, the W/D/L
    and void counts); target ≤ 0.1 s. Baseline beside it: the same arithmetic as a plain Python
    loop over the rows (the way FastChat's ``compute_elo`` iterates), which must agree to 1e-9.
(b) One Swiss round (COMPELLE-SWISS-1) for 256 miners half way through an epoch (scores, ratings,
    side balance, the earlier rounds' meetings): networkx's minimum-weight perfect matching over
    the integer costs, on the banded graph (players at most ``swiss.BAND`` ranks apart); target
    ≤ 0.3 s. Baseline beside it: the same matching over the complete graph, which must give the
    same pairs.
(c) Bradley–Terry (COMPELLE-BT-1) with its 1,999-replicate bootstrap clustered by pair of miners,
    over 50,000 games among 64 miners; target ≤ 2 s. Baseline beside it: the replicates' blocks
    fitted one at a time rather than two at once in threads, which must give the same bits.
(d) One epoch end to end through the real Definitions (``debate_epoch_job``: entries with the
    intent panel, three Swiss rounds of judged games, the title-fight check, the close and its
    seal, the weights set on the local ledger) with 64 house miners on loopback; target ≤ 60 s,
    with each step's time.

Every figure (a–c) is the median of ``--runs`` timed runs after one untimed warm-up; (d) runs once
per ``--epoch-runs``. The load average is printed: the box has 2 cores.

    python benchmarks/debate.py                # all four
    python benchmarks/debate.py --skip-epoch   # (a)-(c) only
    python benchmarks/debate.py --json         # one JSON object, for scripts

Exit status 0 when every target is met and the baselines agree, else 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
from debate_games import played_epoch  # the sibling script: run as `python benchmarks/debate.py`

from colosseum_core.debate import swiss
from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.ratings import DRAW_PENALTY, START, K, elo_ratings
from colosseum_core.debate.strength import bt_strengths
from colosseum_core.debate.swiss import Standing, swiss_round
from colosseum_core.record.layout import Record
from colosseum_core.statistics import clustered_bootstrap

TARGETS = {"elo_s": 0.1, "swiss_s": 0.3, "bt_s": 2.0, "epoch_s": 60.0}
STYLES = (
    "Be brief. One idea per paragraph.",
    "Assert your case with total confidence; attack the premise, never the tone.",
    "Ask the questions your opponent cannot answer.",
    "Argue by analogy: one vivid example per turn.",
    "Answer the strongest claim first, then build your own case in plain words.",
    "Take the opponent's best example and show what it actually proves.",
    "Be thorough: build a comprehensive case on every ground.",
    "Concede with a delta only when truly outargued.",
)


def timed(work: Callable[[], Any], runs: int) -> tuple[float, Any]:
    work()
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def synthetic_games(games: int, miners: int, seed: int) -> pl.DataFrame:
    """Games among ``miners`` of spread strength, 8 % draws, 2 % voids, in epochs of 500 games."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.5, 1.5, miners)
    pro = rng.integers(0, miners, games)
    con = (pro + rng.integers(1, miners, games)) % miners
    p_pro = 1 / (1 + np.exp(strength[con] - strength[pro]))
    roll = rng.random(games)
    status = np.where(roll < 0.02, "void", np.where(roll < 0.10, "draw", "decided"))
    winner = np.where(status != "decided", None, np.where(rng.random(games) < p_pro, "Pro", "Con"))
    keys = np.array([f"miner-{i:03d}@1:{i:064d}" for i in range(miners)])
    index = np.arange(games)
    return pl.DataFrame(
        {
            "epoch": [f"{i // 500:07d}" for i in index],
            "round": (index % 500) // 50 + 1,
            "game_id": [f"{i // 500:07d}-r{(i % 500) // 50 + 1}-g{i % 50:02d}" for i in index],
            "pro_hotkey": [k.split("@")[0] for k in keys[pro]],
            "con_hotkey": [k.split("@")[0] for k in keys[con]],
            "pro_strategy_hash": [k.split(":")[1] for k in keys[pro]],
            "con_strategy_hash": [k.split(":")[1] for k in keys[con]],
            "pro_rating_key": keys[pro],
            "con_rating_key": keys[con],
            "status": status,
            "winner": pl.Series(winner.tolist(), dtype=pl.String),
        }
    )


def loop_elo(games: pl.DataFrame) -> dict[str, float]:
    """The baseline: one Python iteration per game, in (epoch, round, game id) order."""
    ratings: dict[str, float] = {}
    for pro, con, status, winner in (
        games.sort("epoch", "round", "game_id")
        .select("pro_rating_key", "con_rating_key", "status", "winner")
        .iter_rows()
    ):
        ra, rb = ratings.get(pro, START), ratings.get(con, START)
        ratings.setdefault(pro, START)
        ratings.setdefault(con, START)
        if status == "void":
            continue
        score = 0.5 if status == "draw" else (1.0 if winner == "Pro" else 0.0)
        expected = 1 / (1 + 10 ** ((rb - ra) / 400))
        penalty = DRAW_PENALTY if status == "draw" else 0.0
        ratings[pro] = ra + K * (score - expected) - penalty
        ratings[con] = rb + K * ((1 - score) - (1 - expected)) - penalty
    return ratings


def half_way(miners: int, seed: int) -> tuple[list[Standing], frozenset[frozenset[str]]]:
    """256 players after two rounds of an epoch: scores 0–2, spread ratings, side balances, met pairs."""
    rng = np.random.default_rng(seed)
    names = [f"miner-{i:03d}" for i in range(miners)]
    players = [
        Standing(n, float(rng.integers(0, 5)) / 2, float(1000 + rng.normal(0, 120)), int(rng.integers(-3, 4)))
        for n in names
    ]
    order = rng.permutation(miners)
    met = frozenset(frozenset((names[order[i]], names[order[i + 1]])) for i in range(0, miners - 1, 2))
    order = rng.permutation(miners)
    met |= frozenset(frozenset((names[order[i]], names[order[i + 1]])) for i in range(0, miners - 1, 2))
    return players, met


def one_epoch(miners: int) -> dict[str, Any]:
    data, epoch, wall, steps = played_epoch(miners, ("debate_epoch_job",), STYLES)
    tables = Record(data).tables(DEBATE)
    return {
        "wall_s": wall,
        "steps_s": {k: round(v, 2) for k, v in steps.items()},
        "entered": int((tables.read("entries", epoch)["status"] == "entered").sum()),
        "games": tables.read("games", epoch).height,
        "turns": tables.read("turns", epoch).height,
        "judge_calls": tables.read("judge_calls", epoch).height,
        "sealed": Record(data).seals(DEBATE).get(epoch) is not None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--epoch-runs", type=int, default=1)
    parser.add_argument("--miners", type=int, default=64, help="house miners in (d)")
    parser.add_argument("--skip-epoch", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]

    games = synthetic_games(200_000, 64, args.seed)
    elo_s, ours = timed(lambda: elo_ratings(games), args.runs)
    started = time.perf_counter()
    theirs = loop_elo(games)
    loop_s = time.perf_counter() - started
    elo_gap = max(abs(r - theirs[k]) for k, r in ours.ratings.select("rating_key", "rating").iter_rows())

    players, met = half_way(256, args.seed)
    motions = [f"m{i}" for i in range(12)]
    swiss_s, paired = timed(
        lambda: swiss_round(
            "0000100", 3, players, met=met, had_bye=frozenset(), motion_ids=motions, argued={}
        ),
        args.runs,
    )
    band = swiss.BAND
    swiss.BAND = len(players)  # the complete graph
    try:
        complete_s, complete = timed(
            lambda: swiss_round(
                "0000100", 3, players, met=met, had_bye=frozenset(), motion_ids=motions, argued={}
            ),
            max(1, args.runs // 2),
        )
    finally:
        swiss.BAND = band
    same_pairs = sorted(frozenset((g.pro, g.con)) for g in paired.games) == sorted(
        frozenset((g.pro, g.con)) for g in complete.games
    )
    rematches = sum(frozenset((g.pro, g.con)) in met for g in paired.games)

    bt_games = synthetic_games(50_000, 64, args.seed + 1).with_columns(
        status=pl.when(pl.col("status") == "void").then(pl.lit("decided")).otherwise(pl.col("status")),
        winner=pl.when(pl.col("status") == "void").then(pl.lit("Pro")).otherwise(pl.col("winner")),
    )
    bt_s, strengths = timed(lambda: bt_strengths(bt_games, seed=args.seed), max(1, args.runs // 2))
    # Baseline: the replicates' blocks fitted one at a time, which must give the same bits.
    threads = clustered_bootstrap.FIT_THREADS
    clustered_bootstrap.FIT_THREADS = 1
    try:
        bt_one_s, alone = timed(lambda: bt_strengths(bt_games, seed=args.seed), max(1, args.runs // 2))
    finally:
        clustered_bootstrap.FIT_THREADS = threads
    bt_same = strengths.table.equals(alone.table)

    report: dict[str, Any] = {
        "elo_s": round(elo_s, 4),
        "elo_loop_baseline_s": round(loop_s, 3),
        "elo_speedup": round(loop_s / elo_s, 1),
        "elo_max_abs_diff_vs_loop": elo_gap,
        "swiss_s": round(swiss_s, 4),
        "swiss_complete_graph_baseline_s": round(complete_s, 4),
        "swiss_same_pairs_as_complete": same_pairs,
        "swiss_games": len(paired.games),
        "swiss_rematches": rematches,
        "bt_s": round(bt_s, 3),
        "bt_one_thread_baseline_s": round(bt_one_s, 3),
        "bt_same_as_one_thread": bt_same,
        "bt_replicates": strengths.record.get("replicates"),
        "bt_clusters": strengths.record.get("clusters"),
    }
    if not args.skip_epoch:
        epochs = [one_epoch(args.miners) for _ in range(args.epoch_runs)]
        report["epoch_s"] = round(statistics.median(e["wall_s"] for e in epochs), 2)
        report["epoch"] = epochs[-1]
    report["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    met_targets = {k: report[k] <= t for k, t in TARGETS.items() if k in report}
    agree = elo_gap <= 1e-9 and rematches == 0 and same_pairs and bt_same
    if args.json:
        print(json.dumps({**report, "targets": TARGETS, "met": met_targets, "agree": agree}))
    else:
        print(f"load average {report['load_average'][0]} before, {report['load_average'][1]} after (2 cores)")
        print(
            f"(a) Elo over 200,000 games: {elo_s:.3f} s (target ≤ {TARGETS['elo_s']} s); Python loop "
            f"{loop_s:.2f} s ({report['elo_speedup']}×), max |Δ| {elo_gap:.2e}"
        )
        print(
            f"(b) Swiss round, 256 miners: {swiss_s:.3f} s (target ≤ {TARGETS['swiss_s']} s); complete "
            f"graph {complete_s:.3f} s ({complete_s / swiss_s:.1f}×), same pairs {same_pairs}; "
            f"{len(paired.games)} games, {rematches} rematches"
        )
        print(
            f"(c) Bradley–Terry + 1,999-replicate clustered bootstrap, 50,000 games: {bt_s:.2f} s "
            f"(target ≤ {TARGETS['bt_s']} s), {report['bt_clusters']} clusters; blocks fitted one at a "
            f"time {bt_one_s:.2f} s ({bt_one_s / bt_s:.1f}×), same bits {bt_same}"
        )
        if "epoch" in report:
            e = report["epoch"]
            print(
                f"(d) one epoch, {args.miners} house miners: {report['epoch_s']:.1f} s (target ≤ "
                f"{TARGETS['epoch_s']:.0f} s): {e['entered']} entered, {e['games']} games, "
                f"{e['turns']} turns, "
                f"{e['judge_calls']} judge calls, sealed {e['sealed']}"
            )
            for step, took in e["steps_s"].items():
                print(f"      {step:<26} {took:6.2f} s")
    return 0 if all(met_targets.values()) and agree else 1


if __name__ == "__main__":
    sys.exit(main())
