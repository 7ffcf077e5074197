"""One writer at a time: the public site (the CLI's `board build` and the UI's `public_board_job`) and
a debate epoch (the CLI's commands and the daemon's `debate_epoch_sensor`); the second is refused in
one line naming the first, or waits its turn."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from colosseum_core.chain.ledger import BLOCK_SECONDS
from colosseum_core.debate.arena import DEBATE_TOPICS
from colosseum_core.debate.epochs import epoch_key, epoch_of
from colosseum_core.debate.topics.rotation import rotation_key
from colosseum_core.record.layout import Record as Layout
from colosseum_core.record.locks import partition_lock
from colosseum_core.site.publish import SITE_LOCK
from colosseum_dagster.cli.common import failure_messages
from colosseum_dagster.cli.instance import instance_home
from colosseum_dagster.definitions import defs
from colosseum_dagster.resources import PID_TAG, cli_run_tags
from colosseum_standins.ledger import DEFAULT_GENESIS, running_ledger
from tests.conftest import Record, cli

HOLD = """
import sys, time
from colosseum_core.record.layout import Record
with Record(sys.argv[1]).locks.hold(sys.argv[2], owner=sys.argv[3], purpose=sys.argv[4]):
    print("held", flush=True)
    time.sleep(float(sys.argv[5]))
"""
NOW = DEFAULT_GENESIS + dt.timedelta(seconds=360 * 40 * BLOCK_SECONDS + 7)


def hold(root: Path, name: str, owner: str, purpose: str, seconds: float = 60) -> subprocess.Popen[str]:
    """Another process (a build or a run elsewhere) holding the record's lock ``name``."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(root), name, owner, purpose, str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def stop(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait(timeout=10)


# ------------------------------------------------------------------------------------ the public site


def test_board_build_is_refused_in_one_line_naming_the_public_board_job_writing_the_site(
    published: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holder = hold(published.root, SITE_LOCK, "run-5b1e", "public_board_job run started by the UI")
    try:
        code = cli("board", "build", str(tmp_path / "site"), "--data", str(published.root), "--wait", "0.3")
    finally:
        stop(holder)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    refusal = [line for line in err if "refused after" in line]
    assert len(refusal) == 1 and "Traceback" not in "\n".join(err), err
    assert refusal[0].startswith("colosseum board build: the public site of ")
    assert "public_board_job run started by the UI, run run-5b1e, pid" in refusal[0]
    assert "after waiting 0.3 s, nothing was written" in refusal[0]
    assert not (tmp_path / "site").exists()


def test_board_build_waits_for_the_build_before_it_then_builds(
    published: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holder = hold(published.root, SITE_LOCK, "run-7c2d", "public_board_job run started by the UI", seconds=2)
    started = time.monotonic()
    try:
        code = cli("board", "build", str(tmp_path / "site"), "--data", str(published.root), "--wait", "120")
    finally:
        stop(holder)
    assert code == 0, capsys.readouterr().err
    assert time.monotonic() - started >= 1.5  # it waited for the holder before building
    assert (tmp_path / "site" / "index.html").is_file()


def test_public_board_job_fails_naming_the_board_build_writing_the_site(
    published: Record, tmp_path: Path
) -> None:
    holder = hold(published.root, SITE_LOCK, "pid 4242", "colosseum board build")
    try:
        result = defs.resolve_job_def("public_board_job").execute_in_process(
            run_config={
                **published.run_config(),
                "ops": {"public_board": {"config": {"out": str(tmp_path / "site"), "wait_s": 0.3}}},
            },
            instance=dg.DagsterInstance.ephemeral(),
            raise_on_error=False,
        )
    finally:
        stop(holder)
    assert not result.success
    [said] = failure_messages(result)
    assert "public_site is being written by colosseum board build, run pid 4242" in said, said
    assert not (tmp_path / "site").exists()


@dg.op
def _a_card_op() -> None:
    pass


@dg.job
def _a_card_job() -> None:
    _a_card_op()


def test_a_board_with_nothing_publishable_is_built_again_while_a_partition_is_written(
    tmp_path: Path,
) -> None:
    """A card being written has put down its first tables and not yet their signatures: a board that
    finds nothing publishable then tries again while that run goes on, and fails naming the record's
    problem only once the wait is over (nothing written meanwhile: a folder that is no record yet)."""
    data = tmp_path / "data"
    data.mkdir()
    run_config = {
        "resources": {
            "record": {"config": {"data_dir": str(data)}},
            "io_manager": {"config": {"data_dir": str(data)}},
        },
        "ops": {"public_board": {"config": {"out": str(tmp_path / "site"), "wait_s": 6.0}}},
    }
    with dg.instance_for_test() as instance:
        job = defs.resolve_job_def("public_board_job")
        started = time.monotonic()
        alone = job.execute_in_process(run_config=run_config, instance=instance, raise_on_error=False)
        assert not alone.success and time.monotonic() - started < 5  # no writer: refused at once
        # A command's run left started by a process that is gone (killed) writes nothing: no wait.
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
        instance.create_run_for_job(
            _a_card_job,
            status=dg.DagsterRunStatus.STARTED,
            tags={"dagster/partition": "2026-12-04-1800", **cli_run_tags("colosseum forecast card run")}
            | {PID_TAG: dead.stdout.decode().strip()},
        )
        started = time.monotonic()
        killed = job.execute_in_process(run_config=run_config, instance=instance, raise_on_error=False)
        assert not killed.success and time.monotonic() - started < 5
        instance.create_run_for_job(
            _a_card_job, status=dg.DagsterRunStatus.STARTED, tags={"dagster/partition": "2026-12-05-0500"}
        )
        started = time.monotonic()
        beside = job.execute_in_process(run_config=run_config, instance=instance, raise_on_error=False)
        assert not beside.success and time.monotonic() - started >= 5
        said = [e.message or "" for e in instance.all_logs(beside.run_id)]
        assert any("while _a_card_job for 2026-12-05-0500 write the record" in m for m in said), said
        assert "is not a record" in " ".join(failure_messages(beside))
    assert not (tmp_path / "site").exists()


# ------------------------------------------------------------------------------------- a debate epoch


def test_a_debate_command_is_refused_naming_the_sensors_run_of_its_epoch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The daemon's sensor has asked for the epoch's run on make run's instance (created, not yet
    started, as the daemon leaves it for the run queue): the CLI, sharing that instance, sees it and
    leaves the epoch to it, naming the run and who started it."""
    home = tmp_path / "home"
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    with running_ledger(now=lambda: NOW) as (url, ledger):
        key = epoch_key(epoch_of(ledger.current_block()))
        with dg.DagsterInstance.from_config(str(instance_home())) as instance:
            job = defs.resolve_job_def("debate_epoch_job")
            instance.add_dynamic_partitions("debate_epochs", [key])
            queued = instance.create_run_for_job(
                job,
                status=dg.DagsterRunStatus.NOT_STARTED,
                tags={**job.tags, "dagster/partition": key, "dagster/sensor_name": "debate_epoch_sensor"},
            )
            capsys.readouterr()
            code = cli("debate", "entries", key, "--ledger", url, "--data", str(tmp_path / "data"))
            err = capsys.readouterr().err.strip().splitlines()
            assert code == 2, err
            assert err[-1] == (
                f"colosseum debate entries: epoch {key} is being written by debate_epoch_job run "
                f"{queued.run_id} (started by the daemon's sensor debate_epoch_sensor, about to start); "
                "not started"
            )
            # Nothing of the epoch was written, and no run of the CLI's was started.
            assert not (tmp_path / "data" / "warehouse" / "debate").exists()
            assert [r.run_id for r in instance.get_runs()] == [queued.run_id]


def test_the_epoch_sensor_leaves_an_epoch_a_command_is_playing_elsewhere(tmp_path: Path) -> None:
    """A CLI playing the epoch on another instance (or host) holds the record's lock of the epoch: the
    sensor names it and starts nothing; once it is done, the sensor plays the epoch as before."""
    from colosseum_dagster.debate.resources import ChainResource
    from colosseum_dagster.debate.sensors import debate_epoch_sensor
    from colosseum_dagster.resources import ClockResource, RecordResource

    data = tmp_path / "data"
    rotation = rotation_key(NOW)
    Layout(data).seals(DEBATE_TOPICS).seal(
        rotation, kind="CALIBRATION", content_id="rotation-x", sealed_at="2026-01-03T00:00:00Z",
        tables={"motions": "0" * 64},
    )  # fmt: skip
    instance = dg.DagsterInstance.ephemeral()
    with running_ledger(now=lambda: NOW) as (url, ledger):
        key = epoch_key(epoch_of(ledger.current_block()))
        resources = {
            "chain": ChainResource(ledger_url=url),
            "record": RecordResource(data_dir=str(data)),
            "clock": ClockResource(fixed_instant=NOW.isoformat()),
        }
        purpose = "debate_entries_job run started by `colosseum debate entries current` (pid 77 on elsewhere)"
        holder = hold(data, partition_lock("epoch", key), "run-cli-1", purpose)
        try:
            tick = debate_epoch_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        finally:
            stop(holder)
        assert isinstance(tick, dg.SkipReason), tick
        assert f"epoch {key}" in tick.skip_message and purpose in tick.skip_message
        assert "run run-cli-1" in tick.skip_message and "not started here" in tick.skip_message
        assert not instance.has_dynamic_partition("debate_epochs", key)
        after = debate_epoch_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        assert [(r.job_name, r.partition_key) for r in after.run_requests] == [("debate_epoch_job", key)]
