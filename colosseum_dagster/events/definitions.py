"""The multi-event arena's Definitions, merged into the platform's (``colosseum_dagster.definitions``):
every registered kind's assets and jobs, built by one factory (``wiring``) from its wiring
(``kinds.WIRINGS``), the shared manifest and results bundle, and the board's sensor."""

from collections.abc import Sequence

import dagster as dg

from colosseum_dagster.events.kinds import WIRINGS
from colosseum_dagster.events.resources import ChessResource, SolveOrObjectResource
from colosseum_dagster.events.sensors import BOARD_INPUTS, events_board_sensor
from colosseum_dagster.events.wiring import KindWiring, events_assets_and_jobs

__all__ = ["BOARD_INPUTS", "events_definitions", "events_defs"]


def events_definitions(wirings: Sequence[KindWiring] = WIRINGS) -> dg.Definitions:
    """The arena's Definitions for ``wirings`` (a test adds its own kind's)."""
    assets, jobs = events_assets_and_jobs(wirings)
    return dg.Definitions(
        assets=assets,
        jobs=jobs,
        sensors=[events_board_sensor],
        resources={"chess": ChessResource(), "solve_or_object": SolveOrObjectResource()},
    )


events_defs = events_definitions()
