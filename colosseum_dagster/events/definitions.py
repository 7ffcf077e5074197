"""The multi-event arena's Definitions, merged into the platform's (``colosseum_dagster.definitions``)."""

import dagster as dg

from colosseum_dagster.events.challenges import (
    challenge_authored,
    challenge_commitments,
    challenge_event_job,
    challenge_freeze_job,
    challenge_replies,
    challenge_reveals,
    challenge_reviews,
    challenge_standings,
    challenge_submissions,
)
from colosseum_dagster.events.chess import chess_event_job, chess_freeze_job, chess_games, chess_standings
from colosseum_dagster.events.manifests import event_bundle, event_manifest
from colosseum_dagster.events.resources import ChessResource, SolveOrObjectResource
from colosseum_dagster.events.solve_or_object import soo_event_job, soo_freeze_job, soo_replies, soo_standings

events_defs = dg.Definitions(
    assets=[
        event_manifest,
        event_bundle,
        chess_games,
        chess_standings,
        soo_replies,
        soo_standings,
        challenge_authored,
        challenge_submissions,
        challenge_commitments,
        challenge_replies,
        challenge_reviews,
        challenge_reveals,
        challenge_standings,
    ],
    jobs=[
        chess_freeze_job,
        chess_event_job,
        soo_freeze_job,
        soo_event_job,
        challenge_freeze_job,
        challenge_event_job,
    ],
    resources={"chess": ChessResource(), "solve_or_object": SolveOrObjectResource()},
)
