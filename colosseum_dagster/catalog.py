"""The DuckDB catalog: views over every arena's record tables, rebuilt by one writer at a time; its job
and the sensor that asks for a rebuild when a table has no view yet. It belongs to no arena."""

from pathlib import Path
from typing import Any

import dagster as dg

from colosseum_core.arenas import ARENAS
from colosseum_core.record.catalog import catalog_views, expected_views, refresh_catalog
from colosseum_dagster.resources import RecordResource

CATALOG_POOL = "duckdb_catalog"
STEP_WORDS = {"duckdb_catalog": "refreshing the DuckDB catalog"}


@dg.asset(
    group_name="catalog",
    pool=CATALOG_POOL,
    kinds={"duckdb"},
    description="data/colosseum.duckdb: one schema per arena, one view per record table over its Parquet "
    "files (forecast.scores, forecast.cards, …). Rebuilt into a temp file and renamed into place, so it "
    "never waits on an analyst's open session.",
)
def duckdb_catalog(record: RecordResource) -> dg.MaterializeResult:
    views = refresh_catalog(record.layout, ARENAS)
    return dg.MaterializeResult(metadata=catalog_metadata(views, record.catalog_path))


def catalog_metadata(views: list[str], path: Path) -> dict[str, Any]:
    """What a rebuild of the catalog records on its materialization, by a run or by a command."""
    return {"views": ", ".join(views), "path": dg.MetadataValue.path(str(path))}


catalog_job = dg.define_asset_job(
    "catalog_job",
    selection=dg.AssetSelection.assets(duckdb_catalog),
    description="Rebuild data/colosseum.duckdb's views over the record's Parquet files.",
)


@dg.sensor(
    job=catalog_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Requests a catalog rebuild when a record table has no view yet (new cards of a known "
    "table appear in its view without one).",
)
def catalog_sensor(context: dg.SensorEvaluationContext, record: RecordResource) -> dg.SensorResult:
    views = expected_views(record.layout, ARENAS)
    missing = sorted(set(views) - set(catalog_views(record.catalog_path)))
    if not missing:
        return dg.SensorResult(skip_reason=dg.SkipReason(f"all {len(views)} views are in the catalog"))
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(
                run_key="catalog:" + ",".join(views), tags={"colosseum/new_tables": ",".join(missing)}
            )
        ]
    )


catalog_defs = dg.Definitions(assets=[duckdb_catalog], jobs=[catalog_job], sensors=[catalog_sensor])
