"""CHESS-PROMPT-1: what a player is shown for a move, byte-identical for every player in a position.

The prompt gives the position as FEN (python-chess's, with the en-passant square only when a capture
is legal, pinned here so that the bytes never depend on a default), the game so far as PGN movetext
from the initial position, and the side to move, and asks for one answer line. It lists no legal
moves. After a rejected attempt the player's reply stays in the conversation and the fixed retry
line names what was rejected; the player is then asked again.
"""

from __future__ import annotations

from typing import Final

import chess

from colosseum_core.events.chess.reading import ANSWER_PREFIX

PROMPT_TEMPLATE: Final = (
    "You are playing a game of chess as {side}.\n"
    "\n"
    "The position, as FEN:\n"
    "{fen}\n"
    "\n"
    "The game so far, as PGN movetext from the initial position:\n"
    "{movetext}\n"
    "\n"
    "{side} to move. Think as you like, then give your move in Standard Algebraic Notation (SAN) "
    "on the last line of your reply, exactly in this form:\n"
    f"{ANSWER_PREFIX} <SAN>"
)
RETRY_NAMED: Final = (
    "Your move {token} was rejected. Give one legal move in canonical SAN on the last line, "
    f"exactly in this form:\n{ANSWER_PREFIX} <SAN>"
)
RETRY_UNNAMED: Final = (
    "Your reply named no single move. Give one legal move in canonical SAN on the last line, "
    f"exactly in this form:\n{ANSWER_PREFIX} <SAN>"
)
NO_MOVES_YET: Final = "(no moves yet)"


def side_name(turn: chess.Color) -> str:
    return "White" if turn == chess.WHITE else "Black"


def position_fen(board: chess.Board) -> str:
    return board.fen(en_passant="legal")


def movetext(board: chess.Board) -> str:
    """The moves played so far as PGN movetext (move numbers, SAN), replayed from the initial position."""
    if not board.move_stack:
        return NO_MOVES_YET
    return chess.Board().variation_san(board.move_stack)


def move_prompt(board: chess.Board) -> str:
    """The prompt for the side to move in ``board`` (a game played from the initial position)."""
    return PROMPT_TEMPLATE.format(
        side=side_name(board.turn), fen=position_fen(board), movetext=movetext(board)
    )


def retry_line(token: str | None) -> str:
    """The fixed line after a rejected attempt, naming the rejected token when there was one."""
    return RETRY_UNNAMED if token is None else RETRY_NAMED.format(token=token)
