"""The production profile (deploy/dagster.yaml) on a real PostgreSQL server on loopback: Dagster's runs,
event logs and sensor state in the database, and the record's one-writer-per-partition locks held
there, across processes that share nothing but the database and the record."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from colosseum_core.record.layout import Record
from colosseum_core.record.locks import LockBusy, partition_lock
from colosseum_core.record.locks_postgres import LockServerError, PostgresLocks
from colosseum_core.settings import POSTGRES_URL_ENV
from tests.support import REPO, run_colosseum

psycopg2 = pytest.importorskip("psycopg2", reason="psycopg2 comes with the [production] extra")

CARD = "2026-11-29-1000"
CARD_LOCK = partition_lock("card", CARD)


def holding(env: dict[str, str], data: Path, name: str, owner: str) -> subprocess.Popen[str]:
    """Another process (a daemon's run on another host, as far as the lock can tell) holding ``name``."""
    code = (
        "import sys\n"
        "from colosseum_core.record.layout import Record\n"
        f"with Record({str(data)!r}).locks.hold({name!r}, owner={owner!r}, purpose='card_job run'):\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.read()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
        cwd=REPO,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


def test_a_partition_lock_lives_in_the_database_and_dies_with_its_holder(
    profile: dict[str, str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    locks = Record(data).locks
    assert isinstance(locks, PostgresLocks)
    child = holding(profile, data, CARD_LOCK, "run-on-host-a")
    try:
        with (
            pytest.raises(LockBusy) as refused,
            locks.hold(CARD_LOCK, owner="run-on-host-b", purpose="card_job run"),
        ):
            pytest.fail("two writers held one card")
        said = str(refused.value)
        assert f"{CARD_LOCK} is being written by card_job run, run run-on-host-a, pid {child.pid}" in said
        assert said.endswith("refused, nothing was written")
        holder = locks.holder(CARD_LOCK)
        assert holder is not None and holder.owner == "run-on-host-a" and holder.pid == child.pid
        # Another card is free: the lock is per partition.
        with locks.hold(partition_lock("card", "2026-11-29-1800"), owner="run-on-host-b", purpose="x"):
            pass
        # Nothing on the record's disk: a second host would not see a file lock anyway.
        assert not (data / "locks").exists()
    finally:
        child.send_signal(signal.SIGKILL)  # a holder that dies releases: its session ends
        child.wait()
    with locks.hold(CARD_LOCK, owner="run-on-host-b", purpose="card_job run", wait_s=10.0):
        assert locks.held_by(CARD_LOCK) == "run-on-host-b"
        with locks.hold(CARD_LOCK, owner="run-on-host-b", purpose="the seal, re-entrant"):
            pass
        assert locks.held_by(CARD_LOCK) == "run-on-host-b"
    assert locks.holder(CARD_LOCK) is None


def test_a_lock_server_that_does_not_answer_is_named_without_its_password(tmp_path: Path) -> None:
    locks = PostgresLocks("postgresql://colosseum:s3cret@127.0.0.1:9/colosseum")
    with pytest.raises(LockServerError) as failed, locks.hold(CARD_LOCK, owner="run", purpose="x"):
        pytest.fail("held a lock on no server")
    said = str(failed.value)
    assert "PostgreSQL at 127.0.0.1:9/colosseum ($COLOSSEUM_POSTGRES_URL), which did not answer" in said
    assert "s3cret" not in said


def cli(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return run_colosseum(*argv, env={**os.environ, **env})


@pytest.mark.slow
def test_cards_and_the_settlement_sensor_run_on_the_postgres_instance_one_writer_per_card(
    profile: dict[str, str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    # A run elsewhere holds the card: this host's CLI run is refused and writes nothing.
    child = holding(profile, data, CARD_LOCK, "daemon-run-elsewhere")
    try:
        refused = cli(profile, "forecast", "card", "run", CARD, "--data", str(data))
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert refused.returncode == 1, refused.stderr
    assert (
        f"card {CARD}: refused: card {CARD} is being written by card_job run, run daemon-run-elsewhere"
        in (refused.stderr)
    )
    assert not (data / "warehouse").exists()

    done = cli(profile, "forecast", "card", "run", CARD, "--data", str(data), "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    [card] = json.loads(done.stdout)["cards"]
    assert card["success"] and card["status"] == "sealed", card
    settled = cli(profile, "forecast", "settle", "--data", str(data))
    assert settled.returncode == 0, settled.stderr[-3000:]

    with dg.DagsterInstance.get() as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        runs = instance.get_runs()
        jobs = {run.job_name for run in runs}
        assert {"card_job", "settlement_job", "leaderboard_job"} <= jobs
        assert all(run.status == dg.DagsterRunStatus.SUCCESS for run in runs)
        card_run = next(run for run in runs if run.job_name == "card_job")
        assert card_run.tags["dagster/partition"] == CARD
        materialized = instance.get_materialized_partitions(dg.AssetKey(["forecast", "verbatim_markets"]))
        assert materialized == {CARD}
    # Straight from the database, as another host's webserver would read it.
    connection = psycopg2.connect(profile[POSTGRES_URL_ENV])
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM runs")
        assert cursor.fetchone()[0] == len(runs)
        cursor.execute("SELECT count(*) FROM asset_check_executions")
        assert cursor.fetchone()[0] > 0
    connection.close()
