"""The production stack on one machine: PostgreSQL, Dagster's daemon and webserver on the production
profile, and a CLI run, all on loopback, sharing nothing but the database and the record.

A card sealed and answered from the CLI; then the daemon, whose first tick of the settlement sensor
(its cursor in the database) asks for that card's settlement run through the queued run coordinator,
whose scores wake the leaderboard sensor, while a run launched through the UI's own GraphQL mutation
seals a second card. The UI's GraphQL then
shows every run, the partitions and the asset checks, and the record verifies.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dagster as dg
import httpx
import pytest
from dagster import DagsterEventType

from colosseum_core.arenas import AUDITS, sparring_houses
from colosseum_core.settings import GAMMA_URL_ENV, SPARRING_URL_ENV
from colosseum_core.verify import verify_record
from colosseum_dagster.executors import EXECUTOR_ENV
from colosseum_standins.loopback import free_port
from colosseum_standins.simulated_exchange import running_exchange
from colosseum_standins.sparring import running_sparring
from tests.forecast.e2e.test_backfill_e2e import CARD_ASSETS
from tests.support import REPO

STEP_START, STEP_WORKER_STARTED = DagsterEventType.STEP_START, DagsterEventType.STEP_WORKER_STARTED
CLI_CARD, UI_CARD = "2026-11-29-1000", "2026-11-29-1800"

LAUNCH = """mutation($params: LaunchBackfillParams!) {
  launchPartitionBackfill(backfillParams: $params) {
    __typename ... on LaunchBackfillSuccess { backfillId } ... on PythonError { message }
  }
}"""
STATUS = """query($id: String!) {
  partitionBackfillOrError(backfillId: $id) { ... on PartitionBackfill { status } }
}"""
RUNS = """{ runsOrError { ... on Runs { results { runId jobName status tags { key value } } } } }"""
ASSET = """query($path: [String!]!) {
  assetNodeOrError(assetKey: {path: $path}) {
    ... on AssetNode {
      partitionStats { numMaterialized }
      assetChecksOrError {
        ... on AssetChecks { checks { name executionForLatestMaterialization { status } } }
      }
    }
  }
}"""


def graphql(ui: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = httpx.post(f"{ui}/graphql", json={"query": query, "variables": variables or {}}, timeout=60)
    assert reply.status_code == 200 and "errors" not in reply.json(), reply.text[:2000]
    return reply.json()["data"]


def until(what: str, check: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {timeout_s:g} s"
        time.sleep(2)


def runs(ui: str) -> list[dict[str, Any]]:
    return graphql(ui, RUNS)["runsOrError"]["results"]


WHY = """query($runId: ID!) { logsForRun(runId: $runId) { ... on EventConnection { events { __typename
  ... on ExecutionStepFailureEvent { stepKey error { message causes { message } } }
  ... on RunFailureEvent { message } ... on MessageEvent { message level } } } } }"""


def why_failed(ui: str, run: dict[str, Any]) -> str:
    """A failed run as its own log tells it: each step failure with its cause, and its ERROR lines."""
    events = graphql(ui, WHY, {"runId": run["runId"]})["logsForRun"].get("events", [])
    said = [
        f"{e.get('stepKey')}: {e['error']['message']} {[c['message'] for c in e['error']['causes']]}"
        if e["__typename"] == "ExecutionStepFailureEvent"
        else e.get("message", "")
        for e in events
        if e["__typename"] in ("ExecutionStepFailureEvent", "RunFailureEvent") or e.get("level") == "ERROR"
    ]
    return f"{run['jobName']} {run['runId'][:8]}: " + " | ".join(said)


@pytest.mark.slow
def test_the_daemon_the_ui_and_a_cli_run_share_one_postgres_instance(
    profile: dict[str, str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    with (
        running_exchange(seed=0, markets=800) as exchange,
        running_sparring(houses=sparring_houses()) as sparring,
    ):
        env = {
            **os.environ,
            **profile,
            "COLOSSEUM_DATA": str(data),
            GAMMA_URL_ENV: exchange,
            SPARRING_URL_ENV: sparring,
            EXECUTOR_ENV: "multiprocess",  # the daemon's runs: a process per step
        }

        def run(*argv: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=600)

        cli = run(
            sys.executable, "-m", "colosseum_dagster.cli", "forecast", "card", "run", CLI_CARD,
            "--exchange", exchange,
        )  # fmt: skip
        assert cli.returncode == 0, cli.stderr[-3000:]
        # The card schedule would launch today's card if a seal time fell in the test's minutes.
        stopped = run(
            sys.executable, "-m", "dagster", "schedule", "stop", "card_schedule", "-w", "workspace.yaml"
        )
        assert stopped.returncode == 0, stopped.stderr[-2000:]

        port = free_port()
        ui = f"http://127.0.0.1:{port}"
        services = [
            subprocess.Popen(
                argv, env=env, cwd=REPO, start_new_session=True, stdout=log, stderr=subprocess.STDOUT
            )
            for argv, log in (
                (
                    [sys.executable, "-m", "dagster_webserver", "-w", "workspace.yaml", "-h", "127.0.0.1",
                     "-p", str(port)],
                    (tmp_path / "webserver.log").open("w"),
                ),
                (
                    [str(Path(sys.executable).parent / "dagster-daemon"), "run", "-w", "workspace.yaml"],
                    (tmp_path / "daemon.log").open("w"),
                ),
            )
        ]  # fmt: skip
        try:

            def answering() -> bool:
                try:
                    return httpx.get(f"{ui}/server_info", timeout=5).status_code == 200
                except httpx.TransportError:
                    return False

            until("the UI answers", answering, 180)
            params = {
                "partitionNames": [UI_CARD],
                "assetSelection": [{"path": ["forecast", a]} for a in CARD_ASSETS],
            }
            launched = graphql(ui, LAUNCH, {"params": params})["launchPartitionBackfill"]
            assert launched["__typename"] == "LaunchBackfillSuccess", launched

            def settled_and_sealed() -> bool:
                for service, log in zip(services, ("webserver", "daemon"), strict=True):
                    said = (tmp_path / f"{log}.log").read_text()[-3000:]
                    assert service.poll() is None, f"the {log} stopped: {said}"
                done = {(r["jobName"], r["status"]) for r in runs(ui)}
                failed = [r for r in runs(ui) if r["status"] in ("FAILURE", "CANCELED")]
                assert not failed, [why_failed(ui, r) for r in failed]
                # An asset backfill may split a card into several runs (card_status waits on the card
                # before it): the UI's card is done when the backfill is, and no run is still going.
                backfill = graphql(ui, STATUS, {"id": launched["backfillId"]})["partitionBackfillOrError"]
                finished = all(r["status"] in ("SUCCESS", "FAILURE", "CANCELED") for r in runs(ui))
                ui_card = backfill["status"].startswith("COMPLETED") and finished
                # The scores the settlement run wrote wake the leaderboard sensor (within its minute).
                settled = {("settlement_job", "SUCCESS"), ("leaderboard_job", "SUCCESS")} <= done
                return settled and ui_card

            until("the sensor's settlement run and the UI's backfill succeed", settled_and_sealed, 600)
            every = runs(ui)
            jobs = {r["jobName"] for r in every}
            assert {"card_job", "settlement_job", "leaderboard_job"} <= jobs
            of_cli_card = {
                r["jobName"] for r in every if {"key": "dagster/partition", "value": CLI_CARD} in r["tags"]
            }
            assert of_cli_card == {"card_job", "settlement_job"}  # the CLI's run and the sensor's, in one UI
            node = graphql(ui, ASSET, {"path": ["forecast", "verbatim_markets"]})["assetNodeOrError"]
            assert node["partitionStats"]["numMaterialized"] == 2
            checks = {c["name"]: c["executionForLatestMaterialization"] for c in
                      node["assetChecksOrError"]["checks"]}  # fmt: skip
            assert checks["verbatim_matches_receipts"]["status"] == "SUCCEEDED"
        finally:
            for service in services:
                os.killpg(service.pid, signal.SIGTERM)
            for service in services:
                service.wait(timeout=60)

    with dg.DagsterInstance.get() as instance:  # the same database, from this process
        every = instance.get_runs()
        by_daemon = [r for r in every if {"dagster/backfill", "dagster/sensor_name"} & set(r.tags)]
        assert {r.job_name for r in by_daemon} >= {"settlement_job", "leaderboard_job"}
        assert any(r.tags.get("dagster/backfill") for r in by_daemon)  # the UI's, an asset job's run
        for run in every:
            started = {e.step_key for e in instance.all_logs(run.run_id, of_type=STEP_START)}
            workers = {e.step_key for e in instance.all_logs(run.run_id, of_type=STEP_WORKER_STARTED)}
            # The daemon's runs take a process per step; the CLI's run in its own process.
            assert workers == (started if run in by_daemon else set()), (run.job_name, run.tags)
    report = verify_record(data, AUDITS, workers=2)
    assert report.ok(), report.problems[:10]
