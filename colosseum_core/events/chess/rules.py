"""The chess event's rules, each a version the manifest freezes and every result cites.

- ``CHESS_PROMPT`` (``prompt``): what a player is shown, and the fixed retry line.
- ``CHESS_READING`` (``reading``): how a reply becomes a move: its answer line, then strict SAN.
- ``CHESS_GAME`` (``game``): three attempts per move, the arena claims draws, the ply cap.
- ``CHESS_SCHEDULE`` (``schedule``): the colour-balanced round robin over the suite's lines.
- ``CHESS_RATINGS`` (``standings``): Bradley–Terry–Davidson, the game-pair bootstrap, placements.
- ``PLACEMENT`` (``placement``): COLOSSEUM-PLACEMENT-2, every kind's placements and medals
  (``statistics.placement``; a manifest that names none, ``events.manifest.placement_rule``).
"""

from __future__ import annotations

from typing import Final

from colosseum_core.statistics.placement import PLACEMENT

CHESS_PROMPT: Final = "CHESS-PROMPT-1"
CHESS_READING: Final = "CHESS-READING-1"
CHESS_GAME: Final = "CHESS-GAME-1"
CHESS_SCHEDULE: Final = "CHESS-SCHEDULE-1"
CHESS_RATINGS: Final = "CHESS-RATINGS-1"

# CHESS-GAME-1: three rejected attempts at one move forfeit the game (the first try and two retries);
# a game still going after this many plies from the initial position (the opening line included) is
# drawn by the cap.
ATTEMPTS_PER_MOVE: Final = 3
PLY_CAP: Final = 200

RULES: Final = {
    "prompt": CHESS_PROMPT,
    "reading": CHESS_READING,
    "game": CHESS_GAME,
    "schedule": CHESS_SCHEDULE,
    "ratings": CHESS_RATINGS,
    "placement": PLACEMENT,
}
