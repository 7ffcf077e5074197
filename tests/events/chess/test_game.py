"""CHESS-GAME-1 and CHESS-SCHEDULE-1 with scripted players: attempts, forfeits, claimed draws, the cap."""

from __future__ import annotations

import asyncio
import collections
import itertools
from collections.abc import Callable

import pytest

from colosseum_core.events.chess.game import Answer, MoveRequest, game_pgn, play_game
from colosseum_core.events.chess.prompt import move_prompt, retry_line
from colosseum_core.events.chess.rules import PLY_CAP
from colosseum_core.events.chess.schedule import ScheduledGame, round_robin
from tests.support.chess import chess

GAME = ScheduledGame(1, "L01-01v02-a", "L01-01v02", "L01", "w", "b")


class Scripted:
    """A player answering from a function of the request; every request kept."""

    kind = "model"

    def __init__(self, contender: str, reply: Callable[[MoveRequest], Answer | str]) -> None:
        self.contender = contender
        self.reply = reply
        self.requests: list[MoveRequest] = []

    async def answer(self, request: MoveRequest) -> Answer:
        self.requests.append(request)
        got = self.reply(request)
        return got if isinstance(got, Answer) else Answer("answered", got)


def first_legal(request: MoveRequest) -> str:
    move = sorted(request.board.legal_moves, key=lambda m: m.uci())[0]
    return f"MOVE: {request.board.san(move)}"


def play(white: Scripted, black: Scripted, line: tuple[str, ...] = ("e4", "e5")):
    return asyncio.run(play_game(GAME, line, white, black))


def test_the_third_rejected_attempt_forfeits_and_the_retry_names_the_move() -> None:
    black = Scripted("b", first_legal)
    white = Scripted("w", lambda r: "MOVE: Ke3")  # illegal every time
    game = play(white, black)
    assert (game.result, game.ended_by, game.forfeited_by, game.termination) == (
        "0-1",
        "forfeit",
        "w",
        "rules infraction",
    )
    assert [a.attempt for a in game.attempts] == [1, 2, 3]
    assert all(a.reading.failure == "illegal" for a in game.attempts)
    third = white.requests[2].messages
    assert [m.role for m in third] == ["user", "assistant", "user", "assistant", "user"]
    assert third[2].content == retry_line("Ke3") and "Ke3" in third[2].content
    assert third[0].content == move_prompt(chess.Board().copy()) or "FEN" in third[0].content


def test_a_move_accepted_on_the_second_attempt_goes_on() -> None:
    def sloppy_once(request: MoveRequest) -> str:
        return "MOVE: g1f3" if request.attempt == 1 else first_legal(request)

    game = play(Scripted("w", sloppy_once), Scripted("b", first_legal))
    firsts = [a for a in game.attempts if a.side == "white" and a.ply == 3]
    assert [a.reading.failure for a in firsts] == ["non_canonical", None]
    assert game.forfeited_by is None


def test_silence_and_provider_errors_count_as_attempts() -> None:
    replies = itertools.cycle(
        [Answer("no_response", None, error="timed out"), Answer("refused", None, error="HTTP 500")]
    )
    game = play(Scripted("w", lambda r: next(replies)), Scripted("b", first_legal))
    assert [a.reading.failure for a in game.attempts] == ["no_response", "provider_error", "no_response"]
    assert game.forfeited_by == "w"


def test_the_arena_claims_threefold_repetition_for_the_players() -> None:
    shuffle = {"w": ["Nf3", "Ng1"], "b": ["Nf6", "Ng8"]}
    count = collections.Counter()

    def knight(side: str) -> Callable[[MoveRequest], str]:
        def reply(request: MoveRequest) -> str:
            count[side] += 1
            return f"MOVE: {shuffle[side][(count[side] - 1) % 2]}"

        return reply

    game = play(Scripted("w", knight("w")), Scripted("b", knight("b")), line=("e4", "e5"))
    assert (game.result, game.ended_by) == ("1/2-1/2", "threefold_repetition")
    # After 4... Ng8 5. Ng1 the position after 1. e4 e5 has stood twice and Black's Ng8 would make it a
    # third time: a draw the side to move could claim, so the arena claims it there.
    assert game.plies == 9


def test_the_ply_cap_draws_a_game_still_going(monkeypatch: pytest.MonkeyPatch) -> None:
    from colosseum_core.events.chess import game as game_rules

    assert PLY_CAP == 200
    monkeypatch.setattr(game_rules, "PLY_CAP", 12)  # the rule's arithmetic, on a short game
    game = play(Scripted("w", first_legal), Scripted("b", first_legal))
    assert (game.result, game.ended_by, game.plies, game.termination) == (
        "1/2-1/2",
        "ply_cap",
        12,
        "adjudication",
    )
    assert len(game.moves) == 12 and len(game.attempts) == 10  # the line's two plies are not attempts


def test_the_prompt_is_the_same_bytes_for_every_player_in_a_position() -> None:
    white_a, white_b = Scripted("w", first_legal), Scripted("x", first_legal)
    play(white_a, Scripted("b", first_legal))
    play(white_b, Scripted("b", first_legal))
    assert white_a.requests[0].messages[0].content == white_b.requests[0].messages[0].content
    prompt = white_a.requests[0].messages[0].content
    assert "1. e4 e5" in prompt and "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2" in prompt
    assert "legal moves" not in prompt.lower().replace("one legal move", "")


def test_pgn_has_the_standard_headers() -> None:
    game = play(Scripted("w", lambda r: "MOVE: Ke3"), Scripted("b", first_legal))
    pgn = game_pgn(game, {"Event": "e (CALIBRATION)", "Site": "s", "Date": "2026.12.02", "ECO": "C20"})
    for tag in (
        '[Event "e (CALIBRATION)"]',
        '[Round "1"]',
        '[White "w"]',
        '[Black "b"]',
        '[Result "0-1"]',
        '[Termination "rules infraction"]',
        '[ECO "C20"]',
        '[LineId "L01"]',
        '[GameId "L01-01v02-a"]',
    ):
        assert tag in pgn
    assert pgn.rstrip().endswith("1. e4 e5 0-1")


def test_the_round_robin_is_colour_balanced_and_pairs_each_line_twice() -> None:
    contenders, lines = ["a", "b", "c", "d", "e"], ["L01", "L02", "L03"]
    games = round_robin(contenders, lines)
    assert len(games) == 10 * 3 * 2
    whites = collections.Counter(g.white for g in games)
    blacks = collections.Counter(g.black for g in games)
    assert whites == blacks == {c: 4 * 3 for c in contenders}
    clusters = collections.defaultdict(list)
    for g in games:
        clusters[g.cluster].append(g)
    assert all(
        len(pair) == 2 and pair[0].white == pair[1].black and pair[0].line_id == pair[1].line_id
        for pair in clusters.values()
    )
    assert [g.round for g in games] == sorted(g.round for g in games)
    with pytest.raises(ValueError, match="distinct"):
        round_robin(["a", "a"], lines)
