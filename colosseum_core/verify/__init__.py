"""The auditor's one command: recompute and check a record or a built site, and name every failure.

The runner knows no arena: it checks what holds for every arena (the layout, every file's bytes
against its ledger entry, every row's identifier, every receipt, every seal and missed record against
its tables and its arena's sealing policy (``seals.py``), every journal's chain and the receipts its
lines name (``journals.py``), a site's signed manifest and its signer) and asks each arena's audit
(``audit.Audit``; the platform's arenas are ``colosseum_core.arenas.AUDITS``) for the work only that
arena can do. For the forecasting arena, ``verify_record(<data>, AUDITS)`` checks:

1. identifiers: every row of every Parquet file under ``warehouse/`` (a file that is not Parquet is
   named);
2. receipts: every receipt under ``receipts/`` still hashes to its name and is a receipt document;
3. signatures: every card's answers, seat signature and arena countersignature, with the keys in
   force on the card's date, and a record for every seat that holds a key on the card;
4. seals: each ``seals/forecast/card=<key>.json`` (the runner's check) vouches for the card's packet,
   and its ``card_status`` agrees; a missed card was overtaken by a later sealed card of its kind;
5. verdicts: the copy, every verdict, the card's questions and its packet re-derived from the sweep's
   receipts, with the questions of the earlier cards of the same kind as history;
6. settlements: each row read again from the receipt it names;
7. scores: each row re-derived from its answer line and settlement, and every settled answer scored;
8. the boards: leaderboard and calibration rebuilt from every card's scores, value by value.

The report leads with the causes of problems (a receipt or a file that is not as recorded, a broken
journal) with what follows from each under it (``causes.py``).

``verify_site(<site>, AUDITS, public_site=PUBLIC_SITE)`` checks a published site: the signed
manifest, its signer (against the arena keys its record publishes or a pinned key, else reported as
unpinned: only the site vouches for it), identifiers of every download row, signatures, scores, the
forecasting board in ``forecast/data/leaderboard.parquet`` and ``forecast/data/leaderboard.json``
(``data/`` on a site from before the landing page), and the landing page written again from the
parts' files. A site carries no receipts.

Work runs on ``workers`` processes (default: every core); ``workers=1`` runs in this process.
Nothing here imports dagster.

Imported by: every arena's part of verify (its ``audit``, which implements the protocol), the
``verify`` command, the benchmarks and the tests. The runner reaches the arenas only through
``colosseum_core.arenas.AUDITS`` (``.importlinter``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colosseum_core.record.layout import SITE, WAREHOUSE
from colosseum_core.record.storage import RecordPath, download_tree, is_remote, record_path
from colosseum_core.trust.bundle import ENVELOPE_NAME
from colosseum_core.verify.audit import Audit
from colosseum_core.verify.record import verify_record
from colosseum_core.verify.report import VerifyReport
from colosseum_core.verify.site import Anchor, Landing, pinned, record_anchor, verify_site


def containing_record(site: RecordPath) -> RecordPath | None:
    """The record a site was built in (``<data>/site``), or None."""
    parent = site.parent
    return parent if site.name == SITE and (parent / WAREHOUSE).is_dir() else None


def verify_path(
    path: Path,
    audits: Sequence[Audit],
    *,
    keys: Sequence[str] = (),
    record: Path | None = None,
    public_site: Landing | None = None,
    **kw: Any,
) -> VerifyReport:
    """A site if ``path`` holds a signed manifest, a record if it holds ``warehouse/``; else ValueError.

    A site's signer is checked against ``keys`` (key ids pinned by the caller) and against the arena
    keys ``record`` publishes (default: the record the site was built in, if it is one's ``site/``);
    its landing page is written again from its parts' files by ``public_site``, the engine that
    built it (``colosseum_core.arenas.PUBLIC_SITE``)."""
    path = record_path(path)
    if (path / ENVELOPE_NAME).exists():
        notes: list[str] = []
        anchors: list[Anchor] = [pinned(keys)] if keys else []
        trusted_record = record_path(record) if record is not None else containing_record(path)
        if trusted_record is not None:
            found = record_anchor(trusted_record, audits, notes)
            anchors += [found] if found else []
        if is_remote(path):
            # A site in a bucket is checked as its readers get it: every object fetched, then read.
            with tempfile.TemporaryDirectory(prefix="colosseum-site-") as scratch:
                download_tree(path, Path(scratch))
                return verify_site(
                    Path(scratch), audits, anchors=anchors, notes=notes, public_site=public_site, **kw
                )
        # A site in a record's ``site/`` is that record's: its arenas hold their parts of it to it.
        return verify_site(
            path,
            audits,
            anchors=anchors,
            notes=notes,
            public_site=public_site,
            record=containing_record(path),
            **kw,
        )
    if (path / WAREHOUSE).is_dir():
        if keys or record is not None:
            raise ValueError(f"{path} is a record: a pinned key or a record to check against is for a site")
        return verify_record(path, audits, **kw)
    raise ValueError(
        f"{path}: neither a record (no warehouse/ directory) nor a built site (no {ENVELOPE_NAME}); "
        "give the record's data directory or the site's root"
    )


__all__ = ["Audit", "VerifyReport", "verify_path", "verify_record", "verify_site"]
