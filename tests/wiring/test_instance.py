"""One Dagster instance: the CLI's runs go where `make run` keeps its own, unless told otherwise."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from colosseum_dagster.cli.instance import instance_home
from tests.conftest import cli
from tests.support import REPO

CARD = ["forecast", "card", "run", "2026-11-29-0500", "--markets", "300", "--exchange", "simulated"]


def test_a_cli_run_is_kept_with_its_logs_in_the_instance_at_dagster_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    assert cli(*CARD, "--data", str(tmp_path / "data")) == 0
    # The instance make run's UI reads: the checkout's dagster.yaml linked in, as `colosseum dev` links it.
    assert (home / "dagster.yaml").resolve() == (REPO / "dagster.yaml").resolve()
    with dg.DagsterInstance.from_config(str(home)) as instance:
        runs = {run.job_name: run for run in instance.get_runs()}
        assert set(runs) == {"card_job"}
        # The catalog the command rebuilt after the card, as the asset's materialization.
        catalog = instance.get_latest_materialization_event(dg.AssetKey("duckdb_catalog"))
        assert (
            catalog is not None and "forecast.packet" in catalog.asset_materialization.metadata["views"].value
        )
        card = runs["card_job"]
        assert card.status == dg.DagsterRunStatus.SUCCESS
        assert card.tags["dagster/partition"] == "2026-11-29-0500"
        logs = instance.all_logs(card.run_id)
        steps = {e.step_key for e in logs if e.dagster_event and e.dagster_event.is_step_success}
        assert {"forecast__raw_sweep", "forecast__verbatim_markets"} <= steps, steps


def test_the_ephemeral_flag_leaves_nothing_in_the_instance(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    assert cli("--ephemeral-instance", *CARD, "--data", str(tmp_path / "data")) == 0
    assert (tmp_path / "data" / "seals").is_dir()  # the card was run and sealed …
    assert list(home.iterdir()) == []  # … and the instance never opened


def test_without_dagster_home_the_instance_is_the_checkouts_dagster_home(tmp_path, monkeypatch):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "workspace.yaml").write_text("load_from: []\n")
    (checkout / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    monkeypatch.delenv("DAGSTER_HOME")
    home = instance_home(checkout)
    assert home == (checkout / ".dagster_home").resolve()
    linked = home / "dagster.yaml"
    assert linked.is_symlink() and linked.resolve() == checkout / "dagster.yaml"
    # A second command finds the same instance and leaves the link as it is.
    assert instance_home(checkout) == home


def test_tests_never_write_into_the_checkouts_instance():
    import os

    home = Path(os.environ["DAGSTER_HOME"])
    assert REPO not in home.parents and home != REPO / ".dagster_home"


def test_a_killed_commands_run_is_marked_failed_and_its_pool_slot_freed(tmp_path, monkeypatch):
    """A command killed mid-run (kill -9) leaves its run 'started' with the catalog's pool slot: the
    next command marks it failed and frees the slot, or no run of any origin could take it again."""
    import os
    import socket
    import subprocess
    import sys

    from colosseum_dagster.cli.instance import reap_dead_cli_runs
    from colosseum_dagster.definitions import defs
    from colosseum_dagster.resources import HOST_TAG, PID_TAG, STARTED_BY_TAG

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    home = instance_home()
    dead = int(
        subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True).stdout
    )
    job = defs.resolve_job_def("catalog_job")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        runs = {}
        for name, pid in (("killed", dead), ("alive", os.getpid())):
            tags = {STARTED_BY_TAG: "colosseum catalog", PID_TAG: str(pid), HOST_TAG: socket.gethostname()}
            runs[name] = instance.create_run_for_job(job, status=dg.DagsterRunStatus.STARTED, tags=tags)
        storage = instance.event_log_storage
        storage.set_concurrency_slots("duckdb_catalog", 1)
        assert storage.claim_concurrency_slot(
            "duckdb_catalog", runs["killed"].run_id, "duckdb_catalog"
        ).is_claimed
        reap_dead_cli_runs(instance)
        assert instance.get_run_by_id(runs["killed"].run_id).status == dg.DagsterRunStatus.FAILURE
        assert instance.get_run_by_id(runs["alive"].run_id).status == dg.DagsterRunStatus.STARTED
        assert not storage.get_concurrency_info("duckdb_catalog").claimed_slots
        failure = [
            e
            for e in instance.all_logs(runs["killed"].run_id)
            if e.dagster_event and e.dagster_event.is_run_failure
        ]
        assert f"pid {dead}) is gone" in failure[0].message
