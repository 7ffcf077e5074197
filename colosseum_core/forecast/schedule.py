"""The card schedule: three seals a day, 05:00, 10:00 and 18:00 New York time (DST-correct).

A card's key is its seal in New York wall time, ``YYYY-MM-DD-HHMM``; the key alone determines the
seal instant, the slot name, the New York date and the rotation's day number.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from zoneinfo import ZoneInfo

CARD_TIMEZONE_NAME = "America/New_York"
CARD_TIMEZONE = ZoneInfo(CARD_TIMEZONE_NAME)
CARD_CRON = "0 5,10,18 * * *"
CARD_KEY_FORMAT = "%Y-%m-%d-%H%M"
SLOTS: dict[str, str] = {"0500": "DAWN", "1000": "MORNING", "1800": "EVENING"}
SEAL_HOURS = (5, 10, 18)

# The sweep collects markets ending within the 96-hour selection window plus a 6-hour margin.
SELECTION_WINDOW = dt.timedelta(hours=96)
SWEEP_MARGIN = dt.timedelta(hours=6)
SWEEP_HORIZON = SELECTION_WINDOW + SWEEP_MARGIN

_EPOCH_DATE = dt.date(1970, 1, 1)


@dataclasses.dataclass(frozen=True)
class Card:
    key: str
    seal: dt.datetime  # UTC
    slot: str
    new_york_date: dt.date

    @property
    def day_number(self) -> int:
        """Days from 1970-01-01 to the card's New York date (the rotation's day number)."""
        return (self.new_york_date - _EPOCH_DATE).days

    @property
    def sweep_window(self) -> tuple[dt.datetime, dt.datetime]:
        """Markets whose own endDate falls in (seal, seal + 102 h]."""
        return self.seal, self.seal + SWEEP_HORIZON


def card_from_key(key: str) -> Card:
    try:
        local = dt.datetime.strptime(key, CARD_KEY_FORMAT)
    except ValueError as exc:
        raise ValueError(f"card key {key!r} is not YYYY-MM-DD-HHMM") from exc
    hhmm = key[-4:]
    if hhmm not in SLOTS or local.strftime(CARD_KEY_FORMAT) != key:
        raise ValueError(
            f"card key {key!r} is not a seal time; seals are at {', '.join(SLOTS)} New York time"
        )
    seal = local.replace(tzinfo=CARD_TIMEZONE).astimezone(dt.UTC)
    return Card(key=key, seal=seal, slot=SLOTS[hhmm], new_york_date=local.date())


def card_for_instant(instant: dt.datetime) -> Card:
    """The latest card sealed at or before ``instant``."""
    if instant.tzinfo is None:
        raise ValueError("instant must be timezone-aware")
    local = instant.astimezone(CARD_TIMEZONE)
    day = local.date()
    for _ in range(3):
        for hour in reversed(SEAL_HOURS):
            seal_local = dt.datetime.combine(day, dt.time(hour), tzinfo=CARD_TIMEZONE)
            if seal_local <= local:
                return card_from_key(seal_local.strftime(CARD_KEY_FORMAT))
        day -= dt.timedelta(days=1)
    raise AssertionError("unreachable: a seal exists within any three days")


def cards_between(start: dt.datetime, end: dt.datetime) -> list[Card]:
    """Every card sealed in [start, end], in seal order."""
    cards: list[Card] = []
    day = start.astimezone(CARD_TIMEZONE).date()
    last_day = end.astimezone(CARD_TIMEZONE).date()
    while day <= last_day:
        for hour in SEAL_HOURS:
            card = card_from_key(dt.datetime.combine(day, dt.time(hour)).strftime(CARD_KEY_FORMAT))
            if start <= card.seal <= end:
                cards.append(card)
        day += dt.timedelta(days=1)
    return cards
