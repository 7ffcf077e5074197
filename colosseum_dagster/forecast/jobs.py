"""Jobs and the card schedule."""

import dagster as dg

from colosseum_dagster.board import PUBLIC_BOARD
from colosseum_dagster.forecast.cards import CARDS_GROUP
from colosseum_dagster.forecast.keys import ARENA
from colosseum_dagster.forecast.scores import BOARD_GROUP, SETTLEMENT_GROUP
from colosseum_dagster.wiring import arena_job

card_job = arena_job(
    "card_job",
    ARENA,
    dg.AssetSelection.groups(CARDS_GROUP),
    "One card: sweep → verbatim copy → its seal (card_status: sealed, or missed) → verdicts, "
    "questions and packet → answers. Running a card again finishes it or reproduces it byte for byte.",
    tags={"dagster/max_retries": "1"},
)

settlement_job = arena_job(
    "settlement_job",
    ARENA,
    dg.AssetSelection.groups(SETTLEMENT_GROUP),
    "One card's settlements, read from the receipts the settlement sensor stored, then its scores.",
)

leaderboard_job = arena_job(
    "leaderboard_job",
    ARENA,
    dg.AssetSelection.groups(BOARD_GROUP) | dg.AssetSelection.assets(PUBLIC_BOARD),
    "The leaderboard and calibration tables, recomputed from every card's scores, then the "
    "public board built from them and signed.",
)

# 05:00, 10:00 and 18:00 New York time, each tick running the card that seals at that tick.
card_schedule = dg.build_schedule_from_partitioned_job(
    card_job, name="card_schedule", default_status=dg.DefaultScheduleStatus.RUNNING
)
