"""The ``colosseum`` command line.

Commands that only need colosseum_core import nothing from Dagster, so they start fast; commands
that run cards load the same Definitions the UI and the daemon use.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import glob
import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace as dataclasses_replace
from pathlib import Path
from typing import Any

from colosseum_core.settings import DATA_ENV, GAMMA_URL_ENV, SPARRING_URL_ENV, data_dir

LISTEN_WAIT_S = 5.0


class UserError(Exception):
    """Something the user can put right: printed as one line on stderr, exit status 2."""


def _record_root(data: str | None) -> Path:
    """The record a command reads; a user error if there is none there."""
    root = data_dir(data)
    if not (root / "warehouse").is_dir():
        raise UserError(
            f"no record at {root} (no warehouse/ directory): run a card first (colosseum card run "
            f"latest), or point --data or ${DATA_ENV} at a record"
        )
    return root


def _listening(url: str, what: str, remedy: str) -> None:
    """Refuse to start a run against a server that is not there: it would only record failures."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{url} is not an http(s) URL for the {what}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    # A server started a moment ago (`colosseum exchange serve &`) gets a few seconds to listen.
    deadline = time.monotonic() + LISTEN_WAIT_S
    while True:
        try:
            with socket.create_connection((parts.hostname, port), timeout=3):
                return
        except ConnectionRefusedError:
            if time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            raise UserError(f"nothing is listening at {url}: {remedy}") from None
        except OSError as exc:
            raise UserError(f"cannot reach {url} ({exc}): {remedy}") from None


def _utc(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} needs a UTC offset, e.g. 2026-11-29T10:00:00Z")
    return value.astimezone(dt.UTC)


def _progress() -> Any:
    def report(progress: Any) -> None:
        stream = sys.stderr
        stream.write(
            f"\r  pages {progress.pages:>5}  requests {progress.requests:>5}  markets {progress.markets:>7}"
        )
        stream.flush()

    return report


# ---------------------------------------------------------------- exchange


def cmd_exchange_serve(args: argparse.Namespace) -> int:
    from colosseum_core.simulated_exchange import parse_faults, serve

    if args.faults:
        try:
            parse_faults(args.faults)  # fail fast with the parser's message
        except ValueError as exc:
            raise UserError(f"--faults: {exc}") from None
    print(
        f"simulated exchange on http://{args.host}:{args.port} "
        f"(seed {args.seed}, ~{args.markets} open markets"
        f"{', faults ' + args.faults if args.faults else ''}); Ctrl-C stops it",
        file=sys.stderr,
    )
    serve(args.host, args.port, seed=args.seed, markets=args.markets, faults=args.faults)
    return 0


def cmd_sparring_serve(args: argparse.Namespace) -> int:
    from colosseum_core.sparring import serve

    print(
        f"sparring server (house gladiators; OpenAI, Anthropic and Gemini protocols) on "
        f"http://{args.host}:{args.port}; Ctrl-C stops it",
        file=sys.stderr,
    )
    serve(args.host, args.port)
    return 0


# ---------------------------------------------------------------- sweep


def cmd_sweep(args: argparse.Namespace) -> int:
    from colosseum_core.forecast.schedule import SWEEP_HORIZON
    from colosseum_core.forecast.sweep import SweepSettings, run_sweep
    from colosseum_core.record import ReceiptStore
    from colosseum_core.record.atomic import write_bytes_atomic

    _listening(args.base_url, "exchange", "start `colosseum exchange serve`, or give its --base-url")
    out = Path(args.out)
    receipts = ReceiptStore(out)
    settings = SweepSettings(base_url=args.base_url.rstrip("/"), shards=args.shards, timeout_s=args.timeout)
    at: dt.datetime = args.at
    print(f"sweeping {settings.base_url} as of {at.isoformat()} into {out}", file=sys.stderr)
    result = asyncio.run(
        run_sweep(
            settings,
            receipts,
            as_of=at,
            window=(at, at + SWEEP_HORIZON),
            clock=lambda: dt.datetime.now(dt.UTC),
            rng=random.Random(f"sweep:{at.isoformat()}"),
            progress=None if args.quiet else _progress(),
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


# ---------------------------------------------------------------- cards


@contextlib.contextmanager
def _exchange_for_run(exchange: str | None, seed: int, markets: int) -> Iterator[str]:
    """The exchange URL a run should use, starting a simulated exchange in a child process if needed."""
    url = exchange if exchange and exchange != "simulated" else None
    url = url or (None if exchange == "simulated" else os.environ.get(GAMMA_URL_ENV))
    if url:
        _listening(
            url,
            "exchange",
            "start `colosseum exchange serve`, or pass --exchange "
            "(`--exchange simulated` starts one for the run)",
        )
        yield url
        return
    from colosseum_core.simulated_exchange import exchange_process

    with exchange_process(seed=seed, markets=markets) as server:
        yield server.url


@contextlib.contextmanager
def _sparring_for_run() -> Iterator[str]:
    """The house gladiators' server: the configured one, else one started in-process for the run."""
    url = os.environ.get(SPARRING_URL_ENV)
    if url:
        _listening(
            url,
            "sparring server",
            f"start `colosseum sparring serve`, or unset ${SPARRING_URL_ENV} to run one in-process",
        )
        yield url
        return
    from colosseum_core.sparring import running_sparring

    with running_sparring() as base_url:
        yield base_url


def _instance() -> Any:
    import dagster as dg

    return dg.DagsterInstance.get() if os.environ.get("DAGSTER_HOME") else dg.DagsterInstance.ephemeral()


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
    from colosseum_core.record.locks import LOCKS_DIRNAME, RecordLocks, card_lock

    root = data_dir(args.data)
    keys = _card_keys(args.keys)
    from colosseum_dagster.definitions import defs
    from colosseum_dagster.progress import logger_config

    instance = _instance()
    locks = RecordLocks(root / LOCKS_DIRNAME)
    summaries = []
    with (
        _exchange_for_run(args.exchange, args.seed, args.markets) as base_url,
        _sparring_for_run() as sparring_url,
    ):
        # Passed as run config, not through the environment: the CLI may run inside a longer process.
        resources = _resource_config(root, base_url)
        resources["gladiators"] = {"config": {"sparring_url": sparring_url}}
        for key in keys:
            holder = locks.holder(card_lock(key))
            if holder is not None:
                # Said before starting anything; the run's own lock would refuse it all the same.
                message = f"card {key} is being written by {holder.describe()}; not started"
                print(f"card {key}: refused: {message}", file=sys.stderr)
                summaries.append({"card": key, "success": False, "status": "refused", "failures": [message]})
                continue
            print(f"card {key}: running card_job against {base_url}", file=sys.stderr)
            started = time.monotonic()
            result = defs.resolve_job_def("card_job").execute_in_process(
                partition_key=key,
                run_config={"resources": resources, **logger_config(args.verbose)},
                instance=instance,
                raise_on_error=False,
            )
            summaries.append(_card_summary(key, result, time.monotonic() - started))
    catalog = defs.resolve_job_def("catalog_job").execute_in_process(
        run_config={"resources": _resource_config(root, None), **logger_config(args.verbose)},
        instance=instance,
        raise_on_error=False,
    )
    report = {"cards": summaries, "catalog": catalog.success, "data": str(root)}
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    else:
        for s in summaries:
            print(_card_line(s))
        print(f"record: {report['data']} (duckdb {'refreshed' if catalog.success else 'NOT refreshed'})")
    return 0 if all(s["success"] for s in summaries) and catalog.success else 1


def _card_line(s: dict[str, Any]) -> str:
    """One card's outcome, in words."""
    head = f"card {s['card']}:"
    if s["status"] in ("refused", "failed"):
        why = "; ".join(s.get("failures") or ["see the run's log"])
        return f"{head} {s['status'].upper()}: {why}"
    sweep = "complete" if s.get("complete") else f"PARTIAL ({_shown(s.get('reason'))})"
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


def _failure_messages(result: Any) -> list[str]:
    """Why a run failed, as its steps (or its resources) said it, without the stack."""
    messages = []
    for event in result.all_events:
        if not (event.is_step_failure or event.event_type_value == "RESOURCE_INIT_FAILURE"):
            continue
        error = getattr(event.event_specific_data, "error", None)
        text = error.message if error is not None else event.message
        # "dagster._core.definitions.events.Failure: card X …": the class is not the news.
        messages.append(text.split(": ", 1)[1].strip() if ": " in text.split("\n")[0] else text.strip())
    return messages


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
        summary["failures"] = _failure_messages(result)
    summary.setdefault("status", "failed")
    return summary


def _resource_config(data: Path, gamma_url: str | None) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "record": {"config": {"data_dir": str(data)}},
        "io_manager": {"config": {"data_dir": str(data)}},
    }
    if gamma_url:
        resources["exchange"] = {"config": {"gamma_url": gamma_url}}
    return resources


def cmd_settle(args: argparse.Namespace) -> int:
    """Tick the real settlement sensor until every waiting market was asked about once; run what it asks."""
    import dagster as dg

    from colosseum_core.forecast.settlement_watch import DEFAULT_BATCH, WatchState
    from colosseum_dagster.definitions import defs
    from colosseum_dagster.progress import logger_config
    from colosseum_dagster.resources import ClockResource, ExchangeResource, RecordResource

    root = _record_root(args.data)
    talk = logger_config(args.verbose)
    instance = _instance()
    sensor = defs.resolve_sensor_def("settlement_sensor")
    with _exchange_for_run(args.exchange, args.seed, args.markets) as base_url:
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
        config = {**request.run_config, "resources": _resource_config(root, None), **talk}
        result = defs.resolve_job_def("settlement_job").execute_in_process(
            partition_key=request.partition_key, run_config=config, instance=instance, raise_on_error=False
        )
        runs.append(
            {"card": request.partition_key, "success": result.success, "failures": _failure_messages(result)}
        )
    unpartitioned = {"resources": _resource_config(root, None), **talk}
    boards: dict[str, Any] | None = None
    if runs:
        result = defs.resolve_job_def("leaderboard_job").execute_in_process(
            run_config=unpartitioned, instance=instance, raise_on_error=False
        )
        boards = {"success": result.success, "failures": _failure_messages(result)}
    result = defs.resolve_job_def("catalog_job").execute_in_process(
        run_config=unpartitioned, instance=instance, raise_on_error=False
    )
    catalog = {"success": result.success, "failures": _failure_messages(result)}
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
        print(f"record: {root} (duckdb {'refreshed' if catalog['success'] else 'NOT refreshed'})")
    ok = all(r["success"] for r in runs) and (boards is None or boards["success"]) and catalog["success"]
    return 0 if ok else 1


def cmd_leaderboard(args: argparse.Namespace) -> int:
    import polars as pl

    from colosseum_core.record import RecordTables

    tables = RecordTables(_record_root(args.data) / "warehouse")
    if not tables.exists("leaderboard"):
        raise UserError("no leaderboard yet: settle some cards first (colosseum settle)")
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
            f"{_shown(r['entrant']):<28} n={r['n']:<5} RECORD {r['record']:+5d}  SHARP {sharp}  EDGE {edge}  "
            f"CROWN {r['crown']:+5d}  forfeits {r['forfeits']}  bad formatting {r['bad_formatting']}  "
            f"voids {r['voids']}{'  EARLY' if r['early'] else ''}"
        )
    return 0


def cmd_board_build(args: argparse.Namespace) -> int:
    from colosseum_core.bundle import MANIFEST_NAME
    from colosseum_core.forecast.board_site import ReleaseError
    from colosseum_core.forecast.publish import UnverifiedRecordError, publish_board, published_problems
    from colosseum_core.record import RecordTables
    from colosseum_core.record.ledger import file_sha256
    from colosseum_core.seats import DEFAULT_REGISTRY, load_seats
    from colosseum_core.signing import KeyStore

    root = _record_root(args.data)
    tables = RecordTables(root / "warehouse")
    seats = load_seats(DEFAULT_REGISTRY)
    print(f"board: building {args.out} from {root}", file=sys.stderr)
    try:
        published = publish_board(
            tables,
            KeyStore.for_data(root),
            Path(args.out),
            seats=seats,
            built_at=args.at or dt.datetime.now(dt.UTC),
        )
    except ReleaseError as exc:
        print(f"board: {exc}", file=sys.stderr)
        return 2
    except UnverifiedRecordError as exc:
        print(f"board: refused: the record at {root} does not verify, so it is not signed:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    print("board: re-reading the built site against the record", file=sys.stderr)
    problems = published_problems(published.site, tables, seats)
    report = {
        "site": str(published.site),
        "cards": published.report.cards,
        "released": published.report.released,
        "awaiting_answers": published.report.awaiting_answers,
        "files": published.report.files,
        "bytes": published.report.bytes,
        "manifest_sha256": file_sha256(published.site / MANIFEST_NAME),
        "signed_by": published.arena_key_id,
        "problems": problems,
    }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(
            f"site {report['site']}: {report['cards']} cards ({report['released']} released), "
            f"{report['files']} files, manifest {report['manifest_sha256'][:16]}… signed by arena key "
            f"{report['signed_by'][:16]}…; open {published.site / 'index.html'}"
        )
        for problem in problems:
            print(f"PROBLEM {problem}")
    return 1 if problems else 0


def cmd_verify(args: argparse.Namespace) -> int:
    from colosseum_core.verify import verify_path

    last: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        # At most a line a second per stage, and always the last one, so long audits show life.
        now = time.monotonic()
        if args.quiet or (done < total and now - last.get(stage, 0.0) < 1.0):
            return
        last[stage] = now
        print(f"verify: {stage} {done}/{total}", file=sys.stderr)

    path = Path(args.path)
    try:
        if not path.exists():
            raise ValueError(f"{path} does not exist")
        report = verify_path(path, workers=args.workers, progress=progress)
    except ValueError as exc:
        if args.json:
            print(json.dumps({"path": str(path), "ok": False, "error": str(exc)}, indent=1))
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps(report.summary(), indent=1, default=str))
    else:
        counts = ", ".join(f"{n:,} {what}" for what, n in report.checked.items())
        verdict = "OK" if report.ok() else f"FAILED: {len(report.problems)} problem(s)"
        print(f"verify {args.path} ({report.kind}): {counts}; {report.seconds:.1f}s; {verdict}")
        for note in report.notes:
            print(f"note: {note}")
        for problem in report.problems:
            print(f"PROBLEM {problem}")
    return 0 if report.ok() else 1


def cmd_select(args: argparse.Namespace) -> int:
    import polars as pl

    from colosseum_core.forecast.card import rank_candidates
    from colosseum_core.forecast.copy import copy_markets
    from colosseum_core.forecast.rotation import rotate
    from colosseum_core.forecast.schedule import card_for_instant
    from colosseum_core.record import ReceiptStore

    receipts_dir = Path(args.receipts)
    if not receipts_dir.is_dir():
        raise UserError(f"--receipts {receipts_dir} does not exist (write one with `colosseum sweep --out`)")
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


def _shown(value: object) -> str:
    """Text from outside (Polymarket's, a model's) made safe for a terminal: every control, bidi or
    invisible code point is written as ⟨U+XXXX⟩, as the public board shows it, so an escape sequence
    cannot drive the terminal and an override cannot reorder what the reader sees."""
    from colosseum_core.forecast.board_site.formats import code_point_label, has_hidden, hidden

    text = str(value)
    if not has_hidden(text):
        return text
    return "".join(f"⟨{code_point_label(c)}⟩" if hidden(c) else c for c in text)


def cmd_card_show(args: argparse.Namespace) -> int:
    from colosseum_core.record import RecordTables

    [key] = _card_keys([args.key])
    tables = RecordTables(_record_root(args.data) / "warehouse")
    if not tables.exists("packet", key):
        status = tables.read_if_present("card_status", key)
        if status is not None and status["status"][0] == "missed":
            row = status.row(0, named=True)
            raise UserError(f"card {key} was missed: {row['reason']}; it was never sealed")
        raise UserError(
            f"card {key} is not sealed in {tables.root} (no packet table for it): "
            f"run `colosseum card run {key}` first"
        )
    packet = tables.read("packet", key).row(0, named=True)
    questions = tables.read("card_questions", key)
    if args.json:
        print(json.dumps({"packet": packet, "questions": questions.to_dicts()}, default=str, indent=1))
        return 0
    reason = "" if packet["sweep_complete"] else "PARTIAL: " + _shown(packet["sweep_reason"])
    print(
        f"card {key} · {packet['slot']} · {packet['kind']} · sealed at {packet['seal']:%Y-%m-%dT%H:%M:%SZ}\n"
        f"  {packet['questions']} questions, total doubt {packet['total_doubt_bits']:.3f} bits, sweep "
        f"{reason or 'complete'}\n"
        f"  rules {packet['rules']}, {packet['packet_format']}, packet {packet['packet_id']}\n"
    )
    for row in questions.iter_rows(named=True):
        print(
            f"  {row['label']}  {row['price']:.3f} ({row['price_source']:<13}) "
            f"doubt {row['doubt_bits']:.3f}  {_shown(row['question'])}"
        )
    text = packet["packet_text"]
    print("\n" + "\n".join(_shown(line) for line in text.split("\n")), end="")
    if any(_shown(line) != line for line in text.split("\n")):
        print(
            "\nnote: code points shown as ⟨U+XXXX⟩ are in the packet as themselves (see --json for the "
            "exact text; its SHA-256 is the packet id)",
            file=sys.stderr,
        )
    return 0


# ---------------------------------------------------------------- catalog


def cmd_catalog_refresh(args: argparse.Namespace) -> int:
    from colosseum_core.record import RecordTables
    from colosseum_core.record.catalog import CATALOG_NAME, refresh_catalog

    root = _record_root(args.data)
    views = refresh_catalog(RecordTables(root / "warehouse"), root / CATALOG_NAME)
    print(json.dumps({"catalog": str(root / CATALOG_NAME), "views": views}))
    return 0


def cmd_sql(args: argparse.Namespace) -> int:
    """One query over the catalog's views, read-only, with the duckdb the project installs."""
    import duckdb

    from colosseum_core.record.catalog import CATALOG_NAME

    catalog = _record_root(args.data) / CATALOG_NAME
    if not catalog.exists():
        raise UserError(f"no catalog at {catalog}: run `colosseum catalog refresh`")
    with duckdb.connect(str(catalog), read_only=True) as con:
        try:
            result = con.sql(args.query)
        except duckdb.Error as exc:
            raise UserError(f"{type(exc).__name__}: {str(exc).splitlines()[0]}") from None
        if result is None:
            return 0
        if args.json:
            print(json.dumps(result.pl().to_dicts(), indent=1, default=str))
        else:
            result.show(max_rows=args.max_rows, max_width=200)
    return 0


# ---------------------------------------------------------------- dev


def cmd_dev(args: argparse.Namespace) -> int:
    root = Path.cwd()
    home = Path(os.environ.get("DAGSTER_HOME") or root / ".dagster_home").resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = root / "dagster.yaml"
    linked = home / "dagster.yaml"
    if config.exists() and not linked.exists() and not linked.is_symlink():
        # A link, not a copy: the instance follows the repository's dagster.yaml as it changes.
        linked.symlink_to(config)
    exchange_url = f"http://127.0.0.1:{args.exchange_port}"
    sparring_url = f"http://127.0.0.1:{args.sparring_port}"
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        GAMMA_URL_ENV: exchange_url,
        SPARRING_URL_ENV: sparring_url,
    }
    colosseum = [sys.executable, "-m", "colosseum_dagster.cli"]
    exchange_cmd = [
        *colosseum,
        "exchange",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(args.exchange_port),
        "--seed",
        str(args.seed),
        "--markets",
        str(args.markets),
    ]
    ui_cmd = [
        sys.executable,
        # Dagster suggests its separate `dg` tool here; `dagster dev` is the one this project installs.
        "-W",
        "ignore:Function `dev_command` is superseded",
        "-m",
        "dagster",
        "dev",
        "-w",
        str(root / "workspace.yaml"),
        "-h",
        "127.0.0.1",
        "-p",
        str(args.ui_port),
    ]
    sparring_cmd = [*colosseum, "sparring", "serve", "--host", "127.0.0.1", "--port", str(args.sparring_port)]
    # Runs resolve ./data from their own working directory; name the record absolutely for them all.
    env.setdefault(DATA_ENV, str(data_dir()))
    # Each service in a process group of its own: Ctrl-C reaches this supervisor alone, which stops
    # them in order and then sweeps up what they left (Dagster's code server outlives `dagster dev`).
    # The UI runs in DAGSTER_HOME, where dagster.yaml is, so Dagster sees one instance, not two.
    cwds = (root, root, home)
    procs = [
        subprocess.Popen(cmd, env=env, cwd=cwd, start_new_session=True)
        for cmd, cwd in zip((exchange_cmd, sparring_cmd, ui_cmd), cwds, strict=True)
    ]
    print(
        f"\n  simulated exchange  {exchange_url}\n  sparring server     {sparring_url}"
        f"\n  Dagster UI          http://127.0.0.1:{args.ui_port}  (DAGSTER_HOME={home})"
        "\n  Ctrl-C stops all.\n",
        file=sys.stderr,
    )
    stopped_by_user = False
    # Ctrl-C, or a service manager's SIGTERM, even when a shell started us with SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        while all(p.poll() is None for p in procs):
            time.sleep(0.5)
    except KeyboardInterrupt:
        stopped_by_user = True
    finally:
        _stop_groups(procs)
    if stopped_by_user:
        print("stopped", file=sys.stderr)
        return 0
    # One service died on its own: say so through the exit status.
    return max(abs(p.returncode or 0) for p in procs) or 1


def _stop_groups(procs: Sequence[subprocess.Popen[bytes]], grace_s: float = 10.0) -> None:
    """Interrupt every service's process group, give them ``grace_s`` to stop, then kill what is left."""
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGINT)
    deadline = time.monotonic() + grace_s
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=max(deadline - time.monotonic(), 0.1))
    for p in procs:
        # The group outlives its leader when a child of it (a code server) is still running.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(p.pid, signal.SIGKILL)
        if p.poll() is None:
            p.wait()


# ---------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="colosseum",
        description="Frontier Colosseum: the forecasting arena's record, exchange client and cards.",
        formatter_class=raw,
        epilog="examples:\n  colosseum dev\n  colosseum card run latest\n"
        "  colosseum sweep --base-url https://gamma-api.polymarket.com \\\n"
        "      --at 2026-11-29T10:00:00Z --out sweep/\n"
        f"\nThe record lives in ${DATA_ENV} (default ./data).",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    exchange = sub.add_parser(
        "exchange",
        help="the simulated exchange",
        formatter_class=raw,
        epilog="example:\n  colosseum exchange serve --port 8765 --faults '429:n=1'",
    ).add_subparsers(dest="action", required=True)
    serve = exchange.add_parser(
        "serve",
        help="serve the simulated Polymarket Gamma API",
        formatter_class=raw,
        epilog="example:\n  colosseum exchange serve --host 127.0.0.1 --port 8765 \\\n"
        "      --seed 7 --markets 20000 \\\n"
        "      --faults '429:n=1:retry_after=1;ratelimit:rate=300/10'",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--seed", type=int, default=0, help="board seed (default 0)")
    serve.add_argument("--markets", type=int, default=3000, help="open markets on the board (default 3000)")
    serve.add_argument(
        "--faults", default=None, help="fault spec, see colosseum_core.simulated_exchange.faults"
    )
    serve.set_defaults(func=cmd_exchange_serve)

    sparring = sub.add_parser(
        "sparring",
        help="the sparring server",
        formatter_class=raw,
        epilog="example:\n  colosseum sparring serve --port 8766",
    ).add_subparsers(dest="action", required=True)
    sparring_serve = sparring.add_parser(
        "serve",
        help="serve house gladiators over the OpenAI, Anthropic and Gemini protocols",
        formatter_class=raw,
        epilog="example:\n  colosseum sparring serve --host 127.0.0.1 --port 8766",
    )
    sparring_serve.add_argument("--host", default="127.0.0.1")
    sparring_serve.add_argument("--port", type=int, default=8766)
    sparring_serve.set_defaults(func=cmd_sparring_serve)

    sweep = sub.add_parser(
        "sweep",
        help="one sweep as of an instant; receipts under --out; prints a JSON summary",
        formatter_class=raw,
        epilog="example:\n  colosseum sweep --base-url http://127.0.0.1:8765 \\\n"
        "      --at 2026-11-29T15:00:00Z --out /tmp/sweep\n"
        "exit status: 0 complete, 3 partial, 1 error",
    )
    sweep.add_argument(
        "--base-url", required=True, help="any Gamma-compatible base URL, the real one included"
    )
    sweep.add_argument("--at", required=True, type=_utc, help="ISO-8601 instant with offset: the seal")
    sweep.add_argument("--out", required=True, help="directory for receipts and sweep.json")
    sweep.add_argument("--shards", type=int, default=4)
    sweep.add_argument("--timeout", type=float, default=30.0)
    sweep.add_argument("--quiet", action="store_true", help="no progress on stderr")
    sweep.set_defaults(func=cmd_sweep)

    card = sub.add_parser(
        "card",
        help="run a card, or show a sealed one",
        formatter_class=raw,
        epilog="examples:\n  colosseum card run latest\n  colosseum card show 2026-11-29-1000",
    ).add_subparsers(dest="action", required=True)
    run = card.add_parser(
        "run",
        help="materialize every asset of card partitions in-process through the real Definitions",
        formatter_class=raw,
        epilog="examples:\n  colosseum card run latest\n"
        "  colosseum card run 2026-11-28-1800 2026-11-29-0500 --json\n"
        "  colosseum card run latest --exchange https://gamma-api.polymarket.com\n"
        f"Without --exchange or ${GAMMA_URL_ENV}, a simulated exchange started for the run\n"
        "(in a child process) serves it.",
    )
    run.add_argument("keys", nargs="+", help="card keys YYYY-MM-DD-HHMM (New York seal time) or 'latest'")
    run.add_argument("--exchange", default=None, help="Gamma base URL, or 'simulated' (default)")
    run.add_argument("--seed", type=int, default=0, help="simulated exchange seed")
    run.add_argument("--markets", type=int, default=3000, help="simulated exchange size")
    run.add_argument("--data", default=None, help=f"record root (default ${DATA_ENV} or ./data)")
    run.add_argument("--json", action="store_true", help="machine-readable summary")
    run.add_argument("-v", "--verbose", action="store_true", help="every Dagster event, not one line a step")
    run.set_defaults(func=cmd_card_run)

    board_cmd = sub.add_parser(
        "board",
        help="the public board",
        formatter_class=raw,
        epilog="example:\n  colosseum board build data/site",
    ).add_subparsers(dest="action", required=True)
    build = board_cmd.add_parser(
        "build",
        help="build the static public board from the record, sign its manifest, re-check it",
        formatter_class=raw,
        epilog="examples:\n  colosseum board build site/\n  colosseum board build /srv/www/board --json\n"
        "Refuses (exit 2), naming card and seats, while any seat of a card has neither answered nor "
        "forfeited. Exit 1 if the re-read site disagrees with the record.",
    )
    build.add_argument("out", help="the site directory (replaced whole, atomically)")
    build.add_argument("--data", default=None, help=f"record root (default ${DATA_ENV} or ./data)")
    build.add_argument(
        "--at", type=_utc, default=None, help="build instant (default now); picks the arena key"
    )
    build.add_argument("--json", action="store_true", help="machine-readable summary")
    build.set_defaults(func=cmd_board_build)

    verify = sub.add_parser(
        "verify",
        help="recompute and check everything in a record directory or a built site",
        formatter_class=raw,
        epilog="examples:\n  colosseum verify data/\n  colosseum verify site/ --json\n"
        "A record: every identifier, receipt, signature and seal; every verdict re-derived from its "
        "receipts, every settlement, score and board number re-derived. A site: its signed manifest, "
        "identifiers, signatures, scores and board. Exit 1 naming each failing record.",
    )
    verify.add_argument("path", help="a record's data directory or a built site's root")
    verify.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    verify.add_argument("--json", action="store_true", help="machine-readable report")
    verify.add_argument("--quiet", action="store_true", help="no progress on stderr")
    verify.set_defaults(func=cmd_verify)

    settle = sub.add_parser(
        "settle",
        help="tick the settlement sensor over every waiting card, then settle, score and rank in-process",
        formatter_class=raw,
        epilog="examples:\n  colosseum settle\n  colosseum settle --at 2026-12-05T00:00:00Z --json\n"
        "Without --exchange or $" + GAMMA_URL_ENV + ", a simulated exchange started for the run\n"
        "(in a child process) answers.",
    )
    settle.add_argument("--exchange", default=None, help="Gamma base URL, or 'simulated' (default)")
    settle.add_argument("--seed", type=int, default=0, help="simulated exchange seed")
    settle.add_argument("--markets", type=int, default=3000, help="simulated exchange size")
    settle.add_argument(
        "--at", type=_utc, default=None, help="ask the exchange as of this instant (default now)"
    )
    settle.add_argument("--data", default=None, help=f"record root (default ${DATA_ENV} or ./data)")
    settle.add_argument("--json", action="store_true", help="machine-readable summary")
    settle.add_argument(
        "-v", "--verbose", action="store_true", help="every Dagster event, not one line a step"
    )
    settle.set_defaults(func=cmd_settle)

    board = sub.add_parser(
        "leaderboard",
        help="print the leaderboard from the record",
        formatter_class=raw,
        epilog="examples:\n  colosseum leaderboard\n"
        "  colosseum leaderboard --kind fight --by gladiator --json",
    )
    board.add_argument(
        "--kind", default="CALIBRATION", choices=["CALIBRATION", "FIGHT", "calibration", "fight"]
    )
    board.add_argument("--by", default="seat", choices=["seat", "gladiator"])
    board.add_argument("--data", default=None, help=f"record root (default ${DATA_ENV} or ./data)")
    board.add_argument("--json", action="store_true")
    board.set_defaults(func=cmd_leaderboard)

    select = sub.add_parser(
        "select",
        help="re-derive every verdict of a card from recorded receipts alone (one JSON object per market)",
        formatter_class=raw,
        epilog="example:\n  colosseum sweep --base-url http://127.0.0.1:8765 \\\n"
        "      --at 2026-11-29T15:00:00Z --out s/\n"
        "  colosseum select --receipts s/ --seal 2026-11-29T15:00:00Z \\\n"
        "      --history 'data/warehouse/card_questions/*/data.parquet'",
    )
    select.add_argument("--receipts", required=True, help="a directory written by `colosseum sweep`")
    select.add_argument("--seal", required=True, type=_utc, help="the card's seal, ISO-8601 with offset")
    select.add_argument(
        "--history", default=None, help="Parquet of earlier cards' questions (card_questions)"
    )
    select.set_defaults(func=cmd_select)

    show = card.add_parser(
        "show",
        help="print a sealed card and its packet",
        formatter_class=raw,
        epilog="examples:\n  colosseum card show 2026-11-29-1000\n"
        "  colosseum card show 2026-11-29-1000 --json",
    )
    show.add_argument("key", help="card key YYYY-MM-DD-HHMM")
    show.add_argument("--data", default=None, help=f"record root (default ${DATA_ENV} or ./data)")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_card_show)

    catalog = sub.add_parser(
        "catalog",
        help="the DuckDB catalog",
        formatter_class=raw,
        epilog="example:\n  colosseum catalog refresh",
    ).add_subparsers(dest="action", required=True)
    refresh = catalog.add_parser(
        "refresh",
        help="rebuild colosseum.duckdb's views over the Parquet record",
        formatter_class=raw,
        epilog="examples:\n  colosseum catalog refresh\n  colosseum catalog refresh --data /srv/record",
    )
    refresh.add_argument("--data", default=None, help=f"record root (default ${DATA_ENV} or ./data)")
    refresh.set_defaults(func=cmd_catalog_refresh)

    sql = sub.add_parser(
        "sql",
        help="run one SQL query over data/colosseum.duckdb's views (read-only)",
        formatter_class=raw,
        epilog='examples:\n  colosseum sql "SELECT card, kind, questions FROM cards"\n'
        "  colosseum sql \"SELECT * FROM leaderboard WHERE kind = 'CALIBRATION'\" --json\n"
        "The views: cards, verdicts, answers, settlements, scores, leaderboard, and one per record table.",
    )
    sql.add_argument("query", help="one SQL statement")
    sql.add_argument("--data", default=None, help=f"record root (default ${DATA_ENV} or ./data)")
    sql.add_argument("--json", action="store_true", help="rows as a JSON array of objects")
    sql.add_argument("--max-rows", type=int, default=100, help="rows shown (default 100)")
    sql.set_defaults(func=cmd_sql)

    dev = sub.add_parser(
        "dev",
        help="start the simulated exchange, the sparring server and the Dagster UI and daemon",
        formatter_class=raw,
        epilog="example:\n  colosseum dev --ui-port 3000 --exchange-port 8765",
    )
    dev.add_argument("--ui-port", type=int, default=3000)
    dev.add_argument("--exchange-port", type=int, default=8765)
    dev.add_argument("--sparring-port", type=int, default=8766)
    dev.add_argument("--seed", type=int, default=0)
    dev.add_argument("--markets", type=int, default=3000)
    dev.set_defaults(func=cmd_dev)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    name = " ".join(["colosseum", args.command, *([args.action] if getattr(args, "action", None) else [])])
    try:
        code = args.func(args)
    except UserError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()
