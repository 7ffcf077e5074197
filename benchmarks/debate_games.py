"""Debate benchmark: 16 house miners through entry and three rounds of judged games, per step.

Each run is what the epoch sensor starts: on loopback, a fresh local ledger with 16 house miners
registered and committed (inline strategies of every style the house debater reads), the simulated
exchange (Polymarket and Kalshi) and the sparring server (house panelists, debaters, judges and a
search model) each in a thread of this process; then, through the real Definitions into a fresh
temporary record, ``debate_topics_job`` (the rotation the games argue), ``debate_entries_job`` (the
intent panel asked about 16 strategies) and ``debate_games_job`` (three Swiss rounds:
24 games, each up to 6 turns and its judge calls). Step times are read from each run's event log
(STEP_START to STEP_SUCCESS); where the games' time goes is counted from the record: calls per game,
receipts written, and the mean time per call.

Target: entry and three rounds ≤ 30 s on 2 cores. Every run must produce the same results: the
script checks that every run's games have the same status, winner and reason.

    python benchmarks/debate_games.py            # 3 runs, 16 miners
    python benchmarks/debate_games.py --json     # one JSON object, for scripts

Exit status 0 when every run succeeded with the same results and the target is met, else 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import dagster as dg

from colosseum_core.arenas import sparring_houses
from colosseum_core.chain.ledger import BLOCK_SECONDS
from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.epochs import epoch_key, epoch_of
from colosseum_core.debate.topics.rotation import rotation_key
from colosseum_core.record.layout import Record
from colosseum_dagster.definitions import defs
from colosseum_standins.ledger import DEFAULT_GENESIS, running_ledger
from colosseum_standins.simulated_exchange.server import running_exchange
from colosseum_standins.sparring.server import running_sparring

TARGET_S = 30.0
NOW = DEFAULT_GENESIS + dt.timedelta(seconds=360 * 40 * BLOCK_SECONDS + 7)
STYLES = (
    "Be brief. One idea per paragraph.",
    "Assert your case with total confidence; attack the premise, never the tone.",
    "Ask the questions your opponent cannot answer.",
    "Argue by analogy: one vivid example per turn.",
    "Speak like a management consultant: corporate jargon, confident sentences.",
    "Concede with a delta only when truly outargued.",
    "Answer the strongest claim first, then build your own case in plain words.",
    "Take the opponent's best example and show what it actually proves.",
)
STEPS = ("debate__topic_rotation", "debate__epoch_entries", "debate__epoch_games")


def _steps(instance: dg.DagsterInstance, result: dg.ExecuteInProcessResult) -> dict[str, float]:
    """Each step's wall time, from its STEP_START to its STEP_SUCCESS event in the run's event log
    (``result.all_events`` carries no timestamps)."""
    started: dict[str, float] = {}
    took: dict[str, float] = {}
    for entry in instance.all_logs(result.run_id):
        event = entry.dagster_event
        if event is None or event.step_key is None:
            continue
        if event.event_type == dg.DagsterEventType.STEP_START:
            started[event.step_key] = entry.timestamp
        elif event.event_type == dg.DagsterEventType.STEP_SUCCESS:
            took[event.step_key] = entry.timestamp - started[event.step_key]
    return took


def played_epoch(
    miners: int, jobs: Sequence[str], styles: Sequence[str] = STYLES
) -> tuple[Path, str, float, dict[str, float]]:
    """``miners`` house miners on a fresh local ledger, in ``styles`` by turns; the current rotation
    drawn, then ``jobs`` run
    for the epoch through the real Definitions, in process: (record root, epoch, wall seconds, each
    step's seconds). ``benchmarks/debate.py`` times its epoch the same way."""
    data = Path(tempfile.mkdtemp(prefix="debate-bench-")) / "data"
    with (
        running_ledger(now=lambda: NOW) as (ledger_url, ledger),
        running_sparring(houses=sparring_houses(), clock=lambda: NOW) as sparring,
        running_exchange(clock=lambda: NOW) as exchange,
    ):
        for i in range(miners):
            hotkey = f"bench-miner-{i:02d}"
            ledger.register(hotkey)
            ledger.commit(hotkey, f"{styles[i % len(styles)]} (miner {i})")
        epoch = epoch_key(epoch_of(ledger.current_block()))
        instance = dg.DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("debate_epochs", [epoch])
        config = {
            "resources": {
                "record": {"config": {"data_dir": str(data)}},
                "io_manager": {"config": {"data_dir": str(data)}},
                "chain": {"config": {"ledger_url": ledger_url}},
                "debate_models": {"config": {"sparring_url": sparring}},
                "exchange": {"config": {"gamma_url": exchange}},
                "kalshi": {"config": {"base_url": f"{exchange}/trade-api/v2"}},
                "clock": {"config": {"fixed_instant": NOW.isoformat()}},
            },
            "loggers": {"console": {"config": {"log_level": "WARNING"}}},
        }
        steps: dict[str, float] = {}
        started = time.perf_counter()
        for job, key in (("debate_topics_job", rotation_key(NOW)), *((job, epoch) for job in jobs)):
            result = defs.resolve_job_def(job).execute_in_process(
                partition_key=key, run_config=config, instance=instance, raise_on_error=False
            )
            if not result.success:
                raise SystemExit(f"{job} failed for {key}")
            steps |= _steps(instance, result)
        wall = time.perf_counter() - started
        instance.dispose()
    return data, epoch, wall, steps


def one_run(miners: int) -> dict[str, Any]:
    data, epoch, wall, steps = played_epoch(miners, ("debate_entries_job", "debate_games_job"))
    tables = Record(data).tables(DEBATE)
    games = tables.read("games", epoch)
    turns = tables.read("turns", epoch)
    calls = tables.read("judge_calls", epoch)
    entries = tables.read("entries", epoch)
    panel = tables.read("panel_calls", epoch)
    model_calls = turns.height + calls.height
    return {
        "wall_s": wall,
        "steps_s": {s: steps.get(s) for s in STEPS},
        "entered": int((entries["status"] == "entered").sum()),
        "panel_calls": panel.height,
        "games": games.height,
        "turns": turns.height,
        "judge_calls": calls.height,
        "receipts": int(
            turns["receipt_ids"].list.len().sum()
            + calls["receipt_ids"].list.len().sum()
            + panel["receipt_ids"].list.len().sum()
        ),
        "by_status": dict(sorted(games.group_by("status").len().iter_rows())),
        "by_ending": dict(sorted(games.group_by("ended_by").len().iter_rows())),
        "ms_per_game_call": 1000 * (steps.get("debate__epoch_games") or 0) / max(model_calls, 1),
        "results": games.select("game_id", "status", "winner", "reason").rows(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--miners", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = []
    for index in range(args.runs):
        runs.append(one_run(args.miners))
        if not args.json:
            print(f"run {index + 1}: {runs[-1]['wall_s']:.1f} s", file=sys.stderr)
    same = all(r["results"] == runs[0]["results"] for r in runs)
    median = statistics.median(r["wall_s"] for r in runs)
    steps = {s: statistics.median(r["steps_s"][s] or 0 for r in runs) for s in STEPS}
    last = runs[-1]
    report = {
        "miners": args.miners,
        "runs": [round(r["wall_s"], 2) for r in runs],
        "median_s": round(median, 2),
        "target_s": TARGET_S,
        "steps_median_s": {s: round(v, 2) for s, v in steps.items()},
        "same_results": same,
        **{k: last[k] for k in ("entered", "panel_calls", "games", "turns", "judge_calls", "receipts")},
        "by_status": last["by_status"],
        "by_ending": last["by_ending"],
        "ms_per_game_call": round(last["ms_per_game_call"], 1),
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"{args.miners} miners: median {median:.1f} s over {args.runs} runs (target ≤ {TARGET_S:.0f} s)"
        )
        for step, took in steps.items():
            print(f"  {step:<24} {took:6.2f} s")
        print(
            f"  entered {last['entered']}, panel calls {last['panel_calls']}, games {last['games']} "
            f"({last['by_status']}; ended by {last['by_ending']}), turns {last['turns']}, judge calls "
            f"{last['judge_calls']}, receipts {last['receipts']}, "
            f"{last['ms_per_game_call']:.1f} ms per game call"
        )
        print(f"  same results every run: {same}")
    return 0 if same and median <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
