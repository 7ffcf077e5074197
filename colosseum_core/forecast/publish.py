"""Publishing the board: build the site beside the old one, sign its manifest, swap it in whole.

A reader of the published directory sees the old site or the new one, never a mix: the new site is
built and signed in a sibling directory, then moved into place with renames. The release rule is
enforced by the builder before anything is written.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from colosseum_core.forecast.answering import unsigned_lines
from colosseum_core.forecast.board_site import SiteReport, build_site, site_problems
from colosseum_core.forecast.seats import Seat
from colosseum_core.record import RecordTables
from colosseum_core.record.ledger import check_file
from colosseum_core.trust.bundle import sign_bundle, verify_bundle
from colosseum_core.trust.signing import ARENA, KeyStore, verify_card


class UnverifiedRecordError(Exception):
    """The record cannot be published under the arena's signature: it is not a record, or it does not
    verify. Nothing was built and nothing was signed."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        shown = "; ".join(self.problems[:5]) + (
            f"; … {len(self.problems) - 5} more" if len(problems) > 5 else ""
        )
        super().__init__(f"the board is not built: {shown}")


def publishing_problems(tables: RecordTables) -> list[str]:
    """Why ``tables`` may not be published: not a record, or a file or signature that does not verify.

    The arena's signature over a site vouches for the record it was built from, so before signing,
    every file the board reads must be the bytes its ledger records, and every card's answers must
    carry seat signatures and arena countersignatures that verify.
    """
    root = tables.root
    if not root.is_dir():
        return [f"{root.parent} is not a record: it has no {root.name}/ directory"]
    problems: list[str] = []
    for table in tables.tables():
        partitions = tables.partitions(table)
        paths = [tables.path(table, p) for p in partitions] if partitions else [tables.path(table)]
        for path in paths:
            check = check_file(path, path.relative_to(root.parent).as_posix())
            if check.problem:
                problems.append(check.problem)
    if problems:
        return problems  # nothing below can be trusted to decode
    for card in tables.partitions("answers"):
        keys = tables.read_if_present("public_keys", card)
        if keys is None:
            problems.append(
                f"answers card {card}: it has no public_keys, so its signatures cannot be verified"
            )
            continue
        seats = sorted(set(keys.filter(pl.col("name") != ARENA)["name"].to_list()))
        answers = tables.read("answers", card)
        problems += verify_card(
            answers,
            keys,
            signatures=tables.read_if_present("answer_signatures", card),
            expected_seats=seats,
        )
        lines = tables.read_if_present("answer_lines", card)
        if lines is not None:
            problems += unsigned_lines(answers, lines, "answer_lines")
    return problems


@dataclasses.dataclass(frozen=True)
class Publication:
    site: Path
    report: SiteReport
    envelope: dict[str, Any]
    arena_key_id: str


def publish_board(
    tables: RecordTables,
    keys: KeyStore,
    out: Path,
    *,
    seats: Sequence[Seat],
    built_at: dt.datetime,
) -> Publication:
    """Build, sign and swap in the public site at ``out``; refuses (ReleaseError, UnverifiedRecordError)
    before writing anything."""
    problems = publishing_problems(tables)
    if problems:
        raise UnverifiedRecordError(problems)
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.building-{uuid.uuid4().hex[:8]}")
    stamp = built_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    try:
        report = build_site(tables, staging, seats=seats, built_at=stamp)
        # The arena's key dates from the first seat's first day, as when answers are signed.
        keys.ensure_key(ARENA, min(seat.first_day for seat in seats))
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


def published_problems(site: Path, tables: RecordTables, seats: Sequence[Seat]) -> list[str]:
    """The built site re-read from disk: every number and answer against the record, and its signature."""
    arena_ids = []
    if tables.partitions("public_keys"):
        keys = tables.scan("public_keys")
        assert keys is not None
        arena_ids = keys.filter(name=ARENA).select("key_id").unique().collect()["key_id"].to_list()
    bundle = verify_bundle(site, trusted_key_ids=arena_ids or None)
    return [*site_problems(site, tables, seats), *bundle.problems]
