"""The chess event in Dagster: its manifest frozen, its games played, its standings sealed.

Each event is a partition of ``event_partitions`` (added by ``colosseum events chess event freeze``),
frozen by the shared ``event_manifests`` asset; ``chess_games`` plays every game of the manifest,
logging each round as it completes; ``chess_standings`` fits the ratings and seals the event. The
assets and jobs are built by ``wiring``; each body calls one function of
``colosseum_core.events.chess.run``, where python-chess, an optional extra, is imported, when a step
runs.
"""

from collections.abc import Mapping
from typing import Any, Final

import polars as pl

from colosseum_core.events.chess.kind import KIND
from colosseum_dagster.events import wiring


def _freeze(f: wiring.Freezing) -> tuple[dict[str, Any], pl.DataFrame]:
    from colosseum_core.events.chess.contenders import DEFAULT_CONTENDERS
    from colosseum_core.events.chess.run import freeze_event
    from colosseum_core.events.chess.suite import DEFAULT_SUITE

    config = f.config
    frozen, frame = freeze_event(
        **f.keywords(DEFAULT_CONTENDERS),
        suite_path=config.suite or DEFAULT_SUITE,
        lines=config.lines,
        stockfish=f.resource.stockfish_name(),  # type: ignore[attr-defined]
    )
    schedule = frozen.document["schedule"]
    return wiring.frozen_metadata(frozen, games=schedule["games"], lines=schedule["rounds"]), frame


def _play(run: wiring.StepRun) -> dict[str, pl.DataFrame]:
    from colosseum_core.events.chess.run import frozen_manifest, play_frozen_event

    frozen = frozen_manifest(run.manifest, run.event)
    schedule = frozen.document["schedule"]
    total, rounds = schedule["games"], schedule["rounds"]
    done: dict[int, int] = {}

    def on_game(game: Any) -> None:  # a PlayedGame (python-chess is imported only in the step)
        round_number = game.scheduled.round
        done[round_number] = done.get(round_number, 0) + 1
        if done[round_number] == total // rounds:
            run.context.log.info(
                f"event {run.event}: round {round_number} of {rounds} played "
                f"({sum(done.values())} of {total} games)"
            )

    chess = run.resource
    with run.asking(frozen.document["contenders"]) as asking:
        return play_frozen_event(
            frozen,
            record=run.record.layout,
            stockfish=chess.stockfish_name(),  # type: ignore[attr-defined]
            engines=chess.engines,  # type: ignore[attr-defined]
            on_game=on_game,
            **asking.keywords(),
        )


def _games_metadata(frames: Mapping[str, pl.DataFrame]) -> dict[str, dict[str, Any]]:
    games, moves = frames["chess_games"], frames["chess_moves"]
    ended = games.group_by("ended_by").len().sort("ended_by")
    return {
        "chess_games": {
            "games": games.height,
            "forfeits": int(games["forfeited_by"].is_not_null().sum()),
            "ended_by": ", ".join(f"{r['ended_by']} {r['len']}" for r in ended.iter_rows(named=True)),
        },
        "chess_moves": {"attempts": moves.height, "rejected": int((~moves["accepted"]).sum())},
    }


def _standings(run: wiring.StepRun) -> tuple[Any, dict[str, pl.DataFrame], dict[str, int]]:
    from colosseum_core.events.chess.run import event_standings, frozen_manifest

    frozen = frozen_manifest(run.manifest, run.event)
    games, moves = run.inputs["chess_games"], run.inputs["chess_moves"]
    return frozen, event_standings(frozen, games, moves), {"games": games.height}


def _standings_metadata(frames: Mapping[str, pl.DataFrame]) -> dict[str, dict[str, Any]]:
    standing = frames["chess_standings"].sort("placement", nulls_last=True)
    top = [
        f"{r['placement']}. {r['contender']} {r['rating']}" for r in standing.head(3).iter_rows(named=True)
    ]
    fit = frames["chess_fit"].row(0, named=True)
    return {
        "chess_standings": {"top": "; ".join(top)},
        "chess_fit": {"status": fit["status"], "nu": fit["nu"] or 0.0},
    }


WIRING: Final = wiring.KindWiring(
    kind=KIND,
    steps=(
        wiring.StepWiring(
            "games",
            _play,
            describe={
                "chess_games": "Every game (CHESS-GAME-1): the line, the colours, the result, how it ended "
                "(by the rules, the arena's claimed draw, the ply cap, or a forfeit), the rejected "
                "attempts, its PGN.",
                "chess_moves": "Every attempt at every move: the reply and its receipts, the token read "
                "from it, the canonical SAN or the failure class (CHESS-READING-1), the attempt number, the "
                "FEN after.",
            },
            words="playing the event's games",
            pool="events_chess_games",
            metadata=_games_metadata,
        ),
    ),
    seal=wiring.SealWiring(
        _standings,
        describe={
            "chess_standings": "The event's standings (CHESS-RATINGS-1): Bradley–Terry–Davidson on the Elo "
            "scale with 95 % game-pair bootstrap intervals, placements and medals, W/D/L, forfeit and "
            "rejected-attempt rates, and the fit without forfeits.",
            "chess_fit": "The two fits (all games; without forfeits): status, ν and its interval, the seed, "
            "the replicates, White's share of the points and its Elo equivalent, the verify tolerance.",
        },
        words="rating the event and sealing it",
        reads=("chess_games", "chess_moves"),
        metadata=_standings_metadata,
    ),
    freeze=_freeze,
    failures=wiring.Errors(
        "colosseum_core.events.chess.contenders.ContendersError",
        "colosseum_core.events.chess.suite.SuiteError",
        "colosseum_core.events.chess.event.EventError",
    ),
    event_job="One frozen chess event end to end: every game of its manifest played (resumed from its "
    "journal if a run stopped), its standings fitted and the event sealed.",
    freeze_job="Freeze a chess event: the contenders resolved, the suite checked, the manifest signed.",
    prefix="chess",
    group="events_chess",
    resource="chess",
)
