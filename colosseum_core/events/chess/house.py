"""The chess event's house players, which the sparring server hosts (``house-chess…`` models).

Each reads the position from the prompt's FEN (CHESS-PROMPT-1) and answers one move in the answer
format. Every choice is a seeded draw from the model name, the position and the attempt, so the
same request always gets the same reply:

- ``house-chess`` (``-random``): a legal move, uniformly.
- ``-greedy``: takes the most valuable piece it can (with its least valuable attacker), else gives
  check, else a legal move at random.
- ``-sloppy-san``: its first attempt names its move in a lenient notation (UCI, long algebraic,
  ``0-0``, ``e8Q``, a false check mark) that strict reading rejects; a retry is in canonical SAN.
- ``-illegal``: each attempt, two times in five, names a move the position does not allow.
- ``-stall``: the sparring server's own behaviour, never answering (the silent player).
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Final

import chess

from colosseum_core.providers.house_models import Persona

_FEN_LINE = re.compile(r"^The position, as FEN:\n(.+)$", re.MULTILINE)
_VALUES: Final = {
    chess.PAWN: 1,
    chess.KNIGHT: 3,
    chess.BISHOP: 3,
    chess.ROOK: 5,
    chess.QUEEN: 9,
    chess.KING: 100,
}
_ILLEGAL_SHARE: Final = 0.4
NO_POSITION: Final = "I see no position to play from."


def _rng(persona: Persona, fen: str, attempt: int) -> random.Random:
    key = f"{sorted(persona.behaviours)}|{persona.seed}|{fen}|{attempt}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def _greedy(board: chess.Board, rng: random.Random) -> chess.Move:
    moves = sorted(board.legal_moves, key=lambda m: m.uci())
    captures = [m for m in moves if board.is_capture(m)]
    if captures:

        def gain(move: chess.Move) -> tuple[int, int]:
            victim = board.piece_at(move.to_square)
            attacker = board.piece_at(move.from_square)
            taken = _VALUES[victim.piece_type] if victim else 1  # en passant takes a pawn
            return taken, -(_VALUES[attacker.piece_type] if attacker else 0)

        best = max(gain(m) for m in captures)
        return rng.choice([m for m in captures if gain(m) == best])
    checks = [m for m in moves if board.gives_check(m)]
    return rng.choice(checks or moves)


def _sloppy(board: chess.Board, move: chess.Move, rng: random.Random) -> str:
    """The move in a notation ``parse_san`` accepts and strict reading does not."""
    san = board.san(move)
    forms = [move.uci(), chess.square_name(move.from_square) + san.lstrip("NBRQK")]
    piece = board.piece_at(move.from_square)
    if piece is not None and piece.piece_type != chess.PAWN:
        forms.append(san[0] + chess.square_name(move.from_square) + chess.square_name(move.to_square))
    if san.startswith("O-O"):
        forms = [san.replace("O", "0")]
    elif move.promotion:
        forms = [san.replace("=", "")]
    elif not san.endswith(("+", "#")):
        forms.append(san + "+")
    return rng.choice(forms)


def _illegal(board: chess.Board, rng: random.Random) -> str:
    """A well-formed move the position does not allow: a piece of the other side, or a blocked square."""
    legal = {board.san(m) for m in board.legal_moves}
    candidates = ["Ke4", "Qh5", "Nd5", "Bb5", "Ra3", "e5", "d4", "Kf2", "Qd8", "Nc6"]
    rng.shuffle(candidates)
    for san in candidates:
        if san not in legal and san.rstrip("+#") not in {s.rstrip("+#") for s in legal}:
            return san
    return "Ka9"


def chess_reply(persona: Persona, conversation: list[tuple[str, str]]) -> str:
    """The house player's reply to a move prompt and the retries after it."""
    users = [text for role, text in conversation if role == "user"]
    found = _FEN_LINE.search(users[0]) if users else None
    if found is None:
        return NO_POSITION
    try:
        board = chess.Board(found.group(1).strip())
    except ValueError:
        return NO_POSITION
    if board.is_game_over():
        return "The game is over; I have no move."
    attempt = len(users)
    rng = _rng(persona, board.fen(), attempt)
    if "greedy" in persona.behaviours:
        move = _greedy(board, rng)
    else:
        move = rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
    if "illegal" in persona.behaviours and rng.random() < _ILLEGAL_SHARE:
        token = _illegal(board, rng)
    elif "sloppy-san" in persona.behaviours and attempt == 1:
        token = _sloppy(board, move, rng)
    else:
        token = board.san(move)
    return f"I will play {token}.\nMOVE: {token}"


HOUSES: Final = {"house-chess": chess_reply}
