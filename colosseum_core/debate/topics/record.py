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
import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import polars as pl

from colosseum_core.debate.topics.candidates import CANDIDATE_SCHEMA
from colosseum_core.debate.topics.collect import SOURCES_SCHEMA, TopicsCollected
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


# The rotation's collection journal: what the sources answered, recorded before the rotation seals, so
# that a run stopped anywhere after it re-derives the rotation without asking the sources again.
COLLECTED_JOURNAL = "collected"
COLLECTED = "collected"


class CollectedError(ValueError):
    """A rotation's collection journal that does not hold what a rotation is derived from."""


def _json_rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    # Instants as integer microseconds: JSON holds them exactly, as it does Python's floats.
    plain = frame.with_columns(pl.col(pl.Datetime).dt.epoch("us"))
    return plain.to_dicts()


def _frame(rows: list[dict[str, Any]], schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    instants = [name for name, dtype in schema.items() if isinstance(dtype, pl.Datetime)]
    as_read = {name: pl.Int64() if name in instants else dtype for name, dtype in schema.items()}
    frame = pl.DataFrame(rows, schema=as_read, orient="row")
    return frame.with_columns(pl.col(name).cast(schema[name]) for name in instants)


def collected_entry(key: str, collected: TopicsCollected, kind: str) -> dict[str, Any]:
    """The journal entry of a rotation's collection: read back by ``collected_from``, it gives exactly
    ``collected`` (checked here, before anything relies on it)."""
    entry = {
        "event": COLLECTED,
        "rotation": key,
        "kind": kind,
        "sources": _json_rows(collected.sources),
        "candidates": _json_rows(collected.candidates),
    }
    again = collected_from(json.loads(json.dumps(entry)), key)[0]
    if not (again.sources.equals(collected.sources) and again.candidates.equals(collected.candidates)):
        raise CollectedError(f"rotation {key}: its collection does not read back from JSON as it was")
    return entry


def collected_from(entry: Mapping[str, Any], key: str) -> tuple[TopicsCollected, str]:
    """What a rotation's collection entry recorded, and the rotation's kind."""
    if entry.get("event") != COLLECTED or entry.get("rotation") != key:
        raise CollectedError(
            f"rotation {key}: collection journal entry names event {entry.get('event')!r}, rotation "
            f"{entry.get('rotation')!r}"
        )
    try:
        sources = _frame(entry["sources"], SOURCES_SCHEMA)
        candidates = _frame(entry["candidates"], CANDIDATE_SCHEMA)
    except (KeyError, TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        raise CollectedError(f"rotation {key}: its collection journal entry cannot be read ({exc})") from exc
    return TopicsCollected(sources, candidates), str(entry["kind"])
