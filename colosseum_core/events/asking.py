"""One journal per event of every model request, keyed by what was asked (a contender and an item).

Every request is journalled before it is sent and every reply once its receipt is stored, through
``providers.CallJournal``, so an event that stops is resumed without asking again what was answered:
a request with a stored reply is replayed from its receipt.

COLOSSEUM-EVENT-ASKING-2: a request journalled without a reply when the arena stopped is the arena's
failure, not the contender's. On resume the journal records it ``interrupted`` (with why and this
rule's version) and the same question is asked again, as the next request of the same call: the
contender's attempt is the new request, and the journal keeps both. Asking again reveals nothing the
contender was not already sent (the same position, item or package, to the same contender), unlike
the forecast's released card, which is why the forecast keeps "asked once, silence if unanswered"
and the events do not. A call interrupted ``MAX_INTERRUPTIONS`` times is that call's silence
(``no_response``): a reply that kills the arena every time it arrives must not stop the event for
good. (Version 1 made every interrupted request its contender's silence.)

The chess event keys its journal by game, ply and attempt (``chess.players.MoveJournal``, crash
points ``chess-ask``/``chess-reply``); the task events key theirs by contender and item (crash points
``event-ask``/``event-reply``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.events.contenders import SPARRING
from colosseum_core.interrupts import run_async
from colosseum_core.providers.adapters import Message
from colosseum_core.providers.call import AskingPolicy, CallSettings, Endpoint, answer_in_receipt, chat
from colosseum_core.providers.house_models import HOUSE_KEY
from colosseum_core.providers.pools import ProviderLimits, pool_limit, provider_pool
from colosseum_core.record.crash import crash_point
from colosseum_core.record.journal import Journal
from colosseum_core.record.receipts import ReceiptStore

EVENT_ASKING: Final = "COLOSSEUM-EVENT-ASKING-2"
INTERRUPTED: Final = "the arena stopped before this request's reply was recorded"
MAX_INTERRUPTIONS: Final = 3
# One asked call as a kind's table records it (``Asked``): the model and protocol asked, how the call
# ended, the reply's text, its receipts, the settings it was asked with and its error; all text but
# the receipts' ids.
CALL_FIELDS: Final = ("model", "protocol", "status", "text", "receipt_ids", "settings", "error")
CALL_SCHEMA: Final[dict[str, pl.DataType]] = {
    f: pl.List(pl.String()) if f == "receipt_ids" else pl.String() for f in CALL_FIELDS
}


class AskJournalError(Exception):
    """The event's journal does not fit this run: another model was asked the same question."""


@dataclasses.dataclass
class Journalled:
    """One request of a call as the journal holds it."""

    request: int
    receipt_id: str | None = None
    interrupted: bool = False


def journalled_calls(
    entries: Sequence[Mapping[str, Any]], fields: tuple[str, ...]
) -> dict[tuple[Any, ...], list[Journalled]]:
    """Every call of a journal by its key (``fields``), its requests in order: replied, interrupted, or
    asked and not (yet) answered. ``AskJournalError`` for an entry that answers no request asked."""
    calls: dict[tuple[Any, ...], list[Journalled]] = {}
    for entry in entries:
        where = tuple(entry[field] for field in fields)
        requests = calls.setdefault(where, [])
        if entry["event"] == "ask":
            requests.append(Journalled(int(entry["request"])))
            continue
        found = next((r for r in reversed(requests) if r.request == entry["request"]), None)
        if found is None or found.receipt_id is not None or found.interrupted:
            raise AskJournalError(
                f"journal entry {entry.get('seq')} ({entry['event']} of request {entry['request']} at "
                f"{where}): no such request was asked and left open"
            )
        if entry["event"] == "reply":
            found.receipt_id = entry["receipt_id"]
        else:
            found.interrupted = True
    return calls


class AskJournal:
    """An event's journal of every request (a ``providers.CallJournal`` per key); ``points`` name the
    crash points after an ask and after a reply (``record.crash``)."""

    def __init__(
        self,
        journal: Journal,
        fields: tuple[str, ...],
        *,
        points: tuple[str, str] = ("event-ask", "event-reply"),
    ) -> None:
        self.journal = journal
        self.fields = fields
        self.points = points
        entries = journal.entries()
        self._calls = journalled_calls(entries, fields)
        self._models: dict[tuple[Any, ...], str] = {}
        for entry in entries:
            if entry["event"] == "ask":
                self._models[tuple(entry[field] for field in fields)] = entry["model"]

    def call(self, where: tuple[Any, ...], model: str, extra: Mapping[str, Any] | None = None) -> KeyedCall:
        """The journal of the call at ``where`` to ``model``; ``extra``: fields every entry of it carries."""
        asked = self._models.get(where)
        if asked is not None and asked != model:
            named = ", ".join(f"{field} {value}" for field, value in zip(self.fields, where, strict=True))
            raise AskJournalError(f"{named}: the journal asked model {asked!r}, this run would ask {model!r}")
        return KeyedCall(self, where, model, dict(extra or {}))


@dataclasses.dataclass
class KeyedCall:
    """One call's part of the journal (a ``providers.CallJournal``). The call numbers its requests
    from the replies it replays; the journal numbers them in the order asked, interrupted ones
    included, so a request asked again is the next number."""

    owner: AskJournal
    where: tuple[Any, ...]
    model: str
    extra: dict[str, Any]
    numbers: dict[int, int] = dataclasses.field(default_factory=dict)

    @property
    def _requests(self) -> list[Journalled]:
        return self.owner._calls.setdefault(self.where, [])

    def _open(self) -> Journalled | None:
        """The last request, if it was asked and neither answered nor marked interrupted."""
        requests = self._requests
        last = requests[-1] if requests else None
        return last if last is not None and last.receipt_id is None and not last.interrupted else None

    def interruptions(self) -> int:
        return sum(r.interrupted for r in self._requests)

    @property
    def exhausted(self) -> bool:
        """Interrupted so often that the open request is the call's silence, never asked again."""
        return self._open() is not None and self.interruptions() >= MAX_INTERRUPTIONS - 1

    def silence_reason(self) -> str:
        return (
            f"the arena stopped {self.interruptions() + 1} times before this question's reply was "
            f"recorded ({EVENT_ASKING}: after {MAX_INTERRUPTIONS}, the question is not asked again)"
        )

    def prior(self) -> list[tuple[int, str | None]]:
        live = [r for r in self._requests if not r.interrupted]
        if self._open() is not None and not self.exhausted:
            live = live[:-1]  # asked again: marked interrupted when the new ask is journalled
        return [(number, r.receipt_id) for number, r in enumerate(live, start=1)]

    def _entry(self, event: str, request: int) -> dict[str, Any]:
        return {
            "event": event,
            **dict(zip(self.owner.fields, self.where, strict=True)),
            "request": request,
            **self.extra,
        }

    def _crash_point(self, step: str) -> None:
        crash_point(f"{step}:" + ":".join(str(value) for value in self.where))

    async def asked(self, request: int) -> None:
        requests = self._requests
        stopped = self._open()
        if stopped is not None:
            entry = {
                **self._entry("interrupted", stopped.request),
                "reason": INTERRUPTED,
                "rule": EVENT_ASKING,
            }
            await asyncio.to_thread(self.owner.journal.append, entry)
            stopped.interrupted = True
        number = (requests[-1].request if requests else 0) + 1
        self.numbers[request] = number
        await asyncio.to_thread(
            self.owner.journal.append, {**self._entry("ask", number), "model": self.model}
        )
        requests.append(Journalled(number))
        self.owner._models[self.where] = self.model
        self._crash_point(self.owner.points[0])

    async def replied(self, request: int, receipt_id: str) -> None:
        number = self.numbers.get(request, request)
        entry = {**self._entry("reply", number), "receipt_id": receipt_id}
        entry = {k: v for k, v in entry.items() if k not in self.extra}
        await asyncio.to_thread(self.owner.journal.append, entry)
        self._requests[-1].receipt_id = receipt_id
        self._crash_point(self.owner.points[1])


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
    about: Any = None  # what the question is about, when its journal key does not say (a sealed task)


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
    about: Any = None  # what it is about, when the journal key does not say (kept out of the journal)


# One ask per question: an error, a rate limit or a silence is the reply (no_response); only the
# arena's own stop asks again (EVENT_ASKING).
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
    """Every question asked once (or replayed from the journal, or asked again where the arena stopped
    before its reply was recorded), in the order given; ``receipts``: where the exchanges are stored."""
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
        silenced = call.exhausted and result.status == "no_response"
        asked = Asked(
            question.who,
            question.where,
            result.status,
            result.text,
            result.receipt_ids,
            result.model,
            result.protocol,
            result.settings_record,
            call.silence_reason() if silenced else result.error,
            question.about,
        )
        if on_asked is not None:
            on_asked(asked)
        return asked

    return list(await asyncio.gather(*(one(q) for q in questions)))


@dataclasses.dataclass(frozen=True)
class AskSettings:
    """How a task event asks its contenders or judges, as one value: the sparring server for house
    players, the providers' keys, the clock, how many questions at once, the requests held per
    provider, and who hears of each reply."""

    sparring_url: str
    environ: Mapping[str, str]
    clock: Callable[[], dt.datetime]
    concurrency: int = 8
    per_provider: ProviderLimits = 8
    on_asked: Callable[[Asked], None] | None = None

    def ask(
        self,
        questions: Sequence[Question],
        entries: Sequence[Mapping[str, Any]],
        *,
        receipts: ReceiptStore,
        journal: Path,
        fields: tuple[str, ...],
    ) -> list[Asked]:
        """Every question asked of its contender (``entries``: the manifest's contenders or judges),
        each request journalled in ``journal`` keyed by ``fields``; ``AskersError`` before anything is
        asked if one of them cannot be."""
        askers = askers_for(
            entries, sparring_url=self.sparring_url, environ=self.environ, per_provider=self.per_provider
        )
        calls = AskJournal(Journal(journal), fields)
        return run_async(
            ask_all(
                questions,
                askers,
                receipts=receipts,
                journal=calls,
                clock=self.clock,
                concurrency=self.concurrency,
                on_asked=self.on_asked,
            )
        )


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
        # A model named with no key variable (a local server that needs none) is asked without one.
        key = HOUSE_KEY if house else environ.get(entry["key_env"]) if entry["key_env"] else None
        if not key and entry["key_env"]:
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
    row: Mapping[str, Any],
    who: str,
    where: tuple[Any, ...],
    status_field: str = "status",
    about: Any = None,
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
        about=about,
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
