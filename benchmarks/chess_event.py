"""Chess event benchmark: an event of 8 contenders on 12 lines end to end, and its Davidson fit.

(a) One event through the real Definitions (the CLI's ``event freeze`` and ``event run``: the
    chess_freeze_job and the chess_event_job) on a fresh record: 8 contenders (three house
    stand-ins for the model contenders, the illegal-move house player, Stockfish at 1, 100, 1,000
    and 10,000 nodes) × 12 lines × 2 colours = 672 games, house players on the sparring server on
    loopback, Stockfish on 2 processes; target ≤ 10 minutes on 2 cores. Where the time goes: every
    attempt's latency summed by kind of player (model: the HTTP call to the sparring server with
    its receipt and journal; engine: the Stockfish search), beside the wall time of the games and
    of the standings step.
(b) The event's standings (CHESS-RATINGS-1: Davidson with 1,999 game-pair bootstrap replicates,
    twice: all games and without forfeits) re-fitted from its games; target ≤ 1 s. Baseline beside
    it: the point fit alone, once.
(c) The event's part of the public site (``events.site.build``: the standings, every game's page with
    a board after every move, the downloads) built, then read back against the record (rebuilt and
    compared byte for byte): the seconds of each, the files and the bytes. No target is named; the
    figures say what an event of this size costs the board.

    python benchmarks/chess_event.py            # all three
    python benchmarks/chess_event.py --lines 2  # a smaller event (112 games)
    python benchmarks/chess_event.py --json

Exit status 0 when every target is met, else 1. Needs the [chess] extra and Debian's stockfish. (Not
``benchmarks/chess.py``: run as a script, that name would shadow python-chess itself.)
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.chess import players
from colosseum_core.events.chess.run import event_standings, frozen_manifest
from colosseum_core.events.chess.standings import fit_games
from colosseum_core.record.layout import Record
from colosseum_core.statistics import BootstrapSpec
from colosseum_dagster.cli import main

CONTENDERS = [
    "openai-frontier",
    "anthropic-frontier",
    "google-frontier",
    "house-illegal",
    "stockfish-n1",
    "stockfish-n100",
    "stockfish-n1000",
    "stockfish-n10000",
]
EVENT_TARGET_S = 600.0
FIT_TARGET_S = 1.0


def _timed_answers(spent: dict[str, list[float]]) -> None:
    """Sum every attempt's latency by kind of player (a benchmark's instrument, not the event's)."""
    for cls in (players.ModelPlayer, players.EnginePlayer):
        original = cls.answer

        async def answer(self: Any, request: Any, _original: Any = original) -> Any:
            started = time.perf_counter()
            try:
                return await _original(self, request)
            finally:
                spent[self.kind].append(time.perf_counter() - started)

        cls.answer = answer  # type: ignore[method-assign]


def cli(*argv: str) -> None:
    try:
        main(list(argv))
    except SystemExit as exc:
        if exc.code:
            raise RuntimeError(f"colosseum {' '.join(argv)} exited {exc.code}") from None


def run_event(data: Path, lines: int) -> dict[str, Any]:
    spent: dict[str, list[float]] = collections.defaultdict(list)
    _timed_answers(spent)
    freeze = [
        "events",
        "chess",
        "event",
        "freeze",
        "bench",
        "--lines",
        str(lines),
        "--seed",
        "1",
        "--data",
        str(data),
    ]
    for contender in CONTENDERS:
        freeze += ["--contender", contender]
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        cli(*freeze)
    frozen_s = time.perf_counter() - started
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        cli("events", "chess", "event", "run", "bench", "--data", str(data))
    run_s = time.perf_counter() - started
    tables = Record(data).tables(EVENTS)
    games, moves = tables.read("chess_games", "bench"), tables.read("chess_moves", "bench")
    return {
        "games": games.height,
        "attempts": moves.height,
        "plies": int(games["plies"].sum()),
        "freeze_s": round(frozen_s, 2),
        "run_s": round(run_s, 2),
        "answer_s_by_kind": {k: round(sum(v), 1) for k, v in spent.items()},
        "answers_by_kind": {k: len(v) for k, v in spent.items()},
        "mean_answer_ms_by_kind": {k: round(1000 * statistics.fmean(v), 2) for k, v in spent.items() if v},
        "ended_by": dict(collections.Counter(games["ended_by"].to_list())),
    }


def time_fits(data: Path, runs: int) -> dict[str, Any]:
    tables = Record(data).tables(EVENTS)
    frozen = frozen_manifest(tables.read("event_manifests", "bench"), "bench")
    games, moves = tables.read("chess_games", "bench"), tables.read("chess_moves", "bench")
    contenders = [c["id"] for c in frozen.document["contenders"]]
    event_standings(frozen, games, moves)  # warm-up
    full, point = [], []
    for _ in range(runs):
        started = time.perf_counter()
        event_standings(frozen, games, moves)
        full.append(time.perf_counter() - started)
        started = time.perf_counter()
        fit_games(games, contenders, BootstrapSpec(seed=1, replicates=1))
        point.append(time.perf_counter() - started)
    return {
        "standings_s": round(statistics.median(full), 3),
        "point_fit_s": round(statistics.median(point), 3),
    }


def time_site(data: Path) -> dict[str, Any]:
    from colosseum_core.events.site.build import build_events_site
    from colosseum_core.events.site.check import events_site_problems

    tables = Record(data).tables(EVENTS)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        started = time.perf_counter()
        report = build_events_site(tables, out, built_at="2026-12-02T00:00:00Z")
        built_s = time.perf_counter() - started
        started = time.perf_counter()
        problems = events_site_problems(out, tables)
        checked_s = time.perf_counter() - started
    return {
        "files": report.files,
        "megabytes": round(report.bytes / 1e6, 1),
        "build_s": round(built_s, 1),
        "check_s": round(checked_s, 1),
        "problems": len(problems),
    }


def main_benchmark() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=12, help="lines of the suite (default 12: 672 games)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of the fit (median)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        event = run_event(data, args.lines)
        fits = time_fits(data, args.runs)
        site = time_site(data)
    report = {"load_average": os.getloadavg(), "event": event, "fits": fits, "site": site}
    met = event["run_s"] <= EVENT_TARGET_S and fits["standings_s"] <= FIT_TARGET_S and not site["problems"]
    if args.json:
        print(json.dumps({**report, "targets_met": met}, indent=1))
        return 0 if met else 1
    print(f"load average {report['load_average']}")
    print(
        f"(a) event: {event['games']} games, {event['plies']:,} plies, {event['attempts']:,} attempts; "
        f"freeze {event['freeze_s']} s, run {event['run_s']} s (target ≤ {EVENT_TARGET_S:.0f} s)"
    )
    for kind, total in event["answer_s_by_kind"].items():
        print(
            f"    {kind} answers: {event['answers_by_kind'][kind]:,}, {total} s summed over games, "
            f"{event['mean_answer_ms_by_kind'].get(kind)} ms each"
        )
    print(f"    ended by: {event['ended_by']}")
    print(
        f"(b) standings (two Davidson fits, 1,999 replicates each): {fits['standings_s']} s "
        f"(target ≤ {FIT_TARGET_S} s); baseline, the point fit alone: {fits['point_fit_s']} s"
    )
    print(
        f"(c) the events board: {site['files']:,} files, {site['megabytes']} MB, built in "
        f"{site['build_s']} s, read back in {site['check_s']} s ({site['problems']} problems)"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main_benchmark())
