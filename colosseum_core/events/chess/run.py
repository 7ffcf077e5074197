"""The chess event's three steps, each one function the Dagster assets call.

- ``freeze_event``: the contenders resolved, the suite checked, the manifest hashed and signed by
  the arena key: the event's one ``event_manifests`` row. Nothing is played before it exists.
- ``play_frozen_event``: every game of the frozen manifest, the house players on the sparring
  server, the keyed models at their providers, Stockfish locally; every request journalled before it
  is sent (``players.MoveJournal``), so a run that stops resumes without asking for a move again.
- ``event_standings``: the ratings, placements and medals of the games (``standings``).
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.asking import AskersError, askers_for
from colosseum_core.events.chess.contenders import resolve_contenders
from colosseum_core.events.chess.event import EventError, chess_manifest, event_tables, play_event
from colosseum_core.events.chess.game import PlayedGame, Player
from colosseum_core.events.chess.players import (
    EnginePlayer,
    ModelPlayer,
    MoveJournal,
    engine_name,
    running_engines,
)
from colosseum_core.events.chess.standings import standings
from colosseum_core.events.chess.suite import load_suite
from colosseum_core.events.contenders import ModelCheck, check_fight, keep_only
from colosseum_core.events.manifest import FrozenManifest, freeze_signed, frozen_as_recorded
from colosseum_core.events.trial_field import NO_KEYS, with_trial_model
from colosseum_core.interrupts import run_async
from colosseum_core.providers.pools import ProviderLimits
from colosseum_core.record.journal import Journal
from colosseum_core.record.layout import Record
from colosseum_core.trust.keys import KeyStore

MOVES_JOURNAL: Final = "chess_moves"
DEFAULT_STOCKFISH: Final = "stockfish"
DEFAULT_LINES: Final = 12


def stockfish_path(configured: str | None) -> str | None:
    """Where Stockfish is: the configured path or name, found on PATH or in Debian's /usr/games."""
    name = configured or DEFAULT_STOCKFISH
    return shutil.which(name) or shutil.which(name, path="/usr/games")


def freeze_event(
    *,
    event: str,
    contenders_path: Path | str,
    environ: Mapping[str, str],
    suite_path: Path | str,
    lines: int | Sequence[str],
    seed: int,
    stockfish: str | None,
    keys: KeyStore,
    now: dt.datetime,
    replicates: int | None = None,
    only: Sequence[str] = (),
    check: ModelCheck | None = None,
    trial: Mapping[str, Any] | None = None,
) -> tuple[FrozenManifest, pl.DataFrame]:
    """The event's manifest (its contenders, the suite's first ``lines`` or those named, the engine
    if Stockfish plays), frozen and signed, and its ``event_manifests`` row (``only``: the contender
    ids to keep, in the registry's order; empty keeps all; ``trial``: a model maker's trial, its
    model against the Stockfish anchors, ``events.trial_field``). ``check`` asks a FIGHT event's models
    once first (``contenders.check_fight``)."""
    if trial is None:
        resolved = resolve_contenders(contenders_path, environ)
    else:
        anchors = resolve_contenders(contenders_path, NO_KEYS)
        resolved = with_trial_model(anchors, trial, keep=lambda c: c["kind"] == "engine")
    resolved = keep_only(resolved, only, event=event, path=contenders_path)
    check_fight(event, resolved, check)
    suite = load_suite(suite_path)
    if isinstance(lines, int):
        if not 1 <= lines <= len(suite.lines):
            raise EventError(
                f"event {event}: lines must be 1 to {len(suite.lines)} (the suite's), not {lines}"
            )
        chosen = [line.id for line in suite.lines[:lines]]
    else:
        chosen = list(lines)
    engine = None
    if any(c["kind"] == "engine" for c in resolved["contenders"]):
        path = stockfish_path(stockfish)
        if path is None:
            raise EventError(
                f"event {event}: the contenders include Stockfish levels and no Stockfish was found "
                f"({stockfish or DEFAULT_STOCKFISH!r}): install Debian's (apt-get install stockfish)"
            )
        engine = engine_name(path)
    extra = {} if replicates is None else {"replicates": replicates}
    document = chess_manifest(
        event=event,
        resolved=resolved,
        suite=suite,
        lines=chosen,
        seed=seed,
        engine=engine,
        frozen_at=now,
        **extra,
    )
    return freeze_signed(document, keys, now)


def frozen_manifest(frame: pl.DataFrame, event: str) -> FrozenManifest:
    """The event's manifest as recorded; ``EventError`` if its hash or signature does not hold."""
    return frozen_as_recorded(frame, event, EventError)


async def _play(
    manifest: Mapping[str, Any],
    *,
    record: Record,
    sparring_url: str,
    environ: Mapping[str, str],
    stockfish: str | None,
    clock: Callable[[], dt.datetime],
    concurrency: int,
    engines: int,
    per_provider: ProviderLimits,
    on_game: Callable[[PlayedGame], None] | None,
) -> list[PlayedGame]:
    event = manifest["event"]
    journal = MoveJournal(Journal(record.journal_path(EVENTS, MOVES_JOURNAL, event)))
    needs_engine = [c for c in manifest["contenders"] if c["kind"] == "engine"]
    path = stockfish_path(stockfish) if needs_engine else None
    if needs_engine and path is None:
        raise EventError(f"event {event}: no Stockfish found to play {needs_engine[0]['id']}")
    if needs_engine and path is not None:
        frozen_engine, found = needs_engine[0]["engine"], engine_name(path)
        if found != frozen_engine:
            raise EventError(f"event {event}: its manifest froze {frozen_engine}; {path} is {found}")

    async def announce(game: PlayedGame) -> None:
        if on_game is not None:
            on_game(game)

    async with running_engines(path or "", engines if needs_engine else 0) as pool:
        models = [c for c in manifest["contenders"] if c["kind"] != "engine"]
        try:
            askers = askers_for(models, sparring_url=sparring_url, environ=environ, per_provider=per_provider)
        except AskersError as exc:
            raise EventError(f"event {event}: {exc}") from None
        players: dict[str, Player] = {
            c["id"]: EnginePlayer(c["id"], pool, c["nodes"])
            for c in manifest["contenders"]
            if c["kind"] == "engine"
        }
        for who, asker in askers.items():
            players[who] = ModelPlayer(
                who, asker.endpoint, asker.settings, record.receipts, journal, clock, asker.limit
            )
        return await play_event(manifest, players, concurrency=concurrency, on_game=announce)


def play_frozen_event(
    frozen: FrozenManifest,
    *,
    record: Record,
    sparring_url: str,
    environ: Mapping[str, str],
    stockfish: str | None,
    clock: Callable[[], dt.datetime],
    concurrency: int = 8,
    engines: int = 2,
    per_provider: ProviderLimits = 8,
    on_game: Callable[[PlayedGame], None] | None = None,
) -> dict[str, pl.DataFrame]:
    """``chess_games`` and ``chess_moves`` of the frozen event, every game played (or replayed from
    the journal's receipts where it was asked already)."""
    games = run_async(
        _play(
            frozen.document,
            record=record,
            sparring_url=sparring_url,
            environ=environ,
            stockfish=stockfish,
            clock=clock,
            concurrency=concurrency,
            engines=engines,
            per_provider=per_provider,
            on_game=on_game,
        )
    )
    return event_tables(frozen.document, games)


def event_standings(
    frozen: FrozenManifest, games: pl.DataFrame, moves: pl.DataFrame
) -> dict[str, pl.DataFrame]:
    return standings(frozen.document, frozen.sha256, games, moves)
