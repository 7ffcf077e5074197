"""The multi-event arena's sensor: the public board rebuilt after an event's results are sealed and
signed, as after a card's leaderboard or a debate epoch's close."""

import dagster as dg

from colosseum_dagster.board import PUBLIC_BOARD_JOB
from colosseum_dagster.events.manifests import key

# The board follows the signed results bundle, written once an event is sealed.
BOARD_INPUTS = (key("event_bundles"),)


@dg.asset_sensor(
    asset_key=BOARD_INPUTS[0],
    job_name=PUBLIC_BOARD_JOB,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Rebuilds the public board after an event is sealed (its results bundle is signed).",
)
def events_board_sensor(context: dg.SensorEvaluationContext, asset_event: dg.EventLogEntry) -> dg.RunRequest:
    # The sensor's cursor moves past each materialization; the run that made it names the request.
    return dg.RunRequest(run_key=f"events-board:{asset_event.run_id}")
