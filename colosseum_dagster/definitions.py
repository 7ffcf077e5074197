"""The Definitions the UI, the daemon and the tests load: the platform's, merged with one
small Definitions per arena (each arena's asset keys carry its name as their prefix).

Dagster loads a module's one ``Definitions`` at module scope, so the parts are reached through their
modules, and ``defs`` is the only one here. A command resolves its job from the platform merged with
its arena alone (``colosseum_dagster.arena_definitions``).
"""

import dagster as dg

from colosseum_dagster import board, catalog
from colosseum_dagster.debate import definitions as debate
from colosseum_dagster.events import definitions as events
from colosseum_dagster.forecast import definitions as forecast
from colosseum_dagster.platform_definitions import platform_defs

defs = dg.Definitions.merge(
    platform_defs(),
    catalog.catalog_defs,
    board.board_defs(after=[*forecast.BOARD_INPUTS, *debate.BOARD_INPUTS, *events.BOARD_INPUTS]),
    forecast.forecast_defs,
    debate.debate_defs,
    events.events_defs,
)
