"""The copy step: the verbatim copy and its independent re-check, the check's reading beside the copy.

The copy (``copy.copy_markets``) and the check (``copy_check.recheck_copy``) each read every page
of the sweep with their own code, which is the point of the check. Read one after the other, at
50,000 markets the two took longer than either; the check's reading does not depend on what the
copy made, so it runs in a child Python process while the copy runs here (polars and the JSON
readers hold the GIL, so a thread beside the copy gained nothing). Only the comparison waits for
both. The child gets the cores the copy leaves (one fewer than the machine has, at least one); on a
record that is not a local folder, for fewer pages than ``ASIDE_FROM_PAGES`` (a Python process
takes about half a second to start, longer than the check takes to read a small board), or if the
child fails, the check reads in this process, and ``CheckedCopy.check_read_by`` says which way it
went. The result is the same either way.

The child is ``python -m colosseum_core.forecast.copy_step <folder>``: it reads ``request.json``
there and writes the pages it read (``pages.arrow``, and ``read.json``: which receipts they were,
and its own peak memory, which the check's metadata reports).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import polars as pl

import colosseum_core
from colosseum_core.forecast.copy import CopyResult, copy_markets
from colosseum_core.forecast.copy_check import CopyMismatch, PublishedPages, read_published, recheck_copy
from colosseum_core.record import ReceiptStore

ASIDE = "a separate process"
HERE = "this process"
# Below this many pages the check reads in this process. Measured with benchmarks/card.py on 2 cores,
# the copy step with the check aside against without: 1.6 s against 0.6 s at 3,000 markets (30 pages),
# 1.8 s against 1.8 s at 10,000 (80 pages), 2.9 s against 3.6 s at 20,000 (157 pages).
ASIDE_FROM_PAGES = 100
_REQUEST, _PAGES, _READ, _ERRORS = "request.json", "pages.arrow", "read.json", "stderr.txt"


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


@contextlib.contextmanager
def _reading_aside(
    receipt_ids: list[str], receipts: ReceiptStore, aside_from_pages: int
) -> Iterator[Callable[[], _Reading]]:
    """Start the check's reading of ``receipt_ids`` in a child process; yield what waits for it.

    The child is killed if the caller leaves early (the copy raised), and its folder removed.
    """
    here = None
    if not isinstance(receipts.root, Path):
        here = "the record is not a local folder"
    elif len(receipt_ids) < aside_from_pages:
        here = f"{len(receipt_ids)} pages, fewer than {aside_from_pages}"
    if here is not None:
        yield lambda: _Reading(read_published(receipt_ids, receipts), f"{HERE} ({here})")
        return
    with tempfile.TemporaryDirectory(prefix="colosseum-copy-check-") as scratch:
        folder = Path(scratch)
        threads = _threads_aside()
        request = {"receipts": str(receipts.root), "receipt_ids": receipt_ids, "threads": threads}
        (folder / _REQUEST).write_text(json.dumps(request))
        # The child finds this package where this process found it, installed or not.
        package_parent = str(Path(colosseum_core.__file__).resolve().parents[1])
        python_path = os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "POLARS_MAX_THREADS": str(threads), "PYTHONPATH": python_path}
        with open(folder / _ERRORS, "wb") as errors:
            try:
                child: subprocess.Popen[bytes] | None = subprocess.Popen(
                    [sys.executable, "-m", __name__, str(folder)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=errors,
                    env=env,
                )
                failed_to_start = ""
            except OSError as exc:
                child, failed_to_start = None, str(exc)

        def result() -> _Reading:
            why = failed_to_start
            if child is not None:
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
            yield result
        finally:
            if child is not None and child.poll() is None:
                child.kill()
                child.wait()


def checked_copy(
    card: str,
    page_receipt_ids: Iterable[str],
    receipts: ReceiptStore,
    *,
    aside_from_pages: int = ASIDE_FROM_PAGES,
) -> CheckedCopy:
    """``copy_markets`` of the pages, and ``recheck_copy`` of what it copied, the check's reading
    of the pages done beside the copy (from ``aside_from_pages`` pages)."""
    ids = list(page_receipt_ids)
    with _reading_aside(ids, receipts, aside_from_pages) as published:
        copied = copy_markets(card, ids, receipts)
        reading = published()
    mismatches = recheck_copy(copied.markets, receipts, ahead=reading.pages)
    return CheckedCopy(copied, mismatches, reading.read_by, reading.peak_mb)


def _child(folder: Path) -> None:
    request = json.loads((folder / _REQUEST).read_text())
    pages = read_published(
        request["receipt_ids"], ReceiptStore(request["receipts"]), threads=request["threads"]
    )
    # In batches: written whole, the file took another 110 MB at 50,000 markets.
    pages.frame.write_ipc(folder / _PAGES, record_batch_size=2000)
    (folder / _READ).write_text(json.dumps({"read": sorted(pages.read), "peak_mb": round(_peak_mb(), 1)}))


if __name__ == "__main__":
    _child(Path(sys.argv[1]))
