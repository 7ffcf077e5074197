"""The card schedule in core, and the Dagster partitions and schedule that mirror it."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import dagster as dg
import pytest

from colosseum_core.forecast.schedule import (
    SWEEP_HORIZON,
    card_for_instant,
    card_from_key,
    cards_between,
)
from colosseum_dagster.definitions import defs
from colosseum_dagster.forecast.partitions import card_partitions

NY = ZoneInfo("America/New_York")


@pytest.mark.parametrize(
    ("key", "seal_utc", "slot"),
    [
        ("2026-11-29-0500", "2026-11-29T10:00:00+00:00", "DAWN"),
        ("2026-11-29-1000", "2026-11-29T15:00:00+00:00", "MORNING"),
        ("2026-07-04-1800", "2026-07-04T22:00:00+00:00", "EVENING"),
        ("2026-03-08-0500", "2026-03-08T09:00:00+00:00", "DAWN"),  # first day of EDT
        ("2026-11-01-0500", "2026-11-01T10:00:00+00:00", "DAWN"),  # first day of EST
    ],
)
def test_keys_name_their_seal_in_new_york_time(key, seal_utc, slot):
    card = card_from_key(key)
    assert card.seal == dt.datetime.fromisoformat(seal_utc)
    assert card.slot == slot
    assert card.sweep_window == (card.seal, card.seal + dt.timedelta(hours=102))
    assert dt.timedelta(hours=102) == SWEEP_HORIZON


@pytest.mark.parametrize("key", ["2026-11-29-0600", "2026-11-29", "2026-02-30-0500", "2026-11-29-500", "x"])
def test_keys_that_are_not_seals_are_refused(key):
    with pytest.raises(ValueError, match="card key"):
        card_from_key(key)


def test_day_number_counts_from_the_epoch_in_new_york():
    assert card_from_key("1970-01-01-1800").day_number == 0
    assert card_from_key("2026-11-29-1800").day_number == (dt.date(2026, 11, 29) - dt.date(1970, 1, 1)).days


def test_card_for_instant_is_the_latest_seal_at_or_before():
    at = dt.datetime(2026, 11, 29, 10, 0, tzinfo=NY)
    assert card_for_instant(at).key == "2026-11-29-1000"
    assert card_for_instant(at - dt.timedelta(microseconds=1)).key == "2026-11-29-0500"
    assert card_for_instant(dt.datetime(2026, 11, 29, 4, 59, tzinfo=NY)).key == "2026-11-28-1800"
    with pytest.raises(ValueError):
        card_for_instant(dt.datetime(2026, 11, 29))


def test_core_schedule_matches_dagster_partitions_across_both_dst_changes():
    for start, end in [("2026-03-06-0500", "2026-03-10-1800"), ("2026-10-30-0500", "2026-11-03-1800")]:
        core = [c.key for c in cards_between(card_from_key(start).seal, card_from_key(end).seal)]
        window = dg.TimeWindow(card_from_key(start).seal, card_from_key(end).seal + dt.timedelta(seconds=1))
        dagster_keys = card_partitions.get_partition_keys_in_time_window(window)
        assert core == dagster_keys
        assert len(core) == 15


@pytest.mark.parametrize("hour", [5, 10, 18])
def test_each_tick_runs_the_card_that_seals_at_it(hour):
    schedule = defs.resolve_schedule_def("card_schedule")
    assert schedule.cron_schedule == "0 5,10,18 * * *"
    assert schedule.execution_timezone == "America/New_York"
    tick = dt.datetime(2026, 11, 1, hour, 0, tzinfo=NY)  # the day clocks fall back
    with dg.instance_for_test() as instance:
        result = schedule.evaluate_tick(
            dg.build_schedule_context(
                instance=instance, scheduled_execution_time=tick, repository_def=defs.get_repository_def()
            )
        )
    [request] = result.run_requests
    assert request.partition_key == f"2026-11-01-{hour:02d}00" == card_for_instant(tick).key
    assert schedule.default_status == dg.DefaultScheduleStatus.RUNNING
