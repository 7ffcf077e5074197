"""The chess event's players: the house players on the sparring server, and Stockfish at a node limit."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import pytest

from colosseum_core.arenas import sparring_houses
from colosseum_core.events.chess.game import MoveRequest, play_game
from colosseum_core.events.chess.house import chess_reply
from colosseum_core.events.chess.players import EnginePlayer, ModelPlayer, MoveJournal, running_engines
from colosseum_core.events.chess.prompt import move_prompt
from colosseum_core.events.chess.reading import read_reply
from colosseum_core.events.chess.schedule import ScheduledGame
from colosseum_core.providers.call import CallSettings, Endpoint
from colosseum_core.providers.house_models import Persona
from colosseum_core.providers.house_models import parse_model as parse_among
from colosseum_core.record.journal import Journal
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.sparring import running_sparring
from tests.support.chess import chess, need_stockfish

NOW = dt.datetime(2026, 12, 2, 5, tzinfo=dt.UTC)


def parse_model(model: str) -> Persona | None:
    return parse_among(model, sparring_houses().values())


def reply(model: str, board: chess.Board, retries: int = 0) -> str:
    turns = [("user", move_prompt(board))]
    for _ in range(retries):
        turns += [("assistant", "MOVE: ?"), ("user", "Your move ? was rejected.")]
    persona = parse_model(model)
    assert persona is not None
    return chess_reply(persona, turns)


def test_house_players_answer_legal_moves_in_their_own_ways() -> None:
    positions = []
    board = chess.Board()
    for san in ["e4", "d5", "Nf3", "Nc6", "Bb5", "dxe4", "O-O", "Bd7"]:
        positions.append(board.copy())
        board.push_san(san)
    for position in positions:
        assert read_reply(reply("house-chess", position), position).accepted
        assert read_reply(reply("house-chess-greedy", position), position).accepted
        sloppy = read_reply(reply("house-chess-sloppy-san", position), position)
        assert sloppy.failure in {"non_canonical", "invalid"}, sloppy  # its first answer: lenient notation
        assert read_reply(reply("house-chess-sloppy-san", position, retries=1), position).accepted
    illegal = [read_reply(reply("house-chess-illegal", p), p).failure for p in positions]
    assert "illegal" in illegal and None in illegal
    # The same request is the same reply.
    assert reply("house-chess", positions[3]) == reply("house-chess", positions[3])


def test_greedy_takes_the_queen() -> None:
    board = chess.Board("4k3/8/8/3q4/8/2N5/8/4K3 w - - 0 1")
    assert read_reply(reply("house-chess-greedy", board), board).san == "Nxd5"


def test_the_sparring_server_serves_chess_players_only_when_handed_them(tmp_path: Path) -> None:
    async def one(url: str, model: str) -> object:
        journal = MoveJournal(Journal(tmp_path / f"{url.rsplit(':', 1)[1]}.jsonl"))
        player = ModelPlayer(
            "p",
            Endpoint("gemini", url, model, "house"),
            CallSettings(timeout_s=5),
            ReceiptStore(tmp_path / "r"),
            journal,
            lambda: NOW,
            asyncio.Semaphore(1),
        )
        board = chess.Board()
        from colosseum_core.providers.adapters import Message

        return await player.answer(MoveRequest("g", 1, 1, (Message("user", move_prompt(board)),), board))

    with running_sparring(houses=sparring_houses()) as url:
        answer = asyncio.run(one(url, "house-chess"))
        assert answer.status == "answered" and read_reply(answer.text, chess.Board()).accepted
    without_chess = {n: f for n, f in sparring_houses().items() if n != "house-chess"}
    with running_sparring(houses=without_chess) as url:
        assert asyncio.run(one(url, "house-chess")).status == "refused"  # 404: no such model here


def test_a_resumed_game_asks_no_move_again(tmp_path: Path) -> None:
    """The journal holds every request: a second play of the same game replays every answer from its
    receipt, and the sparring server sees no new request."""
    game = ScheduledGame(1, "L01-01v02-a", "L01-01v02", "L01", "a", "b")

    async def run(url: str) -> object:
        journal = MoveJournal(Journal(tmp_path / "moves.jsonl"))
        store, gate = ReceiptStore(tmp_path / "r"), asyncio.Semaphore(2)
        a = ModelPlayer(
            "a",
            Endpoint("openai", url, "house-chess-greedy", "house"),
            CallSettings(),
            store,
            journal,
            lambda: NOW,
            gate,
        )
        b = ModelPlayer(
            "b",
            Endpoint("openai", url, "house-chess-sloppy-san", "house"),
            CallSettings(),
            store,
            journal,
            lambda: NOW,
            gate,
        )
        return await play_game(game, ("e4", "e5"), a, b)

    with running_sparring(houses=sparring_houses()) as url:
        import httpx

        first = asyncio.run(run(url))
        served = httpx.get(f"{url}/status").json()["requests"]
        again = asyncio.run(run(url))
        assert httpx.get(f"{url}/status").json()["requests"] == served
    assert again.moves == first.moves and again.result == first.result


def test_stockfish_at_a_node_limit_plays_the_same_game_every_run() -> None:
    path = need_stockfish()
    game = ScheduledGame(1, "L02-01v02-a", "L02-01v02", "L02", "sf100", "sf1000")

    async def run(engines: int) -> tuple[str, ...]:
        async with running_engines(path, engines) as pool:
            white, black = EnginePlayer("sf100", pool, 100), EnginePlayer("sf1000", pool, 1000)
            return (await play_game(game, ("d4", "d5"), white, black)).moves

    first, second = asyncio.run(run(1)), asyncio.run(run(2))
    assert first == second and len(first) > 10


@pytest.mark.parametrize("model", ["house-chess", "house-chess-greedy-s3", "house-chess-stall"])
def test_house_names_parse(model: str) -> None:
    assert parse_model(model) is not None
