"""Asking a slot's models (the debater's, a judge's): through the shared chat call, every receipt kept.

``Asker`` is where and how the arena asks: the sparring server for house players, the providers'
keys, the record's receipts and the injected clock. ``ask`` walks a slot's fallback chain and says
what came of it: the reply, every receipt of the walk in order, the model that gave the reply, and
the walk itself (each model asked, and what it did), which the record keeps with each call.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import httpx

from colosseum_core.debate.models import Slot
from colosseum_core.providers.adapters import Message
from colosseum_core.providers.call import (
    AskingPolicy,
    CallResult,
    CallSettings,
    Endpoint,
    call_with_fallbacks,
)
from colosseum_core.record.receipts import ReceiptStore

# A slot's model is asked once: an error, a rate limit, a gone model or silence moves the slot to
# its fallback at once (the method's rule for a judge slot, and the debater's too).
SLOT_POLICY: Final = AskingPolicy(
    max_asks=1,
    fall_back_on=frozenset({"rate_limited", "model_not_found", "error"}),
    fall_back_on_silence=True,
)


@dataclasses.dataclass(frozen=True)
class Asked:
    result: CallResult  # the last call of the walk
    fell_back: bool
    receipt_ids: tuple[str, ...]  # every attempt of every model asked, in order
    at: int  # the index in the chain of the model that gave ``result``
    walk: tuple[str, ...]  # each model asked and what became of it: "house-judge-retired: model_not_found"


def walk_of(calls: Sequence[CallResult]) -> tuple[str, ...]:
    return tuple(f"{c.model}: {c.refusal or c.status}" for c in calls)


@dataclasses.dataclass(frozen=True)
class Asker:
    """Where and how the arena asks models: the same for the debaters and the judges."""

    sparring_url: str
    keys: Mapping[str, str]
    receipts: ReceiptStore
    clock: Callable[[], dt.datetime]
    transport: httpx.AsyncBaseTransport | None = None

    def chain(self, slot: Slot) -> list[Endpoint]:
        return slot.endpoints(self.sparring_url, self.keys)

    async def ask(
        self,
        chain: Sequence[Endpoint],
        messages: Sequence[Message],
        *,
        policy: AskingPolicy,
        settings: CallSettings,
    ) -> Asked:
        walked = await call_with_fallbacks(
            chain,
            messages=messages,
            receipts=self.receipts,
            policy=policy,
            settings=settings,
            clock=self.clock,
            transport=self.transport,
        )
        return Asked(
            result=walked.result,
            fell_back=walked.fell_back,
            receipt_ids=tuple(r for call in walked.calls for r in call.receipt_ids),
            at=len(walked.calls) - 1,
            walk=walk_of(walked.calls),
        )
