"""Smoke test of ``benchmarks/ratings.py``: the quick sizes run, agree with every reference, and report."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support import REPO


def test_the_ratings_benchmark_runs_and_agrees() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "ratings.py"),
            "--quick",
            "--json",
            "--runs",
            "1",
            "--baseline-replicates",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.stdout, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and done.returncode == 0
    bt, dv, elo = report["bradley_terry"], report["davidson"], report["elo"]
    assert bt["max_abs_elo_vs_solved_mle"] < 1e-6 and bt["baseline_scaled"]
    assert bt["max_abs_elo_vs_baseline"] < 0.5  # sklearn stops at tol 1e-6
    assert dv["max_abs_elo_vs_solved_mle"] < 1e-6 and abs(dv["nu"] - dv["true_nu"]) < 0.05
    assert elo["max_abs_vs_fastchat_k4_no_penalty"] < 1e-9
    assert bt["degenerate"] == dv["degenerate"] == 0
