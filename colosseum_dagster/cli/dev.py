"""``colosseum dev``: the stand-ins, the Dagster UI and the daemon, supervised together."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colosseum_core.chain import LEDGER_URL_ENV
from colosseum_core.settings import (
    DATA_ENV,
    GAMMA_URL_ENV,
    KALSHI_URL_ENV,
    SPARRING_URL_ENV,
)
from colosseum_dagster.cli.arguments import command
from colosseum_dagster.cli.common import UserError, port_number, refuse_a_taken_port
from colosseum_dagster.cli.instance import (
    WORKSPACE,
    announce_services,
    instance_home,
    project_root,
    withdraw_services,
)

# On a loaded host the code server takes a minute or more to load the Definitions: say so meanwhile.
UI_PROGRESS_EVERY_S = 20.0


def cmd_dev(args: argparse.Namespace) -> int:
    from colosseum_core.record.storage import data_dir

    root = project_root(Path.cwd())
    if root is None:
        raise UserError(
            f"no {WORKSPACE} in {Path.cwd()} or beside the installed package: run it from the "
            "repository's checkout"
        )
    home = instance_home()
    for flag in ("ui", "exchange", "sparring", "ledger"):
        refuse_a_taken_port("127.0.0.1", getattr(args, f"{flag}_port"), f"--{flag}-port")
    exchange_url = f"http://127.0.0.1:{args.exchange_port}"
    sparring_url = f"http://127.0.0.1:{args.sparring_port}"
    ledger_url = f"http://127.0.0.1:{args.ledger_port}"
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        GAMMA_URL_ENV: exchange_url,
        SPARRING_URL_ENV: sparring_url,
        LEDGER_URL_ENV: ledger_url,
        KALSHI_URL_ENV: f"{exchange_url}/trade-api/v2",
    }
    colosseum = [sys.executable, "-m", "colosseum_dagster.cli"]
    exchange_cmd = [
        *colosseum,
        "exchange",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(args.exchange_port),
        "--seed",
        str(args.seed),
        "--markets",
        str(args.markets),
    ]
    ui_cmd = [
        sys.executable,
        # Dagster suggests its separate `dg` tool here; `dagster dev` is the one this project installs.
        "-W",
        "ignore:Function `dev_command` is superseded",
        "-m",
        "dagster",
        "dev",
        "-w",
        str(root / WORKSPACE),
        "-h",
        "127.0.0.1",
        "-p",
        str(args.ui_port),
    ]
    sparring_cmd = [*colosseum, "sparring", "serve", "--host", "127.0.0.1", "--port", str(args.sparring_port)]
    # The debate arena's chain, kept beside the instance and seeded with the house miners once.
    ledger_cmd = [
        *colosseum,
        "debate",
        "ledger",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(args.ledger_port),
        "--log",
        str(home / "ledger.jsonl"),
        "--house-miners",
    ]
    # Runs resolve ./data from their own working directory; name the record absolutely for them all.
    env.setdefault(DATA_ENV, str(data_dir()))
    # Each service in a process group of its own: Ctrl-C reaches this supervisor alone, which stops
    # them in order and then sweeps up what they left (Dagster's code server outlives `dagster dev`).
    # The UI runs in DAGSTER_HOME, where dagster.yaml is, so Dagster sees one instance, not two.
    cwds = (root, root, root, home)
    procs = [
        subprocess.Popen(cmd, env=env, cwd=cwd, start_new_session=True)
        for cmd, cwd in zip((exchange_cmd, sparring_cmd, ledger_cmd, ui_cmd), cwds, strict=True)
    ]
    # Commands run beside make run use these servers rather than start their own (`colosseum … `
    # says which it used); the announcement goes when make run stops.
    exchange, sparring, ledger, ui = procs
    announced = announce_services(
        home,
        {
            "exchange": {
                "url": exchange_url,
                "pid": exchange.pid,
                "seed": args.seed,
                "markets": args.markets,
            },
            "sparring": {"url": sparring_url, "pid": sparring.pid},
            "ledger": {"url": ledger_url, "pid": ledger.pid, "house_miners": True},
            "ui": {"url": f"http://127.0.0.1:{args.ui_port}", "pid": ui.pid},
        },
    )
    print(
        f"\n  simulated exchange  {exchange_url}\n  sparring server     {sparring_url}"
        f"\n  local ledger        {ledger_url}  (house miners; debate_epoch_sensor plays each epoch)"
        f"\n  Dagster UI          http://127.0.0.1:{args.ui_port}  (DAGSTER_HOME={home})"
        "\n  Ctrl-C stops all.\n",
        file=sys.stderr,
    )
    stopped_by_user = False
    # Ctrl-C, or a service manager's SIGTERM, even when a shell started us with SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    ui_url = f"http://127.0.0.1:{args.ui_port}"
    started, said_at, ready = time.monotonic(), time.monotonic(), False
    try:
        while all(p.poll() is None for p in procs):
            time.sleep(0.5)
            if not ready:
                ready = _answers(f"{ui_url}/server_info")
                waited = time.monotonic() - started
                if ready:
                    print(f"  the Dagster UI answers at {ui_url} ({waited:.0f} s)", file=sys.stderr)
                elif time.monotonic() - said_at >= UI_PROGRESS_EVERY_S:
                    said_at = time.monotonic()
                    print(
                        f"  the Dagster UI is loading the arenas' Definitions… {waited:.0f} s",
                        file=sys.stderr,
                    )
    except KeyboardInterrupt:
        stopped_by_user = True
    finally:
        withdraw_services(announced)
        named = _cancel_runs_in_flight(home) if stopped_by_user else []
        _stop_groups(procs)
        if stopped_by_user:
            _canceled_for_good(home, named)
    if stopped_by_user:
        print("stopped", file=sys.stderr)
        return 0
    # One service died on its own: say so through the exit status.
    return max(abs(p.returncode or 0) for p in procs) or 1


def _answers(url: str) -> bool:
    import httpx

    try:
        return httpx.get(url, timeout=1.0).status_code < 500
    except httpx.HTTPError:
        return False


_IN_FLIGHT = ("NOT_STARTED", "QUEUED", "STARTING", "STARTED", "CANCELING")


def _runs_in_flight(instance: Any) -> list[Any]:
    """The instance's runs not yet ended, but those of a command running beside make run (its process
    alive): the command's own Ctrl-C is the one to stop them."""
    import dagster as dg

    from colosseum_dagster.resources import PID_TAG, cli_run_gone

    statuses = [dg.DagsterRunStatus(status) for status in _IN_FLIGHT]
    return [
        run
        for run in instance.get_runs(filters=dg.RunsFilter(statuses=statuses))
        if PID_TAG not in run.tags or cli_run_gone(run.tags)
    ]


def _said(run: Any) -> str:
    which = (
        f"{run.job_name} for {run.tags['dagster/partition']}"
        if "dagster/partition" in run.tags
        else run.job_name
    )
    return f"  run {run.run_id[:8]} of {which}: interrupted, marked canceled"


def _cancel_runs_in_flight(home: Path) -> list[str]:
    """Ctrl-C on make run interrupts the runs its daemon launched: each is marked canceling first, so
    that its worker, interrupted in turn, ends it CANCELED (Dagster's own path) and not FAILURE, and
    one line names each. A run not yet started is canceled at once. The ids of those named."""
    import dagster as dg

    try:
        instance = dg.DagsterInstance.from_config(str(home))
    except Exception as exc:  # stopping must not depend on the instance being readable
        print(
            f"  the instance at {home} could not be read ({exc}); its runs are left as they are",
            file=sys.stderr,
        )
        return []
    named = []
    with instance:
        for run in _runs_in_flight(instance):
            print(_said(run), file=sys.stderr)
            named.append(run.run_id)
            if run.status in (dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.QUEUED):
                instance.report_run_canceled(run, message="colosseum dev stopped before the run started")
            elif run.status != dg.DagsterRunStatus.CANCELING:
                instance.report_run_canceling(run, message="colosseum dev stopped (Ctrl-C)")
    return named


def _canceled_for_good(home: Path, named: list[str]) -> None:
    """Once every service has stopped, nothing moves a run any more: one whose worker was killed
    before it could end it stays CANCELING, and one a sensor asked for while the daemon was still
    stopping stays QUEUED. Each is ended here (named, if the first sweep had not seen it)."""
    import dagster as dg

    try:
        instance = dg.DagsterInstance.from_config(str(home))
    except Exception:  # said already by the first sweep
        return
    with instance:
        for run in _runs_in_flight(instance):
            if run.run_id not in named:
                print(_said(run), file=sys.stderr)
            instance.report_run_canceled(
                run, message="colosseum dev stopped (Ctrl-C); its worker ended with it"
            )


def _stop_groups(procs: Sequence[subprocess.Popen[bytes]], grace_s: float = 10.0) -> None:
    """Interrupt every service's process group, give them ``grace_s`` to stop, then kill what is left."""
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGINT)
    deadline = time.monotonic() + grace_s
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=max(deadline - time.monotonic(), 0.1))
    for p in procs:
        # The group outlives its leader when a child of it (a code server) is still running.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(p.pid, signal.SIGKILL)
        if p.poll() is None:
            p.wait()


def add_commands(sub: argparse._SubParsersAction) -> None:
    dev = command(
        sub,
        "dev",
        cmd_dev,
        "start the simulated exchange, the sparring server and the Dagster UI and daemon",
        "example:\n  colosseum dev --ui-port 3000 --exchange-port 8765",
    )
    dev.add_argument("--ui-port", type=port_number, default=3000)
    dev.add_argument("--exchange-port", type=port_number, default=8765)
    dev.add_argument("--sparring-port", type=port_number, default=8766)
    dev.add_argument("--ledger-port", type=port_number, default=8797)
    dev.add_argument("--seed", type=int, default=0)
    dev.add_argument("--markets", type=int, default=3000)
