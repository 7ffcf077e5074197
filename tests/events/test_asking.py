"""The events' asking journal (COLOSSEUM-EVENT-ASKING-2) against a real sparring server on loopback: a
request the arena's stop left unanswered is recorded interrupted and asked again as the next request; one
interrupted three times is the call's silence; a replied one is replayed, never sent again."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import httpx
import pytest

from colosseum_core.arenas import sparring_houses
from colosseum_core.events.asking import (
    EVENT_ASKING,
    INTERRUPTED,
    MAX_INTERRUPTIONS,
    Asked,
    Asker,
    AskJournal,
    AskJournalError,
    Question,
    ask_all,
    journalled_calls,
)
from colosseum_core.providers.call import CallSettings, Endpoint
from colosseum_core.providers.house_models import HOUSE_KEY
from colosseum_core.record.journal import Journal
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.sparring import running_sparring

NOW = dt.datetime(2026, 12, 2, 12, tzinfo=dt.UTC)
FIELDS = ("contender", "item")
WHERE = ("c", "item-1")


def _served(url: str) -> int:
    return int(httpx.get(f"{url}/status").json()["requests"])


def _ask(url: str, path: Path) -> Asked:
    asker = Asker(
        "c",
        Endpoint("openai", url, "house-author", HOUSE_KEY),
        CallSettings(timeout_s=10),
        asyncio.Semaphore(1),
    )
    journal = AskJournal(Journal(path), FIELDS)
    question = Question("c", WHERE, "This is your slot 1 of 1.")
    (asked,) = asyncio.run(
        ask_all(
            [question],
            {"c": asker},
            receipts=ReceiptStore(path.parent / "receipts"),
            journal=journal,
            clock=lambda: NOW,
            concurrency=1,
        )
    )
    return asked


def _journal(path: Path, *events: tuple[str, int]) -> None:
    journal = Journal(path)
    for event, request in events:
        entry = {"event": event, "contender": "c", "item": "item-1", "request": request}
        if event == "ask":
            entry["model"] = "house-author"
        if event == "interrupted":
            entry |= {"reason": INTERRUPTED, "rule": EVENT_ASKING}
        journal.append(entry)


def test_a_request_the_arena_stopped_on_is_asked_again_as_the_next_request(tmp_path: Path) -> None:
    path = tmp_path / "asks.jsonl"
    _journal(path, ("ask", 1))  # the run that journalled it died before the reply was recorded
    with running_sparring(houses=sparring_houses()) as url:
        before = _served(url)
        asked = _ask(url, path)
        assert _served(url) == before + 1
        assert asked.status == "answered" and "json" in (asked.text or "") and len(asked.receipt_ids) == 1
        entries = Journal(path).entries()
        assert [(e["event"], e["request"]) for e in entries] == [
            ("ask", 1),
            ("interrupted", 1),
            ("ask", 2),
            ("reply", 2),
        ]
        assert entries[1]["reason"] == INTERRUPTED and entries[1]["rule"] == EVENT_ASKING
        assert entries[3]["receipt_id"] == asked.receipt_ids[0]
        # Run again: the reply is replayed from its receipt, nothing is sent.
        again = _ask(url, path)
        assert _served(url) == before + 1 and again == asked
        assert len(Journal(path).entries()) == 4


def test_a_call_interrupted_three_times_is_its_silence_and_is_not_asked_again(tmp_path: Path) -> None:
    path = tmp_path / "asks.jsonl"
    _journal(path, ("ask", 1), ("interrupted", 1), ("ask", 2), ("interrupted", 2), ("ask", 3))
    with running_sparring(houses=sparring_houses()) as url:
        before = _served(url)
        asked = _ask(url, path)
        assert _served(url) == before
    assert asked.status == "no_response" and asked.text is None
    assert f"stopped {MAX_INTERRUPTIONS} times" in (asked.error or "") and EVENT_ASKING in (asked.error or "")
    assert len(Journal(path).entries()) == 5


def test_a_journal_whose_entries_answer_no_open_request_is_refused(tmp_path: Path) -> None:
    entries = [
        {"event": "ask", "contender": "c", "item": "i", "request": 1, "model": "m", "seq": 1},
        {"event": "reply", "contender": "c", "item": "i", "request": 1, "receipt_id": "r", "seq": 2},
    ]
    calls = journalled_calls(entries, FIELDS)
    assert calls[("c", "i")][0].receipt_id == "r"
    with pytest.raises(AskJournalError, match=r"entry 3 .*interrupted of request 1"):
        journalled_calls(
            [*entries, {"event": "interrupted", "contender": "c", "item": "i", "request": 1, "seq": 3}],
            FIELDS,
        )
    with pytest.raises(AskJournalError, match="no such request"):
        journalled_calls([{"event": "reply", "contender": "c", "item": "i", "request": 4, "seq": 1}], FIELDS)
