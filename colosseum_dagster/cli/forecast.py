"""``colosseum forecast …``: the forecasting arena's cards, sweeps, settlements and boards."""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import replace as dataclasses_replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colosseum_core.interrupts import run_async
from colosseum_core.settings import GAMMA_URL_ENV
from colosseum_dagster.cli.arguments import RUN_VERBOSE_HELP, add_record_options, command, command_group
from colosseum_dagster.cli.common import (
    UserError,
    catalog_word,
    dagster_instance,
    data_home,
    exchange_for_run,
    execute_job,
    failure_messages,
    listening,
    record_root,
    refresh_catalog,
    resource_config,
    shown,
    sparring_for_run,
    sweep_progress,
    utc,
)

if TYPE_CHECKING:
    from colosseum_core.trial import TrialRequest


def cmd_sweep(args: argparse.Namespace) -> int:
    from colosseum_core.exchanges.polymarket.client import SweepSettings
    from colosseum_core.forecast.schedule import SWEEP_HORIZON
    from colosseum_core.forecast.sweep.card_sweep import run_sweep
    from colosseum_core.record import ReceiptStore
    from colosseum_core.record.atomic import write_bytes_atomic

    listening(args.base_url, "exchange", "start `colosseum exchange serve`, or give its --base-url")
    out = Path(args.out)
    receipts = ReceiptStore(out)
    settings = SweepSettings(base_url=args.base_url.rstrip("/"), shards=args.shards, timeout_s=args.timeout)
    at: dt.datetime = args.at
    print(f"sweeping {settings.base_url} as of {at.isoformat()} into {out}", file=sys.stderr)
    result = run_async(
        run_sweep(
            settings,
            receipts,
            as_of=at,
            window=(at, at + SWEEP_HORIZON),
            clock=lambda: dt.datetime.now(dt.UTC),
            rng=random.Random(f"sweep:{at.isoformat()}"),
            progress=None if args.quiet else sweep_progress(),
        )
    )
    if not args.quiet:
        print(file=sys.stderr)
    summary = result.summary()
    manifest = {
        **summary,
        "base_url": result.base_url,
        "as_of": at.isoformat(),
        "window": [at.isoformat(), (at + SWEEP_HORIZON).isoformat()],
        "started_at": result.started_at,
        "ended_at": result.ended_at,
        "page_receipt_ids": result.page_receipt_ids,
        "requests_log": [
            {k: v for k, v in vars(r).items() if k != "params"} | {"params": [list(p) for p in r.params]}
            for r in result.requests_log
        ],
    }
    write_bytes_atomic(out / "sweep.json", json.dumps(manifest, indent=1).encode())
    print(json.dumps(summary))
    return 0 if result.complete else 3


def _card_keys(spec: Sequence[str]) -> list[str]:
    """The cards a command names: keys of past seals, or ``latest``; anything else is a user error."""
    from colosseum_core.forecast.schedule import CARD_TIMEZONE, card_for_instant, card_from_key

    now = dt.datetime.now(dt.UTC)
    keys = []
    for key in spec:
        if key == "latest":
            keys.append(card_for_instant(now).key)
            continue
        try:
            card = card_from_key(key)
        except ValueError as exc:
            raise UserError(f"{exc} (for example 2026-11-29-1000, or latest)") from None
        if card.seal > now:
            local = card.seal.astimezone(CARD_TIMEZONE)
            raise UserError(
                f"{key} seals on {local:%A %d %B %Y at %H:%M} New York time "
                f"({card.seal:%Y-%m-%dT%H:%M:%SZ}); nothing to run yet"
            )
        keys.append(card.key)
    return keys


def cmd_card_run(args: argparse.Namespace) -> int:
    from colosseum_core.forecast.arena import FORECAST
    from colosseum_core.record.layout import LegacyLayoutError, Record
    from colosseum_core.record.locks import partition_lock

    root = data_home(args.data)
    keys = _card_keys(args.keys)
    from colosseum_dagster.arena_definitions import job_definition
    from colosseum_dagster.progress import logger_config

    instance = dagster_instance()
    try:
        Record(root).check_layout()
    except LegacyLayoutError as exc:
        raise UserError(str(exc)) from None
    locks = Record(root).locks
    summaries = []
    with (
        exchange_for_run(args.exchange, args.seed, args.markets) as base_url,
        sparring_for_run(arenas=(FORECAST.name,)) as sparring_url,
    ):
        # Passed as run config, not through the environment: the CLI may run inside a longer process.
        resources = resource_config(root, base_url)
        resources["gladiators"] = {"config": {"sparring_url": sparring_url}}
        for key in keys:
            holder = locks.holder(partition_lock(FORECAST.partition, key))
            if holder is not None:
                # Said before starting anything; the run's own lock would refuse it all the same.
                message = f"card {key} is being written by {holder.describe()}; not started"
                print(f"card {key}: refused: {message}", file=sys.stderr)
                summaries.append({"card": key, "success": False, "status": "refused", "failures": [message]})
                continue
            print(f"card {key}: running card_job against {base_url}", file=sys.stderr)
            started = time.monotonic()
            result = execute_job(
                job_definition("card_job"),
                instance=instance,
                partition_key=key,
                run_config={"resources": resources, **logger_config(args.verbose, step_words())},
            )
            summaries.append(_card_summary(key, result, time.monotonic() - started))
    catalog = refresh_catalog(root, args.verbose)
    report = {"cards": summaries, "catalog": catalog.success, "data": str(root)}
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    else:
        for s in summaries:
            print(_card_line(s))
        print(f"record: {report['data']} (duckdb {catalog_word(catalog)})")
    return 0 if all(s["success"] for s in summaries) and catalog.success else 1


def seal_latest_card(request: TrialRequest) -> None:
    """A trial's prerequisite (``colosseum_dagster.cli.trial``): the latest card run through
    ``card_job`` in this process, as ``colosseum forecast card run latest`` runs it (the configured
    exchange, else a simulated one), so the trial seat has a sealed packet to answer; TrialError
    naming the card and why when it does not seal."""
    import contextlib
    import io

    from colosseum_core.trial import TrialError

    args = argparse.Namespace(
        keys=["latest"],
        exchange=None,
        seed=0,
        markets=3000,
        data=str(request.data_dir),
        json=True,
        verbose=False,
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cmd_card_run(args)
    cards = json.loads(out.getvalue())["cards"]
    for card in cards:
        request.progress(f"forecast: card {card['card']}: {card['status']} in {card.get('seconds', 0):.1f}s")
    if code != 0 or not all(c["success"] and c["status"] == "sealed" for c in cards):
        why = "; ".join(
            f"card {c['card']} {c['status']}: {'; '.join(c.get('failures') or [])}" for c in cards
        )
        raise TrialError(
            f"forecast trial: the latest card did not seal, so there is nothing to answer ({why})"
        )


def _card_line(s: dict[str, Any]) -> str:
    """One card's outcome, in words."""
    head = f"card {s['card']}:"
    if s["status"] in ("refused", "failed"):
        why = "; ".join(s.get("failures") or ["see the run's log"])
        return f"{head} {s['status'].upper()}: {why}"
    sweep = "complete" if s.get("complete") else f"PARTIAL ({shown(s.get('reason'))})"
    swept = (
        f"sweep {sweep}, {s.get('pages')} pages, {s.get('requests')} requests; {s.get('markets')} markets "
        f"copied, {s.get('copy_errors')} copy errors"
    )
    if s["status"] == "missed":
        return (
            f"{head} MISSED in {s['seconds']:.1f}s: overtaken by card {s.get('overtaken_by')}, which sealed "
            f"first; {swept}; it never seals"
        )
    again = " (re-derived, byte for byte)" if s.get("reproduced") else ""
    seats = ", ".join(f"{n} {status}" for status, n in sorted((s.get("seats") or {}).items())) or "none"
    asked = s.get("asked_in_this_run")
    return (
        f"{head} sealed{again} in {s['seconds']:.1f}s; {swept}; verbatim check "
        f"{'passed' if s.get('verbatim_check') else 'FAILED'}; {s.get('questions')} questions; seats: "
        f"{seats}" + (f" ({asked} asked in this run)" if asked is not None else "")
    )


def _card_summary(key: str, result: Any, seconds: float) -> dict[str, Any]:
    summary: dict[str, Any] = {"card": key, "success": result.success, "seconds": round(seconds, 2)}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        meta = {k: getattr(v, "value", v) for k, v in mat.metadata.items()}
        name = mat.asset_key.path[-1]
        if name == "raw_sweep":
            summary.update({k: meta.get(k) for k in ("complete", "reason", "pages", "requests", "receipts")})
        elif name == "verbatim_markets":
            summary.update({"markets": meta.get("markets"), "copy_errors": meta.get("copy_errors")})
        elif name == "card_status":
            summary.update(
                {k: meta.get(k) for k in ("status", "overtaken_by", "reproduced", "questions", "packet_id")}
            )
        elif name == "answers":
            summary["seats"] = {
                k.removeprefix("seats_"): v for k, v in meta.items() if k.startswith("seats_")
            }
            summary["asked_in_this_run"] = meta.get("asked_in_this_run")
    for evaluation in result.get_asset_check_evaluations():
        if evaluation.check_name == "verbatim_matches_receipts":
            summary["verbatim_check"] = evaluation.passed
    if not result.success:
        summary["status"] = "failed"
        summary["failures"] = failure_messages(result)
    summary.setdefault("status", "failed")
    return summary


def cmd_settle(args: argparse.Namespace) -> int:
    """Tick the real settlement sensor until every waiting market was asked about once; run what it asks."""
    import dagster as dg

    from colosseum_core.forecast.settlement.watch import DEFAULT_BATCH, WatchState
    from colosseum_dagster.definitions import defs
    from colosseum_dagster.progress import logger_config
    from colosseum_dagster.resources import ClockResource, ExchangeResource, RecordResource

    root = record_root(args.data)
    talk = logger_config(args.verbose, step_words())
    instance = dagster_instance()
    sensor = defs.resolve_sensor_def("settlement_sensor")
    with exchange_for_run(args.exchange, args.seed, args.markets) as base_url:
        resources = {
            "record": RecordResource(data_dir=str(root)),
            "exchange": ExchangeResource(gamma_url=base_url),
            "clock": ClockResource(fixed_instant=args.at.isoformat() if args.at else None),
        }
        cursor: str | None = None
        requests: dict[str, Any] = {}
        ticks, tick_count = 0, 1
        while ticks < tick_count:
            context = dg.build_sensor_context(
                instance=instance, resources=resources, definitions=defs, cursor=cursor
            )
            tick = sensor.evaluate_tick(context)
            cursor = tick.cursor
            for request in tick.run_requests or []:
                requests.setdefault(request.run_key, request)
            state = WatchState.from_cursor(cursor)
            pending = state.pending if state is not None else {}
            if ticks == 0:
                # One tick asks about one batch; enough ticks to ask about every waiting market once.
                tick_count = max(1, math.ceil(sum(len(m) for m in pending.values()) / DEFAULT_BATCH))
            ticks += 1
            print(
                f"settle: tick {ticks}/{tick_count}: {len(pending)} cards waiting, {len(requests)} with news",
                file=sys.stderr,
            )
    runs = []
    for request in sorted(requests.values(), key=lambda r: r.partition_key):
        print(
            f"card {request.partition_key}: settling ({request.tags.get('colosseum/news')} news)",
            file=sys.stderr,
        )
        config = {**request.run_config, "resources": resource_config(root, None), **talk}
        result = execute_job(
            defs.resolve_job_def("settlement_job"),
            instance=instance,
            partition_key=request.partition_key,
            run_config=config,
        )
        runs.append(
            {"card": request.partition_key, "success": result.success, "failures": failure_messages(result)}
        )
    unpartitioned = {"resources": resource_config(root, None), **talk}
    boards: dict[str, Any] | None = None
    if runs:
        result = execute_job(
            defs.resolve_job_def("leaderboard_job"), instance=instance, run_config=unpartitioned
        )
        boards = {"success": result.success, "failures": failure_messages(result)}
    refreshed = refresh_catalog(root, args.verbose)
    catalog = {"success": refreshed.success, "failures": list(refreshed.failures)}
    report = {"settled_cards": runs, "leaderboard": boards, "catalog": catalog, "data": str(root)}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for run in runs:
            why = "; ".join(run["failures"])
            print(f"card {run['card']}: settlement {'ok' if run['success'] else 'FAILED: ' + why}")
        if boards is not None:
            why = "; ".join(boards["failures"])
            print(f"leaderboard: {'recomputed' if boards['success'] else 'FAILED: ' + why}")
        if not runs:
            print("settle: nothing new has settled")
        print(f"record: {root} (duckdb {catalog_word(refreshed)})")
    ok = all(r["success"] for r in runs) and (boards is None or boards["success"]) and catalog["success"]
    return 0 if ok else 1


def cmd_leaderboard(args: argparse.Namespace) -> int:
    import polars as pl

    from colosseum_core.forecast.arena import FORECAST
    from colosseum_core.record.layout import Record

    tables = Record(record_root(args.data)).tables(FORECAST)
    if not tables.exists("leaderboard"):
        raise UserError("no leaderboard yet: settle some cards first (colosseum forecast settle)")
    board = (
        tables.read("leaderboard")
        .filter((pl.col("kind") == args.kind.upper()) & (pl.col("entrant_type") == args.by))
        .sort("crown", "entrant", descending=[True, False])
    )
    if args.json:
        print(json.dumps(board.drop("id").to_dicts(), indent=1, default=str))
        return 0
    print(f"{args.kind.upper()} by {args.by} ({board.height} rows)")
    for r in board.iter_rows(named=True):
        sharp = (
            "      —"
            if r["sharp"] is None
            else f"{r['sharp']:6.1f} [{r['sharp_low']:5.1f},{r['sharp_high']:5.1f}]"
        )
        edge = "—" if r["edge"] is None else f"{r['edge']:+.4f} [{r['edge_low']:+.4f},{r['edge_high']:+.4f}]"
        print(
            f"{shown(r['entrant']):<28} n={r['n']:<5} RECORD {r['record']:+5d}  SHARP {sharp}  EDGE {edge}  "
            f"CROWN {r['crown']:+5d}  forfeits {r['forfeits']}  bad formatting {r['bad_formatting']}  "
            f"voids {r['voids']}{'  EARLY' if r['early'] else ''}"
        )
    return 0


def cmd_select(args: argparse.Namespace) -> int:
    import polars as pl

    from colosseum_core.forecast.schedule import card_for_instant
    from colosseum_core.forecast.sealing.card import rank_candidates
    from colosseum_core.forecast.selection.rotation import rotate
    from colosseum_core.forecast.sweep.copy import copy_markets
    from colosseum_core.record import ReceiptStore

    receipts_dir = Path(args.receipts)
    if not receipts_dir.is_dir():
        raise UserError(
            f"--receipts {receipts_dir} does not exist (write one with `colosseum forecast sweep --out`)"
        )
    store = ReceiptStore(receipts_dir)
    manifest_path = receipts_dir / "sweep.json"
    if manifest_path.exists():
        page_ids = json.loads(manifest_path.read_text())["page_receipt_ids"]
    else:
        page_ids = [rid for rid in store.ids() if store.get(rid).status == 200]
        print(
            f"no sweep.json in {receipts_dir}: reading all {len(page_ids)} HTTP 200 receipts", file=sys.stderr
        )
    if not page_ids:
        raise UserError(f"{receipts_dir} holds no receipts of a sweep's pages: nothing to select from")
    if args.history and not glob.glob(args.history):
        raise UserError(f"--history {args.history} matches no file")
    seal: dt.datetime = args.seal
    card = card_for_instant(seal)
    if card.seal != seal:
        print(
            f"note: {seal.isoformat()} is not a card seal; labels use card {card.key}'s rotation",
            file=sys.stderr,
        )
    copied = copy_markets(card.key, page_ids, store)
    history = pl.read_parquet(args.history) if args.history else None
    ranked = rank_candidates(dataclasses_replace(card, seal=seal), copied.markets, copied.errors, history)
    labels = dict(rotate(ranked.selection.card, card.day_number).select("market_id", "label").iter_rows())
    for row in ranked.verdicts.iter_rows(named=True):
        print(
            json.dumps(
                {
                    "market_id": row["market_id"],
                    "verdict": row["verdict"],
                    "rule": row["rule"],
                    "value": row["value"],
                    "rank": row["rank"],
                    "place": row["place"],
                    "label": labels.get(row["market_id"]),
                    "price": row["price"],
                    "price_source": row["price_source"],
                    "doubt_bits": row["doubt_bits"],
                },
                ensure_ascii=False,
            )
        )
    print(
        f"{ranked.verdicts.height} verdicts, {len(labels)} selected, total doubt "
        f"{ranked.selection.total_doubt_bits:.6f} bits ({copied.errors.height} copy errors)",
        file=sys.stderr,
    )
    return 0


def cmd_card_show(args: argparse.Namespace) -> int:
    from colosseum_core.forecast.arena import FORECAST
    from colosseum_core.record.layout import Record

    [key] = _card_keys([args.key])
    tables = Record(record_root(args.data)).tables(FORECAST)
    if not tables.exists("packet", key):
        status = tables.read_if_present("card_status", key)
        if status is not None and status["status"][0] == "missed":
            row = status.row(0, named=True)
            raise UserError(f"card {key} was missed: {row['reason']}; it was never sealed")
        raise UserError(
            f"card {key} is not sealed in {tables.root} (no packet table for it): "
            f"run `colosseum forecast card run {key}` first"
        )
    packet = tables.read("packet", key).row(0, named=True)
    questions = tables.read("card_questions", key)
    if args.json:
        print(json.dumps({"packet": packet, "questions": questions.to_dicts()}, default=str, indent=1))
        return 0
    reason = "" if packet["sweep_complete"] else "PARTIAL: " + shown(packet["sweep_reason"])
    print(
        f"card {key} · {packet['slot']} · {packet['kind']} · sealed at {packet['seal']:%Y-%m-%dT%H:%M:%SZ}\n"
        f"  {packet['questions']} questions, total doubt {packet['total_doubt_bits']:.3f} bits, sweep "
        f"{reason or 'complete'}\n"
        f"  rules {packet['rules']}, {packet['packet_format']}, packet {packet['packet_id']}\n"
    )
    for row in questions.iter_rows(named=True):
        print(
            f"  {row['label']}  {row['price']:.3f} ({row['price_source']:<13}) "
            f"doubt {row['doubt_bits']:.3f}  {shown(row['question'])}"
        )
    text = packet["packet_text"]
    print("\n" + "\n".join(shown(line) for line in text.split("\n")), end="")
    if any(shown(line) != line for line in text.split("\n")):
        print(
            "\nnote: code points shown as ⟨U+XXXX⟩ are in the packet as themselves (see --json for the "
            "exact text; its SHA-256 is the packet id)",
            file=sys.stderr,
        )
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    arena = command_group(
        sub,
        "forecast",
        "the forecasting arena: cards, sweeps, settlements, the leaderboard",
        "examples:\n  colosseum forecast card run latest\n  colosseum forecast settle\n"
        "  colosseum forecast leaderboard --kind calibration",
        dest="arena_command",
    )

    sweep = command(
        arena,
        "sweep",
        cmd_sweep,
        "one sweep as of an instant; receipts under --out; prints a JSON summary",
        "example:\n  colosseum forecast sweep --base-url http://127.0.0.1:8765 \\\n"
        "      --at 2026-11-29T15:00:00Z --out /tmp/sweep\n"
        "exit status: 0 complete, 3 partial, 1 error",
    )
    sweep.add_argument(
        "--base-url", required=True, help="any Gamma-compatible base URL, the real one included"
    )
    sweep.add_argument("--at", required=True, type=utc, help="ISO-8601 instant with offset: the seal")
    sweep.add_argument("--out", required=True, help="directory for receipts and sweep.json")
    sweep.add_argument("--shards", type=int, default=4)
    sweep.add_argument("--timeout", type=float, default=30.0)
    sweep.add_argument("--quiet", action="store_true", help="no progress on stderr")

    card = command_group(
        arena,
        "card",
        "run a card, or show a sealed one",
        "examples:\n  colosseum forecast card run latest\n  colosseum forecast card show 2026-11-29-1000",
    )
    run = command(
        card,
        "run",
        cmd_card_run,
        "materialize every asset of card partitions in-process through the real Definitions",
        "examples:\n  colosseum forecast card run latest\n"
        "  colosseum forecast card run 2026-11-28-1800 2026-11-29-0500 --json\n"
        "  colosseum forecast card run latest --exchange https://gamma-api.polymarket.com\n"
        f"Without --exchange or ${GAMMA_URL_ENV}, a simulated exchange started for the run\n"
        "(in a child process) serves it.",
    )
    run.add_argument("keys", nargs="+", help="card keys YYYY-MM-DD-HHMM (New York seal time) or 'latest'")
    _add_exchange_options(run)
    add_record_options(run, json_help="machine-readable summary", verbose_help=RUN_VERBOSE_HELP)

    show = command(
        card,
        "show",
        cmd_card_show,
        "print a sealed card and its packet",
        "examples:\n  colosseum forecast card show 2026-11-29-1000\n"
        "  colosseum forecast card show latest --json",
    )
    show.add_argument("key", help="card key YYYY-MM-DD-HHMM (New York seal time) or 'latest'")
    add_record_options(show, json_help=None)

    settle = command(
        arena,
        "settle",
        cmd_settle,
        "tick the settlement sensor over every waiting card, then settle, score and rank in-process",
        "examples:\n  colosseum forecast settle\n"
        "  colosseum forecast settle --at 2026-12-05T00:00:00Z --json\n"
        "Without --exchange or $" + GAMMA_URL_ENV + ", a simulated exchange started for the run\n"
        "(in a child process) answers.",
    )
    _add_exchange_options(settle)
    settle.add_argument(
        "--at", type=utc, default=None, help="ask the exchange as of this instant (default now)"
    )
    add_record_options(settle, json_help="machine-readable summary", verbose_help=RUN_VERBOSE_HELP)

    board = command(
        arena,
        "leaderboard",
        cmd_leaderboard,
        "print the leaderboard from the record",
        "examples:\n  colosseum forecast leaderboard\n"
        "  colosseum forecast leaderboard --kind fight --by gladiator --json",
    )
    board.add_argument(
        "--kind", default="CALIBRATION", choices=["CALIBRATION", "FIGHT", "calibration", "fight"]
    )
    board.add_argument("--by", default="seat", choices=["seat", "gladiator"])
    add_record_options(board, json_help=None)

    select = command(
        arena,
        "select",
        cmd_select,
        "re-derive every verdict of a card from recorded receipts alone (one JSON object per market)",
        "example:\n  colosseum forecast sweep --base-url http://127.0.0.1:8765 \\\n"
        "      --at 2026-11-29T15:00:00Z --out s/\n"
        "  colosseum forecast select --receipts s/ --seal 2026-11-29T15:00:00Z \\\n"
        "      --history 'data/warehouse/card_questions/*/data.parquet'",
    )
    select.add_argument("--receipts", required=True, help="a directory written by `colosseum forecast sweep`")
    select.add_argument("--seal", required=True, type=utc, help="the card's seal, ISO-8601 with offset")
    select.add_argument(
        "--history", default=None, help="Parquet of earlier cards' questions (card_questions)"
    )


def _add_exchange_options(parser: argparse.ArgumentParser) -> None:
    """The exchange a command's runs sweep or ask: a URL, else a simulated one of this seed and size."""
    parser.add_argument("--exchange", default=None, help="Gamma base URL, or 'simulated' (default)")
    parser.add_argument("--seed", type=int, default=0, help="simulated exchange seed")
    parser.add_argument("--markets", type=int, default=3000, help="simulated exchange size")


def step_words() -> dict[str, str]:
    """What the progress lines call each step of a forecast run: the forecast's words, the board's and
    the catalog's."""
    from colosseum_dagster.board import STEP_WORDS as board_words
    from colosseum_dagster.catalog import STEP_WORDS as catalog_words
    from colosseum_dagster.forecast.keys import STEP_WORDS as forecast_words

    return {**forecast_words, **board_words, **catalog_words}
