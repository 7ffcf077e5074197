"""``colosseum debate …``: the Compelle debate arena's commands: its local ledger; a topic rotation,
an epoch's entries and its games run through the real Definitions; one game played on its own."""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colosseum_core.chain import LEDGER_URL_ENV, LOCAL_LEDGER_URL
from colosseum_core.interrupts import run_async
from colosseum_core.settings import KALSHI_URL_ENV
from colosseum_dagster.cli.arguments import add_listen_options, add_record_options, command, command_group
from colosseum_dagster.cli.common import (
    UserError,
    dagster_instance,
    data_home,
    exchange_for_run,
    execute_job,
    failure_messages,
    listening,
    refresh_catalog,
    refuse_a_taken_port,
    resource_config,
    run_partition,
    shown,
    sparring_for_run,
    utc,
)

LEDGER_PORT = 8797

if TYPE_CHECKING:
    from colosseum_core.trial import TrialRequest


# The debate arena's record name (colosseum_core.debate.arena.DEBATE.name), without importing the
# record at parse time: a test holds the two equal.
DEBATE_ARENA = "debate"


def cmd_ledger_serve(args: argparse.Namespace) -> int:
    from colosseum_core.chain.ledger import LedgerError
    from colosseum_standins.ledger import DEFAULT_GENESIS, serve

    genesis: dt.datetime = args.genesis or DEFAULT_GENESIS
    log = Path(args.log) if args.log else None
    if log is not None and log.exists() and not log.is_file():
        raise UserError(f"--log {log}: not a file")
    where = f"its log {log}" if log else "in memory only (pass --log to keep it)"
    if log is None and args.genesis is None:
        from colosseum_dagster.cli.instance import make_run_serves, wait_beside

        theirs = make_run_serves("ledger", args.host, args.port, house_miners=args.house_miners)
        if theirs is not None:
            return wait_beside(theirs, "local ledger")
    refuse_a_taken_port(args.host, args.port)
    print(
        f"local ledger (the chain and gists, offline) on http://{args.host}:{args.port}, genesis "
        f"{genesis.isoformat().replace('+00:00', 'Z')}, {where}; Ctrl-C stops it",
        file=sys.stderr,
    )
    try:
        serve(args.host, args.port, log=log, genesis=genesis, house_miners=args.house_miners)
    except LedgerError as exc:
        raise UserError(str(exc)) from None
    return 0


def _ledger_url(args: argparse.Namespace) -> str:
    """The ledger a command reads: ``--ledger``, else $COLOSSEUM_LEDGER_URL, else make run's, else the
    local one."""
    import os

    from colosseum_dagster.cli.instance import make_run_url

    given = args.ledger or os.environ.get(LEDGER_URL_ENV)
    return (given or make_run_url("ledger") or LOCAL_LEDGER_URL).rstrip("/")


def _ledger_answers(ledger_url: str) -> None:
    listening(ledger_url, "the ledger", "start `colosseum debate ledger serve` or pass --ledger")


def _epoch(text: str, ledger_url: str, root: Path) -> str:
    """The record's key of the epoch ``text`` names ('current' asks the ledger); a user error naming
    the value and the record for anything else that is not an epoch the record can hold."""
    from colosseum_core.chain.http import HttpLedger
    from colosseum_core.chain.ledger import LedgerError
    from colosseum_core.debate.epochs import KEY_DIGITS, epoch_from_key, epoch_key, epoch_of

    if text == "current":
        try:
            return epoch_key(epoch_of(HttpLedger(ledger_url).current_block()))
        except LedgerError as exc:
            raise UserError(str(exc)) from None
    if text.isascii() and text.isdigit() and int(text) >= 10**KEY_DIGITS:
        raise UserError(
            f"epoch {text}: no such epoch in the record at {root} (epochs are numbered 0 to "
            f"{10**KEY_DIGITS - 1}; {_recorded_epochs(root)})"
        )
    try:
        return epoch_key(epoch_from_key(text) if len(text) == KEY_DIGITS else int(text))
    except ValueError:
        raise UserError(
            f"epoch {text!r}: expected an epoch number (14523, or 0014523) or 'current'"
        ) from None


def _refuse_an_epoch_not_begun(key: str, ledger_url: str) -> None:
    """Entries are judged from the chain as it stood when the epoch began: an epoch the ledger has not
    reached has no such state yet, and judging it now would record commitments still to change."""
    from colosseum_core.chain.http import HttpLedger
    from colosseum_core.chain.ledger import LedgerError
    from colosseum_core.debate.epochs import epoch_from_key, epoch_key, epoch_of

    try:
        block = HttpLedger(ledger_url).current_block()
    except LedgerError as exc:
        raise UserError(str(exc)) from None
    if epoch_from_key(key) > epoch_of(block):
        raise UserError(
            f"epoch {key}: has not begun on the ledger at {ledger_url} (block {block} is in epoch "
            f"{epoch_key(epoch_of(block))}); its entries are judged once it has"
        )


def _recorded_epochs(root: Path) -> str:
    """The epochs the record at ``root`` holds entries for, as a user reads them in one line."""
    from colosseum_core.debate.arena import DEBATE
    from colosseum_core.record.layout import Record

    keys = Record(root).tables(DEBATE).partitions("entries")
    if not keys:
        return "it holds no epoch yet"
    shown_keys = ", ".join(keys) if len(keys) <= 5 else f"{keys[0]} … {keys[-1]}"
    return f"it holds {len(keys)} epoch(s): {shown_keys}"


def _run_epoch_job(
    job: str,
    key: str,
    root: Path,
    *,
    verbose: bool,
    ledger_url: str | None = None,
    models: str | None = None,
    ops: dict[str, Any] | None = None,
) -> Any:
    """Run ``job`` for epoch ``key`` through the real Definitions against a sparring server for the
    run (and the ledger at ``ledger_url``, when the job reads or writes the chain); the catalog is
    refreshed after it, whatever the outcome."""
    from colosseum_dagster.debate.keys import STEP_WORDS

    with sparring_for_run(arenas=(DEBATE_ARENA,)) as sparring_url:
        resources: dict[str, Any] = resource_config(root, None)
        if ledger_url is not None:
            resources["chain"] = {"config": {"ledger_url": ledger_url}}
        resources["debate_models"] = {"config": {"sparring_url": sparring_url}}
        if models:
            resources["debate_models"]["config"]["models_path"] = str(Path(models).resolve())
        against = f" against {ledger_url}" if ledger_url is not None else ""
        print(f"epoch {key}: running {job}{against}", file=sys.stderr)
        return run_partition(
            job, "debate_epochs", key, root, resources, verbose=verbose, step_words=STEP_WORDS, ops=ops
        )


def _epoch_after(args: argparse.Namespace, table: str) -> tuple[Path, str, str, Any]:
    """The record, the ledger, the epoch a command names and the record's debate tables, once the
    epoch's ``table`` is recorded (``colosseum debate <table>`` writes it); a user error otherwise."""
    from colosseum_core.debate.arena import DEBATE
    from colosseum_core.record.layout import Record

    root = data_home(args.data)
    ledger_url = _ledger_url(args)
    if args.epoch == "current":
        _ledger_answers(ledger_url)
    key = _epoch(args.epoch, ledger_url, root)
    tables = Record(root).tables(DEBATE)
    if not tables.exists(table, key):
        raise UserError(
            f"epoch {key} has no {table} yet in the record at {root}: run `colosseum debate {table} "
            f"{args.epoch}` first"
        )
    return root, ledger_url, key, tables


def _print_report(report: dict[str, Any], as_json: bool, name: str, say: Callable[[], None]) -> int:
    """The command's report: as JSON, else its failures, else in words (``say``); its exit status."""
    if as_json:
        print(json.dumps(report, indent=1, default=str))
    elif not report["success"]:
        print(f"{name}: FAILED: {'; '.join(report['failures']) or 'see the run log'}")
    else:
        say()
    return 0 if report["success"] else 1


def cmd_entries(args: argparse.Namespace) -> int:
    from colosseum_core.debate.arena import DEBATE
    from colosseum_core.record.layout import Record

    root = data_home(args.data)
    ledger_url = _ledger_url(args)
    # A number that is no epoch is refused before the ledger is waited for.
    named = None if args.epoch == "current" else _epoch(args.epoch, ledger_url, root)
    _ledger_answers(ledger_url)
    key = named or _epoch(args.epoch, ledger_url, root)
    tables = Record(root).tables(DEBATE)
    if named is not None and not tables.exists("entries", key):
        _refuse_an_epoch_not_begun(key, ledger_url)
    if tables.exists("entries", key):
        # Written once: a second run could only reproduce it or be refused, so show what is recorded.
        print(f"epoch {key}: judged already; its entries are written once, as recorded:", file=sys.stderr)
        return _report(key, True, [], tables.read("entries", key).to_dicts(), root, args.json)
    result = _run_epoch_job(
        "debate_entries_job", key, root, verbose=args.verbose, ledger_url=ledger_url, models=args.models
    )
    rows = tables.read("entries", key).to_dicts() if result.success else []
    return _report(key, result.success, failure_messages(result), rows, root, args.json)


def _report(
    key: str, success: bool, failures: list[str], rows: list[dict[str, Any]], root: Path, as_json: bool
) -> int:
    report = {
        "epoch": key,
        "success": success,
        "failures": failures,
        "entries": [
            {
                k: row[k]
                for k in (
                    *("hotkey", "uid", "status", "rule", "value", "verdict", "strategy_hash", "kind"),
                    "models_sha256",
                )
            }
            for row in rows
        ],
        "data": str(root),
    }

    def say() -> None:
        entered = sum(1 for r in rows if r["status"] == "entered")
        kind = rows[0]["kind"] if rows else "-"
        print(f"epoch {key}: {entered} of {len(rows)} registered miners entered ({kind})")
        for r in rows:
            why = f"  {r['rule']}: {shown(r['value'])}" if r["rule"] else ""
            print(f"  uid {r['uid']:>3} {shown(r['hotkey']):<24} {r['status']:<9}{why}")

    return _print_report(report, as_json, f"epoch {key}", say)


def _rotation(text: str, now: dt.datetime) -> str:
    from colosseum_core.debate.topics.rotation import RotationKeyError, rotation_key, rotation_start

    if text == "current":
        return rotation_key(now)
    try:
        rotation_start(text)
    except RotationKeyError as exc:
        raise UserError(f"{exc} (or 'current')") from None
    if rotation_start(text) > now:
        raise UserError(
            f"rotation {text} begins at {rotation_start(text):%Y-%m-%d %H:%M} UTC; nothing to run yet"
        )
    return text


def cmd_topics(args: argparse.Namespace) -> int:
    import os

    from colosseum_core.debate.arena import DEBATE_TOPICS
    from colosseum_core.record.layout import Record
    from colosseum_dagster.arena_definitions import job_definition
    from colosseum_dagster.debate.keys import STEP_WORDS
    from colosseum_dagster.progress import logger_config

    root = data_home(args.data)
    key = _rotation(args.rotation, dt.datetime.now(dt.UTC))
    tables = Record(root).tables(DEBATE_TOPICS)
    failures: list[str] = []
    success = True
    if Record(root).seals(DEBATE_TOPICS).get(key) is not None:
        print(f"rotation {key}: sealed already; its motions, as recorded:", file=sys.stderr)
    else:
        with (
            exchange_for_run(args.exchange, 0, 3000) as gamma_url,
            sparring_for_run(arenas=(DEBATE_ARENA,)) as sparring_url,
        ):
            kalshi = args.kalshi or os.environ.get(KALSHI_URL_ENV) or f"{gamma_url}/trade-api/v2"
            resources: dict[str, Any] = resource_config(root, gamma_url)
            resources["kalshi"] = {"config": {"base_url": kalshi}}
            resources["debate_models"] = {"config": {"sparring_url": sparring_url}}
            if args.models:
                resources["debate_models"]["config"]["models_path"] = str(Path(args.models).resolve())
            print(f"rotation {key}: asking {gamma_url}, {kalshi} and the search", file=sys.stderr)
            result = execute_job(
                job_definition("debate_topics_job"),
                instance=dagster_instance(),
                partition_key=key,
                run_config={"resources": resources, **logger_config(args.verbose, STEP_WORDS)},
            )
        success, failures = result.success, failure_messages(result)
        refresh_catalog(root, args.verbose)
    motions = tables.read("motions", key).to_dicts() if success else []
    sources = tables.read("topic_sources", key).to_dicts() if success else []
    report = {
        "rotation": key,
        "success": success,
        "failures": failures,
        "sources": [{k: r[k] for k in ("source", "status", "items", "error")} for r in sources],
        "motions": [
            {k: r[k] for k in ("position", "motion_id", "source", "motion", "context", "url", "citations")}
            for r in motions
        ],
        "data": str(root),
    }

    def say() -> None:
        said = ", ".join(f"{r['source']} {r['status']} ({r['items']})" for r in sources)
        print(f"rotation {key}: 12 motions sealed; sources: {said}")
        for r in motions:
            print(f"  {r['position']:>2}. [{r['source']}] {shown(r['motion'])}  ({r['motion_id']})")
            print(f"      {shown(r['context'])}")

    return _print_report(report, args.json, f"rotation {key}", say)


def draw_current_rotation(request: TrialRequest) -> None:
    """A trial's prerequisite (``colosseum_dagster.cli.trial``): the current topic rotation drawn and
    sealed, as ``colosseum debate topics current`` draws it (the offline default needs no network),
    so the debate's part has motions; TrialError naming the rotation and why when it does not seal."""
    import contextlib
    import io

    from colosseum_core.trial import TrialError

    args = argparse.Namespace(
        rotation="current", exchange=None, kalshi=None, models=None, data=str(request.data_dir), json=True,
        verbose=False,
    )  # fmt: skip
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cmd_topics(args)
    report = json.loads(out.getvalue())
    request.progress(f"debate: rotation {report['rotation']}: {'sealed' if report['success'] else 'FAILED'}")
    if code != 0 or not report["success"]:
        raise TrialError(
            f"debate trial: rotation {report['rotation']} did not seal, so there are no motions to argue "
            f"({'; '.join(report['failures']) or 'see the run log'})"
        )


def cmd_games(args: argparse.Namespace) -> int:
    root, _, key, tables = _epoch_after(args, "entries")
    config: dict[str, Any] = {"rounds": args.rounds, "pairings": list(args.pairing or [])}
    if args.rotation:
        config["rotation"] = args.rotation
    result = _run_epoch_job(
        "debate_games_job",
        key,
        root,
        verbose=args.verbose,
        models=args.models,
        ops={"debate__epoch_games": {"config": config}},
    )
    games = tables.read("games", key).to_dicts() if result.success else []
    report = {
        "epoch": key,
        "success": result.success,
        "failures": failure_messages(result),
        "games": [
            {
                k: g[k]
                for k in (
                    "game_id",
                    "round",
                    "motion",
                    "pro_hotkey",
                    "con_hotkey",
                    "status",
                    "winner",
                    "reason",
                )
            }
            for g in games
        ],
        "data": str(root),
    }

    def say() -> None:
        kind = games[0]["kind"] if games else "-"
        print(f"epoch {key}: {len(games)} games ({kind})")
        for g in games:
            print(
                f"  {g['game_id']}  Pro {shown(g['pro_hotkey'])} vs Con {shown(g['con_hotkey'])}: "
                f"{g['reason']}"
            )

    return _print_report(report, args.json, f"epoch {key}", say)


def cmd_close(args: argparse.Namespace) -> int:
    root, ledger_url, key, tables = _epoch_after(args, "games")
    # The weights are set on the ledger once the epoch is sealed.
    _ledger_answers(ledger_url)
    result = _run_epoch_job(
        "debate_close_job", key, root, verbose=args.verbose, ledger_url=ledger_url, models=args.models
    )
    sealed = result.success and tables.exists("crown", key)
    crown = tables.read("crown", key).row(0, named=True) if sealed else {}
    ratings = tables.read("ratings", key).to_dicts() if sealed else []
    fights = tables.read("title_fights", key).to_dicts() if sealed else []
    weights = tables.read("weights", key).to_dicts() if sealed else []
    report = {
        "epoch": key,
        "success": result.success,
        "failures": failure_messages(result),
        "crown": {k: crown.get(k) for k in ("king", "king_hotkey", "king_rating", "event", "reason")},
        "title_fight": fights[0] if fights else None,
        "weights": [{k: w[k] for k in ("hotkey", "uid", "role", "weight")} for w in weights],
        "standings": [
            {
                k: r[k]
                for k in ("rank", "hotkey", "rating", "bt_rating", "bt_low", "bt_high", "games", "wins",
                          "draws", "losses", "voids", "strategy_hash")
            }
            for r in ratings
        ],
        "data": str(root),
    }  # fmt: skip

    def say() -> None:
        king = shown(crown["king_hotkey"]) if crown.get("king") else "nobody"
        print(f"epoch {key}: sealed; the crown {crown['event']}: {king} ({crown['reason']})")
        if fights:
            f = fights[0]
            print(
                f"  title fight: {f['challenger_wins']}–{f['king_wins']} of n {f['decided']} decided "
                f"(draws {f['draws']}, voids {f['voids']}), bar {f['bar']}, p {f['p_value']:.4g}: "
                f"{f['outcome']}"
            )
        print(
            "  weights: "
            + ", ".join(f"{shown(w['hotkey'])} (uid {w['uid']}) {w['weight']:g}" for w in weights)
        )
        for r in ratings:
            bt = f"BT {r['bt_rating']:.0f} [{r['bt_low']:.0f}, {r['bt_high']:.0f}]" if r["bt_rating"] else ""
            print(
                f"  {r['rank']:>3}. {shown(r['hotkey']):<24} Elo {r['rating']:7.1f}  {bt}  "
                f"{r['wins']}-{r['draws']}-{r['losses']} (n {r['games']}, voids {r['voids']})"
            )

    return _print_report(report, args.json, f"epoch {key}", say)


def _rounds(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of rounds") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: an epoch plays at least one round")
    return value


def _strategy(text: str, side: str) -> str:
    from colosseum_core.debate.strategy import text_problem

    if text.startswith("@"):
        path = Path(text[1:])
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise UserError(f"--{side} {text}: cannot be read ({exc.strerror})") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UserError(f"--{side} {path}: byte {exc.start} is not UTF-8; a strategy is text") from None
    problem = text_problem(text, f"--{side}")
    if problem:
        raise UserError(problem)
    return text


def cmd_play(args: argparse.Namespace) -> int:

    from colosseum_core.debate.asking import Asker
    from colosseum_core.debate.game.play import Debater, GameSpec, play_game
    from colosseum_core.debate.models import ModelsError, check_models, load_models
    from colosseum_core.debate.strategy import strategy_hash
    from colosseum_core.providers.check import require_entries_reachable
    from colosseum_core.record.layout import Record
    from colosseum_dagster.resources import provider_keys_set

    pro, con = _strategy(args.pro, "pro"), _strategy(args.con, "con")
    if not args.motion.strip():
        raise UserError("--motion: the motion is empty")
    try:
        models = load_models(Path(args.models) if args.models else None)
    except ModelsError as exc:
        raise UserError(str(exc)) from None
    root = data_home(args.data)
    now = dt.datetime.now(dt.UTC)
    spec = GameSpec(
        game_id=f"play-{now:%Y%m%dT%H%M%S}",
        round=0,
        motion_id="",
        motion=args.motion,
        context=args.context or "",
        pro=Debater("pro", strategy_hash(pro), pro),
        con=Debater("con", strategy_hash(con), con),
        date=now.date().isoformat(),
    )
    with sparring_for_run(arenas=(DEBATE_ARENA,)) as sparring_url:
        keys = provider_keys_set()
        try:
            # Every real model the document would ask is asked once first, into a scratch folder.
            check_models(
                models,
                keys,
                functools.partial(
                    require_entries_reachable,
                    environ=keys,
                    sparring_url=sparring_url,
                    clock=lambda: dt.datetime.now(dt.UTC),
                    monotonic=time.monotonic,
                ),
            )
        except ModelsError as exc:
            raise UserError(str(exc)) from None
        asker = Asker(
            sparring_url=sparring_url,
            keys=keys,
            receipts=Record(root).receipts,
            clock=lambda: dt.datetime.now(dt.UTC),
        )
        print(f"playing one game: {models.source} (sha256 {models.sha256[:12]}…)", file=sys.stderr)
        try:
            played = run_async(play_game(spec, models, asker))
        except OSError as exc:
            raise UserError(
                f"--data {root}: its receipts cannot be written ({exc.strerror or exc})"
            ) from None
    if args.json:
        print(
            json.dumps(
                {"game": played.game, "turns": played.turns, "judge_calls": played.judge_calls},
                indent=1,
                default=str,
            )
        )
        return 0
    print(f"motion: {shown(args.motion)}")
    for turn in played.turns:
        print(f"\n--- turn {turn['turn']} ({turn['side']}, {turn['model']}) ---")
        print(
            shown(turn["text"] or "")
            if turn["status"] == "answered"
            else f"[{turn['status']}: {turn['error']}]"
        )
        notes = [*turn["style_flags"], *(f"neutralised {m!r}" for m in turn["neutralised"])]
        if notes:
            print(f"  [{'; '.join(notes)}]")
    if played.judge_calls:
        print("\n--- the panel ---")
    for call in played.judge_calls:
        said = f"{call['verdict']}: {call['reason']}" if call["verdict"] else f"no vote ({call['problem']})"
        print(
            f"  {call['slot']} {call['stage']} #{call['attempt']} {call['model']} "
            f"t={call['temperature']:g}: {shown(said)}"
        )
    print(f"\n{played.game['reason']}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    arena = command_group(
        sub,
        "debate",
        "the Compelle debate arena: its chain, topics, entries and games",
        f"example:\n  colosseum debate ledger serve --port {LEDGER_PORT} --log ledger.jsonl",
        dest="arena_command",
    )
    ledger = command_group(
        arena,
        "ledger",
        "the local ledger: the chain and gists, offline",
        f"example:\n  colosseum debate ledger serve --port {LEDGER_PORT}",
    )
    serve = command(
        ledger,
        "serve",
        cmd_ledger_serve,
        "serve the local ledger (12 s blocks from a genesis instant; register, commit, weights, gists)",
        f"examples:\n  colosseum debate ledger serve\n"
        f"  colosseum debate ledger serve --port {LEDGER_PORT} --log /tmp/ledger.jsonl "
        "--genesis 2026-01-01T00:00:00Z\n"
        "Then, for example:\n"
        f'  curl -X POST localhost:{LEDGER_PORT}/chain/register -d \'{{"hotkey": "miner-1"}}\'\n'
        f"  curl localhost:{LEDGER_PORT}/chain/neurons",
    )
    add_listen_options(serve, LEDGER_PORT)
    serve.add_argument("--log", default=None, help="append-only log to keep the chain in (replayed at start)")
    serve.add_argument(
        "--genesis", type=utc, default=None, help="block 0's instant (default 2026-01-01T00:00:00Z)"
    )
    serve.add_argument(
        "--house-miners",
        action="store_true",
        help="seed a fresh ledger with the house miners (as `make run` does)",
    )

    entries = command(
        arena,
        "entries",
        cmd_entries,
        "run an epoch's entry checks through the real Definitions and print who entered and why not",
        f"examples:\n  colosseum debate entries current\n  colosseum debate entries 40 --json\n"
        f"  colosseum debate entries current --ledger http://127.0.0.1:{LEDGER_PORT}\n"
        "  colosseum debate entries current --models my-models.json\n"
        "Each entry is written once: running an epoch again reproduces it or is refused (exit 1).",
    )
    entries.add_argument("epoch", help="an epoch number, or 'current' (the chain's epoch now)")
    entries.add_argument(
        "--ledger", default=None, help=f"the ledger (default ${LEDGER_URL_ENV} or {LOCAL_LEDGER_URL})"
    )
    entries.add_argument(
        "--models",
        default=None,
        help="compelle-models/1 document whose intent panel judges the strategies (default the house models)",
    )
    add_record_options(entries, verbose_help="print every Dagster event")

    topics = command(
        arena,
        "topics",
        cmd_topics,
        "draw a topic rotation (12 motions): Polymarket, Kalshi, the web search, the evergreen list",
        "examples:\n  colosseum debate topics current\n"
        "  colosseum debate topics 2026-12-01T06Z --json\n"
        "A rotation is sealed: running it again shows what was sealed.",
    )
    topics.add_argument("rotation", help="a rotation key (2026-12-01T06Z: 00, 06, 12 or 18 UTC) or 'current'")
    topics.add_argument(
        "--exchange", default=None, help="Gamma URL (default $COLOSSEUM_GAMMA_URL, else a simulated exchange)"
    )
    topics.add_argument(
        "--kalshi",
        default=None,
        help=f"Kalshi API base (default ${KALSHI_URL_ENV}, else <exchange>/trade-api/v2)",
    )
    topics.add_argument(
        "--models", default=None, help="compelle-models/1 document (default the house models)"
    )
    add_record_options(topics, verbose_help="print every Dagster event")

    games = command(
        arena,
        "games",
        cmd_games,
        "play an epoch's games on the latest sealed rotation, through the real Definitions",
        "examples:\n  colosseum debate games current\n  colosseum debate games 40 --rounds 1 --json\n"
        "  colosseum debate games 40 --pairing 'house-miner-plain house-miner-bold <motion_id>'\n"
        "Needs the epoch's entries (`colosseum debate entries`) and a sealed rotation (`colosseum debate "
        "topics`). Games are written once per epoch.",
    )
    games.add_argument("epoch", help="an epoch number, or 'current'")
    games.add_argument(
        "--pairing",
        action="append",
        help="'PRO_HOTKEY CON_HOTKEY MOTION_ID' (repeatable): play these instead",
    )
    games.add_argument("--rounds", type=_rounds, default=3, help="Swiss rounds (default 3)")
    games.add_argument("--rotation", default=None, help="the rotation argued (default the latest sealed)")
    games.add_argument("--models", default=None, help="compelle-models/1 document (default the house models)")
    games.add_argument(
        "--ledger",
        default=None,
        help=f"the ledger, for 'current' (default ${LEDGER_URL_ENV} or {LOCAL_LEDGER_URL})",
    )
    add_record_options(games, verbose_help="print every Dagster event")

    close = arena.add_parser(
        "close",
        help="close an epoch: the title fight if due, ratings, the crown and the weights sealed and set",
        description="Close an epoch through the real Definitions (debate_close_job): the title fight if a "
        "streak is due one, Elo and Bradley–Terry from every game, the crown, the weights; the epoch sealed "
        "and its weights set on the ledger. A sealed epoch is re-read, never changed.",
        epilog="examples:\n  colosseum debate close current\n  colosseum debate close 40 --json\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    close.add_argument("epoch", help="an epoch number, or 'current'")
    close.add_argument("--models", default=None, help="compelle-models/1 document (default the house models)")
    close.add_argument(
        "--ledger", default=None, help=f"the ledger (default ${LEDGER_URL_ENV}, else {LOCAL_LEDGER_URL})"
    )
    add_record_options(close, verbose_help="print every Dagster event")
    close.set_defaults(func=cmd_close)

    play = command(
        arena,
        "play",
        cmd_play,
        "play one game between two strategies on a motion and print the transcript and the panel",
        "examples:\n  colosseum debate play --pro 'Be brief.' --con @strategy.md "
        "--motion 'Cities should ban cars from their centres'\n"
        "  colosseum debate play --pro 'Ask questions.' --con 'Use analogies.' --motion 'Homework should be "
        "abolished' --json\nEvery request and reply is a receipt in the record; the game is not rated.",
    )
    play.add_argument("--pro", required=True, help="Pro's strategy: text, or @FILE")
    play.add_argument("--con", required=True, help="Con's strategy: text, or @FILE")
    play.add_argument("--motion", required=True, help="the motion argued")
    play.add_argument("--context", default="", help="the motion's context parenthetical")
    play.add_argument("--models", default=None, help="compelle-models/1 document (default the house models)")
    add_record_options(play, json_help="machine-readable game, turns and judge calls")
