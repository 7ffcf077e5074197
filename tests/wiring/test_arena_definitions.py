"""A command's Definitions: each arena's jobs resolved from the platform and that arena alone hold the
same assets, steps and resources as the merged Definitions the UI loads; and the catalog refresh a
command ends with is skipped only when a rebuild would change nothing."""

from __future__ import annotations

import dataclasses
import shutil

import duckdb
import polars as pl
import pytest

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record.catalog import catalog_current, refresh_catalog
from colosseum_core.record.layout import Record
from colosseum_dagster.arena_definitions import PART_JOBS, arena_definitions, job_definition, part_defs
from colosseum_dagster.definitions import defs

MERGED_ONLY = {"__ASSET_JOB", "public_board_job", "settlement_job", "leaderboard_job"}


def _shape(job):
    return (
        sorted(node.name for node in job.graph.nodes),
        sorted(key.to_user_string() for key in job.asset_layer.asset_graph.get_all_asset_keys()),
        sorted(key.to_user_string() for key in job.asset_layer.executable_asset_keys),
        sorted(job.required_resource_keys),
        job.partitions_def,
        job.executor_def.name,
        sorted(job.loggers),
        job.tags,
    )


@pytest.mark.parametrize("part", sorted(PART_JOBS))
def test_each_command_job_is_the_merged_definitions_job(part):
    for name in PART_JOBS[part]:
        mine, merged = job_definition(name), defs.resolve_job_def(name)
        assert mine is arena_definitions(part).resolve_job_def(name)
        assert _shape(mine) == _shape(merged), name


@pytest.mark.parametrize("part", sorted(PART_JOBS))
def test_each_part_brings_its_own_assets_and_resources(part):
    own = part_defs(part)
    mine = arena_definitions(part)
    merged_assets = [id(asset) for asset in defs.assets or ()]
    assert own.assets and all(id(asset) in merged_assets for asset in own.assets)
    assert set(own.resources or {}) <= set(mine.resources or {})
    assert set(mine.resources or {}) <= set(defs.resources or {})
    assert not mine.sensors and not mine.schedules


def test_every_job_of_the_merged_definitions_is_a_part_s_or_known_to_need_the_board():
    listed = [job for jobs in PART_JOBS.values() for job in jobs]
    assert len(listed) == len(set(listed))
    merged = {job.name for job in defs.resolve_all_job_defs()}
    assert set(listed) | MERGED_ONLY == merged
    # A job the parts do not list is still found, in the merged Definitions.
    assert job_definition("leaderboard_job") is defs.resolve_job_def("leaderboard_job")


def _write(record: Record, table: str, card: str) -> None:
    record.tables(FORECAST).write(table, pl.DataFrame({"card": [card], "n": [1]}), card)


def test_the_catalog_is_current_only_when_a_rebuild_would_change_nothing(tmp_path):
    record = Record(tmp_path / "data")
    assert not catalog_current(record, [FORECAST])  # no catalog
    _write(record, "sweeps", "2026-11-29-0500")
    refresh_catalog(record, [FORECAST])
    assert catalog_current(record, [FORECAST])
    # A new card of a known table shows through its view: nothing to rebuild.
    _write(record, "sweeps", "2026-11-29-1000")
    assert catalog_current(record, [FORECAST])
    # A new table, or a new alias, needs its view.
    _write(record, "packet", "2026-11-29-1000")
    assert not catalog_current(record, [FORECAST])
    refresh_catalog(record, [FORECAST])
    assert catalog_current(record, [FORECAST])
    aliased = dataclasses.replace(FORECAST, views={**FORECAST.views, "sweeps_too": "sweeps"})
    assert not catalog_current(record, [aliased])
    # A record moved elsewhere: its views would read the old paths.
    moved = Record(tmp_path / "moved")
    shutil.copytree(record.root, moved.root)
    assert not catalog_current(moved, [FORECAST])
    # A catalog written by hand, or before views kept their statements, is rebuilt.
    refresh_catalog(record, [FORECAST])
    with duckdb.connect(str(record.catalog_path)) as con:
        con.execute("COMMENT ON VIEW forecast.sweeps IS NULL")
    assert not catalog_current(record, [FORECAST])
    # A catalog an analyst holds open for writing cannot be read: rebuilt, as before.
    refresh_catalog(record, [FORECAST])
    with duckdb.connect(str(record.catalog_path)):
        assert not catalog_current(record, [FORECAST])
    record.catalog_path.unlink()
    assert not catalog_current(record, [FORECAST])


def test_a_command_rebuilds_the_catalog_only_when_it_is_not_current_and_reports_it_to_the_instance(
    tmp_path, capsys, monkeypatch
):
    from colosseum_dagster.catalog import duckdb_catalog
    from colosseum_dagster.cli.common import dagster_instance
    from colosseum_dagster.cli.common import refresh_catalog as command_refresh

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    root = tmp_path / "data"
    _write(Record(root), "sweeps", "2026-11-29-0500")
    first = command_refresh(root, False)
    assert first.success and first.rebuilt and first.views == ("forecast.sweeps",)
    # The UI's catalog asset shows the rebuild, and which command made it; no run was started for it.
    instance = dagster_instance()
    reported = instance.get_latest_materialization_event(duckdb_catalog.key)
    assert reported is not None and reported.run_id == ""
    metadata = reported.asset_materialization.metadata
    assert metadata["views"].value == "forecast.sweeps"
    assert "pid" in metadata["rebuilt by"].value
    assert not any(run.job_name == "catalog_job" for run in instance.get_runs())

    second = command_refresh(root, False)
    assert second.success and not second.rebuilt
    assert "every view current, not rebuilt" in capsys.readouterr().err
    assert instance.get_latest_materialization_event(duckdb_catalog.key).timestamp == reported.timestamp
    _write(Record(root), "packet", "2026-11-29-0500")
    third = command_refresh(root, False)
    assert third.success and third.rebuilt and "forecast.packet" in third.views
    with duckdb.connect(str(Record(root).catalog_path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM forecast.packet").fetchone() == (1,)


def test_a_catalog_that_cannot_be_written_is_reported_and_the_command_goes_on(tmp_path, capsys):
    from colosseum_dagster.cli.common import catalog_word
    from colosseum_dagster.cli.common import refresh_catalog as command_refresh

    root = tmp_path / "data"
    record = Record(root)
    _write(record, "sweeps", "2026-11-29-0500")
    record.catalog_path.parent.mkdir(parents=True, exist_ok=True)
    record.catalog_path.mkdir()  # a directory where the catalog file belongs: the rename must fail
    refresh = command_refresh(root, False)
    assert not refresh.success and not refresh.rebuilt
    assert str(record.catalog_path) in refresh.failures[0]
    assert catalog_word(refresh).startswith("NOT refreshed: the DuckDB catalog at ")
    assert str(record.catalog_path) in capsys.readouterr().err
    assert record.tables(FORECAST).exists("sweeps", "2026-11-29-0500")  # the record itself untouched
