"""Jobs and the card schedule."""

import dagster as dg

from colosseum_dagster.assets.cards import CARDS_GROUP

card_job = dg.define_asset_job(
    "card_job",
    selection=dg.AssetSelection.groups(CARDS_GROUP),
    description="One card: sweep → verbatim copy (→ selection → packet → answers → settlement → scores).",
    tags={"dagster/max_retries": "1"},
)

catalog_job = dg.define_asset_job(
    "catalog_job",
    selection=dg.AssetSelection.assets("duckdb_catalog"),
    description="Rebuild data/colosseum.duckdb's views over the record's Parquet files.",
)

# 05:00, 10:00 and 18:00 New York time, each tick running the card that seals at that tick.
card_schedule = dg.build_schedule_from_partitioned_job(
    card_job, name="card_schedule", default_status=dg.DefaultScheduleStatus.RUNNING
)
