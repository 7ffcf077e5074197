"""The debate arena's Definitions, merged into the platform's (``colosseum_dagster.definitions``)."""

import dagster as dg

from colosseum_dagster.debate.crown import epoch_close, title_fight, weight_sets
from colosseum_dagster.debate.entries import epoch_entries
from colosseum_dagster.debate.games import epoch_games
from colosseum_dagster.debate.jobs import (
    debate_close_job,
    debate_entries_job,
    debate_epoch_job,
    debate_games_job,
    debate_topics_job,
    debate_topics_schedule,
)
from colosseum_dagster.debate.keys import key
from colosseum_dagster.debate.resources import ChainResource, DebateModelsResource
from colosseum_dagster.debate.sensors import debate_board_sensor, debate_epoch_sensor
from colosseum_dagster.debate.topics import KalshiResource, topic_rotation

debate_defs = dg.Definitions(
    assets=[epoch_entries, epoch_games, title_fight, epoch_close, weight_sets, topic_rotation],
    jobs=[debate_entries_job, debate_games_job, debate_close_job, debate_epoch_job, debate_topics_job],
    schedules=[debate_topics_schedule],
    sensors=[debate_epoch_sensor, debate_board_sensor],
    resources={
        "chain": ChainResource(),
        "debate_models": DebateModelsResource(),
        "kalshi": KalshiResource(),
    },
)

# What the public board shows of this arena, drawn before it (``colosseum_dagster.board``).
BOARD_INPUTS = (key("weight_sets"),)
