"""CHESS-GAME-1: one game, from the initial position through the suite's line, to its end.

The line's moves are pushed from the initial position (so repetitions are judged over the whole
game), then the players move in turn. For each move the side to move is asked (``prompt``), its
reply read strictly (``reading``); a rejected attempt is followed by the fixed retry line, and the
third rejected attempt at one move forfeits the game (a loss). A provider error or silence is an
attempt too. After every ply the arena claims a draw for the players where one can be claimed
(``outcome(claim_draw=True)``: fifty moves, threefold repetition; players cannot claim, so the arena
does it for them); a game still going at the ply cap is drawn by the cap.

Everything here is decided by the rules engine: each game is evidence "Verified to specification".
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

import chess
import chess.pgn

from colosseum_core.events.chess.prompt import move_prompt, position_fen, retry_line
from colosseum_core.events.chess.reading import NO_RESPONSE, PROVIDER_ERROR, Reading, read_reply
from colosseum_core.events.chess.rules import ATTEMPTS_PER_MOVE, CHESS_GAME, PLY_CAP
from colosseum_core.events.chess.schedule import ScheduledGame
from colosseum_core.providers.adapters import Message

WHITE_WON: Final = "1-0"
BLACK_WON: Final = "0-1"
DRAWN: Final = "1/2-1/2"
FORFEIT: Final = "forfeit"
CAPPED: Final = "ply_cap"
EVIDENCE: Final = "verified_to_specification"
# PGN's Termination tag (the PGN standard's own values).
_PGN_TERMINATION: Final = {FORFEIT: "rules infraction", CAPPED: "adjudication"}


@dataclasses.dataclass(frozen=True)
class MoveRequest:
    """One attempt at one move: the game, the ply about to be played (1 is White's first move of the
    game), the attempt (1–3), the conversation so far and the position (a copy)."""

    game_id: str
    ply: int
    attempt: int
    messages: tuple[Message, ...]
    board: chess.Board


@dataclasses.dataclass(frozen=True)
class Answer:
    """What a player gave for one attempt. ``status``: "answered", "refused" or "no_response"."""

    status: str
    text: str | None
    receipt_ids: tuple[str, ...] = ()
    model: str | None = None
    protocol: str | None = None
    settings: Mapping[str, Any] | None = None
    error: str | None = None


class Player(Protocol):
    contender: str
    kind: str  # "model" or "engine"

    async def answer(self, request: MoveRequest) -> Answer: ...


@dataclasses.dataclass(frozen=True)
class Attempt:
    """The record of one attempt: what was asked and answered, and how it was read."""

    ply: int
    attempt: int
    side: str  # "white" or "black"
    contender: str
    kind: str
    fen: str  # the position the attempt was made in
    prompt_sha256: str  # of the move's prompt (the first message), the same bytes for every player
    answer: Answer
    reading: Reading
    fen_after: str | None  # after the accepted move; None for a rejection


@dataclasses.dataclass(frozen=True)
class PlayedGame:
    scheduled: ScheduledGame
    line_san: tuple[str, ...]
    result: str  # "1-0", "0-1", "1/2-1/2"
    ended_by: str  # "checkmate", "threefold_repetition", …, "ply_cap" or "forfeit"
    plies: int  # in the game, the line's included
    forfeited_by: str | None
    attempts: tuple[Attempt, ...]
    moves: tuple[str, ...]  # every ply's SAN from the initial position, the line's included

    @property
    def white_score(self) -> float:
        return {WHITE_WON: 1.0, BLACK_WON: 0.0, DRAWN: 0.5}[self.result]

    @property
    def termination(self) -> str:
        return _PGN_TERMINATION.get(self.ended_by, "normal")


def prompt_sha256(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def _attempt_reading(answer: Answer, board: chess.Board) -> Reading:
    if answer.status == "answered":
        return read_reply(answer.text, board)
    failure = NO_RESPONSE if answer.status == "no_response" else PROVIDER_ERROR
    return Reading(None, None, None, failure, answer.error)


def line_board(line_san: Sequence[str]) -> chess.Board:
    """The initial position with the line's moves pushed (ValueError naming a move that does not fit)."""
    board = chess.Board()
    for number, san in enumerate(line_san, start=1):
        try:
            board.push_san(san)
        except ValueError as exc:
            raise ValueError(f"the line's ply {number} {san!r} is not legal: {exc}") from None
    return board


def _ended(board: chess.Board) -> tuple[str, str] | None:
    """(result, ended_by) if the game is over by the rules (the arena claiming draws) or the cap."""
    outcome = board.outcome(claim_draw=True)
    if outcome is not None:
        return outcome.result(), outcome.termination.name.lower()
    if board.ply() >= PLY_CAP:
        return DRAWN, CAPPED
    return None


async def play_game(
    scheduled: ScheduledGame, line_san: Sequence[str], white: Player, black: Player
) -> PlayedGame:
    """Play ``scheduled`` from ``line_san`` between ``white`` and ``black`` by CHESS-GAME-1."""
    board = line_board(line_san)
    attempts: list[Attempt] = []
    forfeited_by: str | None = None
    while (ended := _ended(board)) is None:
        player = white if board.turn == chess.WHITE else black
        side = "white" if board.turn == chess.WHITE else "black"
        prompt = move_prompt(board)
        digest = prompt_sha256(prompt)
        fen = position_fen(board)
        ply = board.ply() + 1
        messages: list[Message] = [Message("user", prompt)]
        accepted: Reading | None = None
        for number in range(1, ATTEMPTS_PER_MOVE + 1):
            request = MoveRequest(scheduled.game_id, ply, number, tuple(messages), board.copy())
            answer = await player.answer(request)
            reading = _attempt_reading(answer, board)
            fen_after = None
            if reading.accepted and reading.uci is not None:
                board.push(chess.Move.from_uci(reading.uci))
                fen_after = position_fen(board)
                accepted = reading
            attempts.append(
                Attempt(
                    ply, number, side, player.contender, player.kind, fen, digest, answer, reading, fen_after
                )
            )
            if accepted:
                break
            if answer.text is not None:
                messages += [
                    Message("assistant", answer.text),
                    Message("user", retry_line(reading.token)),
                ]
        if accepted is None:
            forfeited_by = player.contender
            ended = (BLACK_WON if board.turn == chess.WHITE else WHITE_WON), FORFEIT
            break
    result, ended_by = ended
    sans: list[str] = []
    replay = chess.Board()
    for move in board.move_stack:
        sans.append(replay.san(move))
        replay.push(move)
    return PlayedGame(
        scheduled=scheduled,
        line_san=tuple(line_san),
        result=result,
        ended_by=ended_by,
        plies=board.ply(),
        forfeited_by=forfeited_by,
        attempts=tuple(attempts),
        moves=tuple(sans),
    )


def game_pgn(game: PlayedGame, headers: Mapping[str, str]) -> str:
    """The game as PGN: the seven-tag roster and the rest of ``headers``, then the moves."""
    board = chess.Board()
    for san in game.moves:
        board.push_san(san)
    pgn = chess.pgn.Game.from_board(board)
    pgn.headers.clear()
    tags = {
        "Event": headers.get("Event", "?"),
        "Site": headers.get("Site", "?"),
        "Date": headers.get("Date", "????.??.??"),
        "Round": str(game.scheduled.round),
        "White": game.scheduled.white,
        "Black": game.scheduled.black,
        "Result": game.result,
        **{k: v for k, v in headers.items() if k not in ("Event", "Site", "Date")},
        "Termination": game.termination,
        "GameId": game.scheduled.game_id,
        "LineId": game.scheduled.line_id,
        "Rules": CHESS_GAME,
    }
    for name, value in tags.items():
        pgn.headers[name] = value
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=False)
    return pgn.accept(exporter) + "\n"
