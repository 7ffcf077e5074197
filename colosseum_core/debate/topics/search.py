"""The web-search source: trending controversies as debatable motions, each with its citations.

The service is xAI Grok's OpenAI-compatible chat completions with live search: ``POST
{base_url}/v1/chat/completions`` (a Bearer key), the published prompt ``search``
(COMPELLE-SEARCH-PROMPT-1) as the one user message, temperature 0 and ``search_parameters`` (search
on, citations returned, at most ten results). The reply is the chat-completion shape plus a
top-level ``citations``: the URLs the search read. The local stand-in (``house-search`` on the
sparring server) answers the same shape.

The request and its answer are stored as one receipt before anything reads them. The model's text
is read strictly:

* it must be one JSON object (a single Markdown code fence around it is taken off, nothing else is
  forgiven) holding ``controversies``, a list; anything else rejects the whole reply;
* each controversy needs a ``motion`` (one line, at most ``MAX_MOTION_CHARS`` characters) and may
  carry a ``context`` (text); its ``citations`` must be http(s) URLs. A controversy without
  citations of its own takes the reply's top-level ones; one with none at all, a malformed field,
  or a motion given before, is rejected on its own, with a reason naming the receipt and the field;
* a reply with no usable controversy left is an error, so a caller walking a chain asks the next.

Nothing here raises on what the service says: every failure is ``SearchResult.error``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

import httpx

from colosseum_core import json_values
from colosseum_core.debate.prompts import SEARCH
from colosseum_core.providers.adapters import Message, adapter_for, error_text
from colosseum_core.providers.call import Endpoint
from colosseum_core.record.http import send_with_receipt
from colosseum_core.record.receipts import ReceiptStore

PROTOCOL: Final = "openai"
SEARCH_PARAMETERS: Final = {"mode": "on", "return_citations": True, "max_search_results": 10}
SEARCH_TEMPERATURE: Final = 0
SEARCH_TIMEOUT_S: Final = 180.0
MAX_MOTION_CHARS: Final = 300
_SNIPPET: Final = 300
_URL: Final = re.compile(r"https?://[^\s]+", re.IGNORECASE)
_FENCE: Final = re.compile(r"```(?:json|JSON)?[ \t]*\n(?P<body>.*)\n[ \t]*```", re.DOTALL)


@dataclasses.dataclass(frozen=True)
class SearchItem:
    """One usable controversy: its place in the reply (1 first), its motion, context and citations."""

    rank: int
    motion: str
    context: str
    citations: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """What the search gave: its usable items, the receipt, the reply's top-level citations, why the
    reply as a whole could not be used (None when it could), and why each rejected item was."""

    items: tuple[SearchItem, ...]
    receipt_id: str | None
    citations: tuple[str, ...]
    error: str | None
    rejected: tuple[str, ...] = ()
    model: str = ""


class _Rejected(ValueError):
    """The whole reply cannot be read; the message names the field."""


def search_body(endpoint: Endpoint, date: dt.date | str) -> tuple[str, dict[str, str], bytes]:
    """The request: its URL, headers and body bytes (sent exactly as recorded)."""
    day = date.isoformat() if isinstance(date, dt.date) else date
    prompt = SEARCH.render({"date": day})
    url, headers, payload = adapter_for(PROTOCOL).request(
        base_url=endpoint.base_url,
        model=endpoint.model,
        api_key=endpoint.api_key,
        messages=[Message("user", prompt)],
        settings={"temperature": SEARCH_TEMPERATURE},
    )
    payload["search_parameters"] = dict(SEARCH_PARAMETERS)
    return url, headers, json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 1] + "…"


def _urls(value: Any, field: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _Rejected(f"field {field}: expected a list of URLs, got {type(value).__name__}")
    for index, url in enumerate(value):
        if not isinstance(url, str) or _URL.fullmatch(url) is None:
            raise _Rejected(f"field {field}[{index}]: expected an http(s) URL, got {url!r:.80}")
    # A URL cited twice is one source.
    return tuple(dict.fromkeys(value))


def _content_object(text: str) -> Any:
    stripped = text.strip()
    fenced = _FENCE.fullmatch(stripped)
    if fenced is not None:
        stripped = fenced.group("body").strip()
    try:
        return json_values.loads(stripped)
    except (ValueError, RecursionError) as exc:
        raise _Rejected(f"the content is not JSON ({_snippet(str(exc))}): {_snippet(text)!r}") from None


def _item(raw: Any, index: int, fallback: tuple[str, ...]) -> SearchItem:
    """One controversy; ``_Rejected`` naming its field when it cannot be used."""
    at = f"controversies[{index}]"
    if not isinstance(raw, Mapping):
        raise _Rejected(f"{at}: expected an object, got {type(raw).__name__}")
    motion = raw.get("motion")
    if not isinstance(motion, str) or not motion.strip():
        raise _Rejected(f"{at} field motion: expected the motion's text, got {motion!r:.80}")
    motion = motion.strip()
    if "\n" in motion or "\r" in motion or len(motion) > MAX_MOTION_CHARS:
        raise _Rejected(f"{at} field motion: one line of at most {MAX_MOTION_CHARS} characters")
    context = raw.get("context")
    if context is not None and not isinstance(context, str):
        raise _Rejected(f"{at} field context: expected text, got {type(context).__name__}")
    citations = _urls(raw.get("citations"), f"{at}.citations") or fallback
    if not citations:
        raise _Rejected(f"{at} field citations: none given, and the reply has no top-level citations")
    return SearchItem(index + 1, motion, " ".join((context or "").split()), citations)


def read_search_reply(body: bytes, receipt_id: str | None) -> SearchResult:
    """The items of a 2xx reply's bytes (pure: the receipt's body reads the same every time)."""
    where = f"receipt {receipt_id}"
    try:
        reply = json_values.loads(body)
    except (ValueError, RecursionError):
        raw = _snippet(body.decode("utf-8", errors="replace"))
        return SearchResult((), receipt_id, (), f"{where}: the reply is not JSON: {raw!r}")
    if not isinstance(reply, Mapping):
        return SearchResult((), receipt_id, (), f"{where}: the reply is a JSON {type(reply).__name__}")
    try:
        citations = _urls(reply.get("citations"), "citations")
    except _Rejected as exc:
        return SearchResult((), receipt_id, (), f"{where}: {exc}")
    text = adapter_for(PROTOCOL).reply_text(reply)
    if text is None:
        error = f"{where}: the reply has no text at choices[0].message.content"
        return SearchResult((), receipt_id, citations, error)
    try:
        content = _content_object(text)
        if not isinstance(content, Mapping) or not isinstance(content.get("controversies"), list):
            shape = type(content).__name__ if not isinstance(content, Mapping) else "object"
            raise _Rejected(f"field controversies: expected an object holding a list, got a JSON {shape}")
    except _Rejected as exc:
        return SearchResult((), receipt_id, citations, f"{where}: {exc}")
    items: list[SearchItem] = []
    rejected: list[str] = []
    for index, raw in enumerate(content["controversies"]):
        try:
            item = _item(raw, index, citations)
        except _Rejected as exc:
            rejected.append(f"{where}: {exc}")
            continue
        earlier = next((i for i in items if i.motion == item.motion), None)
        if earlier is not None:
            rejected.append(
                f"{where}: controversies[{index}] field motion: "
                f"the motion of controversies[{earlier.rank - 1}] again"
            )
            continue
        items.append(item)
    error = None if items else f"{where}: no usable controversy ({len(rejected)} rejected)"
    return SearchResult(tuple(items), receipt_id, citations, error, tuple(rejected))


def ask_search(
    endpoint: Endpoint,
    *,
    date: dt.date | str,
    receipts: ReceiptStore,
    clock: Callable[[], dt.datetime],
    client: httpx.Client | None = None,
) -> SearchResult:
    """Ask ``endpoint`` for today's controversies once; never raises on what it answers."""
    if endpoint.protocol != PROTOCOL:
        error = (
            f"model {endpoint.model}: the search speaks {PROTOCOL} chat completions, not {endpoint.protocol}"
        )
        return SearchResult((), None, (), error, model=endpoint.model)
    url, headers, content = search_body(endpoint, date)
    own = client is None
    http = httpx.Client(timeout=SEARCH_TIMEOUT_S) if client is None else client
    try:
        request = http.build_request("POST", url, headers=headers, content=content)
        sent = send_with_receipt(http, request, receipts=receipts, clock=clock)
    finally:
        if own:
            http.close()
    where = f"receipt {sent.receipt_id}"
    if sent.response is None:
        result = SearchResult((), sent.receipt_id, (), f"{where}: no answer ({sent.error})")
    elif not 200 <= sent.response.status_code < 300:
        reason = _snippet(error_text(sent.response.content)) or "(empty body)"
        result = SearchResult((), sent.receipt_id, (), f"{where}: HTTP {sent.response.status_code}: {reason}")
    else:
        result = read_search_reply(sent.response.content, sent.receipt_id)
    return dataclasses.replace(result, model=endpoint.model)
