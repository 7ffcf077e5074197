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

from colosseum_dagster.cli.common import UserError, data_home, shown
from colosseum_dagster.cli.events import commands


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

    root, event = data_home(args.data), commands.event_name(args.event)
    tables = commands.events_tables(root)
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


def _frozen_report(event: str, row: dict[str, Any], manifest: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **commands.frozen_report(event, row, manifest, kind=False),
        "missing_keys": manifest["missing_keys"],
        "lines": [line["id"] for line in manifest["suite"]["lines"]],
        "games": manifest["schedule"]["games"],
        "seed": manifest["seeds"]["bootstrap"],
    }


def _print_frozen(report: dict[str, Any]) -> None:
    commands.print_contenders(report)
    lines = len(report["lines"])
    print(
        f"  {lines} line{'s' if lines != 1 else ''}, {report['games']} games; bootstrap seed {report['seed']}"
    )
    commands.print_calibration(report, house="play")


def _standings_rows(standings: Any) -> list[dict[str, Any]]:
    return standings.sort(
        ["placement", "rating", "contender"], descending=[False, True, False], nulls_last=True
    ).to_dicts()


_STANDINGS_HEAD: Final = (
    f"  {'place':<6}{'contender':<22}{'rating':>8}  {'95 % interval':<17}{'games':>6}{'points':>8}"
    f"{'forfeits':>9}{'rejected':>9}"
)


def _standing(r: dict[str, Any]) -> str:
    place = f"{r['placement']}" + commands.medal_mark(r["medal"])
    interval = f"[{r['low']}, {r['high']}]" if r["low"] is not None else "-"
    rejected = f"{r['rejected_rate']:.0%}" if r["rejected_rate"] is not None else "-"
    return (
        f"  {place:<6}{shown(r['contender']):<22}{r['rating'] or '-':>8}  {interval:<17}{r['games']:>6}"
        f"{r['points']:>8}{r['forfeits']:>9}{rejected:>9}"
    )


# ``event freeze``'s own options: the suite and how many of its lines are played.
_FREEZE_OPTIONS: Final = (
    commands.Option("--suite", Path, None, "the opening suite (default COLOSSEUM-CHESS-SUITE-1)"),
    commands.Option("--lines", int, 12, "the suite's first N lines (default 12)"),
)
# ``suite build``'s options: the book, the engine and the ECO tables, and how the suite is cut from them.
_BUILD_OPTIONS: Final = (
    commands.Option("--book", str, "/usr/share/games/gnuchess/book.bin", "the polyglot book"),
    commands.Option("--stockfish", str, None, "Stockfish's path or name (default: on PATH)"),
    commands.Option("--eco", str, None, "the lichess ECO tables (default: the vendored ones)"),
    commands.Option("--depth", int, 8, "plies walked (default 8)"),
    commands.Option("--min-share", float, 0.08, "a move's least share of its node's weight"),
    commands.Option("--nodes", int, 200_000, "Stockfish's nodes per evaluation"),
    commands.Option("--bound", int, 60, "the balance bound, in centipawns"),
    commands.Option("--lines", int, 40, "lines kept (distinct ECO codes)"),
)


def _suite_build_command(suite: argparse._SubParsersAction) -> None:
    build = commands.subcommand(
        suite,
        "build",
        "rebuild the suite from gnuchess-book with Stockfish (minutes; the result is committed)",
        "example:\n  colosseum events chess suite build --out /tmp/suite.json",
    )
    commands.add_options(build, _BUILD_OPTIONS)
    build.add_argument("--out", required=True, help="where to write the suite")
    build.set_defaults(func=cmd_suite_build)


COMMANDS: Final = commands.EventCommands(
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
    freeze_options=_FREEZE_OPTIONS,
    freeze_config=lambda args: {"lines": args.lines},
    frozen_report=_frozen_report,
    print_frozen=_print_frozen,
    run_help="play every game of a frozen event and seal its standings, through the real Definitions",
    run_note="A run that stops is resumed by running it again: no move already asked is asked again.",
    requires=_chess,
    standings_help="the event's standings: ratings, intervals, placements, medals",
    standings_rows=_standings_rows,
    standings_title="CHESS-RATINGS-1, Bradley–Terry–Davidson, 95 % game-pair bootstrap",
    standings_head=_STANDINGS_HEAD,
    standing=_standing,
    check=commands.FileCheck(
        "suite",
        "the opening suite",
        help="check a suite (every line legal, its FEN after) and print its SHA-256",
        option=commands.Option("--suite", Path, None, "the suite (default COLOSSEUM-CHESS-SUITE-1)"),
        func=cmd_suite_check,
        examples=("suite check", "suite build --out /tmp/s.json"),
        more=_suite_build_command,
    ),
    show=commands.ShowOne(
        "game",
        "one game",
        help="a game's PGN, its moves and every attempt (the token, the SAN or why it was rejected)",
        func=cmd_game,
        json_help="machine-readable game and attempts",
        sample="L01-01v02-a",
    ),
)
