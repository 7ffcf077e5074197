"""Smoke test of ``benchmarks/verify.py``: a tiny record of each unit generates, verifies clean, is cached."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl

from tests.support import REPO


def _run(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "verify.py"), "--json", "--workers", "1", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.stdout, done.stderr
    return json.loads(done.stdout)


def test_the_verify_benchmark_counts_answers_as_seat_by_question(tmp_path: Path) -> None:
    report = _run("--answers", "400", "--dir", str(tmp_path))
    # 400 answers: two cards of 13 seats × 25 questions, each seat record signed twice.
    assert report["unit"] == "answer" and report["cards"] == 2
    assert report["answers"] == report["answer_lines"] == 650
    assert report["seat_records"] == 26 and report["signatures"] == 52
    assert report["problems"] == 0 and report["complete"], report["first_problems"]
    assert report["files"] == 8 and report["generated_s"] > 0
    warehouse = tmp_path / "answer" / "data" / "warehouse" / "forecast"
    lines = pl.read_parquet(next((warehouse / "answer_lines").glob("card=*/data.parquet")))
    assert lines.height == 325 and lines["id"].n_unique() == 325

    again = _run("--answers", "400", "--dir", str(tmp_path))
    assert again["generated_s"] == 0 and again["problems"] == 0


def test_the_verify_benchmark_keeps_the_seat_record_unit(tmp_path: Path) -> None:
    report = _run("--unit", "record", "--answers", "26", "--dir", str(tmp_path))
    assert report["unit"] == "record" and report["cards"] == 2
    assert report["answers"] == report["seat_records"] == 26 and report["answer_lines"] == 0
    assert report["signatures"] == 52 and report["files"] == 6
    assert report["problems"] == 0 and report["complete"], report["first_problems"]
    assert (tmp_path / "record" / "BENCH.json").exists() and not (tmp_path / "answer").exists()
