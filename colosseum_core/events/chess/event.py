"""A chess event: its manifest (what is frozen), its games (played from it), its two tables.

``chess_manifest`` is the document ``events.manifest.freeze`` hashes and signs; nothing in it
changes afterwards, and every game row cites its SHA-256. ``play_event`` plays the round robin
(``schedule``) game by game (``game``), at most ``concurrency`` games at once, and ``event_tables``
turns the played games into ``chess_games`` (one row per game, with its PGN) and ``chess_moves`` (one
row per attempt: the reply, the token, the canonical SAN or the failure class, the FEN after).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

import polars as pl

from colosseum_core.events.asking import CALL_SCHEMA
from colosseum_core.events.chess.game import EVIDENCE, PlayedGame, Player, game_pgn, play_game
from colosseum_core.events.chess.players import ENGINE_OPTIONS
from colosseum_core.events.chess.prompt import PROMPT_TEMPLATE, RETRY_NAMED, RETRY_UNNAMED
from colosseum_core.events.chess.reading import MAX_REPLY_CHARS
from colosseum_core.events.chess.rules import ATTEMPTS_PER_MOVE, PLY_CAP, RULES
from colosseum_core.events.chess.schedule import ScheduledGame, round_robin
from colosseum_core.events.chess.suite import Suite
from colosseum_core.events.manifest import manifest_bytes, manifest_head
from colosseum_core.events.tables import id_tables

KIND: Final = "chess"
SITE: Final = "Colosseum multi-event arena"
BOOTSTRAP_REPLICATES: Final = 1999


class EventError(ValueError):
    """An event that cannot be frozen or played as asked; names the event and what does not fit."""


def chess_manifest(
    *,
    event: str,
    resolved: Mapping[str, Any],
    suite: Suite,
    lines: Sequence[str],
    seed: int,
    engine: str | None,
    frozen_at: dt.datetime,
    replicates: int = BOOTSTRAP_REPLICATES,
) -> dict[str, Any]:
    """The manifest of a chess event: everything its games and standings depend on."""
    known = {line.id for line in suite.lines}
    unknown = [line for line in lines if line not in known]
    if unknown:
        raise EventError(f"event {event}: suite {suite.name} has no lines {', '.join(unknown)}")
    if not lines:
        raise EventError(f"event {event}: no lines to play")
    contenders = [dict(c) for c in resolved["contenders"]]
    for contender in contenders:
        if contender["kind"] == "engine":
            if engine is None:
                raise EventError(
                    f"event {event}: contender {contender['id']} is an engine and no Stockfish is at hand"
                )
            contender |= {"engine": engine, "options": dict(ENGINE_OPTIONS)}
    schedule = round_robin([c["id"] for c in contenders], list(lines))
    return {
        **manifest_head(event, KIND, resolved, frozen_at),
        "contenders": contenders,
        "rules": {
            **RULES,
            "attempts_per_move": ATTEMPTS_PER_MOVE,
            "ply_cap": PLY_CAP,
            "max_reply_chars": MAX_REPLY_CHARS,
            "claim_draws": True,
            "prompt_template": PROMPT_TEMPLATE,
            "retry_named": RETRY_NAMED,
            "retry_unnamed": RETRY_UNNAMED,
        },
        "suite": {
            "name": suite.name,
            "file": suite.path,
            "sha256": suite.sha256,
            "lines": [
                {"id": line.id, "eco": line.eco, "name": line.name, "san": list(line.san)}
                for line in (suite.line(i) for i in lines)
            ],
        },
        "schedule": {"rounds": len(lines), "games": len(schedule), "clusters": len(schedule) // 2},
        "seeds": {"bootstrap": seed},
        "ratings": {"bootstrap_replicates": replicates, "level": 0.95},
    }


def scheduled_games(manifest: Mapping[str, Any]) -> list[ScheduledGame]:
    return round_robin(
        [c["id"] for c in manifest["contenders"]], [line["id"] for line in manifest["suite"]["lines"]]
    )


async def play_event(
    manifest: Mapping[str, Any],
    players: Mapping[str, Player],
    *,
    concurrency: int,
    on_game: Callable[[PlayedGame], Awaitable[None]] | None = None,
) -> list[PlayedGame]:
    """Every game of the event, in schedule order (played up to ``concurrency`` at a time)."""
    lines = {line["id"]: tuple(line["san"]) for line in manifest["suite"]["lines"]}
    games = scheduled_games(manifest)
    missing = sorted({c["id"] for c in manifest["contenders"]} - set(players))
    if missing:
        raise EventError(f"event {manifest['event']}: no player for {', '.join(missing)}")
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(scheduled: ScheduledGame) -> PlayedGame:
        async with gate:
            played = await play_game(
                scheduled, lines[scheduled.line_id], players[scheduled.white], players[scheduled.black]
            )
        if on_game is not None:
            await on_game(played)
        return played

    return list(await asyncio.gather(*(one(g) for g in games)))


def _headers(manifest: Mapping[str, Any], cited: str, game: PlayedGame) -> dict[str, str]:
    line = next(x for x in manifest["suite"]["lines"] if x["id"] == game.scheduled.line_id)
    return {
        "Event": f"{manifest['event']} ({manifest['class']})",
        "Site": SITE,
        "Date": manifest["frozen_at"][:10].replace("-", "."),
        "ECO": line["eco"],
        "Opening": line["name"],
        "Manifest": cited,
    }


def manifest_id(manifest: Mapping[str, Any]) -> str:
    """The SHA-256 every result of the event cites: of the manifest's canonical bytes."""
    return hashlib.sha256(manifest_bytes(manifest)).hexdigest()


GAME_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "game_id": pl.String(),
    "round": pl.Int64(),
    "cluster": pl.String(),
    "line_id": pl.String(),
    "eco": pl.String(),
    "white": pl.String(),
    "black": pl.String(),
    "result": pl.String(),
    "white_score": pl.Float64(),
    "ended_by": pl.String(),
    "termination": pl.String(),
    "plies": pl.Int64(),
    "forfeited_by": pl.String(),
    "white_rejected": pl.Int64(),
    "black_rejected": pl.Int64(),
    "moves": pl.String(),
    "pgn": pl.String(),
    "evidence": pl.String(),
    "rules": pl.String(),
    "manifest_sha256": pl.String(),
}
MOVE_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "game_id": pl.String(),
    "ply": pl.Int64(),
    "attempt": pl.Int64(),
    "side": pl.String(),
    "contender": pl.String(),
    "kind": pl.String(),
    **CALL_SCHEMA,
    "token": pl.String(),
    "san": pl.String(),
    "uci": pl.String(),
    "failure": pl.String(),
    "detail": pl.String(),
    "accepted": pl.Boolean(),
    "fen": pl.String(),
    "fen_after": pl.String(),
    "prompt_sha256": pl.String(),
    "manifest_sha256": pl.String(),
}


def event_tables(manifest: Mapping[str, Any], games: Sequence[PlayedGame]) -> dict[str, pl.DataFrame]:
    """``chess_games`` and ``chess_moves`` of the played games, in schedule order."""
    event, cited = manifest["event"], manifest_id(manifest)
    rules = ",".join(manifest["rules"][k] for k in ("prompt", "reading", "game", "schedule"))
    game_rows, move_rows = [], []
    for game in games:
        s = game.scheduled
        rejected = {"white": 0, "black": 0}
        for attempt in game.attempts:
            rejected[attempt.side] += 0 if attempt.reading.accepted else 1
            answer, reading = attempt.answer, attempt.reading
            move_rows.append(
                {
                    "event": event,
                    "game_id": s.game_id,
                    "ply": attempt.ply,
                    "attempt": attempt.attempt,
                    "side": attempt.side,
                    "contender": attempt.contender,
                    "kind": attempt.kind,
                    "model": answer.model,
                    "protocol": answer.protocol,
                    "status": answer.status,
                    "text": answer.text,
                    "receipt_ids": list(answer.receipt_ids),
                    "settings": json.dumps(dict(answer.settings), sort_keys=True)
                    if answer.settings
                    else None,
                    "error": answer.error,
                    "token": reading.token,
                    "san": reading.san,
                    "uci": reading.uci,
                    "failure": reading.failure,
                    "detail": reading.detail,
                    "accepted": reading.accepted,
                    "fen": attempt.fen,
                    "fen_after": attempt.fen_after,
                    "prompt_sha256": attempt.prompt_sha256,
                    "manifest_sha256": cited,
                }
            )
        line = next(x for x in manifest["suite"]["lines"] if x["id"] == s.line_id)
        game_rows.append(
            {
                "event": event,
                "game_id": s.game_id,
                "round": s.round,
                "cluster": s.cluster,
                "line_id": s.line_id,
                "eco": line["eco"],
                "white": s.white,
                "black": s.black,
                "result": game.result,
                "white_score": game.white_score,
                "ended_by": game.ended_by,
                "termination": game.termination,
                "plies": game.plies,
                "forfeited_by": game.forfeited_by,
                "white_rejected": rejected["white"],
                "black_rejected": rejected["black"],
                "moves": " ".join(game.moves),
                "pgn": game_pgn(game, _headers(manifest, cited, game)),
                "evidence": EVIDENCE,
                "rules": rules,
                "manifest_sha256": cited,
            }
        )
    return id_tables(chess_games=(game_rows, GAME_SCHEMA), chess_moves=(move_rows, MOVE_SCHEMA))
