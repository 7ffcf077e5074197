"""Ratings benchmark: the shared ratings library against FastChat's methods, side by side, one run.

Synthetic data, seeded: 30 entrants with spread strengths (θ evenly from −2 to 2 nats), 200,000
games as 100,000 side-swapped pairs (the same two entrants, sides exchanged: the bootstrap
cluster), outcomes drawn from the Davidson model with ν = 0.26 (about 9 % draws).

(a) Bradley–Terry (draw = ½ win) point fit + a 100-replicate cluster bootstrap, timed from the
    game arrays (``clustered_games`` then ``bradley_terry_intervals``); target ≤ 0.2 s and ≥ 25×
    the baseline. Baseline: FastChat's ``compute_mle_elo`` (``fastchat/serve/monitor/
    elo_analysis.py``, lm-sys/FastChat, Apache-2.0, as in its Dec 2023 leaderboard notebook and
    the analysis scripts built on it), reproduced faithfully: pandas ``pivot_table`` of a-wins,
    b-wins and ties, the pair table doubled (a win counts 2, a tie 1 each way), one row per
    ordered pair, scikit-learn ``LogisticRegression(fit_intercept=False, tol=1e-6)`` without a
    penalty (``penalty=None`` in FastChat; here ``C=inf``, its non-deprecated spelling), and its
    bootstrap ``get_bootstrap_result``: per round ``battles.sample(frac=1.0, replace=True)``
    (games resampled one by one, not clusters) and a refit. The baseline's per-round time is
    taken over ``--baseline-replicates`` rounds (default 20) and scaled to 100, and says so.
    (FastChat's file at commit 0060644 fits its plain Bradley–Terry path with scipy L-BFGS,
    ``fit_bt``, and a multinomial bootstrap instead; the sklearn pivot is what ``compute_mle_elo``
    and its callers run, and is the baseline here.)
    Agreement: max |Δ Elo| of our point fit against a fully solved MLE (choix's ILSR on the
    doubled counts to tol 1e-13, an independent implementation), and against the baseline's
    point fit (whose tol 1e-6 is worth a few hundredths of an Elo point); target ≤ 0.01 against
    the solved MLE.
(b) Davidson point fit + the same 100-replicate cluster bootstrap (ratings and ν); target ≤ 0.3 s.
    Nothing off the shelf does this; the agreement is against a direct scipy maximisation of
    the per-pair Davidson likelihood.
(c) Sequential Elo over the 200,000 games in order (K = 32, start 1000, draw penalty 1.6);
    target ≤ 0.1 s. Baseline: FastChat's ``compute_elo`` (pandas ``itertuples`` loop); with
    K = 4 and no penalty ours must reproduce it, max |Δ| reported (target ≤ 1e-9).

Every figure is the median of ``--runs`` timed runs after one untimed warm-up. The machine's
load average is printed before and after: the box has 2 cores, and other work on them slows
every figure (ours and the baselines alike).

    python benchmarks/ratings.py                              # full sizes, 5 runs
    python benchmarks/ratings.py --runs 9 --seed 7            # more runs, other data
    python benchmarks/ratings.py --baseline-replicates 100    # the whole baseline bootstrap (≈ 30 s)
    python benchmarks/ratings.py --quick --json               # small sizes, one JSON object

Exit status 0 when every target is met and every agreement holds, else 1. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import defaultdict
from typing import Any

import choix
import numpy as np
import pandas as pd
import scipy
import sklearn
from scipy.optimize import minimize, root
from sklearn.linear_model import LogisticRegression
from timing import median_seconds

from colosseum_core.statistics.bootstrap import BootstrapSpec
from colosseum_core.statistics.bradley_terry import ELO_PER_NAT
from colosseum_core.statistics.clustered_bootstrap import (
    bradley_terry_intervals,
    clustered_games,
    davidson_intervals,
)
from colosseum_core.statistics.elo import sequential_elo
from colosseum_core.statistics.pairwise import A_WON, B_WON, DRAW, PairCounts, pair_counts

FULL = {"entrants": 30, "pairs": 100_000, "replicates": 100}
QUICK = {"entrants": 8, "pairs": 2_000, "replicates": 20}
TARGETS = {"bt_s": 0.2, "bt_speedup": 25.0, "davidson_s": 0.3, "elo_s": 0.1}
AGREEMENT = {"bt_vs_mle_elo": 0.01, "davidson_vs_mle_elo": 0.01, "elo_vs_fastchat": 1e-9}
NU = 0.26
CLUSTERS = "game pair: the same two entrants, sides swapped"
WINNER = np.array(["model_b", "tie", "model_a"])  # FastChat's labels by our outcome code


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Data


def synthetic(entrants: int, pairs: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    strength = np.linspace(-2.0, 2.0, entrants)
    a = rng.integers(0, entrants, pairs)
    b = (a + rng.integers(1, entrants, pairs)) % entrants
    first, second = np.concatenate([a, b]), np.concatenate([b, a])
    half = (strength[first] - strength[second]) / 2
    win, loss = np.exp(half), np.exp(-half)
    total = win + loss + NU
    u = rng.random(2 * pairs)
    outcome = np.where(u < win / total, A_WON, np.where(u < (win + NU) / total, DRAW, B_WON))
    # Recorded order: the pairs interleaved, each pair's two games one after the other.
    order = np.arange(2 * pairs).reshape(2, pairs).T.ravel()
    cluster = np.concatenate([np.arange(pairs), np.arange(pairs)])
    return {"a": first[order], "b": second[order], "outcome": outcome[order], "cluster": cluster[order]}


def battles_frame(data: dict[str, np.ndarray]) -> pd.DataFrame:
    names = np.array([f"model-{i:02d}" for i in range(int(max(data["a"].max(), data["b"].max())) + 1)])
    return pd.DataFrame(
        {"model_a": names[data["a"]], "model_b": names[data["b"]], "winner": WINNER[data["outcome"]]}
    )


# --------------------------------------------------------------------------------------------
# FastChat, reproduced (Apache-2.0, lm-sys/FastChat fastchat/serve/monitor/elo_analysis.py)


def compute_mle_elo(
    df: pd.DataFrame, scale: float = 400, base: float = 10, init_rating: float = 1000
) -> pd.Series:
    ptbl_a_win = pd.pivot_table(
        df[df["winner"] == "model_a"], index="model_a", columns="model_b", aggfunc="size", fill_value=0
    )
    if sum(df["winner"].isin(["tie", "tie (bothbad)"])) == 0:
        ptbl_tie = pd.DataFrame(0, index=ptbl_a_win.index, columns=ptbl_a_win.columns)
    else:
        ptbl_tie = pd.pivot_table(
            df[df["winner"].isin(["tie", "tie (bothbad)"])],
            index="model_a",
            columns="model_b",
            aggfunc="size",
            fill_value=0,
        )
        ptbl_tie = ptbl_tie + ptbl_tie.T
    ptbl_b_win = pd.pivot_table(
        df[df["winner"] == "model_b"], index="model_a", columns="model_b", aggfunc="size", fill_value=0
    )
    ptbl_win = ptbl_a_win * 2 + ptbl_b_win.T * 2 + ptbl_tie
    models = pd.Series(np.arange(len(ptbl_win.index)), index=ptbl_win.index)
    p = len(models)
    x = np.zeros([p * (p - 1) * 2, p])
    y = np.zeros(p * (p - 1) * 2)
    cur_row = 0
    sample_weights = []
    for m_a in ptbl_win.index:
        for m_b in ptbl_win.columns:
            if m_a == m_b:
                continue
            if math.isnan(ptbl_win.loc[m_a, m_b]) or math.isnan(ptbl_win.loc[m_b, m_a]):
                continue
            x[cur_row, models[m_a]] = +math.log(base)
            x[cur_row, models[m_b]] = -math.log(base)
            y[cur_row] = 1.0
            sample_weights.append(ptbl_win.loc[m_a, m_b])
            x[cur_row + 1, models[m_a]] = math.log(base)
            x[cur_row + 1, models[m_b]] = -math.log(base)
            y[cur_row + 1] = 0.0
            sample_weights.append(ptbl_win.loc[m_b, m_a])
            cur_row += 2
    x = x[:cur_row]
    y = y[:cur_row]
    lr = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-6)
    lr.fit(x, y, sample_weight=sample_weights)
    elo_scores = scale * lr.coef_[0] + init_rating
    return pd.Series(elo_scores, index=models.index).sort_values(ascending=False)


def get_bootstrap_result(battles: pd.DataFrame, num_round: int, seed: int) -> pd.DataFrame:
    np.random.seed(seed)  # FastChat seeds the global stream once in its __main__
    rows = [compute_mle_elo(battles.sample(frac=1.0, replace=True)) for _ in range(num_round)]
    frame = pd.DataFrame(rows)
    return frame[frame.median().sort_values(ascending=False).index]


def compute_elo(
    battles: pd.DataFrame, k: float = 4, scale: float = 400, base: float = 10
) -> dict[str, float]:
    rating: defaultdict[str, float] = defaultdict(lambda: 1000.0)
    for _, model_a, model_b, winner in battles[["model_a", "model_b", "winner"]].itertuples():
        ra, rb = rating[model_a], rating[model_b]
        ea = 1 / (1 + base ** ((rb - ra) / scale))
        eb = 1 / (1 + base ** ((ra - rb) / scale))
        sa = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5}[winner]
        rating[model_a] += k * (sa - ea)
        rating[model_b] += k * (1 - sa - eb)
    return dict(rating)


# --------------------------------------------------------------------------------------------
# Fully solved references


def solved_bradley_terry(counts: PairCounts) -> np.ndarray:
    comparisons = (2 * counts.wins + counts.draws).astype(float)  # a draw = half a win, doubled
    theta = choix.ilsr_pairwise_dense(comparisons, alpha=0.0, tol=1e-13, max_iter=10_000)
    return 1000 + ELO_PER_NAT * (theta - theta.mean())


def solved_davidson(counts: PairCounts) -> tuple[np.ndarray, float]:
    """scipy on the per-pair Davidson likelihood in (θ_1.., λ), θ_0 = 0; BFGS, then its score equations."""
    p = counts.entrants
    first, second = np.triu_indices(p, 1)
    won, lost, t = counts.wins[first, second], counts.wins[second, first], counts.draws[first, second]

    def loss(free: np.ndarray) -> tuple[float, np.ndarray]:
        theta = np.concatenate([[0.0], free[:-1]])
        lam = free[-1]
        ti, tj = theta[first], theta[second]
        terms = np.stack([ti, tj, lam + (ti + tj) / 2])
        log_d = np.logaddexp.reduce(terms, axis=0)
        value = -(won * (ti - log_d) + lost * (tj - log_d) + t * (terms[2] - log_d)).sum()
        pi, pj, pd_ = np.exp(terms - log_d)
        n = won + lost + t
        grad = np.zeros(p)
        np.add.at(grad, first, -(won + t / 2 - n * (pi + pd_ / 2)))
        np.add.at(grad, second, -(lost + t / 2 - n * (pj + pd_ / 2)))
        return float(value), np.concatenate([grad[1:], [-(t - n * pd_).sum()]])

    start = minimize(loss, np.zeros(p), jac=True, method="BFGS", options={"gtol": 1e-8}).x
    solution = root(lambda x: loss(x)[1], start, method="hybr", options={"xtol": 1e-15}).x
    theta = np.concatenate([[0.0], solution[:-1]])
    return 1000 + ELO_PER_NAT * (theta - theta.mean()), float(math.exp(solution[-1]))


# --------------------------------------------------------------------------------------------
# The three parts


def bench_bradley_terry(
    data: dict[str, np.ndarray], replicates: int, baseline_rounds: int, seed: int, runs: int
) -> dict[str, Any]:
    p = int(max(data["a"].max(), data["b"].max())) + 1
    spec = BootstrapSpec(seed=seed, replicates=replicates)

    def ours() -> Any:
        games = clustered_games(data["a"], data["b"], data["outcome"], data["cluster"], p)
        return bradley_terry_intervals(games, spec, CLUSTERS)

    log("(a) ours: Bradley–Terry + cluster bootstrap")
    median, times, result = median_seconds(ours, runs)
    games = clustered_games(data["a"], data["b"], data["outcome"], data["cluster"], p)
    group_s, _, _ = median_seconds(
        lambda: clustered_games(data["a"], data["b"], data["outcome"], data["cluster"], p), runs
    )
    boot_s, _, _ = median_seconds(lambda: bradley_terry_intervals(games, spec, CLUSTERS), runs)
    counts = pair_counts(data["a"], data["b"], data["outcome"], p)
    solved = solved_bradley_terry(counts)

    battles = battles_frame(data)
    log("(a) baseline: FastChat compute_mle_elo, point fit")
    base_point_s, _, base_point = median_seconds(lambda: compute_mle_elo(battles), max(1, min(runs, 3)))
    log(f"(a) baseline: FastChat bootstrap, {baseline_rounds} rounds")
    started = time.perf_counter()
    base_boot = get_bootstrap_result(battles, baseline_rounds, seed)
    base_rounds_s = time.perf_counter() - started
    base_boot_s = base_rounds_s * replicates / baseline_rounds
    names = [f"model-{i:02d}" for i in range(p)]
    base_ratings = base_point.reindex(names).to_numpy()
    base_ratings = base_ratings - base_ratings.mean() + 1000  # the same gauge as ours
    base_total = base_point_s + base_boot_s
    width = result.high - result.low
    base_width = (base_boot.quantile(0.975) - base_boot.quantile(0.025)).reindex(names).to_numpy()
    return {
        "entrants": p,
        "games": int(data["a"].shape[0]),
        "clusters": games.clusters,
        "types": games.types,
        "replicates": replicates,
        "median_s": median,
        "times_s": times,
        "grouping_median_s": group_s,
        "bootstrap_median_s": boot_s,
        "target_s": TARGETS["bt_s"],
        "degenerate": result.degenerate,
        "baseline_point_s": base_point_s,
        "baseline_rounds_timed": baseline_rounds,
        "baseline_rounds_s": base_rounds_s,
        "baseline_bootstrap_s": base_boot_s,
        "baseline_scaled": baseline_rounds != replicates,
        "baseline_s": base_total,
        "baseline_over_ours": base_total / median,
        "target_speedup": TARGETS["bt_speedup"],
        "max_abs_elo_vs_solved_mle": float(np.abs(result.ratings - solved).max()),
        "max_abs_elo_vs_baseline": float(np.abs(result.ratings - base_ratings).max()),
        "median_interval_width": float(np.median(width)),
        "baseline_median_interval_width": float(np.median(base_width)),
        "within_target": median <= TARGETS["bt_s"] and base_total / median >= TARGETS["bt_speedup"],
        "agrees": float(np.abs(result.ratings - solved).max()) <= AGREEMENT["bt_vs_mle_elo"],
    }


def bench_davidson(data: dict[str, np.ndarray], replicates: int, seed: int, runs: int) -> dict[str, Any]:
    p = int(max(data["a"].max(), data["b"].max())) + 1
    spec = BootstrapSpec(seed=seed, replicates=replicates)

    def ours() -> Any:
        games = clustered_games(data["a"], data["b"], data["outcome"], data["cluster"], p)
        return davidson_intervals(games, spec, CLUSTERS)

    log("(b) ours: Davidson + cluster bootstrap")
    median, times, result = median_seconds(ours, runs)
    solved, nu = solved_davidson(pair_counts(data["a"], data["b"], data["outcome"], p))
    return {
        "replicates": replicates,
        "median_s": median,
        "times_s": times,
        "target_s": TARGETS["davidson_s"],
        "nu": result.point.nu,
        "nu_interval": [result.nu_low, result.nu_high],
        "true_nu": NU,
        "degenerate": result.degenerate,
        "max_abs_elo_vs_solved_mle": float(np.abs(result.ratings - solved).max()),
        "nu_vs_solved_mle": abs(result.point.nu - nu),
        "within_target": median <= TARGETS["davidson_s"],
        "agrees": float(np.abs(result.ratings - solved).max()) <= AGREEMENT["davidson_vs_mle_elo"],
    }


def bench_elo(data: dict[str, np.ndarray], runs: int) -> dict[str, Any]:
    p = int(max(data["a"].max(), data["b"].max())) + 1
    a, b, o = data["a"], data["b"], data["outcome"]
    log("(c) ours: sequential Elo")
    median, times, result = median_seconds(
        lambda: sequential_elo(a, b, o, entrants=p, k=32.0, start=1000.0, draw_penalty=1.6), runs
    )
    battles = battles_frame(data)
    log("(c) baseline: FastChat compute_elo")
    base_s, _, theirs = median_seconds(lambda: compute_elo(battles), max(1, min(runs, 3)))
    parity = sequential_elo(a, b, o, entrants=p, k=4.0, start=1000.0, draw_penalty=0.0)
    names = [f"model-{i:02d}" for i in range(p)]
    difference = float(np.abs(parity.ratings - np.array([theirs[name] for name in names])).max())
    return {
        "games": int(a.shape[0]),
        "median_s": median,
        "times_s": times,
        "target_s": TARGETS["elo_s"],
        "draws": int((o == DRAW).sum()),
        "pool_drift": float(result.ratings.sum() - 1000.0 * p),
        "baseline_s": base_s,
        "baseline_over_ours": base_s / median,
        "max_abs_vs_fastchat_k4_no_penalty": difference,
        "within_target": median <= TARGETS["elo_s"],
        "agrees": difference <= AGREEMENT["elo_vs_fastchat"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs", type=int, default=5, help="timed runs of each (default 5; the median counts)"
    )
    parser.add_argument("--seed", type=int, default=2026, help="data and bootstrap seed (default 2026)")
    parser.add_argument(
        "--baseline-replicates",
        type=int,
        default=20,
        help="baseline bootstrap rounds actually run, scaled to the replicate count (default 20)",
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for the smoke test")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.baseline_replicates < 1:
        parser.error("--baseline-replicates must be at least 1")
    sizes = QUICK if args.quick else FULL
    data = synthetic(sizes["entrants"], sizes["pairs"], args.seed)
    rounds = min(args.baseline_replicates, sizes["replicates"])
    load_before = os.getloadavg()
    report: dict[str, Any] = {
        "seed": args.seed,
        "cpus": os.cpu_count(),
        "runs": args.runs,
        "quick": args.quick,
        "numpy_version": np.__version__,
        "scipy_version": scipy.__version__,
        "sklearn_version": sklearn.__version__,
        "pandas_version": pd.__version__,
        "bradley_terry": bench_bradley_terry(data, sizes["replicates"], rounds, args.seed, args.runs),
        "davidson": bench_davidson(data, sizes["replicates"], args.seed, args.runs),
        "elo": bench_elo(data, args.runs),
    }
    report["load_average_before"] = list(load_before)
    report["load_average_after"] = list(os.getloadavg())
    parts = ("bradley_terry", "davidson", "elo")
    # Quick sizes are for the smoke test: their times mean nothing against full-size targets.
    ok = all(report[part]["agrees"] for part in parts) and (
        args.quick or all(report[part]["within_target"] for part in parts)
    )
    report["ok"] = ok
    if args.json:
        print(json.dumps(report))
        return 0 if ok else 1

    def verdict(part: dict[str, Any]) -> str:
        return "within target" if part["within_target"] else "OVER TARGET"

    def best(part: dict[str, Any]) -> str:
        return f"  (best run {min(part['times_s']):.3f} s)"

    bt, dv, elo = report["bradley_terry"], report["davidson"], report["elo"]
    print(
        f"ratings benchmark, median of {args.runs} runs, seed {args.seed}, {report['cpus']} cpus, "
        f"load average {report['load_average_before'][0]:.2f} before, "
        f"{report['load_average_after'][0]:.2f} after"
    )
    print(
        f"(a) Bradley–Terry + {bt['replicates']}-replicate cluster bootstrap, {bt['entrants']} entrants, "
        f"{bt['games']:,} games in {bt['clusters']:,} pairs ({bt['types']:,} types); "
        f"target ≤ {bt['target_s']:.1f} s and ≥ {bt['target_speedup']:.0f}×"
    )
    print(f"   ours, from the game arrays       {bt['median_s']:9.3f} s    {verdict(bt)}{best(bt)}")
    print(f"     of which: grouping clusters    {bt['grouping_median_s']:9.3f} s")
    print(f"               point + bootstrap    {bt['bootstrap_median_s']:9.3f} s")
    scaled = (
        f"{bt['baseline_rounds_timed']} rounds in {bt['baseline_rounds_s']:.1f} s, "
        f"scaled to {bt['replicates']}"
        if bt["baseline_scaled"]
        else f"all {bt['replicates']} rounds run"
    )
    print(f"   baseline (FastChat sklearn)      {bt['baseline_s']:9.3f} s    ({scaled})")
    print(f"     of which: point fit            {bt['baseline_point_s']:9.3f} s")
    print(f"   ratio baseline / ours            {bt['baseline_over_ours']:9.1f} ×")
    print(f"   max |Δ Elo| vs solved MLE        {bt['max_abs_elo_vs_solved_mle']:9.2e}")
    print(f"   max |Δ Elo| vs baseline's point  {bt['max_abs_elo_vs_baseline']:9.2e}   (sklearn tol 1e-6)")
    print(
        f"   median 95 % width, ours / base   {bt['median_interval_width']:9.2f} / "
        f"{bt['baseline_median_interval_width']:.2f}   (pairs resampled vs single games, "
        f"the baseline's from {bt['baseline_rounds_timed']} rounds)"
    )
    print(f"   degenerate replicates            {bt['degenerate']:9d}")
    print(f"(b) Davidson + {dv['replicates']}-replicate cluster bootstrap; target ≤ {dv['target_s']:.1f} s")
    print(f"   ours, from the game arrays       {dv['median_s']:9.3f} s    {verdict(dv)}{best(dv)}")
    print(
        f"   ν = {dv['nu']:.4f}, 95 % [{dv['nu_interval'][0]:.4f}, {dv['nu_interval'][1]:.4f}] "
        f"(simulated {dv['true_nu']})"
    )
    print(f"   max |Δ Elo| vs solved MLE        {dv['max_abs_elo_vs_solved_mle']:9.2e}   (scipy)")
    print(f"   degenerate replicates            {dv['degenerate']:9d}")
    print(
        f"(c) sequential Elo, {elo['games']:,} games, K = 32, penalty 1.6; target ≤ {elo['target_s']:.1f} s"
    )
    print(f"   ours                             {elo['median_s']:9.3f} s    {verdict(elo)}{best(elo)}")
    print(f"   baseline (FastChat compute_elo)  {elo['baseline_s']:9.3f} s")
    print(f"   ratio baseline / ours            {elo['baseline_over_ours']:9.1f} ×")
    print(f"   max |Δ| vs FastChat (K 4, no penalty) {elo['max_abs_vs_fastchat_k4_no_penalty']:.2e}")
    print(f"   pool drift from {elo['draws']:,} draws  {elo['pool_drift']:11.1f}   (−3.2 a draw)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
