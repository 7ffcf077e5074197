"""Card benchmark: one card end to end through the real Definitions, per step, median of several runs.

Each run is what ``colosseum forecast card run`` does: a fresh simulated exchange in a child process on
loopback, the house gladiators on the sparring server, ``card_job`` executed in-process into a fresh temporary
record, then ``catalog_job``. ``--exchange-in-process`` serves the exchange from a thread of this
process instead (how the CLI ran it before), to show what sharing one interpreter costs. The
exchange builds its board for the card's instant before the clock starts (every event listed once,
with its markets: the simulator makes each market's texts the first time it shows it), as a real
exchange's board exists before anyone sweeps it; ``--cold-exchange`` leaves all of that to the
sweep's requests, as ``colosseum forecast card run`` does. Rendering and serving the pages the sweep
asks for stays in the sweep.
Step times are read from the run's own event log (STEP_START to STEP_SUCCESS), not by instrumenting
code:

    raw_sweep          the sweep (every page stored as a receipt; includes the exchange rendering its pages)
    verbatim_markets   the verbatim copy and its independent re-check (``verbatim_matches_receipts``)
    card_status        the seal: selection, every blocking check (the copy re-checked again), the seal
    sealed_card        the sealed tables, read back and reported
    answer_card        the packet to every seat, the replies read, signed and countersigned
    duckdb_catalog     the catalog's views (its own job, as the CLI runs it)

Each timed run has a fresh spawned process of its own, as each ``colosseum forecast card run`` and
each Dagster run worker does: cards run one after another in one Python process keep native memory
that the allocator does not give back (resident memory before a 50,000-market card: about 216 MB in
a fresh process, 580 MB after one card, 750 MB after two; the Python heap stays flat), so the later
runs would measure the benchmark's history rather than a card. ``--same-process`` runs them all in
this process instead. In each run's process a small card (400 markets) runs untimed first (imports,
first-call costs) unless ``--no-warmup``; with ``--same-process`` the warm-up is one full-size card.

Targets: the whole card ≤ 10 s at 3,000 markets (the default board); at 50,000 markets the copy step
≤ 5 s, the whole card ≤ 30 s and peak memory ≤ 1.5 GB. Peak memory is ``ru_maxrss`` of the run's
process (the card, and the sparring server, which runs in it as for the CLI), or, if larger, that
process's resident memory plus that of the copy step's check process beside it, sampled every 20 ms
(Linux); the figure is the largest over the runs. The check process's own peak and the exchange's
(``VmHWM`` of its process) are printed beside it.
Every run must produce the same record: the script checks that every run's sealed packet id is the same.

    python benchmarks/card.py                    # 3,000 markets, 5 runs
    python benchmarks/card.py --markets 50000    # the large board
    python benchmarks/card.py --json             # one JSON object, for scripts
    python benchmarks/card.py --same-process     # every run in this process, as before

Exit status 0 when every run succeeded with the same packet and every target is met, else 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import dagster as dg
import httpx

from colosseum_core.arenas import sparring_houses
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_dagster.definitions import defs
from colosseum_standins.simulated_exchange import AS_OF_HEADER, exchange_process, running_exchange
from colosseum_standins.sparring import running_sparring

CARD_KEY = "2026-11-29-1000"
# The board of the warm-up card in each run's own process: large enough to touch every code path.
WARMUP_MARKETS = 400
STEPS = ("raw_sweep", "verbatim_markets", "card_status", "sealed_card", "answer_card", "duckdb_catalog")
LABELS = {
    "raw_sweep": "sweep",
    "verbatim_markets": "copy + its check",
    "card_status": "seal (selection, checks)",
    "sealed_card": "sealed tables",
    "answer_card": "answers + signatures",
    "duckdb_catalog": "catalog",
}
# (markets on the board) -> targets; a size without its own targets is held to none.
TARGETS: dict[int, dict[str, float]] = {
    3000: {"card_s": 10.0},
    50000: {"card_s": 30.0, "verbatim_markets_s": 5.0, "peak_rss_mb": 1536.0},
}


def _run_config(root: Path, gamma_url: str | None, sparring_url: str | None) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "record": {"config": {"data_dir": str(root)}},
        "io_manager": {"config": {"data_dir": str(root)}},
    }
    if gamma_url:
        resources["exchange"] = {"config": {"gamma_url": gamma_url}}
    if sparring_url:
        resources["gladiators"] = {"config": {"sparring_url": sparring_url, "timeout_s": 60.0}}
    # The console logger prints every event at DEBUG by default; the benchmark reads the event log.
    return {"resources": resources, "loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def _card_run_config(
    root: Path, gamma_url: str, sparring_url: str, check_aside_from_pages: int | None
) -> dict[str, Any]:
    config = _run_config(root, gamma_url, sparring_url)
    if check_aside_from_pages is not None:
        copy = {"config": {"check_aside_from_pages": check_aside_from_pages}}
        config["ops"] = {"forecast__verbatim_markets": copy}
    return config


def step_seconds(instance: dg.DagsterInstance, result: dg.ExecuteInProcessResult) -> dict[str, float]:
    """Each step's wall time, from its STEP_START to its STEP_SUCCESS (or failure) event.

    ``result.all_events`` carries no timestamps; the run's event log holds the same events with
    theirs, so the times are read there.
    """
    started: dict[str, float] = {}
    took: dict[str, float] = {}
    for entry in instance.all_logs(result.run_id):
        event = entry.dagster_event
        if event is None or event.step_key is None:
            continue
        # Steps are named per arena (forecast__raw_sweep); the figures keep the table's own name.
        step = event.step_key.removeprefix("forecast__")
        if event.event_type == dg.DagsterEventType.STEP_START:
            started[step] = entry.timestamp
        elif event.event_type in (dg.DagsterEventType.STEP_SUCCESS, dg.DagsterEventType.STEP_FAILURE):
            took[step] = entry.timestamp - started[step]
    return took


def _status_mb(pid: int | str, field: str) -> float | None:
    """A live process's ``field`` of ``/proc/<pid>/status`` (VmHWM: peak resident memory; VmRSS:
    resident now) in MB; None where there is none (not Linux, or the process has gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _rss_mb(pid: int | str) -> float:
    return _status_mb(pid, "VmRSS") or 0.0


def _check_children() -> list[str]:
    """This process's children that are the copy step's check
    (``colosseum_core.forecast.sweep.copy_step``)."""
    me, found = str(os.getpid()), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = stat.read_text().rsplit(")", 1)[1].split()[1]
            if parent == me and b"copy_step" in (stat.parent / "cmdline").read_bytes():
                found.append(stat.parent.name)
        except (OSError, IndexError):
            continue
    return found


@contextlib.contextmanager
def _sampled_peak(into: list[float], every_s: float = 0.02) -> Iterator[None]:
    """The peak of this process's resident memory plus its copy check process's, sampled every
    ``every_s`` (Linux; nothing elsewhere): ``ru_maxrss`` sees this process alone, and the check
    runs beside the copy in a child of its own."""
    if not Path("/proc/self/status").exists():
        yield
        return
    done = threading.Event()
    peak = [0.0]

    def sample() -> None:
        while not done.wait(every_s):
            peak[0] = max(peak[0], _rss_mb("self") + sum(map(_rss_mb, _check_children())))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield
    finally:
        done.set()
        sampler.join()
        into.append(peak[0])


def _build_board(url: str, key: str) -> None:
    """The exchange's whole board as of the card's seal, built before the clock starts.

    The simulated exchange makes its world lazily: the board's snapshot on the first request for
    an instant, and each market's texts (description, rules, event) the first time any route shows
    it, which is most of its cost of serving a page. A real exchange has both stored before anyone
    sweeps it. So every event is listed once, with its markets, through ``/events/keyset``: every
    market is made, and the ``/markets/keyset`` pages the sweep asks for are still rendered on
    request (the exchange caches rendered pages per route, and this route is not the sweep's).
    """
    seal = card_from_key(key).seal.strftime("%Y-%m-%dT%H:%M:%SZ")
    params: dict[str, str] = {"limit": "100", "closed": "false"}
    with httpx.Client(timeout=300.0, headers={AS_OF_HEADER: seal}) as client:
        while True:
            response = client.get(url + "/events/keyset", params=params)
            response.raise_for_status()
            cursor = response.json().get("next_cursor")
            if not cursor:
                return
            params["after_cursor"] = cursor


@contextlib.contextmanager
def _exchange(
    seed: int, markets: int, in_process: bool, peaks: list[float], warm_for: str | None
) -> Iterator[str]:
    """A fresh exchange's URL, its board built for ``warm_for`` first; its process's peak into ``peaks``."""
    with contextlib.ExitStack() as stack:
        if in_process:
            url, pid = stack.enter_context(running_exchange(seed=seed, markets=markets)), None
        else:
            server = stack.enter_context(exchange_process(seed=seed, markets=markets))
            url, pid = server.url, server.pid
        if warm_for:
            _build_board(url, warm_for)
        yield url
        peak = None if pid is None else _status_mb(pid, "VmHWM")
        if peak is not None:
            peaks.append(peak)


def run_once(
    key: str,
    seed: int,
    markets: int,
    sparring_url: str,
    in_process: bool = False,
    cold: bool = False,
    check_aside_from_pages: int | None = None,
) -> dict[str, Any]:
    """One card into a fresh record against a fresh exchange, then the catalog; timed."""
    exchange_peaks: list[float] = []
    card_peaks: list[float] = []
    with (
        tempfile.TemporaryDirectory(prefix="card-bench-") as tmp,
        _exchange(seed, markets, in_process, exchange_peaks, None if cold else key) as gamma_url,
        dg.instance_for_test() as instance,
    ):
        root = Path(tmp) / "data"
        started = time.perf_counter()
        with _sampled_peak(card_peaks):
            card = defs.resolve_job_def("card_job").execute_in_process(
                partition_key=key,
                run_config=_card_run_config(root, gamma_url, sparring_url, check_aside_from_pages),
                instance=instance,
                raise_on_error=False,
            )
        card_s = time.perf_counter() - started
        catalog = defs.resolve_job_def("catalog_job").execute_in_process(
            run_config=_run_config(root, None, None), instance=instance, raise_on_error=False
        )
        total_s = time.perf_counter() - started
        steps = {**step_seconds(instance, card), **step_seconds(instance, catalog)}
        tables = RecordLayout(root).tables(FORECAST)
        packet = tables.read_checked("packet", key) if card.success else None
        verbatim = tables.read_checked("verbatim_markets", key) if card.success else None
    return {
        "success": card.success and catalog.success,
        "card_s": card_s,
        "total_s": total_s,
        "steps": steps,
        "packet_id": None if packet is None else packet["packet_id"][0],
        "copied": None if verbatim is None else verbatim.height,
        "exchange_peak_mb": max(exchange_peaks, default=None),
        "card_with_check_peak_mb": max(card_peaks, default=None),
        "check_process_peak_mb": _check_process_peak(card),
    }


def _check_process_peak(result: dg.ExecuteInProcessResult) -> float | None:
    """The copy check's child process's own peak, as the check's metadata records it."""
    for evaluation in result.get_asset_check_evaluations():
        if (
            evaluation.check_name == "verbatim_matches_receipts"
            and "check_process_peak_mb" in evaluation.metadata
        ):
            return evaluation.metadata["check_process_peak_mb"].value
    return None


def peak_rss_mb() -> float:
    # Linux reports ru_maxrss in KiB (macOS in bytes).
    scale = 1 / 1024 if sys.platform != "darwin" else 1 / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def run_in_this_process(options: dict[str, Any], warmup: bool) -> dict[str, Any]:
    """One timed card with its own sparring server, after an untimed small one; with this process's peak."""
    with running_sparring(houses=sparring_houses()) as sparring_url:
        if warmup:
            run_once(**{**options, "markets": WARMUP_MARKETS}, sparring_url=sparring_url)
        result = run_once(**options, sparring_url=sparring_url)
    return {**result, "process_peak_mb": peak_rss_mb()}


def run_in_fresh_process(options: dict[str, Any], warmup: bool) -> dict[str, Any]:
    """``run_in_this_process`` in a freshly spawned interpreter (not forked: nothing of this one's memory)."""
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn, max_tasks_per_child=1) as pool:
        return pool.submit(run_in_this_process, options, warmup).result()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--markets", type=int, default=3000, help="markets on the board (default 3,000)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="exchange seed (default 0, the CLI's)")
    parser.add_argument("--card", default=CARD_KEY, help=f"card key (default {CARD_KEY})")
    parser.add_argument("--no-warmup", action="store_true", help="no untimed card before each timed one")
    parser.add_argument(
        "--same-process",
        action="store_true",
        help="every run in this process (after one full-size warm-up) rather than a fresh process each",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument(
        "--check-aside-from-pages",
        type=int,
        metavar="N",
        help="the copy step's check_aside_from_pages (default: the asset's own); 1 always reads the "
        "check's pages in a separate process, a large N never",
    )
    parser.add_argument(
        "--exchange-in-process", action="store_true", help="serve the exchange from a thread of this process"
    )
    parser.add_argument(
        "--cold-exchange", action="store_true", help="leave building the board and its markets to the sweep"
    )
    args = parser.parse_args(argv)

    options: dict[str, Any] = {
        "key": args.card,
        "seed": args.seed,
        "markets": args.markets,
        "in_process": args.exchange_in_process,
        "cold": args.cold_exchange,
        "check_aside_from_pages": args.check_aside_from_pages,
    }

    def progress(index: int, r: dict[str, Any]) -> None:
        if not args.json:
            print(
                f"  run {index + 1}: card {r['card_s']:6.2f} s, with catalog {r['total_s']:6.2f} s, "
                f"peak {r['process_peak_mb']:6.0f} MB{'' if r['success'] else '  FAILED'}",
                file=sys.stderr,
            )

    runs = []
    if args.same_process:
        with running_sparring(houses=sparring_houses()) as sparring_url:
            if not args.no_warmup:
                run_once(**options, sparring_url=sparring_url)
            for index in range(args.runs):
                result = run_once(**options, sparring_url=sparring_url)
                runs.append({**result, "process_peak_mb": peak_rss_mb()})
                progress(index, runs[-1])
    else:
        for index in range(args.runs):
            runs.append(run_in_fresh_process(options, warmup=not args.no_warmup))
            progress(index, runs[-1])
    # Each run's process at its peak (in one process, ru_maxrss only grows: the last run's).
    own_peak = max((r["process_peak_mb"] for r in runs), default=0.0)
    # The target holds the larger: this process alone at its peak, or with its check process beside it.
    sampled = max((r["card_with_check_peak_mb"] or 0 for r in runs), default=0.0)
    check_peak = max((r["check_process_peak_mb"] or 0 for r in runs), default=0.0)
    peak = max(own_peak, sampled)

    def median(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    card_s = median([r["card_s"] for r in runs])
    total_s = median([r["total_s"] for r in runs])
    steps = {step: median([r["steps"][step] for r in runs if step in r["steps"]]) for step in STEPS}
    in_steps = sum(steps[s] for s in STEPS if s != "duckdb_catalog")
    packets = {r["packet_id"] for r in runs}
    same = len(packets) == 1 and None not in packets and all(r["success"] for r in runs)
    targets = TARGETS.get(args.markets, {})
    figures = {"card_s": card_s, "peak_rss_mb": peak, **{f"{s}_s": v for s, v in steps.items()}}
    met = {name: figures[name] <= limit for name, limit in targets.items()}
    report = {
        "card": args.card,
        "markets_on_board": args.markets,
        "copied": runs[0]["copied"] if runs else None,
        "runs": args.runs,
        "card_median_s": round(card_s, 3),
        "with_catalog_median_s": round(total_s, 3),
        "steps_median_s": {s: round(v, 3) for s, v in steps.items()},
        "dagster_outside_steps_s": round(card_s - in_steps, 3),
        "card_s_each": [round(r["card_s"], 3) for r in runs],
        "peak_rss_mb": round(peak, 1),
        "peak_memory_measure": "the larger of ru_maxrss of the run's process (the card; sparring "
        "in-process"
        + (", exchange in-process)" if args.exchange_in_process else "; exchange in its own process)")
        + " and its resident memory plus the copy check process's, sampled every 20 ms; the largest "
        "over the runs",
        "run_processes": "this process" if args.same_process else "a fresh process for each run",
        "peak_rss_mb_each": [round(r["process_peak_mb"], 1) for r in runs],
        "own_peak_rss_mb": round(own_peak, 1),
        "card_with_check_peak_mb": round(sampled, 1) or None,
        "check_process_peak_mb": round(check_peak, 1) or None,
        "exchange": "in-process" if args.exchange_in_process else "child process",
        "exchange_board_built_before_timing": not args.cold_exchange,
        "check_aside_from_pages": args.check_aside_from_pages,
        "exchange_peak_mb": max((r["exchange_peak_mb"] or 0 for r in runs), default=None) or None,
        "same_packet_every_run": same,
        "packet_id": next(iter(packets)) if len(packets) == 1 else None,
        "targets": targets,
        "targets_met": met,
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"card {args.card}: board of {args.markets:,} markets, {report['copied']:,} copied; "
            f"median of {args.runs} runs (each: fresh exchange, fresh record, "
            f"{'this process' if args.same_process else 'fresh process'})"
        )
        for step in STEPS:
            share = steps[step] / total_s * 100
            print(f"  {LABELS[step]:<26} {step:<17} {steps[step]:7.2f} s  {share:5.1f} %")
        outside = card_s - in_steps
        print(f"  {'dagster, outside steps':<26} {'':<17} {outside:7.2f} s  {outside / total_s * 100:5.1f} %")
        print(
            f"  {'card (card_job)':<44} {card_s:7.2f} s   each: {', '.join(map(str, report['card_s_each']))}"
        )
        print(f"  {'card + catalog':<44} {total_s:7.2f} s")
        each = ", ".join(f"{r['process_peak_mb']:.0f}" for r in runs)
        print(f"  {'peak memory (ru_maxrss)':<44} {own_peak:7.0f} MB   each: {each}")
        if sampled:
            print(
                f"  {'  with the copy check process beside it':<44} {sampled:7.0f} MB (sampled every 20 ms)"
            )
        if check_peak:
            print(f"  {'the copy check process, peak':<44} {check_peak:7.0f} MB")
        if report["exchange_peak_mb"]:
            print(f"  {'the exchange process, peak (VmHWM)':<44} {report['exchange_peak_mb']:7.0f} MB")
        print(f"  same packet every run: {'yes' if same else 'NO'} ({report['packet_id']})")
        for name, limit in targets.items():
            unit = "MB" if name.endswith("_mb") else "s"
            verdict = "met" if met[name] else "MISSED"
            print(f"  target {name:<22} ≤ {limit:g} {unit}: {figures[name]:.2f} {unit}  {verdict}")
    return 0 if same and all(met.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
