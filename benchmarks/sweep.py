"""Sweep benchmark: a 20,000-market board from the simulated exchange, rate-limited to 300 req / 10 s.

Prints, for the project's client (end-date slices paged concurrently, ≤ 4 in flight) and for a
baseline run side by side (one slice, one request at a time, the plain keyset walk), the wall
time, the request count, the rate-limit floor (requests × 10 s / 300) and the ratio to it.
Target: the project's client within 1.2× of the floor.

    python benchmarks/sweep.py                 # defaults: ~20,000 markets in the window
    python benchmarks/sweep.py --json          # one JSON object per run, for scripts
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from colosseum_core.exchanges.polymarket.client import SweepSettings
from colosseum_core.forecast.schedule import SWEEP_HORIZON
from colosseum_core.forecast.sweep.card_sweep import run_sweep
from colosseum_core.record import ReceiptStore
from colosseum_standins.loopback import wait_until_answering

AT = dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC)


@contextlib.contextmanager
def exchange_process(markets: int, faults: str) -> Iterator[str]:
    """The simulated exchange as its own process, as in production: it must not share our GIL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "colosseum_dagster.cli", "exchange", "serve", "--port", str(port)]
    command += ["--seed", "2026", "--markets", str(markets), "--faults", faults]
    proc = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(url + "/status", timeout_s=60, alive=lambda: proc.poll() is None)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def sweep_once(base_url: str, shards: int, in_flight: int, store_root: Path) -> dict:
    settings = SweepSettings(base_url=base_url, shards=shards, max_in_flight=in_flight, timeout_s=60)
    started = time.perf_counter()
    result = asyncio.run(
        run_sweep(
            settings,
            ReceiptStore(store_root),
            as_of=AT,
            window=(AT, AT + SWEEP_HORIZON),
            clock=lambda: dt.datetime.now(dt.UTC),
            rng=random.Random(0),
        )
    )
    return {"seconds": time.perf_counter() - started, "result": result}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--markets", type=int, default=27_000, help="open markets on the board")
    parser.add_argument("--rate", default="300/10", help="rate limit, requests/seconds")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    limit, per = (float(x) for x in args.rate.split("/"))

    runs = [("colosseum (4 slices, ≤4 in flight)", 4, 4)]
    if not args.no_baseline:
        runs.append(("baseline (1 slice, 1 in flight)", 1, 1))
    with exchange_process(args.markets, f"ratelimit:rate={args.rate}") as url:
        # Warm the board for this instant so board generation is not charged to the first run.
        sweep_once(url, 4, 4, Path(tempfile.mkdtemp()))
        time.sleep(per)  # let the rate limiter's window drain
        rows = []
        for name, shards, in_flight in runs:
            with tempfile.TemporaryDirectory() as tmp:
                run = sweep_once(url, shards, in_flight, Path(tmp))
            result = run["result"]
            floor = result.requests * per / limit
            rows.append(
                {
                    "run": name,
                    "complete": result.complete,
                    "markets": len(result.markets),
                    "pages": result.pages,
                    "requests": result.requests,
                    "seconds": round(run["seconds"], 3),
                    "floor_seconds": round(floor, 3),
                    "ratio_to_floor": round(run["seconds"] / floor, 3),
                }
            )
            time.sleep(per)
    if args.json:
        for row in rows:
            print(json.dumps(row))
    else:
        print(f"board ~{args.markets} open markets, rate limit {args.rate} s; target ratio ≤ 1.2")
        for row in rows:
            print(
                f"  {row['run']:<36} {row['markets']:>6} markets  {row['requests']:>4} requests  "
                f"{row['seconds']:>7.2f} s  floor {row['floor_seconds']:>6.2f} s  "
                f"ratio {row['ratio_to_floor']:.2f}"
                f"{'' if row['complete'] else '  PARTIAL'}"
            )
    return 0 if all(r["complete"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
