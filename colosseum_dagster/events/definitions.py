"""The multi-event arena's Definitions, merged into the platform's (``colosseum_dagster.definitions``)."""

import dagster as dg

from colosseum_dagster.events.chess import (
    ChessResource,
    chess_event_job,
    chess_freeze_job,
    chess_games,
    chess_standings,
    event_manifest,
)

events_defs = dg.Definitions(
    assets=[event_manifest, chess_games, chess_standings],
    jobs=[chess_freeze_job, chess_event_job],
    resources={"chess": ChessResource()},
)
