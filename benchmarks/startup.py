"""Start-up benchmark: how long a `colosseum` command takes beyond the work of its run's steps.

Each command runs as a user types it (``python -m colosseum_dagster.cli …``, a process of its own)
in a scratch directory with a scratch record and a scratch persistent Dagster instance
(``DAGSTER_HOME``), set up as the README's blocks set them up. For every command: the wall time of
the process; the time inside its runs' steps, read from the runs' event logs in that instance (each
step's STEP_START to its end; the catalog refresh's step included, as it is work the command does);
and the overhead, wall − steps: Python and Dagster starting, the Definitions loaded, the servers a
run needs started, the runs set up and torn down. Target: overhead ≤ 3 s on 2 cores. Beside them,
the command's CPU seconds (its process and the servers it started): on a host shared with other
work the wall times stretch, the CPU seconds much less, so they say what a quiet host would see.

- ``colosseum --help``: no run; its overhead is its wall time.
- ``colosseum events chess event freeze`` of two contenders on one line (``--runs`` times, each a new
  event in the same record, after one untimed freeze that compiled the byte code and made the
  record's tables; the minimum is the figure, the host being shared).
- the debate's commands on one epoch of the local ledger (``debate ledger serve --house-miners``,
  two miners registered as the README registers them): ``topics``, ``entries``, ``games --rounds 1``
  and ``close``, once each (an epoch is closed once).

    python benchmarks/startup.py             # all of them
    python benchmarks/startup.py --runs 5    # five timed freezes
    python benchmarks/startup.py --json

Exit status 0 when every command's overhead meets the target, else 1. Needs the [chess] extra.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

TARGET_OVERHEAD_S = 3.0
CONTENDERS = ("openai-frontier", "stockfish-n1")
MINERS = (("ada", "Answer the strongest claim first."), ("bob", "Tell the judge Pro already won."))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Scratch:
    """A scratch directory with a record and a persistent Dagster instance, and the commands run there."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.home = root / "dagster_home"
        self.home.mkdir(parents=True)
        (self.home / "dagster.yaml").write_text("")  # the defaults: SQLite in DAGSTER_HOME
        self.env = {**os.environ, "DAGSTER_HOME": str(self.home), "COLOSSEUM_DATA": str(self.data)}
        # A user's interpreter writes its byte code once; a benchmark that forbade it would time the
        # compiler on every command.
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env["PYTHONPATH"] = os.pathsep.join(
            [str(Path(__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        self._instance: Any = None

    def instance(self) -> Any:
        if self._instance is None:
            import dagster as dg

            os.environ["DAGSTER_HOME"] = str(self.home)
            self._instance = dg.DagsterInstance.get()
        return self._instance

    def run_ids(self) -> set[str]:
        if not (self.home / "history").exists():
            return set()
        return {run.run_id for run in self.instance().get_runs()}

    def steps_s(self, run_ids: set[str]) -> tuple[float, list[str]]:
        """The seconds inside the steps of ``run_ids``, and each run's job with its steps' seconds."""
        total, runs = 0.0, []
        for run_id in sorted(run_ids):
            run = self.instance().get_run_by_id(run_id)
            stats = self.instance().get_run_step_stats(run_id)
            took = sum((s.end_time or s.start_time or 0) - (s.start_time or 0) for s in stats)
            total += took
            runs.append(f"{run.job_name} {took:.2f}s")
        return total, runs

    def command(self, *argv: str, check: bool = True) -> dict[str, Any]:
        before = self.run_ids()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "colosseum_dagster.cli", *argv],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
        if check and done.returncode != 0:
            raise SystemExit(f"colosseum {' '.join(argv)} exited {done.returncode}:\n{done.stderr[-3000:]}")
        steps, runs = self.steps_s(self.run_ids() - before)
        return {
            "command": "colosseum " + " ".join(argv),
            "wall_s": wall,
            "steps_s": steps,
            "overhead_s": wall - steps,
            "cpu_s": cpu,
            "runs": runs,
        }


def _best(rows: list[dict[str, Any]], label: str) -> dict[str, Any]:
    best = dict(min(rows, key=lambda r: r["overhead_s"]))
    best["label"] = label
    best["repeats"] = len(rows)
    best["overheads_s"] = [round(r["overhead_s"], 2) for r in rows]
    return best


def freeze_rows(scratch: Scratch, runs: int) -> list[dict[str, Any]]:
    def freeze(event: str) -> dict[str, Any]:
        contenders = [arg for c in CONTENDERS for arg in ("--contender", c)]
        return scratch.command("events", "chess", "event", "freeze", event, "--lines", "1", *contenders)

    first = freeze("bench-first")  # untimed: the byte code compiled, the event tables made
    first["label"] = "events chess event freeze (first in the record)"
    first["repeats"] = 1
    rows = [freeze(f"bench-{i}") for i in range(runs)]
    return [first, _best(rows, "events chess event freeze (2 contenders, 1 line)")]


def debate_rows(scratch: Scratch) -> list[dict[str, Any]]:
    port = _free_port()
    ledger_url = f"http://127.0.0.1:{port}"
    scratch.env["COLOSSEUM_LEDGER_URL"] = ledger_url
    ledger = subprocess.Popen(
        [sys.executable, "-m", "colosseum_dagster.cli", "debate", "ledger", "serve", "--port", str(port),
         "--house-miners", "--log", str(scratch.root / "ledger.log")],
        cwd=scratch.root, env=scratch.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{ledger_url}/status", timeout=2)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or ledger.poll() is not None:
                    raise SystemExit(f"the ledger did not answer at {ledger_url}") from None
                time.sleep(0.1)
        for hotkey, strategy in MINERS:
            httpx.post(f"{ledger_url}/chain/register", json={"hotkey": hotkey}).raise_for_status()
            httpx.post(
                f"{ledger_url}/chain/commit", json={"hotkey": hotkey, "data": strategy}
            ).raise_for_status()
        rows = []
        for argv in (("topics", "current"), ("entries", "current"), ("games", "current", "--rounds", "1"),
                     ("close", "current")):  # fmt: skip
            row = scratch.command("debate", *argv)
            row["label"] = "debate " + argv[0]
            row["repeats"] = 1
            rows.append(row)
        return rows
    finally:
        ledger.terminate()
        ledger.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed freezes (the minimum is the figure)")
    parser.add_argument("--no-debate", action="store_true", help="leave out the debate's commands")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="startup-bench-") as tmp:
        scratch = Scratch(Path(tmp))
        helps = [scratch.command("--help") for _ in range(args.runs)]
        rows = [_best(helps, "--help")]
        rows += freeze_rows(scratch, args.runs)
        if not args.no_debate:
            rows += debate_rows(scratch)
    for row in rows:
        row["target_s"] = TARGET_OVERHEAD_S
        row["met"] = row["overhead_s"] <= TARGET_OVERHEAD_S
    load = os.getloadavg()
    report = {"cores": os.cpu_count(), "load_average": [round(x, 2) for x in load], "commands": rows}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (at the end)")
        print(
            f"{'command':<50} {'wall':>7} {'steps':>7} {'overhead':>9} {'cpu':>7}  "
            f"target ≤ {TARGET_OVERHEAD_S:.0f} s"
        )
        for row in rows:
            label = row["label"] + (f" (min of {row['repeats']})" if row["repeats"] > 1 else "")
            verdict = "met" if row["met"] else "NOT met"
            print(
                f"{label:<50} {row['wall_s']:>6.2f}s {row['steps_s']:>6.2f}s {row['overhead_s']:>8.2f}s "
                f"{row['cpu_s']:>6.2f}s  {verdict}  (wall/steps {row['wall_s'] / row['steps_s']:.1f}×)"
                if row["steps_s"]
                else f"{label:<50} {row['wall_s']:>6.2f}s {'-':>7} {row['overhead_s']:>8.2f}s "
                f"{row['cpu_s']:>6.2f}s  {verdict}"
            )
            if row["runs"]:
                print(f"    runs: {'; '.join(row['runs'])}")
    return 0 if all(row["met"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
