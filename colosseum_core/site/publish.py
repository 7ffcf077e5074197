"""Publishing the public site: build it beside the old one, sign its manifest, swap it in whole, re-read it.

A reader of the published directory sees the old site or the new one, never a mix: the new site is
built and signed in a sibling directory, then moved into place with renames. An arena's release rule
is enforced by its builder before anything is written.

One arena's trouble never darkens another's board: an arena whose record does not verify, or whose
builder refuses, is held (``public.Held``): the new site keeps its pages from the site being replaced,
with a notice naming the problem, and the publication says which arenas are held. Only a record with
nothing to publish at all (no arena, or every arena held with no earlier pages) is refused.

One writer at a time: every build, from the CLI's ``board build`` or the UI's ``public_board_job``,
holds the record's ``public_site`` writer lock (a lock file, or an advisory lock in the production
profile's PostgreSQL, across hosts) from its first read to its re-read, so two builds never swap sites
under each other's check; the second waits up to ``wait_s`` and is then refused naming the first.

A record on object storage builds its site on this host in the same way, then puts it in the bucket
under ``<root>/site/``: every file first, the signed manifest last, then what the old site had and
the new one has not is deleted. The site being replaced is then the bucket's, not this host's last
build: a held arena keeps the pages the public reads, whichever host (or pod, its disk long gone)
published them. A bucket has no rename, so a reader during the upload can find new
files beside the old manifest (which ``colosseum verify`` then names); never a new manifest without
the files it lists.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import shutil
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from colosseum_core.record.layout import Record
from colosseum_core.record.storage import download_tree, upload_tree
from colosseum_core.site.formats import instant
from colosseum_core.site.public import SITE_DOCUMENT, Held, PartRefused, PublicSite, SiteBuild
from colosseum_core.trust.bundle import ENVELOPE_NAME, MANIFEST_NAME, sign_bundle, verify_bundle
from colosseum_core.trust.keys import ARENA, KeyStore


class UnverifiedRecordError(Exception):
    """The record cannot be published under the arena's signature: it is not a record, or it does not
    verify. Nothing was built and nothing was signed."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        shown = "; ".join(self.problems[:5]) + (
            f"; … {len(self.problems) - 5} more" if len(problems) > 5 else ""
        )
        super().__init__(f"the board is not built: {shown}")


# The record's writer lock every build of the public site holds.
SITE_LOCK = "public_site"


@dataclasses.dataclass(frozen=True)
class Publication:
    site: Path
    report: SiteBuild
    envelope: dict[str, Any]
    arena_key_id: str
    # The built site re-read under the same lock (``publish_site(check=True)``), else None.
    problems: list[str] | None = None

    @property
    def held(self) -> dict[str, Held]:
        return self.report.held


def publish_site(
    site: PublicSite,
    record: Record,
    keys: KeyStore,
    out: Path,
    *,
    built_at: dt.datetime,
    writer: str = "a build of the public board",
    owner: str | None = None,
    wait_s: float = 0.0,
    check: bool = False,
) -> Publication:
    """Build, sign and swap in the site of every arena ``record`` holds at ``out``, holding each arena
    whose record does not verify (or whose builder refuses) at its last published pages; refuses
    (``UnverifiedRecordError``) before writing anything when nothing could be published. Holds the
    record's ``SITE_LOCK`` as ``writer`` (``owner``: a run id) throughout, waiting up to ``wait_s`` for
    another build (else ``LockBusy`` naming it); with ``check``, re-reads the site under it too."""
    with record.locks.hold(SITE_LOCK, owner=owner or f"pid {os.getpid()}", purpose=writer, wait_s=wait_s):
        published = _publish(site, record, keys, out, built_at=built_at)
        if check:
            problems = published_problems(site, published.site, record)
            published = dataclasses.replace(published, problems=problems)
    return published


def _publish(
    site: PublicSite, record: Record, keys: KeyStore, out: Path, *, built_at: dt.datetime
) -> Publication:
    present = site.present(record)
    if not present:
        raise UnverifiedRecordError(site.publishing_problems(record))
    held = {
        part.plugin.arena.name: problems
        for part in present
        if (problems := part.plugin.publishing_problems(record.tables(part.plugin.arena)))
    }
    out = out.resolve()
    previous = out if (out / SITE_DOCUMENT).is_file() else None
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.building-{uuid.uuid4().hex[:8]}")
    fetched = out.with_name(f".{out.name}.published-{uuid.uuid4().hex[:8]}")
    looked = False
    try:
        while True:
            if held and record.on_object_store and not looked:
                # Only a held arena reads the site being replaced: fetched then, not on every build.
                previous, looked = fetch_published_site(record, fetched), True
            _nothing_to_publish(present, held, site.kept_pages(previous))
            try:
                report = site.build(record, staging, built_at=instant(built_at), held=held, previous=previous)
                break
            except PartRefused as refused:
                held[refused.arena] = [str(refused)]
                shutil.rmtree(staging, ignore_errors=True)
        fresh = [p for p in present if p.plugin.arena.name not in held]
        first_day = min(
            (p.plugin.key_valid_from(record.tables(p.plugin.arena)) for p in fresh),
            default=built_at.astimezone(dt.UTC).date(),
        )
        keys.ensure_key(ARENA, first_day)
        arena_key = keys.signing_key(ARENA, built_at.astimezone(dt.UTC).date())
        envelope = sign_bundle(staging, arena_key)
        _swap_in(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(fetched, ignore_errors=True)
    if record.on_object_store:
        upload_tree(out, record.published_site, last=(MANIFEST_NAME, ENVELOPE_NAME))
    return Publication(site=out, report=report, envelope=envelope, arena_key_id=arena_key.record.key_id)


def fetch_published_site(record: Record, scratch: Path) -> Path | None:
    """The site the public reads now in the bucket of ``record`` (its ``site/``), fetched into
    ``scratch`` on this host; None when nothing is published there.

    A held arena keeps its pages from the site being replaced, and the upload then deletes from the
    bucket whatever the new site has not: on a bucket that site is the bucket's, which another host
    (or this host's last pod, whose disk is gone) may have published, never this host's last build."""
    if not (record.published_site / SITE_DOCUMENT).is_file():
        return None
    shutil.rmtree(scratch, ignore_errors=True)
    download_tree(record.published_site, scratch)
    return scratch


def _nothing_to_publish(present: Sequence[Any], held: dict[str, list[str]], kept: Mapping[str, str]) -> None:
    """Refuse when every arena is held and no earlier site has pages of any of them to keep (``kept``:
    the arenas whose pages the site being replaced holds where they would be kept)."""
    if any(p.plugin.arena.name not in held for p in present):
        return
    if not any(p.plugin.arena.name in kept for p in present):
        raise UnverifiedRecordError([problem for problems in held.values() for problem in problems])


def _swap_in(staging: Path, out: Path) -> None:
    retired = out.with_name(f".{out.name}.retired-{uuid.uuid4().hex[:8]}")
    if out.exists():
        out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired, ignore_errors=True)


def published_problems(site: PublicSite, out: Path, record: Record) -> list[str]:
    """The built site re-read from disk: every number against the record (but a held arena's kept
    pages), and its signature."""
    bundle = verify_bundle(out, trusted_key_ids=site.arena_key_ids(record) or None)
    return [*site.site_problems(out, record), *bundle.problems]
