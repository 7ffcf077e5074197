"""The multi-event arena's sensor: the public board rebuilt after an event's results are sealed and
signed, as after a card's leaderboard or a debate epoch's close."""

from colosseum_dagster.board import board_sensor
from colosseum_dagster.events.manifests import key

# The board follows the signed results bundle, written once an event is sealed.
BOARD_INPUTS = (key("event_bundles"),)

events_board_sensor = board_sensor(
    "events_board_sensor",
    BOARD_INPUTS[0],
    "Rebuilds the public board after an event is sealed (its results bundle is signed).",
    run_key="events-board",
)
