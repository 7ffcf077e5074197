"""``colosseum events chess …``: the chess event's commands beside the shared ``event freeze|run`` and
``standings`` (``commands``): ``suite build`` rebuilds the opening suite from Debian's gnuchess-book
with Stockfish (once; the result is committed); ``suite check`` checks a suite's legality and prints
its SHA-256; ``game show`` prints a game's moves and every attempt.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from colosseum_dagster.cli.common import RAW, UserError, data_home, shown
from colosseum_dagster.cli.events.commands import (
    EventCommands,
    check_command,
    command_group,
    event_command,
    event_name,
    events_tables,
    frozen_report,
    medal_mark,
)


def _chess() -> None:
    try:
        import chess  # noqa: F401
    except ImportError:
        raise UserError(
            "the chess event needs python-chess (GPL-3.0-or-later), an optional extra: "
            "pip install -e '.[chess]' (`make` installs it)"
        ) from None


def cmd_suite_build(args: argparse.Namespace) -> int:
    _chess()
    from colosseum_core.events.chess.run import stockfish_path
    from colosseum_core.events.chess.suite_builder import ECO_DIR, build_suite, suite_sha256, write_suite

    book = Path(args.book)
    if not book.is_file():
        raise UserError(
            f"--book {book}: no such file (Debian's gnuchess-book: apt-get install gnuchess-book)"
        )
    engine = stockfish_path(args.stockfish)
    if engine is None:
        raise UserError(f"--stockfish {args.stockfish}: not found (apt-get install stockfish)")
    eco = Path(args.eco) if args.eco else ECO_DIR
    document = build_suite(
        book,
        engine,
        eco,
        depth_plies=args.depth,
        min_weight_share=args.min_share,
        nodes=args.nodes,
        bound_cp=args.bound,
        lines=args.lines,
        progress=lambda line: print(line, file=sys.stderr),
    )
    out = Path(args.out)
    write_suite(document, out)
    print(f"{out}: {len(document['lines'])} lines, sha256 {suite_sha256(out)}")
    return 0


def cmd_suite_check(args: argparse.Namespace) -> int:
    _chess()
    from colosseum_core.events.chess.suite import DEFAULT_SUITE, SuiteError, load_suite

    try:
        suite = load_suite(args.suite or DEFAULT_SUITE)
    except SuiteError as exc:
        raise UserError(str(exc)) from None
    report = {"suite": suite.name, "sha256": suite.sha256, "lines": len(suite.lines)}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{suite.name}: {len(suite.lines)} lines, every one legal; sha256 {suite.sha256}")
    return 0


def cmd_game(args: argparse.Namespace) -> int:
    import polars as pl

    root, event = data_home(args.data), event_name(args.event)
    tables = events_tables(root)
    if not tables.exists("chess_games", event):
        raise UserError(f"event {event} has no games yet: `colosseum events chess event run {event}`")
    games = tables.read("chess_games", event).filter(pl.col("game_id") == args.game)
    if games.is_empty():
        known = tables.read("chess_games", event)["game_id"].head(3).to_list()
        raise UserError(
            f"event {event} has no game {args.game!r} (its games are named like {', '.join(known)})"
        )
    game = games.row(0, named=True)
    moves = tables.read("chess_moves", event).filter(pl.col("game_id") == args.game).sort("ply", "attempt")
    if args.json:
        print(json.dumps({"game": game, "attempts": moves.to_dicts()}, indent=1, default=str))
        return 0
    print(game["pgn"])
    print(
        f"{game['game_id']}: {game['white']} (White) v {game['black']} (Black), {game['result']} by "
        f"{game['ended_by']}; {moves.height} attempts"
    )
    for m in moves.iter_rows(named=True):
        read = m["san"] if m["accepted"] else f"REJECTED {m['failure']}: {shown(m['detail'] or '')}"
        token = shown(m["token"]) if m["token"] is not None else "-"
        print(
            f"  ply {m['ply']:>3} try {m['attempt']} {m['side']:<5} {shown(m['contender']):<20} "
            f"{token:<10} {read}"
        )
    return 0


def _freeze_options(freeze: argparse.ArgumentParser) -> None:
    freeze.add_argument("--suite", default=None, help="the opening suite (default COLOSSEUM-CHESS-SUITE-1)")
    freeze.add_argument("--lines", type=int, default=12, help="the suite's first N lines (default 12)")


def _frozen_report(event: str, row: dict[str, Any], manifest: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **frozen_report(event, row, manifest, kind=False),
        "missing_keys": manifest["missing_keys"],
        "lines": [line["id"] for line in manifest["suite"]["lines"]],
        "games": manifest["schedule"]["games"],
        "seed": manifest["seeds"]["bootstrap"],
    }


def _print_frozen(report: dict[str, Any]) -> None:
    print(f"  {len(report['contenders'])} contenders: {', '.join(report['contenders'])}")
    lines = len(report["lines"])
    print(
        f"  {lines} line{'s' if lines != 1 else ''}, {report['games']} games; bootstrap seed {report['seed']}"
    )
    if report["missing_keys"]:
        print(f"  CALIBRATION: house stand-ins play, as {', '.join(report['missing_keys'])} are not set")


def _standings_rows(standings: Any) -> list[dict[str, Any]]:
    return standings.sort(
        ["placement", "rating", "contender"], descending=[False, True, False], nulls_last=True
    ).to_dicts()


def _print_standings(event: str, rows: list[dict[str, Any]]) -> None:
    print(f"event {event}: standings (CHESS-RATINGS-1, Bradley–Terry–Davidson, 95 % game-pair bootstrap)")
    print(
        f"  {'place':<6}{'contender':<22}{'rating':>8}  {'95 % interval':<17}{'games':>6}{'points':>8}"
        f"{'forfeits':>9}{'rejected':>9}"
    )
    for r in rows:
        place = f"{r['placement']}" + medal_mark(r["medal"])
        interval = f"[{r['low']}, {r['high']}]" if r["low"] is not None else "-"
        rejected = f"{r['rejected_rate']:.0%}" if r["rejected_rate"] is not None else "-"
        print(
            f"  {place:<6}{shown(r['contender']):<22}{r['rating'] or '-':>8}  {interval:<17}{r['games']:>6}"
            f"{r['points']:>8}{r['forfeits']:>9}{rejected:>9}"
        )


def _suite_commands(kind: argparse._SubParsersAction) -> None:
    suite = command_group(
        kind,
        "suite",
        "the opening suite",
        "examples:\n  colosseum events chess suite check\n"
        "  colosseum events chess suite build --out /tmp/s.json",
        "suite_action",
    )
    build = suite.add_parser(
        "build",
        help="rebuild the suite from gnuchess-book with Stockfish (minutes; the result is committed)",
        formatter_class=RAW,
        epilog="example:\n  colosseum events chess suite build --out /tmp/suite.json",
    )
    build.add_argument("--book", default="/usr/share/games/gnuchess/book.bin", help="the polyglot book")
    build.add_argument("--stockfish", default=None, help="Stockfish's path or name (default: on PATH)")
    build.add_argument("--eco", default=None, help="the lichess ECO tables (default: the vendored ones)")
    build.add_argument("--depth", type=int, default=8, help="plies walked (default 8)")
    build.add_argument(
        "--min-share", type=float, default=0.08, help="a move's least share of its node's weight"
    )
    build.add_argument("--nodes", type=int, default=200_000, help="Stockfish's nodes per evaluation")
    build.add_argument("--bound", type=int, default=60, help="the balance bound, in centipawns")
    build.add_argument("--lines", type=int, default=40, help="lines kept (distinct ECO codes)")
    build.add_argument("--out", required=True, help="where to write the suite")
    build.set_defaults(func=cmd_suite_build)
    check_command(
        suite,
        help="check a suite (every line legal, its FEN after) and print its SHA-256",
        epilog="example:\n  colosseum events chess suite check --json",
        option="--suite",
        option_help="the suite (default COLOSSEUM-CHESS-SUITE-1)",
        func=cmd_suite_check,
    )


def _game_commands(kind: argparse._SubParsersAction) -> None:
    game = command_group(
        kind,
        "game",
        "one game",
        "example:\n  colosseum events chess game show chess-1 L01-01v02-a",
        "game_action",
    )
    event_command(
        game,
        "show",
        help="a game's PGN, its moves and every attempt (the token, the SAN or why it was rejected)",
        epilog="example:\n  colosseum events chess game show chess-2026-12-02 L01-01v02-a",
        func=cmd_game,
        json_help="machine-readable game and attempts",
        also=(("game", "the game's id, e.g. L01-01v02-a"),),
    )


COMMANDS: Final = EventCommands(
    kind="chess",
    cli="chess",
    help="the chess event",
    example="chess-2026-12-02",
    examples=(
        "suite check",
        "event freeze chess-1 --lines 1",
        "event run chess-1",
        "standings chess-1",
        "game show chess-1 L01-01v02-a",
    ),
    event_examples=("event freeze chess-1 --lines 1", "event run chess-1"),
    freeze_examples=(
        "event freeze smoke --lines 1 --contender stockfish-n1 --contender house-illegal --json",
    ),
    contenders_help="the contenders registry (default chess.toml)",
    seed_help="the bootstrap's seed (default: drawn, recorded)",
    freeze_options=_freeze_options,
    freeze_files=("suite",),
    freeze_config=lambda args: {"lines": args.lines},
    frozen_report=_frozen_report,
    print_frozen=_print_frozen,
    run_help="play every game of a frozen event and seal its standings, through the real Definitions",
    run_note="A run that stops is resumed by running it again: no move already asked is asked again.",
    requires=_chess,
    standings_table="chess_standings",
    standings_help="the event's standings: ratings, intervals, placements, medals",
    standings_rows=_standings_rows,
    print_standings=_print_standings,
    extras_first=_suite_commands,
    extras=_game_commands,
)
