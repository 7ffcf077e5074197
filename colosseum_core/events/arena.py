"""The multi-event arena as the platform sees it: one record, partitioned by event.

An event (``event=chess-2026-12-02``) is frozen first: its manifest (``event_manifests``, written
once) names everything it depends on. The chess event's games are then written once
(``chess_games``, one row per game with its PGN; ``chess_moves``, one row per attempt at a move), and
its standings seal it (``chess_standings`` and ``chess_fit``): re-running a sealed event reproduces
its tables byte for byte or is refused. A Solve-or-Object event's replies are written once
(``soo_replies``, one row per contender and item: the reply, its reading and its score) and its
standings seal it (``soo_standings``). A challenge event's phases are written once each (authoring,
admission, commitments, solving, review, reveal), and its scores and standings seal it. The views are in the
``events`` schema.

Nothing here imports python-chess (GPL-3.0-or-later, an optional extra): only ``events.chess`` does.
"""

from __future__ import annotations

from typing import Final

from colosseum_core.record.layout import ArenaRecord
from colosseum_core.record.seals import SealingPolicy

MANIFEST_TABLES: Final = ("event_manifests",)
# Written once after the seal: the signed results bundle over the sealed tables (``events.bundle``).
BUNDLE_TABLES: Final = ("event_bundles",)
CHESS_GAME_TABLES: Final = ("chess_games", "chess_moves")
CHESS_STANDING_TABLES: Final = ("chess_standings", "chess_fit")
SOO_REPLY_TABLES: Final = ("soo_replies",)
SOO_STANDING_TABLES: Final = ("soo_standings",)
CHALLENGE_AUTHORED_TABLES: Final = ("challenge_authored",)
CHALLENGE_ADMISSION_TABLES: Final = ("challenge_submissions", "challenge_checker_runs")
CHALLENGE_COMMITMENT_TABLES: Final = ("challenge_commitments",)
CHALLENGE_SOLVING_TABLES: Final = ("challenge_replies", "challenge_solving_runs")
CHALLENGE_REVIEW_TABLES: Final = ("challenge_reviews",)
# The reveal: every task and salt, and the event's sealing key (CHALLENGE-COMMIT-2), published.
CHALLENGE_REVEAL_TABLES: Final = ("challenge_reveals", "challenge_key")
# Written once each, phase by phase; the scoring tables are written by the seal.
CHALLENGE_WRITTEN_TABLES: Final = (
    *CHALLENGE_AUTHORED_TABLES,
    *CHALLENGE_ADMISSION_TABLES,
    *CHALLENGE_COMMITMENT_TABLES,
    *CHALLENGE_SOLVING_TABLES,
    *CHALLENGE_REVIEW_TABLES,
    *CHALLENGE_REVEAL_TABLES,
)
CHALLENGE_CLOSING_TABLES: Final = ("challenge_scores", "challenge_standings")

EVENTS = ArenaRecord(
    name="events",
    partition="event",
    sealing=SealingPolicy(
        sealed_tables=(
            *MANIFEST_TABLES,
            *CHESS_GAME_TABLES,
            *CHESS_STANDING_TABLES,
            *SOO_REPLY_TABLES,
            *SOO_STANDING_TABLES,
            *CHALLENGE_WRITTEN_TABLES,
            *CHALLENGE_CLOSING_TABLES,
        ),
        sealing_tables=("chess_standings", "soo_standings", "challenge_standings"),
        selection_tables=(*CHESS_STANDING_TABLES, *SOO_STANDING_TABLES, *CHALLENGE_CLOSING_TABLES),
        write_once_tables=(
            *MANIFEST_TABLES,
            *CHESS_GAME_TABLES,
            *SOO_REPLY_TABLES,
            *CHALLENGE_WRITTEN_TABLES,
            *BUNDLE_TABLES,
        ),
        content_id_field="manifest_sha256",
        content_noun="event manifest",
    ),
)
