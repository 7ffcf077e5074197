"""The Definitions the UI, the daemon, the CLI and the tests all load: the platform's, merged with one
small Definitions per arena (each arena's asset keys carry its name as their prefix).

Dagster loads a module's one ``Definitions`` at module scope, so the parts are reached through their
modules, and ``defs`` is the only one here.
"""

import dagster as dg

from colosseum_dagster import board, catalog
from colosseum_dagster.debate import definitions as debate
from colosseum_dagster.events import definitions as events
from colosseum_dagster.executors import executor_from_environment
from colosseum_dagster.forecast import definitions as forecast
from colosseum_dagster.progress import PROGRESS_LOGGER, progress_logger
from colosseum_dagster.resources import (
    ClockResource,
    ExchangeResource,
    ParquetRecordIOManager,
    RecordResource,
    provider_keys_from_environment,
)


def _platform() -> dg.Definitions:
    """What every arena's runs share: the record, the exchange, the clock, the executor, the loggers."""
    return dg.Definitions(
        resources={
            "io_manager": ParquetRecordIOManager(),
            "record": RecordResource(),
            "exchange": ExchangeResource(),
            "clock": ClockResource(),
            "provider_keys": provider_keys_from_environment(),
        },
        executor=executor_from_environment(),
        # The console logger stays the default (the UI, the daemon); the CLI asks for the step lines.
        loggers={"console": dg.colored_console_logger, PROGRESS_LOGGER: progress_logger},
    )


defs = dg.Definitions.merge(
    _platform(),
    catalog.catalog_defs,
    board.board_defs(after=[*forecast.BOARD_INPUTS, *debate.BOARD_INPUTS]),
    forecast.forecast_defs,
    debate.debate_defs,
    events.events_defs,
)
