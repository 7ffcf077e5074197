"""The multi-event arena as the platform sees it: one record, partitioned by event.

An event (``event=chess-2026-12-02``) is frozen first: its manifest (``event_manifests``, written
once) names everything it depends on. Its kind (``events.kinds``: chess, Solve or Object, challenge
construction) then writes its tables step by step, each once (a chess event's games, a
Solve-or-Object event's replies, a challenge event's phases), and its standings seal it: re-running
a sealed event reproduces its tables byte for byte or is refused. After the seal, the signed results
bundle over the sealed tables is written once. The views are in the ``events`` schema.

Nothing here imports python-chess (GPL-3.0-or-later, an optional extra): only ``events.chess`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from colosseum_core.events.kind import EventKind
from colosseum_core.events.kinds import KINDS
from colosseum_core.record.layout import ArenaRecord
from colosseum_core.record.seals import SealingPolicy

MANIFEST_TABLES: Final = ("event_manifests",)
# Written once after the seal: the signed results bundle over the sealed tables (``events.bundle``).
BUNDLE_TABLES: Final = ("event_bundles",)


def sealing_policy(kinds: Sequence[EventKind]) -> SealingPolicy:
    """Every kind's tables seal with its event; each kind's steps are written once, and its
    standings are written by the seal, its sealing table among them."""
    return SealingPolicy(
        sealed_tables=(*MANIFEST_TABLES, *(t for kind in kinds for t in kind.tables)),
        sealing_tables=tuple(kind.sealing for kind in kinds),
        selection_tables=tuple(t for kind in kinds for t in kind.standings),
        write_once_tables=(*MANIFEST_TABLES, *(t for kind in kinds for t in kind.written), *BUNDLE_TABLES),
        content_id_field="manifest_sha256",
        content_noun="event manifest",
    )


EVENTS = ArenaRecord(name="events", partition="event", sealing=sealing_policy(KINDS))
