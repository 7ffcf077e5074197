"""Smoke test of ``benchmarks/card.py``: a small board's card, each run in a fresh process of its own,
its check read in a separate process, timed per step, the same packet every run, and the memory of the
card with that process beside it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import REPO

STEPS = {"raw_sweep", "verbatim_markets", "card_status", "sealed_card", "answer_card", "duckdb_catalog"}


@pytest.mark.slow
def test_the_card_benchmark_times_every_step_and_counts_the_check_process() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "card.py"),
            *("--markets", "400", "--runs", "2", "--no-warmup", "--json", "--check-aside-from-pages", "1"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.stdout, done.stderr
    report = json.loads(done.stdout)
    assert report["same_packet_every_run"] and len(report["packet_id"]) == 64
    assert set(report["steps_median_s"]) == STEPS and all(s > 0 for s in report["steps_median_s"].values())
    assert report["check_aside_from_pages"] == 1 and report["check_process_peak_mb"] > 0
    # Each run's peak is its own process's: two runs, two peaks, and the figure is the larger.
    assert report["run_processes"] == "a fresh process for each run"
    assert len(report["peak_rss_mb_each"]) == 2 and all(p > 0 for p in report["peak_rss_mb_each"])
    assert report["own_peak_rss_mb"] == round(max(report["peak_rss_mb_each"]), 1)
    if sys.platform == "linux":
        # Sampled: this process and its check process together, at least this process alone at times.
        assert report["card_with_check_peak_mb"] > 0
        assert report["peak_rss_mb"] == max(report["own_peak_rss_mb"], report["card_with_check_peak_mb"])
    # No targets at this size: the exit status says every run succeeded with the same packet.
    assert report["targets"] == {} and done.returncode == 0
