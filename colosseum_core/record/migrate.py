"""Moving a record written before the arenas had folders into its arena's folders.

Renames only: every file keeps its bytes, so every ledger sidecar, seal and identifier still holds,
and ``verify`` passes on the moved record exactly as it did before. Each rename is atomic; an
interrupted migration leaves some folders moved and some not, and running it again moves the rest.
A path that exists in both layouts is refused, never merged.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from colosseum_core.record.layout import ArenaRecord, Record


class MigrationError(ValueError):
    """The record cannot be moved as it is: the message names the path."""


@dataclasses.dataclass(frozen=True)
class Move:
    source: str
    target: str


def migrate_to_arena_folders(root: Path, arena: ArenaRecord) -> list[Move]:
    """Move every legacy folder and seal file of the record at ``root`` under ``arena``'s folders.

    Before the arenas had folders there was one arena, so everything legacy belongs to ``arena``.
    """
    record = Record(root)
    moves = []
    for legacy in record.legacy_layout():
        top, rest = legacy.split("/", 1)
        target = Path(top, arena.name, rest)
        if (record.root / target).exists():
            raise MigrationError(
                f"{record.root / legacy} and {record.root / target} both exist: the record holds the "
                "same thing in both layouts; compare them and remove one by hand"
            )
        moves.append(Move(legacy, target.as_posix()))
    for move in moves:
        (record.root / move.target).parent.mkdir(parents=True, exist_ok=True)
        (record.root / move.source).rename(record.root / move.target)
    return moves
