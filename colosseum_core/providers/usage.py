"""What a model's calls cost, read back from their receipts alone: the tokens each protocol's reply
reports (OpenAI's ``usage``, Anthropic's ``usage``, Gemini's ``usageMetadata``) and the time each
request took, so a report over sealed calls needs nothing but the record.

Imported by: the arenas' trial parts. Knows no arena.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable
from typing import Any, Final

from colosseum_core.record.receipts import Receipt, ReceiptError

# Each protocol's reply: where its usage is, and its input and output counts' names.
USAGE_FIELDS: Final = {
    "openai": ("usage", "prompt_tokens", "completion_tokens"),
    "anthropic": ("usage", "input_tokens", "output_tokens"),
    "gemini": ("usageMetadata", "promptTokenCount", "candidatesTokenCount"),
}


@dataclasses.dataclass(frozen=True)
class Usage:
    """Calls summed: how many, their tokens (None when no reply reported any) and their seconds."""

    calls: int = 0
    tokens_in: int | None = None
    tokens_out: int | None = None
    seconds: float = 0.0


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def receipt_tokens(receipt: Receipt, protocol: str) -> tuple[int | None, int | None]:
    """The input and output tokens ``receipt``'s reply reports (None for each it does not)."""
    fields = USAGE_FIELDS.get(protocol)
    if fields is None or receipt.status is None:
        return None, None
    try:
        body = receipt.json()
    except ReceiptError:
        return None, None
    usage = body.get(fields[0]) if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return None, None
    return _count(usage.get(fields[1])), _count(usage.get(fields[2]))


def _instant(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def receipt_seconds(receipt: Receipt) -> float:
    """How long the request took, by its receipt's own instants (0 when they cannot be read)."""
    try:
        return max(0.0, (_instant(receipt.ended_at) - _instant(receipt.started_at)).total_seconds())
    except (TypeError, ValueError):
        return 0.0


def _add(total: int | None, value: int | None) -> int | None:
    return total if value is None else (total or 0) + value


def usage_of(receipts: Iterable[tuple[Receipt, str]]) -> Usage:
    """The calls of ``receipts`` (each with the protocol it was asked by) summed."""
    usage = Usage()
    for receipt, protocol in receipts:
        tokens_in, tokens_out = receipt_tokens(receipt, protocol)
        usage = Usage(
            calls=usage.calls + 1,
            tokens_in=_add(usage.tokens_in, tokens_in),
            tokens_out=_add(usage.tokens_out, tokens_out),
            seconds=usage.seconds + receipt_seconds(receipt),
        )
    return usage
