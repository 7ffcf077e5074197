"""The auditor's one command: recompute and check a record or a built site, and name every failure.

The runner knows no arena: it checks what holds for every arena (the layout, every file's bytes
against its ledger entry, every row's identifier, every receipt, a site's signed manifest) and asks
each arena's audit (``audit.Audit``; the platform's arenas are ``colosseum_core.arenas.AUDITS``) for
the work only that arena can do. For the forecasting arena, ``verify_record(<data>, AUDITS)`` checks:

1. identifiers: every row of every Parquet file under ``warehouse/`` (a file that is not Parquet is
   named);
2. receipts: every receipt under ``receipts/`` still hashes to its name and is a receipt document;
3. signatures: every card's answers, seat signature and arena countersignature, with the keys in
   force on the card's date, and a record for every seat that holds a key on the card;
4. seals: each ``seals/<arena>/card=<key>.json``: every sealed table file still has its sealed SHA-256, and
   no sealed table was written after the seal;
5. verdicts: the copy, every verdict, the card's questions and its packet re-derived from the sweep's
   receipts, with the questions of the earlier cards of the same kind as history;
6. settlements: each row read again from the receipt it names;
7. scores: each row re-derived from its answer line and settlement, and every settled answer scored;
8. the boards: leaderboard and calibration rebuilt from every card's scores, value by value.

``verify_site(<site>, AUDITS)`` checks a published site: the signed manifest (against the arena keys in
``data/public_keys.parquet``), identifiers of every download row, signatures, scores, and the board
in ``data/leaderboard.parquet`` and ``data/leaderboard.json``. A site carries no receipts.

Work runs on ``workers`` processes (default: every core); ``workers=1`` runs in this process.
Nothing here imports dagster.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colosseum_core.record.storage import download_tree, is_remote, record_path
from colosseum_core.trust.bundle import ENVELOPE_NAME
from colosseum_core.verify.audit import Audit
from colosseum_core.verify.record import verify_record
from colosseum_core.verify.report import VerifyReport
from colosseum_core.verify.site import verify_site


def verify_path(path: Path, audits: Sequence[Audit], **kw: Any) -> VerifyReport:
    """A site if ``path`` holds a signed manifest, a record if it holds ``warehouse/``; else ValueError."""
    path = record_path(path)
    if is_remote(path) and (path / ENVELOPE_NAME).exists():
        # A site in a bucket is checked as its readers get it: every object fetched, then read.
        with tempfile.TemporaryDirectory(prefix="colosseum-site-") as scratch:
            download_tree(path, Path(scratch))
            return verify_site(Path(scratch), audits, **kw)
    if (path / ENVELOPE_NAME).exists():
        return verify_site(path, audits, **kw)
    if (path / "warehouse").is_dir():
        return verify_record(path, audits, **kw)
    raise ValueError(
        f"{path}: neither a record (no warehouse/ directory) nor a built site (no {ENVELOPE_NAME}); "
        "give the record's data directory or the site's root"
    )


__all__ = ["Audit", "VerifyReport", "verify_path", "verify_record", "verify_site"]
