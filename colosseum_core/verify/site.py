"""``verify_site``: a built public site (signed manifest, pages, downloads) checked end to end, every
arena's part of it through its audit, and its landing page written again from the parts' files.

Where each arena's part lives is what the site's own signed ``site.json`` says (``forecast/``,
``debate/``, ``events/``). A site from before the landing page (no ``site.json``, or the forecasting
board at its root, ``"folder": "."``) is still read: its parts are where it says, the forecasting
downloads at ``data/``."""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
import re
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Protocol

import polars as pl
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from colosseum_core.record.storage import RecordPath
from colosseum_core.trust.bundle import ENVELOPE_NAME, verify_bundle
from colosseum_core.trust.keys import ARENA, key_id_of
from colosseum_core.verify.audit import Audit, SiteScan
from colosseum_core.verify.record import counts_of
from colosseum_core.verify.report import Signer, VerifyReport
from colosseum_core.verify.workers import DECODE_ERRORS, Task, check_site_slice, run_tasks

SITE_COUNTS = ("files", "files_in_manifest", "rows", "receipts")
ROWS_PER_SLICE = 50_000
RECEIPTS_NOTE = (
    "receipts are not part of a site: its settlements and verdicts are not re-derived here "
    "(verify the record for those)"
)


_KEY_ID = re.compile(r"^[0-9a-f]{64}$")
_PLAIN_FOLDER = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
# The site's own document: where each arena's part lives (``colosseum_core.site.public``).
SITE_DOCUMENT = "site.json"
# The folder of a part's Parquet downloads whose rows the runner checks itself.
DOWNLOADS = "data"


class Landing(Protocol):
    """The site engine that wrote a site's landing page (``colosseum_core.site.public.PublicSite``)."""

    def landing_problems(self, site: Path, vouched: Collection[str]) -> tuple[list[str], list[str]]: ...


@dataclasses.dataclass(frozen=True)
class Anchor:
    """What a site's signer is checked against: keys pinned by the auditor, or the arena keys a
    record publishes, and how the report names them."""

    describe: str
    key_ids: tuple[str, ...]


def key_id_from(value: str) -> str:
    """A pinned key as its id: 64 hex digits as they are, or a public key file (PEM, Ed25519)."""
    if _KEY_ID.match(value):
        return value
    path = Path(value)
    if not path.is_file():
        raise ValueError(f"{value!r} is neither a key id (64 hex digits) nor a public key file")
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except ValueError as exc:
        raise ValueError(f"{value}: not a PEM public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(f"{value}: not an Ed25519 public key")
    return key_id_of(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


def pinned(key_ids: Sequence[str]) -> Anchor:
    return Anchor("the pinned key" if len(key_ids) == 1 else "the pinned keys", tuple(key_ids))


def record_anchor(root: RecordPath, audits: Sequence[Audit], notes: list[str]) -> Anchor | None:
    """The arena keys the record at ``root`` publishes (every arena's, through its audit); None, with
    a note, when it publishes none."""
    ids = sorted({k for audit in audits for k in audit.published_arena_keys(root)})  # type: ignore[arg-type]
    if not ids:
        notes.append(
            f"the record at {root} publishes no arena key: the site's signer is not checked against it"
        )
        return None
    return Anchor(f"the arena keys the record at {root} publishes", tuple(ids))


def _arena_key_ids(site: Path, file: str, problems: list[str]) -> list[str]:
    try:
        keys = pl.read_parquet(site / file)
        return sorted(set(keys.filter(pl.col("name") == ARENA)["key_id"].to_list()))
    except DECODE_ERRORS as exc:
        problems.append(f"{file}: the arena's keys cannot be read ({type(exc).__name__}: {exc})")
        return []


def part_folders(site: Path, verified: Collection[str]) -> dict[str, str]:
    """Each arena's folder on the site ("" for its root), as the site's signed ``site.json`` places it;
    {} when the manifest vouches for no such document (a site from before it: everything at the root)."""
    if SITE_DOCUMENT not in verified:
        return {}
    try:
        document = json.loads((site / SITE_DOCUMENT).read_text())
        entries = [*document.get("arenas", []), *document.get("held", [])]
        folders = {str(e["arena"]): str(e["folder"]) for e in entries}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # the landing page's check names a document that does not read
    return {
        arena: "" if folder == "." else folder
        for arena, folder in folders.items()
        if folder == "." or _PLAIN_FOLDER.match(folder)
    }


def verify_site(
    site: Path,
    audits: Sequence[Audit],
    *,
    workers: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    anchors: Sequence[Anchor] = (),
    notes: Sequence[str] = (),
    record: RecordPath | None = None,
    public_site: Landing | None = None,
) -> VerifyReport:
    """Check the signed manifest, its signer against every one of ``anchors`` (none: the signer is
    only the site's own word, and the verdict says UNPINNED), every download's identifiers, every
    arena's part of the site (held to ``record``, the record the site lives in, if it does), and
    (``public_site``: the site engine that wrote it) its landing page written again from the parts'
    files."""
    started = time.perf_counter()
    site = Path(site).resolve()
    if not (site / ENVELOPE_NAME).exists():
        raise ValueError(f"{site} is not a site: it has no {ENVELOPE_NAME}")
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    problems: list[str] = []
    notes = list(notes)
    # The signed manifest first: only files whose bytes it vouches for are ever decoded.
    if progress is not None:
        progress("bundle", 0, 1)
    bundle = verify_bundle(site)
    problems += bundle.problems
    if progress is not None:
        progress("bundle", 1, 1)
    folders = part_folders(site, bundle.verified)
    # Each part's data/ downloads (a site from before the landing page has the forecast's at data/).
    roots = sorted({"", *folders.values()})
    data_dirs = [posixpath.join(root, DOWNLOADS) for root in roots]
    for keys_file in (posixpath.join(d, "public_keys.parquet") for d in data_dirs):
        if keys_file not in bundle.verified:
            continue
        declared = _arena_key_ids(site, keys_file, problems)
        if bundle.key_id is not None and declared and bundle.key_id not in declared:
            problems.append(
                f"{ENVELOPE_NAME}: signed by key {bundle.key_id}, not an arena key of the site's own "
                f"{keys_file}"
            )
    for anchor in anchors:
        if bundle.key_id is not None and bundle.key_id not in anchor.key_ids:
            problems.append(
                f"{ENVELOPE_NAME}: signed by key {bundle.key_id}, not by {anchor.describe} "
                f"({', '.join(anchor.key_ids)})"
            )
    signer = Signer(
        bundle.key_id,
        " and ".join(a.describe for a in anchors) or None,
        tuple(sorted({k for a in anchors for k in a.key_ids})),
    )

    tasks: list[Task] = []
    found = sorted(
        p.relative_to(site).as_posix()
        for d in data_dirs
        if (site / d).is_dir()
        for p in (site / d).glob("*.parquet")
    )
    files = [f for f in found if f in bundle.verified]
    verified = tuple(sorted(bundle.verified))
    by_partition = {
        posixpath.join(folders.get(audit.arena.name, ""), f)
        for audit in audits
        for f in audit.site_downloads_checked_by_partition
    }
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
    scan = SiteScan(
        site, frozenset(readable), verified, workers, str(record) if record is not None else None, folders
    )
    for audit in audits:
        tasks += audit.site_tasks(scan)

    outcome, _ = run_tasks(tasks, workers=workers, root=str(site), progress=progress)
    if public_site is not None:
        found_problems, found_notes = public_site.landing_problems(site, frozenset(bundle.verified))
        problems += found_problems
        notes += found_notes
    else:
        notes.append("the landing page is not written again: no site engine was given to verify")
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
        notes=[*notes, RECEIPTS_NOTE, *sorted(set(outcome.notes))],
        cpu_seconds=outcome.cpu_seconds,
        signer=signer,
    )
