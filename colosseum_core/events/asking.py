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
import datetime as dt
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from colosseum_core.events.contenders import SPARRING
from colosseum_core.providers.adapters import Message
from colosseum_core.providers.call import AskingPolicy, CallSettings, Endpoint, answer_in_receipt, chat
from colosseum_core.providers.house_models import HOUSE_KEY
from colosseum_core.providers.pools import ProviderLimits, pool_limit, provider_pool
from colosseum_core.record.crash import crash_point
from colosseum_core.record.journal import Journal
from colosseum_core.record.receipts import ReceiptStore


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


@dataclasses.dataclass(frozen=True)
class Asked:
    """What one contender (or judge) replied to one question, as the record keeps it."""

    who: str
    where: tuple[Any, ...]  # the journal key of the question
    status: str
    text: str | None
    receipt_ids: tuple[str, ...]
    model: str
    protocol: str
    settings: Mapping[str, Any]
    error: str | None


@dataclasses.dataclass(frozen=True)
class Asker:
    """A contender or judge: where its model is, how it is asked, and its provider's pool."""

    who: str
    endpoint: Endpoint
    settings: CallSettings
    limit: asyncio.Semaphore


@dataclasses.dataclass(frozen=True)
class Question:
    who: str
    where: tuple[Any, ...]  # the journal key: what is asked, by whom
    prompt: str  # one user message


# One ask per question: an error, a rate limit or a silence is the reply (no_response).
ONE_ASK: Final = AskingPolicy(max_asks=1, fall_back_on=frozenset())


async def ask_all(
    questions: Sequence[Question],
    askers: Mapping[str, Asker],
    *,
    receipts: ReceiptStore,
    journal: AskJournal,
    clock: Callable[[], dt.datetime],
    concurrency: int,
    on_asked: Callable[[Asked], None] | None = None,
) -> list[Asked]:
    """Every question asked once (or replayed from the journal), in the order given."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(question: Question) -> Asked:
        asker = askers[question.who]
        call = journal.call(question.where, asker.endpoint.model)
        async with gate, asker.limit:
            result = await chat(
                asker.endpoint.protocol,
                base_url=asker.endpoint.base_url,
                model=asker.endpoint.model,
                api_key=asker.endpoint.api_key,
                messages=[Message("user", question.prompt)],
                receipts=receipts,
                policy=ONE_ASK,
                settings=asker.settings,
                clock=clock,
                journal=call,
            )
        asked = Asked(
            question.who,
            question.where,
            result.status,
            result.text,
            result.receipt_ids,
            result.model,
            result.protocol,
            result.settings_record,
            result.error,
        )
        if on_asked is not None:
            on_asked(asked)
        return asked

    return list(await asyncio.gather(*(one(q) for q in questions)))


def askers_for(
    configured: Sequence[Mapping[str, Any]],
    *,
    sparring_url: str,
    environ: Mapping[str, str],
    per_provider: ProviderLimits,
) -> dict[str, Asker]:
    """The askers of the manifest's contenders (or judges): house players on the sparring server, keyed
    models at their providers; one pool of requests per provider (``per_provider``: one limit for
    all, or one per ``provider_pool``). ``AskersError`` names one whose key is not set."""
    limits: dict[str, asyncio.Semaphore] = {}
    askers = {}
    for entry in configured:
        house = entry["base_url"] == SPARRING
        key = HOUSE_KEY if house else environ.get(entry["key_env"] or "")
        if not key:
            raise AskersError(f"{entry['id']} needs ${entry['key_env']}, which is not set")
        base = sparring_url if house else entry["base_url"]
        pool = provider_pool(entry["protocol"], base)
        if pool not in limits:
            limits[pool] = asyncio.Semaphore(pool_limit(per_provider, pool))
        askers[entry["id"]] = Asker(
            entry["id"],
            Endpoint(entry["protocol"], base, entry["model"], key),
            CallSettings(**entry["settings"]),
            limits[pool],
        )
    return askers


def asked_pools(configured: Sequence[Mapping[str, Any]], *, sparring_url: str) -> list[str]:
    """The provider pools that asking these contenders (or judges) sends requests to, sorted; engines,
    which no provider runs, are in none."""
    return sorted(
        {
            provider_pool(
                entry["protocol"], sparring_url if entry["base_url"] == SPARRING else entry["base_url"]
            )
            for entry in configured
            if entry.get("kind", "model") == "model"
        }
    )


class AskersError(ValueError):
    """A contender or judge that cannot be asked as configured."""


def recorded_call(
    row: Mapping[str, Any], who: str, where: tuple[Any, ...], status_field: str = "status"
) -> Asked:
    """A call as a table row keeps it (its text, receipts, model, protocol, settings, error)."""
    settings = row.get("settings")
    error = row.get("error")
    return Asked(
        who=who,
        where=where,
        status=str(row[status_field]),
        text=row["text"] if isinstance(row["text"], str) else None,
        receipt_ids=tuple(row["receipt_ids"] or ()),
        model=str(row["model"]),
        protocol=str(row["protocol"]),
        settings=json.loads(str(settings)) if settings else {},
        error=error if isinstance(error, str) else None,
    )


def call_problems(where: str, asked: Asked, prompt: str, receipts: ReceiptStore) -> list[str]:
    """What is wrong with a recorded call against its receipts: every receipt is in the store, every
    request carries ``prompt``, and the text is what the last receipt answered (``where`` names it)."""
    missing = [r for r in asked.receipt_ids if r not in receipts]
    if missing:
        return [f"{where}: names receipt {missing[0]}, which the record lacks"]
    problems = []
    quoted = json.dumps(prompt, ensure_ascii=False)[1:-1]
    for receipt_id in asked.receipt_ids:
        sent = receipts.get(receipt_id).request_body.decode("utf-8", errors="replace")
        if quoted not in sent:
            problems.append(
                f"{where}: its request (receipt {receipt_id[:12]}…) does not carry the prompt the rules give"
            )
    if asked.status == "answered" and asked.receipt_ids:
        _, text = answer_in_receipt(asked.protocol, receipts.get(asked.receipt_ids[-1]))
        if text != asked.text:
            problems.append(
                f"{where} field text: not the reply its receipt {asked.receipt_ids[-1][:12]}… holds"
            )
    return problems
