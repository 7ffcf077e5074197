"""Publishing the public site: build it beside the old one, sign its manifest, swap it in whole, re-read it.

A reader of the published directory sees the old site or the new one, never a mix: the new site is
built and signed in a sibling directory, then moved into place with renames. An arena's release rule
is enforced by its builder before anything is written.

A record on object storage builds its site on this host in the same way, then puts it in the bucket
under ``<root>/site/``: every file first, the signed manifest last, then what the old site had and
the new one has not is deleted. A bucket has no rename, so a reader during the upload can find new
files beside the old manifest (which ``colosseum verify`` then names); never a new manifest without
the files it lists.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colosseum_core.record.layout import Record
from colosseum_core.record.storage import upload_tree
from colosseum_core.site.formats import instant
from colosseum_core.site.public import PublicSite, SiteBuild
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


@dataclasses.dataclass(frozen=True)
class Publication:
    site: Path
    report: SiteBuild
    envelope: dict[str, Any]
    arena_key_id: str


def publish_site(
    site: PublicSite, record: Record, keys: KeyStore, out: Path, *, built_at: dt.datetime
) -> Publication:
    """Build, sign and swap in the site of every arena ``record`` holds at ``out``; refuses (a part's
    ``BuildRefused``, ``UnverifiedRecordError``) before writing anything."""
    problems = site.publishing_problems(record)
    if problems:
        raise UnverifiedRecordError(problems)
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.building-{uuid.uuid4().hex[:8]}")
    try:
        report = site.build(record, staging, built_at=instant(built_at))
        keys.ensure_key(ARENA, site.key_valid_from(record))
        arena_key = keys.signing_key(ARENA, built_at.astimezone(dt.UTC).date())
        envelope = sign_bundle(staging, arena_key)
        _swap_in(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if record.on_object_store:
        upload_tree(out, record.published_site, last=(MANIFEST_NAME, ENVELOPE_NAME))
    return Publication(site=out, report=report, envelope=envelope, arena_key_id=arena_key.record.key_id)


def _swap_in(staging: Path, out: Path) -> None:
    retired = out.with_name(f".{out.name}.retired-{uuid.uuid4().hex[:8]}")
    if out.exists():
        out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired, ignore_errors=True)


def published_problems(site: PublicSite, out: Path, record: Record) -> list[str]:
    """The built site re-read from disk: every number against the record, and its signature."""
    bundle = verify_bundle(out, trusted_key_ids=site.arena_key_ids(record) or None)
    return [*site.site_problems(out, record), *bundle.problems]
