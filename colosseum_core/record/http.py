"""Receipts of httpx exchanges: the one place an HTTP request and its outcome become a receipt."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import httpx

from colosseum_core.record.receipts import Receipt, ReceiptStore, RequestTrace


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
