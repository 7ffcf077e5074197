"""Card partitions: one per seal, 05:00, 10:00 and 18:00 New York time.

``end_offset=1`` makes the card that seals at a tick a partition at that tick, so the 10:00 tick
runs the 10:00 card rather than the 05:00 one; the hour is in the key so keys never collide.
"""

import dagster as dg

from colosseum_core.forecast.schedule import CARD_CRON, CARD_KEY_FORMAT, CARD_TIMEZONE_NAME

FIRST_CARD = "2026-01-01-0500"

card_partitions = dg.TimeWindowPartitionsDefinition(
    cron_schedule=CARD_CRON,
    timezone=CARD_TIMEZONE_NAME,
    fmt=CARD_KEY_FORMAT,
    start=FIRST_CARD,
    end_offset=1,
)
