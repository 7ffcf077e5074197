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


def test_a_command_skips_the_catalog_run_only_when_it_is_current(tmp_path, capsys):
    from colosseum_dagster.cli.common import CatalogCurrent
    from colosseum_dagster.cli.common import refresh_catalog as command_refresh

    root = tmp_path / "data"
    _write(Record(root), "sweeps", "2026-11-29-0500")
    first = command_refresh(root, False)
    assert first.success and not isinstance(first, CatalogCurrent)
    assert any(e.event_type_value == "STEP_SUCCESS" for e in first.all_events)
    assert isinstance(command_refresh(root, False), CatalogCurrent)
    assert "every view current, not rebuilt" in capsys.readouterr().err
    _write(Record(root), "packet", "2026-11-29-0500")
    third = command_refresh(root, False)
    assert third.success and not isinstance(third, CatalogCurrent)
    with duckdb.connect(str(Record(root).catalog_path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM forecast.packet").fetchone() == (1,)
