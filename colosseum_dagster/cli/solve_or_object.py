"""``colosseum events solve-or-object …``: the bank, an event's freeze and run, its items and standings.

``bank check`` runs every program of the bank in the sandbox (the reference programs print their
answers, every certificate holds); ``event freeze`` resolves the contenders, draws the pairs and
freezes the manifest; ``event run`` asks every contender every item and seals the standings, both
through the real Definitions; ``item show`` prints one item and every contender's reply and score;
``standings`` prints the event's table.
"""

from __future__ import annotations

import argparse
import json
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
from colosseum_dagster.cli.events import event_name, report_failure

KIND = "solve-or-object"


def _run(job: str, event: str, root: Path, *, verbose: bool, ops: dict[str, Any] | None = None) -> Any:
    from colosseum_dagster.events.solve_or_object import STEP_WORDS

    with sparring_for_run() as sparring_url:
        resources: dict[str, Any] = resource_config(root, None)
        resources["solve_or_object"] = {"config": {"sparring_url": sparring_url}}
        print(f"event {event}: running {job}", file=sys.stderr)
        return run_partition(
            job, "events", event, root, resources, verbose=verbose, step_words=STEP_WORDS, ops=ops
        )


def require_sandbox() -> None:
    from colosseum_core.sandbox.bubblewrap import unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        raise UserError(f"the bank's programs run in the sandbox, and it cannot run here: {reason}")


def cmd_bank_check(args: argparse.Namespace) -> int:
    from colosseum_core.events.solve_or_object.bank import DEFAULT_BANK, BankError, bank_problems, load_bank
    from colosseum_core.events.tasks.checking import sandbox_runner

    path = Path(args.bank) if args.bank else DEFAULT_BANK
    if not path.is_file():
        raise UserError(f"--bank {path}: no such file")
    try:
        bank = load_bank(path)
    except BankError as exc:
        raise UserError(str(exc)) from None
    require_sandbox()
    problems = bank_problems(bank, sandbox_runner())
    classes: dict[str, int] = {}
    for pair in bank.pairs:
        classes[str(pair.twin.defect_class)] = classes.get(str(pair.twin.defect_class), 0) + 1
    certified = sum(pair.twin.certificate is not None for pair in bank.pairs)
    report = {
        "bank": bank.name,
        "file": bank.path,
        "sha256": bank.sha256,
        "pairs": len(bank.pairs),
        "defect_classes": classes,
        "certificates": certified,
        "problems": problems,
    }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{bank.name}: {len(bank.pairs)} pairs, sha256 {bank.sha256}")
        print(f"  twins by class: {', '.join(f'{k} {v}' for k, v in sorted(classes.items()))}")
        print(f"  {certified} twins carry a certificate; every program was run in the sandbox")
        for problem in problems:
            print(f"  PROBLEM: {problem}")
    return 1 if problems else 0


def cmd_freeze(args: argparse.Namespace) -> int:
    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    root, event = data_home(args.data), event_name(args.event, KIND)
    tables = Record(root).tables(EVENTS)
    if tables.exists("event_manifests", event):
        raise UserError(
            f"event {event} is frozen already (its manifest is never edited); a new event needs a new name"
        )
    for name, path in (("--contenders", args.contenders), ("--bank", args.bank)):
        if path and not Path(path).is_file():
            raise UserError(f"{name} {path}: no such file")
    if args.pairs < 1:
        raise UserError(f"--pairs {args.pairs}: an event draws at least one pair")
    require_sandbox()
    config: dict[str, Any] = {
        "kind": KIND,
        "pairs": args.pairs,
        "only": args.contender or [],
        "replicates": args.replicates,
    }
    for field in ("contenders", "bank"):
        if getattr(args, field):
            config[field] = str(Path(getattr(args, field)).resolve())
    if args.seed is not None:
        config["seed"] = args.seed
    result = _run(
        "soo_freeze_job",
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
        "kind": manifest["kind"],
        "class": manifest["class"],
        "manifest_sha256": row["manifest_sha256"],
        "key_id": row["key_id"],
        "contenders": [c["id"] for c in manifest["contenders"]],
        "missing_keys": manifest["missing_keys"],
        "bank": manifest["bank"]["sha256"],
        "pairs": manifest["bank"]["pairs"],
        "items": len(manifest["bank"]["items"]),
        "seed": manifest["seeds"]["draw"],
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"event {event}: frozen ({manifest['class']}), manifest sha256 {row['manifest_sha256']}")
    print(f"  {len(report['contenders'])} contenders: {', '.join(report['contenders'])}")
    print(
        f"  {len(report['pairs'])} pairs of the bank, {report['items']} items (half defective); "
        f"seed {report['seed']}"
    )
    if report["missing_keys"]:
        print(f"  CALIBRATION: house stand-ins take part, as {', '.join(report['missing_keys'])} are not set")
    print(f"next: colosseum events solve-or-object event run {event}")
    return 0


def _standings(root: Path, event: str) -> list[dict[str, Any]]:
    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    tables = Record(root).tables(EVENTS)
    if not tables.exists("soo_standings", event):
        raise UserError(
            f"event {event} has no Solve-or-Object standings yet: "
            f"`colosseum events solve-or-object event run {event}`"
        )
    return tables.read("soo_standings", event).to_dicts()


def _print_standings(event: str, rows: list[dict[str, Any]]) -> None:
    print(f"event {event}: standings (SOO-STANDINGS-1: mean points, 95 % pair-clustered bootstrap)")
    print(
        f"  {'place':<6}{'contender':<22}{'points':>8}  {'95 % interval':<18}{'items':>6}{'solved':>7}"
        f"{'objected':>9}{'penalised':>10}  {'Brier':>6}"
    )
    for r in rows:
        place = f"{r['placement']}" + (
            {"gold": " G", "silver": " S", "bronze": " B"}.get(r["medal"] or "", "")
        )
        interval = f"[{r['low']:+.3f}, {r['high']:+.3f}]"
        print(
            f"  {place:<6}{shown(r['contender']):<22}{r['score']:>+8.3f}  {interval:<18}{r['items']:>6}"
            f"{r['solved']:>7}{r['substantiated']:>9}{r['penalised']:>10}  {r['brier']:>6.3f}"
        )


def cmd_run(args: argparse.Namespace) -> int:
    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    root, event = data_home(args.data), event_name(args.event, KIND)
    tables = Record(root).tables(EVENTS)
    if not tables.exists("event_manifests", event):
        raise UserError(
            f"event {event} is not frozen: `colosseum events solve-or-object event freeze {event}` first"
        )
    kind = json.loads(tables.read("event_manifests", event)["manifest"][0]).get("kind")
    if kind != KIND:
        raise UserError(f"event {event} is a {kind} event: `colosseum events {kind} event run {event}`")
    require_sandbox()
    result = _run("soo_event_job", event, root, verbose=args.verbose)
    if not result.success:
        return report_failure(event, failure_messages(result), args.json)
    rows = _standings(root, event)
    if args.json:
        print(json.dumps({"event": event, "success": True, "standings": rows}, indent=1, default=str))
    else:
        _print_standings(event, rows)
    return 0


def cmd_standings(args: argparse.Namespace) -> int:
    root, event = data_home(args.data), event_name(args.event, KIND)
    rows = _standings(root, event)
    if args.json:
        print(json.dumps({"event": event, "standings": rows}, indent=1, default=str))
    else:
        _print_standings(event, rows)
    return 0


def cmd_item(args: argparse.Namespace) -> int:
    import polars as pl

    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    root, event = data_home(args.data), event_name(args.event, KIND)
    tables = Record(root).tables(EVENTS)
    if not tables.exists("soo_replies", event):
        raise UserError(
            f"event {event} has no replies yet: `colosseum events solve-or-object event run {event}`"
        )
    replies = tables.read("soo_replies", event)
    chosen = replies.filter(pl.col("item_id") == args.item).sort("contender")
    if chosen.is_empty():
        known = replies["item_id"].unique().sort().head(3).to_list()
        raise UserError(
            f"event {event} has no item {args.item!r} (its items are named like {', '.join(known)})"
        )
    if args.json:
        print(
            json.dumps(
                {"event": event, "item": args.item, "replies": chosen.to_dicts()}, indent=1, default=str
            )
        )
        return 0
    print(f"{event} {args.item} ({chosen['role'][0]})")
    for r in chosen.iter_rows(named=True):
        said = (
            f"ANSWER {shown(r['answer'] or '')}"
            if r["verdict"] == "ANSWER"
            else f"OBJECT {r['defect']} {shown(r['span'] or '')!r}"
            if r["verdict"] == "OBJECT"
            else r["verdict"]
            or ("no reply" if r["outcome"] == "no_response" else f"unreadable ({r['failure']})")
        )
        p = "-" if r["p_defective"] is None else f"{r['p_defective']}%"
        print(f"  {shown(r['contender']):<20} {r['points']:+d} {r['outcome']:<19} P {p:<5} {said}")
        print(f"  {'':<20}    {shown(r['reason'])}")
    return 0


def add_commands(events: argparse._SubParsersAction) -> None:
    soo = events.add_parser(
        KIND,
        help="the Solve-or-Object event: sound problems and their defective twins",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events solve-or-object bank check\n"
        "  colosseum events solve-or-object event freeze soo-1 --pairs 6\n"
        "  colosseum events solve-or-object event run soo-1\n"
        "  colosseum events solve-or-object standings soo-1",
    ).add_subparsers(dest="action", required=True)

    bank = soo.add_parser(
        "bank",
        help="the project's bank of pairs",
        formatter_class=RAW,
        epilog="example:\n  colosseum events solve-or-object bank check",
    ).add_subparsers(dest="bank_action", required=True)
    check = bank.add_parser(
        "check",
        help="check the bank: its format, and every program of it run in the sandbox",
        formatter_class=RAW,
        epilog="example:\n  colosseum events solve-or-object bank check --json",
    )
    check.add_argument("--bank", default=None, help="the bank (default COLOSSEUM-SOO-BANK-1)")
    check.add_argument("--json", action="store_true", help="machine-readable report")
    check.set_defaults(func=cmd_bank_check)

    event = soo.add_parser(
        "event",
        help="freeze or run an event",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events solve-or-object event freeze soo-1 --pairs 6\n"
        "  colosseum events solve-or-object event run soo-1",
    ).add_subparsers(dest="event_action", required=True)
    freeze = event.add_parser(
        "freeze",
        help="resolve the contenders, draw the pairs and freeze the event's manifest (signed; never edited)",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events solve-or-object event freeze soo-2026-12-02\n"
        "  colosseum events solve-or-object event freeze smoke --pairs 4 --contender house-paranoid "
        "--contender openai-frontier --json",
    )
    freeze.add_argument("event", help="the event's name (its partition), e.g. soo-2026-12-02")
    freeze.add_argument(
        "--contenders", default=None, help="the contenders registry (default solve_or_object.toml)"
    )
    freeze.add_argument("--bank", default=None, help="the bank (default COLOSSEUM-SOO-BANK-1)")
    freeze.add_argument("--pairs", type=int, default=12, help="pairs drawn from the bank (default 12)")
    freeze.add_argument("--contender", action="append", help="keep only these contender ids (repeatable)")
    freeze.add_argument(
        "--seed", type=int, default=None, help="the draw's and bootstrap's seed (default: drawn)"
    )
    freeze.add_argument("--replicates", type=int, default=1999, help="bootstrap replicates (default 1999)")
    freeze.add_argument("--data", default=None, help=DATA_HELP)
    freeze.add_argument("--json", action="store_true", help="machine-readable report")
    freeze.add_argument("-v", "--verbose", action="store_true", help="print every Dagster event")
    freeze.set_defaults(func=cmd_freeze)
    run = event.add_parser(
        "run",
        help="ask every contender every item of a frozen event and seal its standings",
        formatter_class=RAW,
        epilog="example:\n  colosseum events solve-or-object event run soo-2026-12-02 --json\n"
        "A run that stops is resumed by running it again: no item already asked is asked again.",
    )
    run.add_argument("event", help="a frozen Solve-or-Object event")
    run.add_argument("--data", default=None, help=DATA_HELP)
    run.add_argument("--json", action="store_true", help="machine-readable standings")
    run.add_argument("-v", "--verbose", action="store_true", help="print every Dagster event")
    run.set_defaults(func=cmd_run)

    item = soo.add_parser(
        "item",
        help="one item",
        formatter_class=RAW,
        epilog="example:\n  colosseum events solve-or-object item show soo-1 soo-003/twin",
    ).add_subparsers(dest="item_action", required=True)
    show = item.add_parser(
        "show",
        help="every contender's reply to one item: its verdict, P(defective), outcome, points and why",
        formatter_class=RAW,
        epilog="example:\n  colosseum events solve-or-object item show soo-2026-12-02 soo-003/twin",
    )
    show.add_argument("event")
    show.add_argument("item", help="the item's id, e.g. soo-003/twin")
    show.add_argument("--data", default=None, help=DATA_HELP)
    show.add_argument("--json", action="store_true", help="machine-readable replies")
    show.set_defaults(func=cmd_item)
    standings = soo.add_parser(
        "standings",
        help="the event's standings: mean points, intervals, placements, medals, Brier",
        formatter_class=RAW,
        epilog="example:\n  colosseum events solve-or-object standings soo-2026-12-02 --json",
    )
    standings.add_argument("event")
    standings.add_argument("--data", default=None, help=DATA_HELP)
    standings.add_argument("--json", action="store_true", help="machine-readable standings")
    standings.set_defaults(func=cmd_standings)
