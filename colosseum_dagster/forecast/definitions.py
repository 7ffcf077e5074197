"""The forecasting arena's Definitions, merged with the platform's by ``colosseum_dagster.definitions``."""

import dagster as dg

from colosseum_dagster.forecast import answers, cards, scores
from colosseum_dagster.forecast.jobs import card_job, card_schedule, leaderboard_job, settlement_job
from colosseum_dagster.forecast.keys import key
from colosseum_dagster.forecast.resources import GladiatorsResource
from colosseum_dagster.forecast.sensors import leaderboard_sensor, settlement_sensor

forecast_defs = dg.Definitions(
    assets=dg.load_assets_from_modules([cards, answers, scores]),
    jobs=[card_job, settlement_job, leaderboard_job],
    schedules=[card_schedule],
    sensors=[settlement_sensor, leaderboard_sensor],
    resources={"gladiators": GladiatorsResource()},
)

# What the public board shows of this arena, drawn before it (``colosseum_dagster.board``).
BOARD_INPUTS = (key("leaderboard"), key("calibration"))
