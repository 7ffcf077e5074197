"""Async work run to completion from synchronous code, and stopped cleanly by Ctrl-C.

Whoever calls may have a SIGINT handler of its own in place: Dagster's executor raises its own
interruption from whichever callback the event loop happens to be running, and asyncio reports an
exception from a callback that is not a KeyboardInterrupt as that callback's error and carries on,
so the work would go on after Ctrl-C (a chess event played to its end). While the loop runs, Ctrl-C
is asyncio's own instead: the main task is cancelled, every request and child process closes as its
context manager says, and KeyboardInterrupt reaches the caller, which decides what it means.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_async(work: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(work)``, with Ctrl-C cancelling it and raising KeyboardInterrupt when done."""
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(work)  # signals reach the main thread only
    previous = signal.getsignal(signal.SIGINT)
    # asyncio.Runner installs its cancelling handler only over the default one.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return asyncio.run(work)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
