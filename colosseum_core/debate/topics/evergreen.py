"""The evergreen motions: a versioned list in the repository that fills every rotation to its size.

The document (``compelle-evergreen/1``, JSON: ``format``, ``version``, ``motions`` as ``{id, motion}``)
is identified by the SHA-256 of its bytes, recorded with every rotation it filled. The packaged list
(``evergreen.json``) is also pinned: its bytes must hash to the one published for its version, so a
changed list is a new version rather than a silent edit.

Which motions fill a rotation turns with the rotation's index (``rotation.rotation_index``): the list
is read as a circle starting ``index × ROTATION_SIZE`` places on. A list of at least twice the
rotation's size means two consecutive rotations never share an evergreen motion (before the dedup
moves the fill on), and a length prime to the size (31 for 12) lets every start occur in turn.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from importlib import resources
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core import json_values
from colosseum_core.debate.topics.names import ROTATION_SIZE
from colosseum_core.stems import question_stem

EVERGREEN_FORMAT: Final = "compelle-evergreen/1"
PACKAGED: Final = "evergreen.json"
# The packaged list of each version, by the SHA-256 of its bytes.
PUBLISHED: Final = {
    "COMPELLE-EVERGREEN-1": "51e2fd1975db9c7e8da02bec52cd94fec2265d8003ad3e38c1545a0e2e424c70",
}
MIN_MOTIONS: Final = 2 * ROTATION_SIZE
MAX_MOTION_CHARS: Final = 300
_VERSION: Final = re.compile(r"COMPELLE-EVERGREEN-[1-9][0-9]*")
_ID: Final = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")


class EvergreenError(ValueError):
    """An evergreen list that cannot be used: names the document, the field and the value."""


@dataclasses.dataclass(frozen=True)
class EvergreenMotion:
    id: str
    text: str


@dataclasses.dataclass(frozen=True)
class Evergreen:
    version: str
    sha256: str
    motions: tuple[EvergreenMotion, ...]


def _motion(item: Any, index: int, where: str) -> EvergreenMotion:
    at = f"{where} motions[{index}]"
    if not isinstance(item, dict):
        raise EvergreenError(f"{at}: expected an object with id and motion, got {item!r:.60}")
    ident, text = item.get("id"), item.get("motion")
    if not isinstance(ident, str) or _ID.fullmatch(ident) is None:
        raise EvergreenError(f"{at} field id: expected a short lowercase id (a-z, 0-9, -), got {ident!r:.60}")
    if not isinstance(text, str) or not text.strip() or text != text.strip():
        raise EvergreenError(f"{at} field motion: expected text without surrounding spaces, got {text!r:.60}")
    if len(text) > MAX_MOTION_CHARS or "\n" in text or "\r" in text:
        raise EvergreenError(f"{at} field motion: one line of at most {MAX_MOTION_CHARS} characters")
    return EvergreenMotion(ident, text)


def parse_evergreen(raw: bytes, where: str = "the evergreen list") -> Evergreen:
    """The list ``raw`` holds, identified by its SHA-256; ``EvergreenError`` naming what is wrong."""
    try:
        doc = json_values.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise EvergreenError(f"{where}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != EVERGREEN_FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise EvergreenError(f"{where} field format: expected {EVERGREEN_FORMAT!r}, got {found!r:.60}")
    version = doc.get("version")
    if not isinstance(version, str) or _VERSION.fullmatch(version) is None:
        raise EvergreenError(f"{where} field version: expected COMPELLE-EVERGREEN-<n>, got {version!r:.60}")
    items = doc.get("motions")
    if not isinstance(items, list):
        raise EvergreenError(f"{where} field motions: expected a list, got {items!r:.60}")
    motions = tuple(_motion(item, i, where) for i, item in enumerate(items))
    if len(motions) < MIN_MOTIONS:
        raise EvergreenError(
            f"{where} field motions: {len(motions)} motions; a rotation of {ROTATION_SIZE} needs at least "
            f"{MIN_MOTIONS} so that consecutive rotations differ"
        )
    ids = [m.id for m in motions]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise EvergreenError(f"{where} field motions: the id {repeated[0]!r} is used more than once")
    stems = pl.Series("m", [m.text for m in motions]).to_frame().select(question_stem(pl.col("m")))["m"]
    if stems.null_count() or stems.n_unique() != len(motions):
        twin = stems.filter(stems.is_duplicated() | stems.is_null()).to_list()[:1]
        raise EvergreenError(f"{where} field motions: two motions share the stem {twin!r} (or one has none)")
    return Evergreen(version, hashlib.sha256(raw).hexdigest(), motions)


def load_evergreen(path: Path | None = None) -> Evergreen:
    """The packaged list (checked against the SHA-256 published for its version), or the list at ``path``
    (identified by its SHA-256 alone)."""
    if path is not None:
        return parse_evergreen(path.read_bytes(), str(path))
    raw = resources.files(__package__).joinpath(PACKAGED).read_bytes()
    found = parse_evergreen(raw, PACKAGED)
    pinned = PUBLISHED.get(found.version)
    if pinned != found.sha256:
        raise EvergreenError(
            f"{PACKAGED} ({found.version}): its SHA-256 is {found.sha256}, not the published {pinned}; "
            "a changed list is a new version"
        )
    return found


def evergreen_offset(index: int, count: int) -> int:
    """Where the circle of ``count`` motions starts for the rotation of ``index`` (0 ≤ offset < count)."""
    if count < 1:
        raise ValueError("an evergreen list needs at least one motion")
    return (index * ROTATION_SIZE) % count
