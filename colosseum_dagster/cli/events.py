"""``colosseum events chess …``: the chess event's suite, its freeze, its run, its games and standings.

``suite build`` rebuilds the opening suite from Debian's gnuchess-book with Stockfish (once; the result
is committed); ``suite check`` checks a suite's legality and prints its SHA-256; ``event freeze``
resolves the contenders and freezes the event's manifest; ``event run`` plays every game and seals the
standings, both through the real Definitions; ``game show`` prints a game's moves and every attempt;
``standings`` prints the event's table.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from colosseum_dagster.cli.common import (
    DATA_HELP,
    RAW,
    UserError,
    data_home,
    failure_messages,
    resource_config,
    run_partition,
    shown,
    sparring_for_run,
)

_EVENT = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def event_name(text: str, kind: str = "chess") -> str:
    """An event's name as its partition key: refused with an example when it cannot be one."""
    if not _EVENT.match(text):
        example = {"solve-or-object": "soo-2026-12-02", "challenge": "ch-2026-12-02"}.get(
            kind, "chess-2026-12-02"
        )
        raise UserError(f"event {text!r}: lower-case letters, digits, '.', '-' or '_' (e.g. {example})")
    return text


def _chess() -> None:
    try:
        import chess  # noqa: F401
    except ImportError:
        raise UserError(
            "the chess event needs python-chess (GPL-3.0-or-later), an optional extra: "
            "pip install -e '.[chess]' (`make` installs it)"
        ) from None


def _run(job: str, event: str, root: Path, *, verbose: bool, ops: dict[str, Any] | None = None) -> Any:
    from colosseum_dagster.events.chess import STEP_WORDS

    with sparring_for_run() as sparring_url:
        resources: dict[str, Any] = resource_config(root, None)
        resources["chess"] = {"config": {"sparring_url": sparring_url}}
        print(f"event {event}: running {job}", file=sys.stderr)
        return run_partition(
            job, "events", event, root, resources, verbose=verbose, step_words=STEP_WORDS, ops=ops
        )


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


def cmd_freeze(args: argparse.Namespace) -> int:
    _chess()
    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    root, event = data_home(args.data), event_name(args.event)
    tables = Record(root).tables(EVENTS)
    if tables.exists("event_manifests", event):
        raise UserError(
            f"event {event} is frozen already (its manifest is never edited); a new event needs a new name"
        )
    for name, path in (("--contenders", args.contenders), ("--suite", args.suite)):
        if path and not Path(path).is_file():
            raise UserError(f"{name} {path}: no such file")
    config: dict[str, Any] = {
        "lines": args.lines,
        "only": args.contender or [],
        "replicates": args.replicates,
    }
    for field in ("contenders", "suite"):
        if getattr(args, field):
            config[field] = str(Path(getattr(args, field)).resolve())
    if args.seed is not None:
        config["seed"] = args.seed
    result = _run(
        "chess_freeze_job",
        event,
        root,
        verbose=args.verbose,
        ops={"events__event_manifests": {"config": config}},
    )
    if not result.success:
        return report_failure(event, failure_messages(result), args.json)
    row = tables.read("event_manifests", event).row(0, named=True)
    manifest = json.loads(row["manifest"])
    report = {
        "event": event,
        "class": manifest["class"],
        "manifest_sha256": row["manifest_sha256"],
        "key_id": row["key_id"],
        "contenders": [c["id"] for c in manifest["contenders"]],
        "missing_keys": manifest["missing_keys"],
        "lines": [line["id"] for line in manifest["suite"]["lines"]],
        "games": manifest["schedule"]["games"],
        "seed": manifest["seeds"]["bootstrap"],
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"event {event}: frozen ({manifest['class']}), manifest sha256 {row['manifest_sha256']}")
    print(f"  {len(report['contenders'])} contenders: {', '.join(report['contenders'])}")
    lines = len(report["lines"])
    print(
        f"  {lines} line{'s' if lines != 1 else ''}, {report['games']} games; bootstrap seed {report['seed']}"
    )
    if report["missing_keys"]:
        print(f"  CALIBRATION: house stand-ins play, as {', '.join(report['missing_keys'])} are not set")
    print(f"next: colosseum events chess event run {event}")
    return 0


def report_failure(event: str, failures: list[str], as_json: bool) -> int:
    if as_json:
        print(json.dumps({"event": event, "success": False, "failures": failures}, indent=1))
    else:
        print(f"event {event}: FAILED: {'; '.join(failures) or 'see the run log (-v)'}")
    return 1


def _standings(root: Path, event: str) -> list[dict[str, Any]]:
    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    tables = Record(root).tables(EVENTS)
    if not tables.exists("chess_standings", event):
        raise UserError(f"event {event} has no standings yet: `colosseum events chess event run {event}`")
    standings = tables.read("chess_standings", event)
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
        place = f"{r['placement']}" + (
            {"gold": " G", "silver": " S", "bronze": " B"}.get(r["medal"] or "", "")
        )
        interval = f"[{r['low']}, {r['high']}]" if r["low"] is not None else "-"
        rejected = f"{r['rejected_rate']:.0%}" if r["rejected_rate"] is not None else "-"
        print(
            f"  {place:<6}{shown(r['contender']):<22}{r['rating'] or '-':>8}  {interval:<17}{r['games']:>6}"
            f"{r['points']:>8}{r['forfeits']:>9}{rejected:>9}"
        )


def cmd_run(args: argparse.Namespace) -> int:
    _chess()
    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    root, event = data_home(args.data), event_name(args.event)
    if not Record(root).tables(EVENTS).exists("event_manifests", event):
        raise UserError(f"event {event} is not frozen: `colosseum events chess event freeze {event}` first")
    result = _run("chess_event_job", event, root, verbose=args.verbose)
    if not result.success:
        return report_failure(event, failure_messages(result), args.json)
    rows = _standings(root, event)
    if args.json:
        print(json.dumps({"event": event, "success": True, "standings": rows}, indent=1, default=str))
    else:
        _print_standings(event, rows)
    return 0


def cmd_standings(args: argparse.Namespace) -> int:
    root, event = data_home(args.data), event_name(args.event)
    rows = _standings(root, event)
    if args.json:
        print(json.dumps({"event": event, "standings": rows}, indent=1, default=str))
    else:
        _print_standings(event, rows)
    return 0


def cmd_game(args: argparse.Namespace) -> int:
    import polars as pl

    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    root, event = data_home(args.data), event_name(args.event)
    tables = Record(root).tables(EVENTS)
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


def add_commands(sub: argparse._SubParsersAction) -> None:
    events = sub.add_parser(
        "events",
        help="the multi-event arena: the chess, Solve-or-Object and challenge events",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events chess event freeze chess-2026-12-02 --lines 2\n"
        "  colosseum events chess event run chess-2026-12-02\n"
        "  colosseum events solve-or-object event freeze soo-2026-12-02 --pairs 6\n"
        "  colosseum events solve-or-object event run soo-2026-12-02\n"
        "  colosseum events challenges event freeze ch-2026-12-02 --slots 2",
    ).add_subparsers(dest="arena_command", required=True)
    from colosseum_dagster.cli import challenges, solve_or_object  # they use this module's helpers

    solve_or_object.add_commands(events)
    challenges.add_commands(events)
    chess = events.add_parser(
        "chess",
        help="the chess event",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events chess suite check\n"
        "  colosseum events chess event freeze chess-1 --lines 1\n"
        "  colosseum events chess event run chess-1\n  colosseum events chess standings chess-1\n"
        "  colosseum events chess game show chess-1 L01-01v02-a",
    ).add_subparsers(dest="action", required=True)

    suite = chess.add_parser(
        "suite",
        help="the opening suite",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events chess suite check\n"
        "  colosseum events chess suite build --out /tmp/s.json",
    ).add_subparsers(dest="suite_action", required=True)
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
    check = suite.add_parser(
        "check",
        help="check a suite (every line legal, its FEN after) and print its SHA-256",
        formatter_class=RAW,
        epilog="example:\n  colosseum events chess suite check --json",
    )
    check.add_argument("--suite", default=None, help="the suite (default COLOSSEUM-CHESS-SUITE-1)")
    check.add_argument("--json", action="store_true", help="machine-readable report")
    check.set_defaults(func=cmd_suite_check)

    event = chess.add_parser(
        "event",
        help="freeze or run an event",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events chess event freeze chess-1 --lines 1\n"
        "  colosseum events chess event run chess-1",
    ).add_subparsers(dest="event_action", required=True)
    freeze = event.add_parser(
        "freeze",
        help="resolve the contenders and freeze the event's manifest (signed; never edited)",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events chess event freeze chess-2026-12-02\n"
        "  colosseum events chess event freeze smoke --lines 1 --contender stockfish-n1 "
        "--contender house-illegal --json",
    )
    freeze.add_argument("event", help="the event's name (its partition), e.g. chess-2026-12-02")
    freeze.add_argument("--contenders", default=None, help="the contenders registry (default chess.toml)")
    freeze.add_argument("--suite", default=None, help="the opening suite (default COLOSSEUM-CHESS-SUITE-1)")
    freeze.add_argument("--lines", type=int, default=12, help="the suite's first N lines (default 12)")
    freeze.add_argument("--contender", action="append", help="keep only these contender ids (repeatable)")
    freeze.add_argument(
        "--seed", type=int, default=None, help="the bootstrap's seed (default: drawn, recorded)"
    )
    freeze.add_argument("--replicates", type=int, default=1999, help="bootstrap replicates (default 1999)")
    freeze.add_argument("--data", default=None, help=DATA_HELP)
    freeze.add_argument("--json", action="store_true", help="machine-readable report")
    freeze.add_argument("-v", "--verbose", action="store_true", help="print every Dagster event")
    freeze.set_defaults(func=cmd_freeze)
    run = event.add_parser(
        "run",
        help="play every game of a frozen event and seal its standings, through the real Definitions",
        formatter_class=RAW,
        epilog="example:\n  colosseum events chess event run chess-2026-12-02 --json\n"
        "A run that stops is resumed by running it again: no move already asked is asked again.",
    )
    run.add_argument("event", help="a frozen event")
    run.add_argument("--data", default=None, help=DATA_HELP)
    run.add_argument("--json", action="store_true", help="machine-readable standings")
    run.add_argument("-v", "--verbose", action="store_true", help="print every Dagster event")
    run.set_defaults(func=cmd_run)

    game = chess.add_parser(
        "game",
        help="one game",
        formatter_class=RAW,
        epilog="example:\n  colosseum events chess game show chess-1 L01-01v02-a",
    ).add_subparsers(dest="game_action", required=True)
    show = game.add_parser(
        "show",
        help="a game's PGN, its moves and every attempt (the token, the SAN or why it was rejected)",
        formatter_class=RAW,
        epilog="example:\n  colosseum events chess game show chess-2026-12-02 L01-01v02-a",
    )
    show.add_argument("event")
    show.add_argument("game", help="the game's id, e.g. L01-01v02-a")
    show.add_argument("--data", default=None, help=DATA_HELP)
    show.add_argument("--json", action="store_true", help="machine-readable game and attempts")
    show.set_defaults(func=cmd_game)
    standings = chess.add_parser(
        "standings",
        help="the event's standings: ratings, intervals, placements, medals",
        formatter_class=RAW,
        epilog="example:\n  colosseum events chess standings chess-2026-12-02 --json",
    )
    standings.add_argument("event")
    standings.add_argument("--data", default=None, help=DATA_HELP)
    standings.add_argument("--json", action="store_true", help="machine-readable standings")
    standings.set_defaults(func=cmd_standings)
