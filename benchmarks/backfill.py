"""Backfill benchmark: 30 cards through the daemon, the local profile against the production profile.

Each profile gets a fresh record and instance, the same simulated exchange (its own process) and
sparring server, the Dagster daemon and webserver, and one backfill of ``--cards`` consecutive cards
launched through the UI's own GraphQL mutation (every card asset, as the UI's "Materialize" dialog
sends it). The clock runs from the launch to the backfill's end:

    local        SQLite instance (dagster.yaml), in-process executor: each run one process
    production   PostgreSQL instance (deploy/dagster.yaml), multiprocess executor: a process per step

Both run at most their profile's ``max_concurrent_runs`` at once (local 4, production 8), one run per
card, one sweep at a time (the ``exchange_requests`` pool). Cards of a kind seal in time order, so
cards run side by side can overtake each other: a card whose later neighbour sealed first is
recorded missed, and the figures say how many cards sealed and how many were missed.

    python benchmarks/backfill.py                       # both profiles, 30 cards of 800 markets
    python benchmarks/backfill.py --profiles local      # one
    python benchmarks/backfill.py --json                # one JSON object, for scripts

Needs Debian's PostgreSQL for the production profile (``apt-get install postgresql``). Exit status 0
when every backfill completed, else 1.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from colosseum_core.arenas import sparring_houses
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.record.layout import Record
from colosseum_core.settings import DATA_ENV, GAMMA_URL_ENV, POSTGRES_URL_ENV, SPARRING_URL_ENV
from colosseum_dagster.executors import EXECUTOR_ENV
from colosseum_standins.loopback import free_port
from colosseum_standins.postgres import running_postgres
from colosseum_standins.simulated_exchange import exchange_process
from colosseum_standins.sparring import running_sparring

REPO = Path(__file__).resolve().parents[1]
FIRST_CARD = "2026-11-01-0500"
CARD_ASSETS = (
    "raw_sweep", "sweeps", "verbatim_markets", "copy_errors", "card_status", "ranked_candidates",
    "card_questions", "packet", "answers", "answer_lines", "answer_signatures", "public_keys",
)  # fmt: skip
LAUNCH = """mutation($params: LaunchBackfillParams!) {
  launchPartitionBackfill(backfillParams: $params) {
    __typename ... on LaunchBackfillSuccess { backfillId } ... on PythonError { message }
  }
}"""
STATUS = """query($id: String!) {
  partitionBackfillOrError(backfillId: $id) { ... on PartitionBackfill { status } }
}"""
RUNS = """{ runsOrError { ... on Runs { results { status } } } }"""


def cards(count: int) -> list[str]:
    """``count`` consecutive card keys from FIRST_CARD (three a day)."""
    keys, day = [], dt.date.fromisoformat(FIRST_CARD[:10])
    while len(keys) < count:
        keys += [f"{day.isoformat()}-{hour}" for hour in ("0500", "1000", "1800")]
        day += dt.timedelta(days=1)
    return [card_from_key(k).key for k in keys[:count]]


def graphql(ui: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = httpx.post(f"{ui}/graphql", json={"query": query, "variables": variables or {}}, timeout=60)
    reply.raise_for_status()
    return reply.json()["data"]


@contextlib.contextmanager
def instance_for(profile: str, scratch: Path) -> Iterator[dict[str, str]]:
    """The environment of the profile's processes: its DAGSTER_HOME, and its database if it has one."""
    home = scratch / "dagster_home"
    home.mkdir(parents=True)
    if profile == "local":
        shutil.copy(REPO / "dagster.yaml", home / "dagster.yaml")
        yield {"DAGSTER_HOME": str(home), EXECUTOR_ENV: "in_process"}
        return
    shutil.copy(REPO / "deploy" / "dagster.yaml", home / "dagster.yaml")
    with running_postgres(scratch / "postgres") as server:
        yield {"DAGSTER_HOME": str(home), EXECUTOR_ENV: "multiprocess", POSTGRES_URL_ENV: server.url}


@contextlib.contextmanager
def daemon_and_ui(env: dict[str, str], logs: Path) -> Iterator[str]:
    port = free_port()
    bin_dir = Path(sys.executable).parent
    commands = {
        "webserver": [str(bin_dir / "dagster-webserver"), "-w", "workspace.yaml", "-h", "127.0.0.1",
                      "-p", str(port)],
        "daemon": [str(bin_dir / "dagster-daemon"), "run", "-w", "workspace.yaml"],
    }  # fmt: skip
    services = {
        name: subprocess.Popen(
            argv,
            env=env,
            cwd=REPO,
            start_new_session=True,
            stdout=(logs / f"{name}.log").open("w"),
            stderr=subprocess.STDOUT,
        )
        for name, argv in commands.items()
    }
    ui = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{ui}/server_info", timeout=5).status_code == 200:
                    break
            dead = [name for name, p in services.items() if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                raise RuntimeError(f"the {dead or 'webserver'} did not come up: see {logs}")
            time.sleep(1)
        yield ui
    finally:
        for service in services.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(service.pid, signal.SIGTERM)
        for service in services.values():
            service.wait(timeout=120)


def backfill(profile: str, keys: list[str], exchange: str, sparring: str, scratch: Path) -> dict[str, Any]:
    data = scratch / "data"
    with instance_for(profile, scratch) as instance_env:
        env = {
            **os.environ,
            **instance_env,
            DATA_ENV: str(data),
            GAMMA_URL_ENV: exchange,
            SPARRING_URL_ENV: sparring,
        }
        # The card schedule would launch today's card if a seal time fell within the benchmark.
        stop = ["schedule", "stop", "card_schedule", "-w", "workspace.yaml"]
        subprocess.run(
            [sys.executable, "-m", "dagster", *stop], env=env, cwd=REPO, check=True, capture_output=True
        )
        with daemon_and_ui(env, scratch) as ui:
            params = {
                "partitionNames": keys,
                "assetSelection": [{"path": [FORECAST.name, a]} for a in CARD_ASSETS],
            }
            started = time.monotonic()
            launched = graphql(ui, LAUNCH, {"params": params})["launchPartitionBackfill"]
            if launched["__typename"] != "LaunchBackfillSuccess":
                raise RuntimeError(f"{profile}: the backfill was not launched: {launched}")
            status = ""
            while not (status.startswith("COMPLETED") or status in ("FAILED", "CANCELED")):
                time.sleep(2)
                status = graphql(ui, STATUS, {"id": launched["backfillId"]})["partitionBackfillOrError"][
                    "status"
                ]
                print(
                    f"  {profile}: {status.lower()} after {time.monotonic() - started:.0f} s", file=sys.stderr
                )
            wall = time.monotonic() - started
            runs = graphql(ui, RUNS)["runsOrError"]["results"]
    seals = Record(data).seals(FORECAST)
    return {
        "profile": profile,
        "status": status,
        "wall_s": round(wall, 1),
        "runs": len(runs),
        "runs_failed": sum(r["status"] == "FAILURE" for r in runs),
        "sealed": len(seals.seals()),
        "missed": len(seals.missed_partitions()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cards", type=int, default=30)
    parser.add_argument("--markets", type=int, default=800, help="markets on the simulated exchange's board")
    parser.add_argument("--profiles", default="local,production")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    profiles = [p.strip() for p in args.profiles.split(",") if p.strip()]
    unknown = set(profiles) - {"local", "production"}
    if unknown:
        parser.error(f"--profiles: unknown {', '.join(sorted(unknown))} (local, production)")
    keys = cards(args.cards)
    figures = []
    with (
        exchange_process(markets=args.markets) as exchange,
        running_sparring(houses=sparring_houses()) as sparring,
    ):
        for profile in profiles:
            with tempfile.TemporaryDirectory(prefix=f"backfill-{profile}-") as scratch:
                print(f"{profile}: backfilling {len(keys)} cards ({keys[0]} … {keys[-1]})", file=sys.stderr)
                figures.append(backfill(profile, keys, exchange.url, sparring, Path(scratch)))
    load = os.getloadavg()[0]
    if args.json:
        print(
            json.dumps(
                {"cards": len(keys), "markets": args.markets, "load": load, "profiles": figures}, indent=1
            )
        )
    else:
        print(f"{len(keys)} cards of {args.markets} markets; load average {load:.2f} after (2 cores)")
        print(f"  {'profile':<12}{'wall':>9}{'runs':>6}{'failed':>8}{'sealed':>8}{'missed':>8}  status")
        for f in figures:
            print(
                f"  {f['profile']:<12}{f['wall_s']:>8.1f}s{f['runs']:>6}{f['runs_failed']:>8}"
                f"{f['sealed']:>8}{f['missed']:>8}  {f['status'].lower()}"
            )
        if len(figures) == 2:
            print(f"  production / local wall time: {figures[1]['wall_s'] / figures[0]['wall_s']:.2f}×")
    return 0 if all(f["status"].startswith("COMPLETED") for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
