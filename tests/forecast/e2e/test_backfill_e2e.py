"""A UI backfill through the real daemon, across a card that can no longer seal.

`colosseum dev` runs the Dagster UI and daemon; the backfill is launched through the same GraphQL
mutation the UI's "Materialize" dialog sends. A later card is sealed first from the CLI, so the
backfill meets earlier cards that are missed, a sealed card it re-derives, and cards after them it
seals: it must finish, deciding every card, and the record must verify. (Dagster counts a missed
card's verdicts, packet and answers, which never exist, as failed partitions of the backfill.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.verify import verify_record
from colosseum_standins.loopback import free_port
from tests.support import REPO

CARD_ASSETS = (
    "raw_sweep",
    "sweeps",
    "verbatim_markets",
    "copy_errors",
    "card_status",
    "ranked_candidates",
    "card_questions",
    "packet",
    "answers",
    "answer_lines",
    "answer_signatures",
    "public_keys",
)
LAUNCH = """mutation($params: LaunchBackfillParams!) {
  launchPartitionBackfill(backfillParams: $params) {
    __typename ... on LaunchBackfillSuccess { backfillId } ... on PythonError { message stack }
  }
}"""
STATUS = """query($id: String!) {
  partitionBackfillOrError(backfillId: $id) { ... on PartitionBackfill { status } }
}"""


def _graphql(ui: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = httpx.post(f"{ui}/graphql", json={"query": query, "variables": variables or {}}, timeout=30)
    assert reply.status_code == 200, reply.text[:2000]
    return reply.json()["data"]


@pytest.mark.slow
def test_a_ui_backfill_runs_past_missed_cards_and_the_record_verifies(tmp_path):
    ports = {name: free_port() for name in ("ui", "exchange", "sparring", "ledger")}
    data = tmp_path / "data"
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path / "home"), "COLOSSEUM_DATA": str(data)}
    exchange, sparring = (f"http://127.0.0.1:{ports[n]}" for n in ("exchange", "sparring"))
    ui = f"http://127.0.0.1:{ports['ui']}"
    # The card schedule would run today's card if one of its seal times fell within the test's
    # minutes, sealing a later card in the middle of the backfill: it is stopped, as an operator would.
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").symlink_to(REPO / "dagster.yaml")
    stop = [
        sys.executable,
        "-m",
        "dagster",
        "schedule",
        "stop",
        "card_schedule",
        "-w",
        str(REPO / "workspace.yaml"),
    ]
    stopped = subprocess.run(stop, env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert stopped.returncode == 0 and "Stopped schedule card_schedule" in stopped.stdout, stopped.stderr[
        -2000:
    ]
    dev = subprocess.Popen(
        [sys.executable, "-m", "colosseum_dagster.cli", "dev", "--markets", "400"]
        + [f"--{name}-port={port}" for name, port in ports.items()],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if (
                    httpx.get(f"{ui}/server_info", timeout=5).status_code == 200
                    and httpx.get(f"{exchange}/status", timeout=5).is_success
                ):
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the UI did not come up"
            time.sleep(1)

        # A later card, sealed first from the CLI against the same exchange and sparring server.
        cli_env = env | {"COLOSSEUM_SPARRING_URL": sparring}
        first = subprocess.run(
            [
                sys.executable,
                "-m",
                "colosseum_dagster.cli",
                "forecast",
                "card",
                "run",
                "2026-11-29-1800",
                "--exchange",
                exchange,
            ],
            env=cli_env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert first.returncode == 0, first.stderr[-3000:]

        cards = [
            "2026-11-29-0500",
            "2026-11-29-1000",
            "2026-11-29-1800",
            "2026-11-30-0500",
            "2026-11-30-1000",
        ]
        params = {
            "partitionNames": cards[::-1],
            "assetSelection": [{"path": ["forecast", a]} for a in CARD_ASSETS],
        }
        launched = _graphql(ui, LAUNCH, {"params": params})["launchPartitionBackfill"]
        assert launched["__typename"] == "LaunchBackfillSuccess", launched
        deadline = time.monotonic() + 900
        while True:
            status = _graphql(ui, STATUS, {"id": launched["backfillId"]})["partitionBackfillOrError"][
                "status"
            ]
            if status.startswith("COMPLETED") or status in ("FAILED", "CANCELED"):
                break
            assert time.monotonic() < deadline, f"the backfill did not finish ({status})"
            time.sleep(3)
    finally:
        os.killpg(dev.pid, signal.SIGINT)
        dev.wait(timeout=60)
    assert status.startswith("COMPLETED"), status

    tables = RecordLayout(data).tables(FORECAST)
    seals = RecordLayout(data).seals(FORECAST)
    assert [m.partition for m in seals.missed_partitions()] == cards[:2]
    assert {m.overtaken_by for m in seals.missed_partitions()} == {"2026-11-29-1800"}
    assert [s.partition for s in seals.seals()] == cards[2:]
    assert all(tables.exists("answers", card) for card in cards[2:])
    assert all(tables.exists("card_status", card) for card in cards)
    report = verify_record(Path(data), AUDITS, workers=2)
    assert report.ok(), report.problems[:10]
