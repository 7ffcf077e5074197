"""Sensors: keep the DuckDB catalog's views in step with the record's tables."""

import dagster as dg

from colosseum_core.record.catalog import catalog_views
from colosseum_dagster.jobs import catalog_job
from colosseum_dagster.resources import RecordResource


@dg.sensor(
    job=catalog_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Requests a catalog rebuild when a record table has no view yet (new cards of a known "
    "table appear in its view without one).",
)
def catalog_sensor(context: dg.SensorEvaluationContext, record: RecordResource) -> dg.SensorResult:
    tables = record.tables.tables()
    missing = sorted(set(tables) - set(catalog_views(record.catalog_path)))
    if not missing:
        return dg.SensorResult(skip_reason=dg.SkipReason(f"all {len(tables)} tables have views"))
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(
                run_key="catalog:" + ",".join(tables), tags={"colosseum/new_tables": ",".join(missing)}
            )
        ]
    )
