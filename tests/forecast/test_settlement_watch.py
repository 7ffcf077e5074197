"""The settlement watch's bookkeeping: admission, rotation through a backlog, the JSON cursor."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from colosseum_core.forecast.settlement.watch import WatchState, admit, batch_of
from colosseum_core.record import RecordTables


def _card(
    tables: RecordTables, key: str, markets: list[str], *, answered: bool = True, settled: int = 0
) -> None:
    tables.write("card_questions", pl.DataFrame({"market_id": markets}), key)
    if answered:
        tables.write("answers", pl.DataFrame({"seat": ["a"]}), key)
    if settled:
        tables.write("settlements", pl.DataFrame({"market_id": markets[:settled]}), key)


def test_cursor_round_trips_and_refuses_a_foreign_one() -> None:
    state = WatchState(
        pending={"2026-11-20-1000": ["1", "2"]},
        through="2026-11-20-1000",
        rotation=1,
        settled_since={"2026-11-20-1000": "2026-11-25T00:00:00+00:00"},
    )
    assert WatchState.from_cursor(state.to_cursor()) == state
    assert WatchState.from_cursor(None) is None
    with pytest.raises(ValueError, match="format"):
        WatchState.from_cursor('{"format": "other/1"}')


def test_first_tick_reconciles_with_the_record_then_only_newer_cards_are_admitted(tmp_path: Path) -> None:
    tables = RecordTables(tmp_path, "card")
    _card(tables, "2026-11-20-0500", ["1", "2"], settled=2)  # fully settled: not watched
    _card(tables, "2026-11-20-1000", ["3", "4"], settled=1)
    _card(tables, "2026-11-20-1800", ["5"], answered=False)  # sealed, never answered: nothing to score
    state, admitted = admit(None, tables)
    assert admitted == ["2026-11-20-1000"] and state.pending == {"2026-11-20-1000": ["3", "4"]}
    assert state.through == "2026-11-20-1000"

    _card(tables, "2026-11-21-0500", ["6"])
    state, admitted = admit(state, tables)
    assert admitted == ["2026-11-21-0500"] and state.through == "2026-11-21-0500"
    assert admit(state, tables)[1] == []


def test_batches_rotate_through_every_waiting_market() -> None:
    state = WatchState(pending={"a": ["1", "2", "3"], "b": ["4", "5"]})
    seen = [batch_of(state, 2) for _ in range(3)]
    assert seen == [[("a", "1"), ("a", "2")], [("a", "3"), ("b", "4")], [("b", "5"), ("a", "1")]]
    assert batch_of(WatchState(), 5) == []
