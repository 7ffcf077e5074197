"""The chess event as the multi-event arena sees it (``events.kind``): its games are written once
(``chess_games``, one row per game with its PGN; ``chess_moves``, one row per attempt at a move) and
its standings seal it (``chess_standings`` and ``chess_fit``).

Nothing here imports python-chess (GPL-3.0-or-later, the [chess] extra): the replay, the pages and
the house players are imported when they are asked for, so the record knows the chess tables
without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from colosseum_core.events.kind import Drawn, EventKind, EventPages, HouseReply, ImportedWhenCalled, Step

if TYPE_CHECKING:
    import polars as pl

    from colosseum_core.events.manifest import FrozenManifest
    from colosseum_core.record.receipts import ReceiptStore
    from colosseum_core.verify.report import Outcome

GAME_TABLES: Final = ("chess_games", "chess_moves")
STANDING_TABLES: Final = ("chess_standings", "chess_fit")


def _audit(
    out: Outcome,
    frozen: FrozenManifest,
    present: Mapping[str, pl.DataFrame],
    receipts: ReceiptStore,
    *,
    sealed: bool,
) -> None:
    """The games replayed from the recorded replies and, once sealed, the standings re-fitted
    (``chess.audit``)."""
    event = frozen.event
    if not all(t in present for t in GAME_TABLES):
        return
    try:
        from colosseum_core.events.chess.audit import check_games, check_standings
    except ImportError:
        out.notes.append(
            f"event {event}: its games were not replayed: python-chess (the [chess] extra) is not installed"
        )
        return
    check_games(out, frozen, present["chess_games"], present["chess_moves"], receipts)
    if sealed:
        missing = [t for t in STANDING_TABLES if t not in present]
        if missing:
            out.problems.append(f"event {event}: sealed, but the record has no {', '.join(missing)}")
            return
        check_standings(out, frozen, present["chess_games"], present["chess_moves"], present)


def _pages(pages: EventPages) -> Drawn:
    from colosseum_core.events.chess.event_pages import draw

    return draw(pages)


def _recipes(manifest: Mapping[str, Any]) -> list[str]:
    """Its standings are made under its ratings' rule (the manifest's ``rules.ratings``)."""
    return [manifest["rules"]["ratings"]]


def _houses() -> Mapping[str, HouseReply]:
    """The chess players (``house-chess…``), when python-chess, the chess event's extra, is installed."""
    try:
        from colosseum_core.events.chess.house import HOUSES
    except ImportError:
        return {}
    return HOUSES


KIND: Final = EventKind(
    name="chess",
    steps=(Step("games", GAME_TABLES),),
    standings=STANDING_TABLES,
    sealing="chess_standings",
    journals={"chess_moves": ("game", "ply", "attempt")},
    counts=("chess_games", "chess_attempts"),
    audit=_audit,
    pages=_pages,
    houses=_houses,
    house_behaviours=("greedy", "sloppy-san", "illegal"),
    recipes=_recipes,
    derived=("chess_white_clusters.parquet",),
    downloads=ImportedWhenCalled("colosseum_core.events.chess.downloads", "downloads"),
    check_downloads=ImportedWhenCalled("colosseum_core.events.chess.downloads", "check_downloads"),
    wiring="colosseum_dagster.events.chess",
    commands="colosseum_dagster.cli.events.chess",
)
