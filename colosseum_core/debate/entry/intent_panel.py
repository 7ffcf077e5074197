"""Asking the intent panel (COMPELLE-INTENT-1): three models, each asked once about a strategy, each
slot walking its fallback chain when a model is rate-limited or gone.

A vote is valid when the reply is exactly two lines, the first GOOD or BAD (one word, any case, no
punctuation) and the second a non-empty reason; anything else (a refusal, silence, a hedge, prose,
another language) is an invalid vote, recorded with why. The counts of valid and BAD votes are what
the entry check's lopsided bar reads (``intent``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import httpx

from colosseum_core.debate.entry.intent import BAD, GOOD
from colosseum_core.debate.models import Slot
from colosseum_core.debate.prompts import INTENT
from colosseum_core.providers.adapters import Message
from colosseum_core.providers.call import AskingPolicy, CallSettings, call_with_fallbacks
from colosseum_core.record.receipts import ReceiptStore

# A refusal is asked once more before the chain moves on; the panel reads, it does not sample.
INTENT_POLICY: Final = AskingPolicy(max_asks=2)
INTENT_SETTINGS: Final = CallSettings(temperature=0.0, top_p=1.0, max_tokens=512, timeout_s=120.0, seed=0)
VOTES: Final = (GOOD, BAD)


@dataclasses.dataclass(frozen=True)
class Vote:
    verdict: str | None  # GOOD or BAD; None: not a valid vote
    reason: str | None
    problem: str | None  # why the vote is not valid


def read_vote(text: str | None) -> Vote:
    """The vote a panel reply casts: exactly two lines, GOOD or BAD, then a reason."""
    if text is None:
        return Vote(None, None, "no reply text")
    lines = text.strip().splitlines()
    if len(lines) != 2:
        return Vote(None, None, f"{len(lines)} lines, not 2")
    first, reason = lines[0].strip(), lines[1].strip()
    verdict = first.upper()
    if verdict not in VOTES:
        return Vote(None, None, f"line 1 is {first[:40]!r}, not GOOD or BAD")
    if not reason:
        return Vote(None, None, "line 2 (the reason) is empty")
    return Vote(verdict, reason, None)


@dataclasses.dataclass(frozen=True)
class PanelCall:
    """One panelist's answer about one strategy: every call of its chain's walk is in ``receipt_ids``."""

    slot: str
    model: str
    protocol: str
    status: str
    reply: str | None
    vote: Vote
    fell_back: bool
    attempts: int
    receipt_ids: tuple[str, ...]
    settings_record: Mapping[str, Any]
    error: str | None


async def ask_panelist(
    slot: Slot,
    strategy: str,
    *,
    sparring_url: str,
    keys: Mapping[str, str],
    receipts: ReceiptStore,
    clock: Callable[[], dt.datetime],
    transport: httpx.AsyncBaseTransport | None = None,
) -> PanelCall:
    chain = slot.endpoints(sparring_url, keys)
    if not chain:
        return PanelCall(
            slot.name,
            "",
            "",
            "no_model",
            None,
            Vote(None, None, "no model of the chain has its key"),
            False,
            0,
            (),
            {},
            f"slot {slot.name}: no model of its chain has its key set",
        )
    walked = await call_with_fallbacks(
        chain,
        messages=[Message("user", INTENT.render({"strategy": strategy}))],
        receipts=receipts,
        policy=INTENT_POLICY,
        settings=INTENT_SETTINGS,
        clock=clock,
        transport=transport,
    )
    result = walked.result
    vote = (
        read_vote(result.text)
        if result.status == "answered"
        else Vote(None, None, f"the model {result.status}")
    )
    return PanelCall(
        slot=slot.name,
        model=result.model,
        protocol=result.protocol,
        status=result.status,
        reply=result.text,
        vote=vote,
        fell_back=walked.fell_back,
        attempts=sum(call.attempts for call in walked.calls),
        receipt_ids=tuple(r for call in walked.calls for r in call.receipt_ids),
        settings_record=result.settings_record,
        error=result.error,
    )


async def ask_panel(panel: Sequence[Slot], strategy: str, **kwargs: Any) -> list[PanelCall]:
    """Every panelist asked about ``strategy`` at once (the slots are independent)."""
    return list(await asyncio.gather(*(ask_panelist(slot, strategy, **kwargs) for slot in panel)))


def panel_counts(calls: Sequence[PanelCall]) -> tuple[int, int]:
    """(valid votes, BAD votes)."""
    valid = [c.vote.verdict for c in calls if c.vote.verdict is not None]
    return len(valid), sum(1 for v in valid if v == BAD)
