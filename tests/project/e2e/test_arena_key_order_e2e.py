"""Which arena a new user tries first never decides which dates the others can sign: an event frozen
today, then a forecast card dated weeks earlier, on the offline default's one record."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record.layout import Record
from colosseum_core.trust.keys import ARENA, OFFLINE_FIRST_DAY, KeyStore
from tests.conftest import cli

CARD = "2026-11-20-0500"


def test_a_card_dated_before_the_first_event_is_signed_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLOSSEUM_POSTGRES_URL", raising=False)
    monkeypatch.delenv("COLOSSEUM_KEY_ARENA", raising=False)
    data = tmp_path / "data"
    freeze = ("events", "solve-or-object", "event", "freeze", "soo-first", "--pairs", "2", "--seed", "3")
    assert cli(*freeze, "--data", str(data)) == 0
    # The freeze, on the wall clock's day (after the card's), created the arena key.
    [key] = KeyStore.for_data(data).keys(ARENA)
    assert key.record.valid_from == OFFLINE_FIRST_DAY < dt.date(2026, 11, 20) < dt.date.today()

    assert cli("forecast", "card", "run", CARD, "--markets", "800", "--data", str(data)) == 0
    tables = Record(data).tables(FORECAST)
    answers = tables.read_checked("answers", CARD)
    assert answers.height > 0
    signatures = tables.read_checked("answer_signatures", CARD)
    # Every seat's row countersigned by the one arena key the event's manifest is signed with.
    assert signatures.height == answers.height and set(signatures["arena_key_id"]) == {key.record.key_id}
    assert cli("verify", str(data)) == 0
