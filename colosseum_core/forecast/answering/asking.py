"""One seat, one packet, one reply: the asking rules of §6 and the equal settings of §8.

The forecast asks its seats through the platform's chat engine (``colosseum_core.providers``) with
these rules:

- The packet is the whole input: one user message, no system prompt, no tools.
- Settings are temperature 0, top_p 1, 16,384 reply tokens, 300 s and seed 0 (``CallSettings()``);
  a setting a provider refuses is negotiated away and recorded as ``OMITTED``.
- An HTTP error response (after negotiation) is a refusal, proof no answer existed, so the packet is
  asked once more; a second refusal ends the call as ``refused``. A rate limit or an unknown model
  is a refusal like any other: a seat is one model line, with no fallback.
- A timeout, reset or dropped connection is ``no_response`` and is never re-asked: a silent model
  may already have answered, and a second sample would not be the seat's one reply.
- A 2xx is never re-asked either; what it says is the reading rules' to judge (§7).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

import httpx

from colosseum_core.providers import (
    AskingPolicy,
    CallJournal,
    CallResult,
    CallSettings,
    Message,
    Replayed,
    chat,
    replay_call,
)
from colosseum_core.record.receipts import ReceiptStore

# A refusal is asked once more: two asks in all. No fallback: a seat is its model line.
SEAT_ASKING = AskingPolicy(max_asks=2, fall_back_on=frozenset())


def packet_messages(packet: bytes) -> list[Message]:
    """The packet as the one user message a seat receives (ValueError if it is not UTF-8)."""
    return [Message("user", packet.decode("utf-8"))]


async def ask_seat(
    protocol: str,
    *,
    base_url: str,
    model: str,
    api_key: str | None,
    packet: bytes,
    receipts: ReceiptStore,
    settings: CallSettings,
    clock: Callable[[], dt.datetime],
    journal: CallJournal | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> CallResult:
    """Send ``packet`` to a seat's model and return its one reply, by the rules above. ``transport``
    replaces the network (tests)."""
    return await chat(
        protocol,
        base_url=base_url,
        model=model,
        api_key=api_key,
        messages=packet_messages(packet),
        receipts=receipts,
        policy=SEAT_ASKING,
        settings=settings,
        clock=clock,
        journal=journal,
        transport=transport,
    )


def replay_seat(protocol: str, receipt_ids: Sequence[str], receipts: ReceiptStore) -> Replayed:
    """A seat's call re-read from its receipts alone, by the same rules."""
    return replay_call(protocol, receipt_ids, receipts, SEAT_ASKING)
