"""Jobs and the card schedule."""

import dagster as dg

from colosseum_dagster.board import PUBLIC_BOARD
from colosseum_dagster.forecast.cards import CARDS_GROUP
from colosseum_dagster.forecast.keys import ARENA
from colosseum_dagster.forecast.scores import BOARD_GROUP, SETTLEMENT_GROUP
from colosseum_dagster.resources import ARENA_TAG

card_job = dg.define_asset_job(
    "card_job",
    selection=dg.AssetSelection.groups(CARDS_GROUP),
    description="One card: sweep → verbatim copy → its seal (card_status: sealed, or missed) → verdicts, "
    "questions and packet → answers. Running a card again finishes it or reproduces it byte for byte.",
    tags={"dagster/max_retries": "1", ARENA_TAG: ARENA},
)

settlement_job = dg.define_asset_job(
    "settlement_job",
    selection=dg.AssetSelection.groups(SETTLEMENT_GROUP),
    description="One card's settlements, read from the receipts the settlement sensor stored, "
    "then its scores.",
    tags={ARENA_TAG: ARENA},
)

leaderboard_job = dg.define_asset_job(
    "leaderboard_job",
    selection=dg.AssetSelection.groups(BOARD_GROUP) | dg.AssetSelection.assets(PUBLIC_BOARD),
    description="The leaderboard and calibration tables, recomputed from every card's scores, then the "
    "public board built from them and signed.",
    tags={ARENA_TAG: ARENA},
)

# 05:00, 10:00 and 18:00 New York time, each tick running the card that seals at that tick.
card_schedule = dg.build_schedule_from_partitioned_job(
    card_job, name="card_schedule", default_status=dg.DefaultScheduleStatus.RUNNING
)
