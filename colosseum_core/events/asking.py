"""One journal per event of every model request, keyed by what was asked (a contender and an item).

Every request is journalled before it is sent and every reply once its receipt is stored, through
``providers.CallJournal``, so an event that stops is resumed without asking again: a request with
a stored reply is replayed from its receipt, and one asked without a stored reply is that call's
silence (``no_response``), never asked again. The chess event keys its journal by game, ply and
attempt (``chess.players.MoveJournal``); the task events key theirs by contender and item.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from colosseum_core.record.crash import crash_point
from colosseum_core.record.journal import Journal


class AskJournalError(Exception):
    """The event's journal does not fit this run: another model was asked the same question."""


class AskJournal:
    def __init__(self, journal: Journal, fields: tuple[str, ...]) -> None:
        self.journal = journal
        self.fields = fields
        self._calls: dict[tuple[Any, ...], list[tuple[int, str | None]]] = {}
        self._models: dict[tuple[Any, ...], str] = {}
        for entry in journal.entries():
            where = tuple(entry[field] for field in fields)
            calls = self._calls.setdefault(where, [])
            if entry["event"] == "ask":
                calls.append((entry["request"], None))
                self._models[where] = entry["model"]
            else:
                calls[-1] = (entry["request"], entry["receipt_id"])

    def call(self, where: tuple[Any, ...], model: str) -> KeyedCall:
        asked = self._models.get(where)
        if asked is not None and asked != model:
            named = ", ".join(f"{field} {value}" for field, value in zip(self.fields, where, strict=True))
            raise AskJournalError(f"{named}: the journal asked model {asked!r}, this run would ask {model!r}")
        return KeyedCall(self, where, model)

    def asked_before(self, where: tuple[Any, ...]) -> bool:
        return bool(self._calls.get(where))


@dataclasses.dataclass
class KeyedCall:
    """One call's part of the journal (a ``providers.CallJournal``)."""

    owner: AskJournal
    where: tuple[Any, ...]
    model: str

    def prior(self) -> list[tuple[int, str | None]]:
        return list(self.owner._calls.get(self.where, []))

    def _entry(self, event: str, request: int) -> dict[str, Any]:
        return {"event": event, **dict(zip(self.owner.fields, self.where, strict=True)), "request": request}

    def _crash_point(self, step: str) -> None:
        crash_point(f"{step}:" + ":".join(str(value) for value in self.where))

    async def asked(self, request: int) -> None:
        await asyncio.to_thread(
            self.owner.journal.append, {**self._entry("ask", request), "model": self.model}
        )
        self.owner._calls.setdefault(self.where, []).append((request, None))
        self.owner._models[self.where] = self.model
        self._crash_point("event-ask")

    async def replied(self, request: int, receipt_id: str) -> None:
        await asyncio.to_thread(
            self.owner.journal.append, {**self._entry("reply", request), "receipt_id": receipt_id}
        )
        self.owner._calls[self.where][-1] = (request, receipt_id)
        self._crash_point("event-reply")
