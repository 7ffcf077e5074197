"""The release rule (method §11): a card's answers are published once every seat has answered or forfeited.

Reading: a card is on the board once it is sealed (it has a ``packet``). Until its ``answers`` table
exists it is published without any answer-bearing table, marked "awaiting answers". Once
``answers`` exists, every seat in force on the card's date (the registry's seats whose first day
is on or before it) must have a row with a final status; otherwise the card blocks the whole build,
so a half-answered card is never published, not even as "awaiting".
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from typing import Final

import polars as pl

from colosseum_core.forecast.answering.seats import Seat
from colosseum_core.record import RecordTables
from colosseum_core.site.plugin import BuildRefused

# no_response and refused forfeit every question; forfeited means nothing bound.
FINAL_STATUSES: Final = frozenset({"answered", "forfeited", "no_response", "refused"})
# Tables that carry a seat's answer, or something computed from it: never published before release.
ANSWER_TABLES: Final = ("answers", "answer_lines", "answer_signatures", "scores")


class ReleaseError(BuildRefused):
    """The build was refused; the message names every blocked card and its seats."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("release refused (method §11): " + "; ".join(self.problems))


@dataclasses.dataclass(frozen=True)
class ReleaseState:
    cards: tuple[str, ...]  # sealed cards, in card order
    released: frozenset[str]  # sealed cards whose answers may be published
    problems: tuple[str, ...]

    @property
    def awaiting(self) -> list[str]:
        return [card for card in self.cards if card not in self.released]


def card_date(card: str) -> dt.date:
    """The card's New York date: its key starts with it (2026-11-20-0500)."""
    return dt.date.fromisoformat(card[:10])


def seats_in_force(seats: Sequence[Seat], day: dt.date) -> list[str]:
    return [seat.id for seat in seats if seat.first_day <= day]


def _seat_phrase(names: Sequence[str]) -> str:
    if len(names) == 1:
        return f"seat {names[0]} has"
    return f"seats {', '.join(names)} have"


def _card_problem(card: str, answers: pl.DataFrame, seats: Sequence[Seat]) -> str | None:
    statuses: dict[str, list[str | None]] = {}
    for seat, status in answers.select("seat", "status").iter_rows():
        statuses.setdefault(seat, []).append(status)
    blocked = [
        seat
        for seat in seats_in_force(seats, card_date(card))
        if not statuses.get(seat) or any(s not in FINAL_STATUSES for s in statuses[seat])
    ]
    if not blocked:
        return None
    return f"card {card}: {_seat_phrase(blocked)} neither answered nor forfeited"


def release_state(tables: RecordTables, seats: Sequence[Seat]) -> ReleaseState:
    sealed = tables.partitions("packet")
    answered = tables.partitions("answers")
    problems: list[str] = []
    releasable: set[str] = set()
    for card in answered:
        problem = _card_problem(card, tables.read("answers", card), seats)
        if problem:
            problems.append(problem)
        else:
            releasable.add(card)
    # A line, signature or score without its card's answers table is a record caught mid-write (or
    # edited by hand); publishing it, or a leaderboard that sums it, would publish an answer early.
    answered_set = set(answered)
    for table in ANSWER_TABLES[1:]:
        for card in tables.partitions(table):
            if card not in answered_set:
                problems.append(f"card {card}: {table} is recorded but the card has no answers table")
    return ReleaseState(
        cards=tuple(sealed),
        released=frozenset(releasable & set(sealed)),
        problems=tuple(sorted(problems)),
    )


def release_problems(tables: RecordTables, seats: Sequence[Seat]) -> list[str]:
    """Every card whose answers may not be published yet although some are recorded; [] if none."""
    return list(release_state(tables, seats).problems)
