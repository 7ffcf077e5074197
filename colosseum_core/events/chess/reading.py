"""CHESS-READING-1: how a player's reply becomes a move, or a rejection with its class.

1. The answer line. The reply's last non-blank line, stripped of surrounding spaces, must be
   ``MOVE: <token>`` with one token (no spaces in it). Earlier lines are the player's own thinking
   and are never read, so a draft ``MOVE:`` line followed by a change of mind reads the final one.
   No such last line (an empty reply, a fenced code block, prose) is ``no_answer``; a last line
   with two tokens (``MOVE: e4 d4``, ``MOVE: e4 or d4``) is ``two_moves``; a reply longer than
   ``MAX_REPLY_CHARS`` is ``too_long`` and is not read at all.
2. Strict SAN. python-chess's ``parse_san`` is lenient, so it is only the first of three steps:
   (a) it must parse, else ``invalid`` (not a move: another language's letters, figurines),
   ``illegal`` (a move the position does not allow) or ``ambiguous`` (two pieces could make it);
   (b) it must not be a null move (``--``, ``0000``, ``Z0``, ``@@@@`` parse as one), else ``null``;
   (c) the token must be the move's canonical SAN, or that SAN without its check or mate mark:
   UCI (``e2e4``), long algebraic (``Ng1f3``), ``0-0`` with zeros, ``e8Q`` for ``e8=Q``, a false
   capture mark (``Kxd2``) and a false or wrong check or mate mark (``Nf3+`` when it is not check,
   ``Qxf7+`` when it is mate) are ``non_canonical``. A missing check mark is accepted: it is the
   only part of SAN a player may leave out without naming another move.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Final

import chess

MAX_REPLY_CHARS: Final = 32_768
ANSWER_PREFIX: Final = "MOVE:"

NO_ANSWER: Final = "no_answer"
TWO_MOVES: Final = "two_moves"
TOO_LONG: Final = "too_long"
INVALID: Final = "invalid"
ILLEGAL: Final = "illegal"
AMBIGUOUS: Final = "ambiguous"
NULL: Final = "null"
NON_CANONICAL: Final = "non_canonical"
# Classes of an attempt that got no reply to read (the call's, not the reading's).
NO_RESPONSE: Final = "no_response"
PROVIDER_ERROR: Final = "provider_error"
FAILURE_CLASSES: Final = (
    NO_ANSWER,
    TWO_MOVES,
    TOO_LONG,
    INVALID,
    ILLEGAL,
    AMBIGUOUS,
    NULL,
    NON_CANONICAL,
    NO_RESPONSE,
    PROVIDER_ERROR,
)
_ANSWER_LINE = re.compile(r"^MOVE:(.*)$")


@dataclasses.dataclass(frozen=True)
class Reading:
    """What one reply was read as: the token its answer line named, and the move or the failure."""

    token: str | None
    san: str | None  # the canonical SAN of the accepted move
    uci: str | None
    failure: str | None
    detail: str | None = None  # why, in words, for a rejection

    @property
    def accepted(self) -> bool:
        return self.failure is None


def answer_token(text: str | None) -> tuple[str | None, str | None, str | None]:
    """The answer line's token, or (None, failure class, why) for a reply with no one-token answer."""
    if text is None or not text.strip():
        return None, NO_ANSWER, "the reply is empty"
    if len(text) > MAX_REPLY_CHARS:
        return None, TOO_LONG, f"the reply has {len(text):,} characters, more than {MAX_REPLY_CHARS:,}"
    last = next(line for line in reversed(text.splitlines()) if line.strip()).strip()
    found = _ANSWER_LINE.match(last)
    if found is None:
        shown = last if len(last) <= 60 else last[:59] + "…"
        return None, NO_ANSWER, f"the last line is {shown!r}, not 'MOVE: <SAN>'"
    tokens = found.group(1).split()
    if not tokens:
        return None, NO_ANSWER, "the answer line names no move"
    if len(tokens) > 1:
        return " ".join(tokens), TWO_MOVES, f"the answer line names {len(tokens)} tokens, not one move"
    return tokens[0], None, None


def read_move(token: str, board: chess.Board) -> Reading:
    """``token`` read strictly as a move in ``board`` (steps 2a–2c of the module docstring)."""
    try:
        move = board.parse_san(token)
    except chess.IllegalMoveError as exc:
        return Reading(token, None, None, ILLEGAL, str(exc))
    except chess.AmbiguousMoveError as exc:
        return Reading(token, None, None, AMBIGUOUS, str(exc))
    except ValueError as exc:  # InvalidMoveError, and anything else the parser refuses
        return Reading(token, None, None, INVALID, str(exc))
    if not move:
        return Reading(token, None, None, NULL, f"{token!r} is a null move (it passes the turn)")
    san = board.san(move)
    if token not in (san, san.rstrip("+#")):
        return Reading(token, None, None, NON_CANONICAL, f"{token!r} is not canonical SAN; the move is {san}")
    return Reading(token, san, move.uci(), None)


def read_reply(text: str | None, board: chess.Board) -> Reading:
    """A reply read by CHESS-READING-1 in ``board``: its move, or its rejection."""
    token, failure, detail = answer_token(text)
    if failure is not None or token is None:
        return Reading(token, None, None, failure or NO_ANSWER, detail)
    return read_move(token, board)
