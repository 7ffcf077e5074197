"""``verify_site``: a built public site (signed manifest, pages, ``data/`` downloads) checked end to end,
every arena's part of it through its audit."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import polars as pl

from colosseum_core.trust.bundle import ENVELOPE_NAME, verify_bundle
from colosseum_core.trust.keys import ARENA
from colosseum_core.verify.audit import Audit, SiteScan
from colosseum_core.verify.record import counts_of
from colosseum_core.verify.report import VerifyReport
from colosseum_core.verify.workers import DECODE_ERRORS, Task, check_site_slice, run_tasks

SITE_COUNTS = ("files", "files_in_manifest", "rows", "receipts")
ROWS_PER_SLICE = 50_000
RECEIPTS_NOTE = (
    "receipts are not part of a site: its settlements and verdicts are not re-derived here "
    "(verify the record for those)"
)


def _arena_key_ids(data: Path, problems: list[str]) -> list[str]:
    path = data / "public_keys.parquet"
    try:
        keys = pl.read_parquet(path)
        return sorted(set(keys.filter(pl.col("name") == ARENA)["key_id"].to_list()))
    except DECODE_ERRORS as exc:
        problems.append(
            f"data/public_keys.parquet: the arena's keys cannot be read ({type(exc).__name__}: {exc})"
        )
        return []


def verify_site(
    site: Path,
    audits: Sequence[Audit],
    *,
    workers: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> VerifyReport:
    """Check the signed manifest, every download's identifiers, and every arena's part of the site."""
    started = time.perf_counter()
    site = Path(site).resolve()
    if not (site / ENVELOPE_NAME).exists():
        raise ValueError(f"{site} is not a site: it has no {ENVELOPE_NAME}")
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    data = site / "data"
    problems: list[str] = []
    # The signed manifest first: only files whose bytes it vouches for are ever decoded.
    if progress is not None:
        progress("bundle", 0, 1)
    bundle = verify_bundle(site)
    problems += bundle.problems
    if progress is not None:
        progress("bundle", 1, 1)
    if "data/public_keys.parquet" in bundle.verified:
        trusted = _arena_key_ids(data, problems)
        if bundle.key_id is not None and trusted and bundle.key_id not in trusted:
            problems.append(f"{ENVELOPE_NAME}: signed by key {bundle.key_id}, not an arena key of the record")

    tasks: list[Task] = []
    found = sorted(p.relative_to(site).as_posix() for p in data.glob("*.parquet")) if data.is_dir() else []
    files = [f for f in found if f in bundle.verified]
    verified = tuple(sorted(bundle.verified))
    by_partition = {f for audit in audits for f in audit.site_downloads_checked_by_partition}
    readable: set[str] = set()
    for file in files:
        try:
            rows = pl.scan_parquet(site / file, hive_partitioning=False).select(pl.len()).collect().item()
        except DECODE_ERRORS as exc:
            problems.append(
                f"{file}: cannot be read as Parquet ({type(exc).__name__}: {str(exc).splitlines()[0]})"
            )
            continue
        readable.add(file)
        if file in by_partition:
            continue
        for offset in range(0, max(rows, 1), ROWS_PER_SLICE):
            tasks.append(Task("files", 1, check_site_slice, (str(site), file, offset, ROWS_PER_SLICE)))
    scan = SiteScan(site, frozenset(readable), verified, workers)
    for audit in audits:
        tasks += audit.site_tasks(scan)

    outcome, _ = run_tasks(tasks, workers=workers, root=str(site), progress=progress)
    checked = dict.fromkeys(counts_of(SITE_COUNTS, audits, "site_counts"), 0)
    checked.update(outcome.checked)
    checked["files"] = len(found)
    checked["files_in_manifest"] = bundle.files
    checked["receipts"] = 0
    return VerifyReport(
        kind="site",
        checked=checked,
        problems=sorted(problems + outcome.problems),
        seconds=time.perf_counter() - started,
        path=str(site),
        notes=[RECEIPTS_NOTE, *sorted(set(outcome.notes))],
        cpu_seconds=outcome.cpu_seconds,
    )
