"""The platform's Definitions: what every arena's runs share, the record, the exchange, the clock, the
executor and the loggers.

A module of its own because ``definitions`` (every arena merged, for the UI and the daemon) and
``arena_definitions`` (one arena, for a command, falling back to the merged Definitions for a job
no arena lists alone) both start from it: neither imports the other for it.
"""

from __future__ import annotations

import dagster as dg

from colosseum_dagster.executors import executor_from_environment
from colosseum_dagster.progress import PROGRESS_LOGGER, progress_logger
from colosseum_dagster.resources import (
    ClockResource,
    ExchangeResource,
    ParquetRecordIOManager,
    RecordResource,
    provider_keys_from_environment,
)


def platform_defs() -> dg.Definitions:
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
