"""Timing shared by the benchmark scripts."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def median_seconds(run: Callable[[], Any], runs: int) -> tuple[float, list[float], Any]:
    """The median wall time of ``runs`` calls of ``run`` after one untimed warm-up call (first-call
    costs such as imports, thread pools, regex compilation and the file cache are not the steady
    state), every time, and the last result."""
    result = run()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), times, result
