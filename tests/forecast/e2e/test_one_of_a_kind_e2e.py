"""End to end: on the offline default board no card holds two questions from one real-world event.

Card 2026-11-30-1800 of ``running_exchange(seed=0, markets=3000)`` once held two Powell questions
from two events with one title and different ids, and two from one Musk livestream. The card is
swept over HTTP and judged in process; the test reads "one real-world event" its own way (plain
Python, from the copied rows) rather than through the rule's code.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from colosseum_core.exchanges.polymarket.client import SweepSettings
from colosseum_core.forecast.rules import ONE_OF_A_KIND_READING, ONE_OF_A_KIND_READING_1
from colosseum_core.forecast.schedule import CARD_TIMEZONE, card_from_key
from colosseum_core.forecast.sealing.card import RankedCandidates, rank_candidates
from colosseum_core.forecast.selection import question_stem, reading_of
from colosseum_core.forecast.selection.audit import audit_selection
from colosseum_core.forecast.sweep.card_sweep import sweep_card
from colosseum_core.forecast.sweep.copy import CopyResult, copy_markets
from colosseum_core.record import ReceiptStore
from colosseum_standins.simulated_exchange import running_exchange

CARD = card_from_key("2026-11-30-1800")
_JOINS = re.compile(r"\s+(?:vs\.?|v\.?|@)\s+", re.IGNORECASE)


@pytest.fixture(scope="module")
def copied(tmp_path_factory: pytest.TempPathFactory) -> CopyResult:
    store = ReceiptStore(Path(tmp_path_factory.mktemp("receipts")))
    with running_exchange(seed=0, markets=3000) as url:
        sweep = sweep_card(CARD, SweepSettings(base_url=url), store, clock=lambda: dt.datetime.now(dt.UTC))
    assert sweep.result.complete
    copied = copy_markets(CARD.key, sweep.result.page_receipt_ids, store)
    assert copied.errors.is_empty()
    return copied


@pytest.fixture(scope="module")
def swept(copied: CopyResult) -> pl.DataFrame:
    return copied.markets


@pytest.fixture(scope="module")
def ranked(copied: CopyResult) -> RankedCandidates:
    return rank_candidates(CARD, copied.markets, copied.errors, None)


def _stems(texts: list[str | None]) -> list[str | None]:
    return (
        pl.DataFrame({"t": texts}, schema={"t": pl.String}).select(question_stem(pl.col("t")))["t"].to_list()
    )


def _day(row: dict[str, Any]) -> str:
    stamped = row["event_start_time_ts"] or row["market_event_start_time_ts"] or row["game_start_time_ts"]
    when = stamped or row["event_end_date_ts"] or row["end_date_ts"]
    return when.astimezone(CARD_TIMEZONE).date().isoformat()


def _real_world_events(rows: list[dict[str, Any]]) -> list[set[str]]:
    """For each row, the names of its real-world event: its title on its day, and a fixture's teams."""
    titles = _stems([row["event_title"] for row in rows])
    named = []
    for row, title in zip(rows, titles, strict=True):
        names = {f"title {title} on {_day(row)}"} if title else set()
        head = re.split(r":\s+|\s+-\s+", re.sub(r"\([^)]*\)", "", row["event_title"] or ""))
        sides = next((_JOINS.split(piece) for piece in head if len(_JOINS.split(piece)) == 2), None)
        if sides is not None and (row["game_start_time_ts"] or row["event_start_time_ts"]):
            teams = sorted(s for s in _stems([side.strip() for side in sides]) if s)
            if len(teams) == 2:
                names.add(f"teams {teams} on {_day(row)}")
        named.append(names)
    return named


def test_the_card_holds_one_question_per_real_world_event(swept, ranked):
    verdicts = ranked.verdicts
    card = verdicts.filter(pl.col("verdict") == "selected")
    assert card.height == 25
    rows = swept.join(card.select("market_id"), on="market_id").to_dicts()
    seen = Counter(name for names in _real_world_events(rows) for name in names)
    assert [name for name, count in seen.items() if count > 1] == []
    # The announced cases: one press conference, one livestream, one question each at most.
    for who in ("Powell", "Musk"):
        titles = [row["event_title"] for row in rows if row["event_title"].startswith(f"What will {who} say")]
        assert len(titles) == len(set(titles)), who


def test_the_sweep_lists_real_world_events_twice_and_the_ranked_list_keeps_one_of_each(swept, ranked):
    verdicts = ranked.verdicts
    ranked_rows = swept.join(verdicts.filter(pl.col("rank").is_not_null()), on="market_id").sort("rank")
    rows = ranked_rows.to_dicts()
    # Group the questions that reached the ranking by real-world event, under different event ids.
    events: dict[str, list[dict[str, Any]]] = {}
    for row, names in zip(rows, _real_world_events(rows), strict=True):
        for name in names:
            events.setdefault(name, []).append(row)
    twice = {name: group for name, group in events.items() if len({r["event_id"] for r in group}) > 1}
    assert any(name.startswith("title ") for name in twice) and any(
        name.startswith("teams ") for name in twice
    )
    for name, group in twice.items():
        # At most one of them is on the list the cut reads (the card and the ranked list below it).
        assert sum(row["place"] is not None for row in group) <= 1, name
    v2 = verdicts.filter(pl.col("value").str.contains(ONE_OF_A_KIND_READING, literal=True))
    assert v2.height > 0 and set(v2["rule"]) == {"one_of_a_kind"}
    assert reading_of(verdicts["value"]) == ONE_OF_A_KIND_READING


def test_the_independent_audit_agrees(swept, ranked):
    verdicts = ranked.verdicts
    assert audit_selection(swept, verdicts, seal=CARD.seal) == []
    assert audit_selection(swept, verdicts, seal=CARD.seal, one_of_a_kind=ONE_OF_A_KIND_READING_1) == []
    # Put every question the new reading set aside on the card, beside the listing it named: the audit,
    # reading titles and teams its own way, names each of them and nothing else.
    v2 = verdicts.filter(pl.col("value").str.contains(ONE_OF_A_KIND_READING, literal=True))
    named = v2["value"].str.split(" ").list.last()
    assert v2.height > 0
    restored = verdicts.with_columns(
        verdict=pl.when(pl.col("market_id").is_in(pl.concat([v2["market_id"], named]).implode()))
        .then(pl.lit("selected"))
        .otherwise("verdict")
    )
    alike = {
        line.split(":")[0]
        for line in audit_selection(swept, restored, seal=CARD.seal)
        if ": one_of_a_kind: " in line
    }
    assert alike == {f"market {market_id}" for market_id in v2["market_id"]}


def test_a_card_judged_under_version_1_is_re_derived_under_version_1(copied, ranked):
    # What a card sealed before version 2 recorded: its values never name version 2, so verify and a
    # re-run of its seal (both pass reading_for(recorded verdicts) to rank_candidates) judge it as it was.
    old = rank_candidates(CARD, copied.markets, copied.errors, None, ONE_OF_A_KIND_READING_1)
    assert reading_of(old.verdicts["value"]) == ONE_OF_A_KIND_READING_1
    again = rank_candidates(CARD, copied.markets, copied.errors, None, reading_of(old.verdicts["value"]))
    assert again.verdicts.equals(old.verdicts)
    assert (
        audit_selection(copied.markets, old.verdicts, seal=CARD.seal, one_of_a_kind=ONE_OF_A_KIND_READING_1)
        == []
    )
    # The two readings differ on this board, so the choice is not idle.
    assert not old.verdicts.equals(ranked.verdicts)
