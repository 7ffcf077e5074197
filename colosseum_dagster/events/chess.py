"""The chess event in Dagster: its manifest frozen, its games played, its standings sealed.

Each event is a partition of ``event_partitions`` (added by ``colosseum events chess event freeze``),
frozen by the shared ``event_manifests`` asset (``manifests``); ``chess_games`` plays every
game of the manifest, logging each round as it completes; ``chess_standings`` fits the ratings and
seals the event. Each body calls one function of ``colosseum_core.events.chess.run``; python-chess,
an optional extra, is imported only there, when a step runs.
"""

from collections.abc import Iterator
from typing import Any

import dagster as dg
import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.chess.kind import GAME_TABLES as CHESS_GAME_TABLES
from colosseum_core.events.chess.kind import STANDING_TABLES as CHESS_STANDING_TABLES
from colosseum_dagster.events.manifests import (
    ARENA,
    SHARED_STEP_WORDS,
    event_partitions,
    key,
    op_name,
    sealed_event,
)
from colosseum_dagster.events.resources import ChessResource
from colosseum_dagster.resources import ClockResource, ProviderKeysResource, RecordResource

CHESS_GROUP = "events_chess"

STEP_WORDS = {
    **SHARED_STEP_WORDS,
    op_name("chess_games"): "playing the event's games",
    op_name("chess_standings"): "rating the event and sealing it",
}


@dg.multi_asset(
    name=op_name("chess_games"),
    partitions_def=event_partitions,
    group_name=CHESS_GROUP,
    ins={"manifest": dg.AssetIn(key=key("event_manifests"))},
    pool="events_chess_games",
    outs={
        "chess_games": dg.AssetOut(
            key_prefix=ARENA,
            description="Every game (CHESS-GAME-1): the line, the colours, the result, how it ended (by the "
            "rules, the arena's claimed draw, the ply cap, or a forfeit), the rejected attempts, its PGN.",
            kinds={"polars", "parquet"},
        ),
        "chess_moves": dg.AssetOut(
            key_prefix=ARENA,
            description="Every attempt at every move: the reply and its receipts, the token read from it, "
            "the canonical SAN or the failure class (CHESS-READING-1), the attempt number, the FEN after.",
            kinds={"polars", "parquet"},
        ),
    },
)
def chess_games(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    record: RecordResource,
    provider_keys: ProviderKeysResource,
    chess: ChessResource,
    clock: ClockResource,
) -> Iterator[dg.Output[pl.DataFrame]]:
    from colosseum_core.events.chess.event import EventError
    from colosseum_core.events.chess.run import frozen_manifest, play_frozen_event

    event = context.partition_key
    tables = record.layout.tables(EVENTS)
    if all(tables.exists(t, event) for t in CHESS_GAME_TABLES):
        context.log.info(f"event {event}: its games are recorded (written once); they are not played again")
        frames = {t: tables.read_checked(t, event) for t in CHESS_GAME_TABLES}
    else:
        try:
            frozen = frozen_manifest(manifest, event)
            total = frozen.document["schedule"]["games"]
            per_round = total // frozen.document["schedule"]["rounds"]
            done: dict[int, int] = {}

            def on_game(game: Any) -> None:  # a PlayedGame (python-chess is imported only in the step)
                round_number = game.scheduled.round
                done[round_number] = done.get(round_number, 0) + 1
                if done[round_number] == per_round:
                    context.log.info(
                        f"event {event}: round {round_number} of {frozen.document['schedule']['rounds']} "
                        f"played ({sum(done.values())} of {total} games)"
                    )

            with chess.provider_slots(context, frozen.document["contenders"]) as held:
                frames = play_frozen_event(
                    frozen,
                    record=record.layout,
                    sparring_url=chess.sparring(),
                    environ=provider_keys.by_variable(),
                    stockfish=chess.stockfish_name(),
                    clock=clock.now,
                    concurrency=chess.concurrency,
                    engines=chess.engines,
                    per_provider=held,
                    on_game=on_game,
                )
        except EventError as exc:
            raise dg.Failure(str(exc)) from exc
    games = frames["chess_games"]
    ended = games.group_by("ended_by").len().sort("ended_by")
    yield dg.Output(
        games,
        output_name="chess_games",
        metadata={
            "games": games.height,
            "forfeits": int(games["forfeited_by"].is_not_null().sum()),
            "ended_by": ", ".join(f"{r['ended_by']} {r['len']}" for r in ended.iter_rows(named=True)),
        },
    )
    moves = frames["chess_moves"]
    yield dg.Output(
        moves,
        output_name="chess_moves",
        metadata={"attempts": moves.height, "rejected": int((~moves["accepted"]).sum())},
    )


@dg.multi_asset(
    name=op_name("chess_standings"),
    partitions_def=event_partitions,
    group_name=CHESS_GROUP,
    ins={
        "manifest": dg.AssetIn(key=key("event_manifests")),
        "games": dg.AssetIn(key=key("chess_games")),
        "moves": dg.AssetIn(key=key("chess_moves")),
    },
    outs={
        "chess_standings": dg.AssetOut(
            key_prefix=ARENA,
            description="The event's standings (CHESS-RATINGS-1): Bradley–Terry–Davidson on the Elo scale "
            "with 95 % game-pair bootstrap intervals, placements and medals, W/D/L, forfeit and "
            "rejected-attempt "
            "rates, and the fit without forfeits.",
            kinds={"polars", "parquet"},
        ),
        "chess_fit": dg.AssetOut(
            key_prefix=ARENA,
            description="The two fits (all games; without forfeits): status, ν and its interval, the seed, "
            "the replicates, White's share of the points and its Elo equivalent, the verify tolerance.",
            kinds={"polars", "parquet"},
        ),
    },
)
def chess_standings(
    context: dg.AssetExecutionContext,
    manifest: pl.DataFrame,
    games: pl.DataFrame,
    moves: pl.DataFrame,
    record: RecordResource,
    clock: ClockResource,
) -> Iterator[dg.Output[pl.DataFrame]]:
    from colosseum_core.events.chess.event import EventError
    from colosseum_core.events.chess.run import event_standings, frozen_manifest

    def derive() -> tuple[Any, dict[str, pl.DataFrame], dict[str, int]]:
        try:
            frozen = frozen_manifest(manifest, context.partition_key)
        except EventError as exc:
            raise dg.Failure(str(exc)) from exc
        return frozen, event_standings(frozen, games, moves), {"games": games.height}

    frames = sealed_event(
        context,
        record,
        outputs=CHESS_STANDING_TABLES,
        written=CHESS_GAME_TABLES,
        derive=derive,
        clock=clock,
    )
    standing = frames["chess_standings"].sort("placement", nulls_last=True)
    top = [
        f"{r['placement']}. {r['contender']} {r['rating']}" for r in standing.head(3).iter_rows(named=True)
    ]
    yield dg.Output(
        frames["chess_standings"], output_name="chess_standings", metadata={"top": "; ".join(top)}
    )
    fit = frames["chess_fit"].row(0, named=True)
    yield dg.Output(
        frames["chess_fit"],
        output_name="chess_fit",
        metadata={"status": fit["status"], "nu": fit["nu"] or 0.0},
    )


chess_event_job = dg.define_asset_job(
    "chess_event_job",
    selection=dg.AssetSelection.assets(
        key("chess_games"), key("chess_moves"), key("chess_standings"), key("chess_fit"), key("event_bundles")
    ),
    description="One frozen chess event end to end: every game of its manifest played (resumed from its "
    "journal if a run stopped), its standings fitted and the event sealed.",
    tags={"colosseum/arena": ARENA},
)
chess_freeze_job = dg.define_asset_job(
    "chess_freeze_job",
    selection=dg.AssetSelection.assets(key("event_manifests")),
    description="Freeze a chess event: the contenders resolved, the suite checked, the manifest signed.",
    tags={"colosseum/arena": ARENA},
)
