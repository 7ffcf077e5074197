"""The players of a chess event: models asked through the shared providers, and Stockfish.

A model player is asked through the shared chat call (``providers.chat``), once per attempt: a
refusal or a silence is that attempt's end, never a re-ask (the attempt rule of CHESS-GAME-1
counts it). Every request is journalled before it is sent and every reply once its receipt is
stored (``MoveJournal``), so a run that stops is resumed without asking again for any move that
was answered: a request with a stored reply is replayed from its receipt, and one the arena's stop
left without a reply is recorded interrupted and asked again (COLOSSEUM-EVENT-ASKING-2): the
arena's crash is never the contender's attempt.

Stockfish plays at full strength with a node limit and one thread, the only reproducible way it
plays: the same position gives the same move on every run. Each move is searched as a new game
(``ucinewgame``, which clears the hash), so that no move depends on which games the engine process
searched before it, and the same event is the same games however its games interleave.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Final

import chess
import chess.engine

from colosseum_core.events.asking import AskJournal, KeyedCall
from colosseum_core.events.chess.game import Answer, MoveRequest
from colosseum_core.providers.call import AskingPolicy, CallSettings, Endpoint, chat
from colosseum_core.record.journal import Journal
from colosseum_core.record.receipts import ReceiptStore

# One ask per attempt: an error, a rate limit or a gone model ends the attempt (and counts).
MOVE_POLICY: Final = AskingPolicy(max_asks=1, fall_back_on=frozenset())
ENGINE_OPTIONS: Final = {"Threads": 1, "Hash": 16}


class MoveJournal(AskJournal):
    """An event's journal of every move request, keyed by game, ply and attempt (the events' shared
    ``asking.AskJournal``, so a request the arena's own stop left unanswered is asked again,
    COLOSSEUM-EVENT-ASKING-2); each ask names the contender."""

    def __init__(self, journal: Journal) -> None:
        super().__init__(journal, ("game", "ply", "attempt"), points=("chess-ask", "chess-reply"))

    def move(self, game_id: str, ply: int, attempt: int, contender: str, model: str) -> KeyedCall:
        return self.call((game_id, ply, attempt), model, {"contender": contender})


@dataclasses.dataclass
class ModelPlayer:
    """A contender that is a model behind one of the providers' protocols."""

    contender: str
    endpoint: Endpoint
    settings: CallSettings
    receipts: ReceiptStore
    journal: MoveJournal
    clock: Callable[[], dt.datetime]
    # At most so many of this provider's requests at once (the event's pool per provider).
    limit: asyncio.Semaphore
    kind: str = "model"

    async def answer(self, request: MoveRequest) -> Answer:
        journal = self.journal.move(
            request.game_id, request.ply, request.attempt, self.contender, self.endpoint.model
        )
        async with self.limit:
            result = await chat(
                self.endpoint.protocol,
                base_url=self.endpoint.base_url,
                model=self.endpoint.model,
                api_key=self.endpoint.api_key,
                messages=request.messages,
                receipts=self.receipts,
                policy=MOVE_POLICY,
                settings=self.settings,
                clock=self.clock,
                journal=journal,
            )
        return Answer(
            status=result.status,
            text=result.text,
            receipt_ids=result.receipt_ids,
            model=result.model,
            protocol=result.protocol,
            settings=result.settings_record,
            error=journal.silence_reason()
            if journal.exhausted and result.status == "no_response"
            else result.error,
        )


class Engines:
    """A pool of Stockfish processes, each with ``ENGINE_OPTIONS``; a move borrows one."""

    def __init__(self, path: str, size: int) -> None:
        self.path = path
        self.size = size
        self._idle: asyncio.Queue[chess.engine.UciProtocol] = asyncio.Queue()
        self._all: list[tuple[asyncio.SubprocessTransport, chess.engine.UciProtocol]] = []
        self.name: str | None = None

    async def start(self) -> None:
        for _ in range(self.size):
            transport, engine = await chess.engine.popen_uci(self.path)
            await engine.configure(ENGINE_OPTIONS)
            self.name = engine.id.get("name")
            self._all.append((transport, engine))
            self._idle.put_nowait(engine)

    async def close(self) -> None:
        for _, engine in self._all:
            with contextlib.suppress(chess.engine.EngineError, asyncio.TimeoutError, OSError):
                await engine.quit()
        self._all.clear()

    async def best_move(self, board: chess.Board, nodes: int, game_key: str) -> chess.Move:
        engine = await self._idle.get()
        try:
            played = await engine.play(board, chess.engine.Limit(nodes=nodes), game=game_key)
        finally:
            self._idle.put_nowait(engine)
        if played.move is None:
            raise chess.engine.EngineError(f"the engine gave no move in {board.fen()}")
        return played.move


@contextlib.asynccontextmanager
async def running_engines(path: str | Path, size: int) -> AsyncIterator[Engines]:
    engines = Engines(str(path), size)
    try:
        await engines.start()
        yield engines
    finally:
        await engines.close()


def engine_name(path: str | Path) -> str:
    """The engine's own name (``Stockfish 15.1``), from its UCI ``id name``."""
    engine = chess.engine.SimpleEngine.popen_uci(str(path))
    try:
        return str(engine.id.get("name", "?"))
    finally:
        engine.quit()


@dataclasses.dataclass
class EnginePlayer:
    """Stockfish at a node limit, as a rated anchor: its answer is its move, as an answer line."""

    contender: str
    engines: Engines
    nodes: int
    kind: str = "engine"

    async def answer(self, request: MoveRequest) -> Answer:
        move = await self.engines.best_move(
            request.board, self.nodes, f"{request.game_id}:{request.ply}:{request.attempt}"
        )
        return Answer(status="answered", text=f"MOVE: {request.board.san(move)}", model=self.engines.name)
