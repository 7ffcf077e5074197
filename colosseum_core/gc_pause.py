"""Pause Python's cyclic garbage collector around bursts of long-lived allocations.

Building a board or holding a sweep's tens of thousands of decoded markets allocates millions of
objects that live on; each allocation burst would otherwise trigger full collections that rescan
everything built so far (measured: board builds twice as slow, sweep stalls of 0.4–0.8 s). JSON
data has no reference cycles, so nothing leaks while the collector rests. Pauses nest and may
overlap across threads: the collector resumes when the last one ends, if it was running before.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
