"""A rotation as the record keeps it: what the sources said, every candidate's verdict, the motions.

``rotation_tables`` turns what ``collect_topics`` gathered into the rotation's three tables, each row
with the identifier of its content, and names the rotation's seal: its identifier (the SHA-256 of
the rotation's key and its motions' identifiers, in position order) and its kind. A rotation drawn
only from the local stand-ins (the simulated exchange, the sparring server's search) is
CALIBRATION; one drawn from the real services is FIGHT.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from urllib.parse import urlsplit

import polars as pl

from colosseum_core.debate.topics.collect import TopicsCollected
from colosseum_core.debate.topics.evergreen import Evergreen
from colosseum_core.debate.topics.rotation import build_rotation
from colosseum_core.providers.call import Endpoint
from colosseum_core.record import with_ids
from colosseum_core.record.identifiers import ID_FIELD

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
FIGHT, CALIBRATION = "FIGHT", "CALIBRATION"


@dataclasses.dataclass(frozen=True)
class RotationTables:
    topic_sources: pl.DataFrame
    topic_candidates: pl.DataFrame
    motions: pl.DataFrame
    rotation_id: str
    kind: str

    def tables(self) -> dict[str, pl.DataFrame]:
        return {
            "topic_sources": self.topic_sources,
            "topic_candidates": self.topic_candidates,
            "motions": self.motions,
        }


def rotation_kind(urls: Sequence[str], search_chain: Sequence[Endpoint]) -> str:
    local = [urlsplit(u).hostname in LOOPBACK for u in (*urls, *(e.base_url for e in search_chain))]
    return CALIBRATION if any(local) else FIGHT


def rotation_id(key: str, motions: pl.DataFrame) -> str:
    """What a rotation's seal vouches for: its key and its motions' identifiers, in position order."""
    digest = hashlib.sha256("\n".join([key, *motions[ID_FIELD].to_list()]).encode()).hexdigest()
    return f"rotation-{digest[:24]}"


def rotation_tables(key: str, collected: TopicsCollected, evergreen: Evergreen, kind: str) -> RotationTables:
    pick = build_rotation(key, collected.candidates, evergreen)
    motions = with_ids(pick.motions)
    return RotationTables(
        topic_sources=with_ids(collected.sources),
        topic_candidates=with_ids(pick.candidates_with_verdicts),
        motions=motions,
        rotation_id=rotation_id(key, motions),
        kind=kind,
    )
