"""Receipts of httpx exchanges: the one place an HTTP request and its outcome become a receipt."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import email.utils
import re
from collections.abc import Callable, Sequence

import httpx

from colosseum_core.record.receipts import Receipt, ReceiptStore, RequestTrace, format_receipt_time

_DELTA_SECONDS = re.compile(r"\d+(?:\.\d+)?", re.ASCII)


def exchange_receipt(
    request: httpx.Request,
    response: httpx.Response | None,
    *,
    params: Sequence[tuple[str, str]],
    started_at: str,
    ended_at: str,
    error: str | None,
) -> Receipt:
    """The receipt of one attempt: the request as sent and the response, or the transport error."""
    trace = RequestTrace(
        method=request.method,
        url=str(request.url),
        params=params,
        started_at=started_at,
        request_headers=dict(request.headers.items()),
        request_body=request.content,
    )
    headers = response.headers if response is not None else httpx.Headers()
    return trace.receipt(
        ended_at=ended_at,
        status=None if response is None else response.status_code,
        headers=headers.multi_items(),
        body=b"" if response is None else response.content,
        error=error,
    )


async def store_off_loop(receipts: ReceiptStore, receipt: Receipt) -> str:
    """Store ``receipt`` in a worker thread: hashing, gzip and the fsync'd write stay off the event loop."""
    return await asyncio.to_thread(receipts.put, receipt)


async def store_exchange(
    receipts: ReceiptStore,
    request: httpx.Request,
    response: httpx.Response | None,
    *,
    params: Sequence[tuple[str, str]],
    started: dt.datetime,
    ended: dt.datetime,
    error: str | None,
) -> tuple[Receipt, str]:
    """The receipt of one attempt of an async client, stored off the event loop, and its id."""
    receipt = exchange_receipt(
        request,
        response,
        params=params,
        started_at=format_receipt_time(started),
        ended_at=format_receipt_time(ended),
        error=error,
    )
    return receipt, await store_off_loop(receipts, receipt)


@dataclasses.dataclass(frozen=True)
class Sent:
    """One synchronous attempt: the response read whole (None if there was none), the transport error,
    and the receipt stored for it (None when the caller keeps no receipts)."""

    response: httpx.Response | None
    error: str | None
    receipt_id: str | None


def send_with_receipt(
    client: httpx.Client,
    request: httpx.Request,
    *,
    receipts: ReceiptStore | None,
    clock: Callable[[], dt.datetime],
    params: Sequence[tuple[str, str]] = (),
) -> Sent:
    """Send ``request`` once and store its receipt (the transport error's, if nothing answered) before
    anything reads the answer."""
    started = format_receipt_time(clock())
    response: httpx.Response | None = None
    error: str | None = None
    try:
        response = client.send(request)
        response.read()
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"
    receipt_id = None
    if receipts is not None:
        ended = format_receipt_time(clock())
        receipt = exchange_receipt(
            request, response, params=params, started_at=started, ended_at=ended, error=error
        )
        receipt_id = receipts.put(receipt)
    return Sent(response, error, receipt_id)


def retry_after_seconds(value: str | None, now: dt.datetime) -> float | None:
    """Seconds to wait per a ``Retry-After`` header (delta seconds or HTTP-date); None if unusable."""
    if value is None:
        return None
    text = value.strip()
    if _DELTA_SECONDS.fullmatch(text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        # An HTTP-date is always GMT; parsedate gives a naive value for "-0000".
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - now).total_seconds())
