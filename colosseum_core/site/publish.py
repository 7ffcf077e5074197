"""Publishing an arena's site: build it beside the old one, sign its manifest, swap it in whole, re-read it.

A reader of the published directory sees the old site or the new one, never a mix: the new site is
built and signed in a sibling directory, then moved into place with renames. An arena's release rule
is enforced by its builder before anything is written.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colosseum_core.record import RecordTables
from colosseum_core.site.formats import instant
from colosseum_core.site.plugin import BuildReport, SitePlugin
from colosseum_core.trust.bundle import sign_bundle, verify_bundle
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
    report: BuildReport
    envelope: dict[str, Any]
    arena_key_id: str


def publish_site(
    plugin: SitePlugin, tables: RecordTables, keys: KeyStore, out: Path, *, built_at: dt.datetime
) -> Publication:
    """Build, sign and swap in ``plugin``'s site at ``out``; refuses (the plugin's ``BuildRefused``,
    ``UnverifiedRecordError``) before writing anything."""
    problems = plugin.publishing_problems(tables)
    if problems:
        raise UnverifiedRecordError(problems)
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.building-{uuid.uuid4().hex[:8]}")
    try:
        report = plugin.build(tables, staging, built_at=instant(built_at))
        keys.ensure_key(ARENA, plugin.key_valid_from(tables))
        arena_key = keys.signing_key(ARENA, built_at.astimezone(dt.UTC).date())
        envelope = sign_bundle(staging, arena_key)
        _swap_in(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Publication(site=out, report=report, envelope=envelope, arena_key_id=arena_key.record.key_id)


def _swap_in(staging: Path, out: Path) -> None:
    retired = out.with_name(f".{out.name}.retired-{uuid.uuid4().hex[:8]}")
    if out.exists():
        out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired, ignore_errors=True)


def published_problems(plugin: SitePlugin, site: Path, tables: RecordTables) -> list[str]:
    """The built site re-read from disk: every number against the record, and its signature."""
    bundle = verify_bundle(site, trusted_key_ids=plugin.arena_key_ids(tables) or None)
    return [*plugin.site_problems(site, tables), *bundle.problems]
