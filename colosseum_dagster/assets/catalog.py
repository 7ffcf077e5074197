"""The DuckDB catalog asset: views over every record table, rebuilt by one writer at a time."""

import dagster as dg

from colosseum_core.record.catalog import refresh_catalog
from colosseum_dagster.resources import RecordResource

CATALOG_POOL = "duckdb_catalog"


@dg.asset(
    group_name="catalog",
    pool=CATALOG_POOL,
    kinds={"duckdb"},
    description="data/colosseum.duckdb: one view per record table over its Parquet files. Rebuilt "
    "into a temp file and renamed into place, so it never waits on an analyst's open session.",
)
def duckdb_catalog(record: RecordResource) -> dg.MaterializeResult:
    views = refresh_catalog(record.tables, record.catalog_path)
    return dg.MaterializeResult(
        metadata={"views": ", ".join(views), "path": dg.MetadataValue.path(str(record.catalog_path))}
    )
