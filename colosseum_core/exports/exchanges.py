"""What a recorded exchange asked and answered, read from its receipt for any of the three protocols:
the prompt a sample shows as its input, the provider's stop reason and the tokens it counted."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from colosseum_core.record.receipts import ReceiptError, ReceiptStore


@dataclasses.dataclass(frozen=True)
class Exchange:
    receipt_id: str
    prompt: str
    system: str | None
    stop: str | None
    input_tokens: int | None
    output_tokens: int | None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _json(data: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(data or b"{}")
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_exchange(receipts: ReceiptStore, receipt_id: str) -> Exchange:
    """The exchange of ``receipt_id``; a reply that is not JSON (a contender's server may send
    anything) gives no stop reason and no tokens, never an error."""
    receipt = receipts.get(receipt_id)
    asked, said = _json(receipt.request_body), _json(receipt.body)
    if "contents" in asked:  # Gemini generateContent
        turns = [c for c in asked["contents"] if isinstance(c, dict) and c.get("role", "user") == "user"]
        prompt = "\n\n".join(_text(c.get("parts")) for c in turns)
        system = _text((asked.get("systemInstruction") or {}).get("parts")) or None
        first = (said.get("candidates") or [{}])[0]
        stop = first.get("finishReason") if isinstance(first, dict) else None
        usage = said.get("usageMetadata") or {}
        tokens = usage.get("promptTokenCount"), usage.get("candidatesTokenCount")
    elif "/messages" in receipt.url:  # Anthropic Messages
        users = [m for m in asked.get("messages", []) if isinstance(m, dict) and m.get("role") == "user"]
        prompt = "\n\n".join(_text(m.get("content")) for m in users)
        system = _text(asked.get("system")) or None
        stop = said.get("stop_reason")
        usage = said.get("usage") or {}
        tokens = usage.get("input_tokens"), usage.get("output_tokens")
    else:  # OpenAI chat completions and every compatible server
        messages = [m for m in asked.get("messages", []) if isinstance(m, dict)]
        prompt = "\n\n".join(_text(m.get("content")) for m in messages if m.get("role") == "user")
        system = "\n\n".join(_text(m.get("content")) for m in messages if m.get("role") == "system")
        choices = said.get("choices") or [{}]
        stop = choices[0].get("finish_reason") if isinstance(choices[0], dict) else None
        usage = said.get("usage") or {}
        tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
        system = system or None
    return Exchange(
        receipt_id=receipt_id,
        prompt=prompt,
        system=system,
        stop=stop if isinstance(stop, str) else None,
        input_tokens=_int(tokens[0]) if isinstance(usage, dict) else None,
        output_tokens=_int(tokens[1]) if isinstance(usage, dict) else None,
    )


def last_exchange(receipts: ReceiptStore, receipt_ids: Sequence[str] | None) -> Exchange | None:
    """The last receipt of a call (its answer), or None when the call has none or it is missing."""
    if not receipt_ids:
        return None
    try:
        return read_exchange(receipts, receipt_ids[-1])
    except (ReceiptError, FileNotFoundError, OSError):
        return None


def tokens(receipts: ReceiptStore, receipt_ids: Sequence[str] | None) -> tuple[int | None, int | None]:
    """Tokens over every receipt of a call: what it cost, retries included."""
    tin = tout = None
    for receipt_id in receipt_ids or ():
        try:
            ex = read_exchange(receipts, receipt_id)
        except (ReceiptError, FileNotFoundError, OSError):
            continue
        if ex.input_tokens is not None:
            tin = (tin or 0) + ex.input_tokens
        if ex.output_tokens is not None:
            tout = (tout or 0) + ex.output_tokens
    return tin, tout
