"""The copy step: the verbatim copy and its independent re-check, the check's reading beside the copy.

The copy (``copy.copy_markets``) and the check (``copy_check.recheck_copy``) each decode every page
of the sweep with their own code, which is the point of the check. Decoded one after the other, at
50,000 markets the two took longer than either; the check's decoding does not depend on what the
copy made, so it runs in a child Python process while the copy runs here (polars and the JSON
readers hold the GIL, so a thread beside the copy gained nothing). Only the comparison waits for
both.

The record is read once: each page's body, as the copy reads it from its receipt (inflated, and
its bytes' hash checked against the receipt's name), is also sent down the child's standard input,
and the child decodes it with the check's reader. What the check decodes is still the record's own
bytes, by code the copy does not share; reading every receipt twice had cost the child more than a
second of the two cores. (The seal re-runs the whole check from the receipts before anything is
sealed.)

The child gets the cores the copy leaves (one fewer than the machine has, at least one). For fewer
pages than ``ASIDE_FROM_PAGES`` (a Python process takes about half a second to start, longer than
the check takes to read a small board), or if the child fails, the check reads the receipts in this
process, and ``CheckedCopy.check_read_by`` says which way it went. The result is the same either way.

The child is ``python -m colosseum_core.forecast.sweep.copy_step <folder>``: it reads the pages from its
standard input, each a header (``_HEADER``: the receipt id's length and the body's), the id and the
body, until the end of input, and writes what it decoded to the folder (``pages.arrow``, and
``read.json``: which receipts those were, and its own peak memory, which the check's metadata
reports).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import queue
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

import polars as pl

import colosseum_core
from colosseum_core.forecast.sweep.copy import CopyResult, copy_markets
from colosseum_core.forecast.sweep.copy_check import (
    CopyMismatch,
    PublishedPages,
    decode_published,
    read_published,
    recheck_copy,
)
from colosseum_core.record import ReceiptStore

ASIDE = "a separate process"
HERE = "this process"
# Below this many pages the check reads in this process. Measured with benchmarks/card.py on 2 cores,
# the copy step with the check aside against without: 1.6 s against 0.6 s at 3,000 markets (30 pages),
# 1.8 s against 1.8 s at 10,000 (80 pages), 2.9 s against 3.6 s at 20,000 (157 pages).
ASIDE_FROM_PAGES = 100
_PAGES, _READ, _ERRORS = "pages.arrow", "read.json", "stderr.txt"
# Before each page sent to the child: its receipt id's length in bytes, and its body's.
_HEADER = struct.Struct(">HQ")

SendBody = Callable[[str, bytes], None]


@dataclasses.dataclass(frozen=True)
class CheckedCopy:
    copied: CopyResult
    mismatches: list[CopyMismatch]
    check_read_by: str
    check_process_peak_mb: float | None = None  # the child's peak resident memory, if it read


@dataclasses.dataclass(frozen=True)
class _Reading:
    pages: PublishedPages
    read_by: str
    peak_mb: float | None = None


def _threads_aside() -> int:
    return max(1, (os.cpu_count() or 1) - 1)


def _peak_mb() -> float:
    # VmHWM where there is one (Linux): a child started by vfork inherits its parent's ru_maxrss.
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    import resource  # POSIX only, and only needed here

    # ru_maxrss is in KiB on Linux, bytes on macOS.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (2**20 if sys.platform == "darwin" else 2**10)


class _Sender:
    """Page bodies down the child's standard input, written by a thread of their own: the copy never
    waits on the pipe (the child takes half a second to start reading). If the child has gone, what
    is sent is dropped; the child's exit status says why."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pending: queue.SimpleQueue[tuple[str, bytes] | None] = queue.SimpleQueue()
        self._gone = False
        self._writer = threading.Thread(target=self._write, args=(pipe,), daemon=True)
        self._writer.start()

    def send(self, receipt_id: str, body: bytes) -> None:
        if not self._gone:
            self._pending.put((receipt_id, body))

    def close(self) -> None:
        """Send what is pending, then the end of input."""
        self._pending.put(None)
        self._writer.join()

    def _write(self, pipe: IO[bytes]) -> None:
        try:
            with pipe:
                while (page := self._pending.get()) is not None:
                    receipt_id, body = page
                    name = receipt_id.encode()
                    pipe.write(_HEADER.pack(len(name), len(body)) + name)
                    pipe.write(body)
        except OSError:
            self._gone = True


def _received(stream: IO[bytes]) -> Iterator[tuple[str, bytes]]:
    """The pages ``_Sender`` sent, as ``(receipt_id, body)``, until the end of input."""
    while header := stream.read(_HEADER.size):
        name_length, body_length = _HEADER.unpack(header) if len(header) == _HEADER.size else (0, 0)
        name, body = stream.read(name_length), stream.read(body_length)
        if len(header) < _HEADER.size or len(name) < name_length or len(body) < body_length:
            raise EOFError(f"input ended inside a page ({len(header) + len(name) + len(body)} bytes of it)")
        yield name.decode("ascii"), body


@contextlib.contextmanager
def _reading_aside(
    receipt_ids: list[str], receipts: ReceiptStore, aside_from_pages: int
) -> Iterator[tuple[SendBody | None, Callable[[], _Reading]]]:
    """Start the check's reader in a child process; yield what sends it each page's body, and what
    waits for what it read.

    The child is killed if the caller leaves early (the copy raised), and its folder removed.
    """
    if len(receipt_ids) < aside_from_pages:
        here = f"{len(receipt_ids)} pages, fewer than {aside_from_pages}"
        yield None, lambda: _Reading(read_published(receipt_ids, receipts), f"{HERE} ({here})")
        return
    with tempfile.TemporaryDirectory(prefix="colosseum-copy-check-") as scratch:
        folder = Path(scratch)
        threads = _threads_aside()
        # The child finds this package where this process found it, installed or not.
        package_parent = str(Path(colosseum_core.__file__).resolve().parents[1])
        python_path = os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "POLARS_MAX_THREADS": str(threads), "PYTHONPATH": python_path}
        with open(folder / _ERRORS, "wb") as errors:
            try:
                child: subprocess.Popen[bytes] | None = subprocess.Popen(
                    [sys.executable, "-m", __name__, str(folder)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=errors,
                    env=env,
                )
                failed_to_start = ""
            except OSError as exc:
                child, failed_to_start = None, str(exc)
        sender = None if child is None or child.stdin is None else _Sender(child.stdin)

        def result() -> _Reading:
            why = failed_to_start
            if child is not None and sender is not None:
                sender.close()
                code = child.wait()
                if code == 0:
                    told = json.loads((folder / _READ).read_text())
                    pages = PublishedPages(frame=pl.read_ipc(folder / _PAGES), read=frozenset(told["read"]))
                    return _Reading(pages, ASIDE, told["peak_mb"])
                lines = (folder / _ERRORS).read_text(errors="replace").strip().splitlines()
                why = f"exit status {code}: {lines[-1] if lines else 'no message'}"
            return _Reading(
                read_published(receipt_ids, receipts), f"{HERE} (the separate process failed: {why})"
            )

        try:
            yield (None if sender is None else sender.send), result
        finally:
            if child is not None and child.poll() is None:
                child.kill()
                child.wait()
            if sender is not None:
                sender.close()


def checked_copy(
    card: str,
    page_receipt_ids: Iterable[str],
    receipts: ReceiptStore,
    *,
    aside_from_pages: int = ASIDE_FROM_PAGES,
) -> CheckedCopy:
    """``copy_markets`` of the pages, and ``recheck_copy`` of what it copied, the check's decoding
    of the pages done beside the copy (from ``aside_from_pages`` pages)."""
    ids = list(page_receipt_ids)
    with _reading_aside(ids, receipts, aside_from_pages) as (send_body, published):
        copied = copy_markets(card, ids, receipts, each_body=send_body)
        reading = published()
    mismatches = recheck_copy(copied.markets, receipts, ahead=reading.pages)
    return CheckedCopy(copied, mismatches, reading.read_by, reading.peak_mb)


def _child(folder: Path) -> None:
    pages = decode_published(_received(sys.stdin.buffer))
    # In batches: written whole, the file took another 110 MB at 50,000 markets.
    pages.frame.write_ipc(folder / _PAGES, record_batch_size=2000)
    (folder / _READ).write_text(json.dumps({"read": sorted(pages.read), "peak_mb": round(_peak_mb(), 1)}))


if __name__ == "__main__":
    _child(Path(sys.argv[1]))
