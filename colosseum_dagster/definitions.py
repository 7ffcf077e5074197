"""The Definitions the UI, the daemon, the CLI and the tests all load."""

import dagster as dg

from colosseum_dagster.assets import answers, board, cards, catalog, scores
from colosseum_dagster.jobs import card_job, card_schedule, catalog_job, leaderboard_job, settlement_job
from colosseum_dagster.progress import PROGRESS_LOGGER, progress_logger
from colosseum_dagster.resources import (
    ClockResource,
    ExchangeResource,
    GladiatorsResource,
    ParquetRecordIOManager,
    RecordResource,
)
from colosseum_dagster.sensors import catalog_sensor, leaderboard_sensor, settlement_sensor

defs = dg.Definitions(
    assets=[*dg.load_assets_from_modules([cards, answers, scores, board, catalog])],
    jobs=[card_job, settlement_job, leaderboard_job, catalog_job],
    schedules=[card_schedule],
    sensors=[settlement_sensor, leaderboard_sensor, catalog_sensor],
    resources={
        "io_manager": ParquetRecordIOManager(),
        "record": RecordResource(),
        "exchange": ExchangeResource(),
        "clock": ClockResource(),
        "gladiators": GladiatorsResource(),
    },
    executor=dg.in_process_executor,
    # The console logger stays the default (the UI, the daemon); the CLI asks for the step lines.
    loggers={"console": dg.colored_console_logger, PROGRESS_LOGGER: progress_logger},
)
