"""``colosseum events solve-or-object …``: the Solve-or-Object event's commands beside the shared
``event freeze|run`` and ``standings`` (``commands``): ``bank check`` runs every program of the bank
in the sandbox (the reference programs print their answers, every certificate holds); ``item show``
prints one item and every contender's reply and score.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from colosseum_dagster.cli.common import UserError, data_home, shown
from colosseum_dagster.cli.events import commands

KIND = "solve-or-object"
# The bank an event draws from and ``bank check`` checks.
_BANK: Final = commands.Option("--bank", Path, None, "the bank (default COLOSSEUM-SOO-BANK-1)")


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
    commands.require_sandbox()
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


def _freeze_config(args: argparse.Namespace) -> dict[str, Any]:
    if args.pairs < 1:
        raise UserError(f"--pairs {args.pairs}: an event draws at least one pair")
    commands.require_sandbox()
    return {"pairs": args.pairs}


def _frozen_report(event: str, row: dict[str, Any], manifest: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **commands.frozen_report(event, row, manifest),
        "missing_keys": manifest["missing_keys"],
        "bank": manifest["bank"]["sha256"],
        "pairs": manifest["bank"]["pairs"],
        "items": len(manifest["bank"]["items"]),
        "seed": manifest["seeds"]["draw"],
    }


def _print_frozen(report: dict[str, Any]) -> None:
    commands.print_contenders(report)
    print(
        f"  {len(report['pairs'])} pairs of the bank, {report['items']} items (half defective); "
        f"seed {report['seed']}"
    )
    commands.print_calibration(report)


_STANDINGS_HEAD: Final = (
    f"  {'place':<6}{'contender':<22}{'points':>8}  {'95 % interval':<18}{'items':>6}{'solved':>7}"
    f"{'objected':>9}{'penalised':>10}  {'Brier':>6}"
)


def _standing(r: dict[str, Any]) -> str:
    place = f"{r['placement']}" + commands.medal_mark(r["medal"])
    interval = f"[{r['low']:+.3f}, {r['high']:+.3f}]"
    return (
        f"  {place:<6}{shown(r['contender']):<22}{r['score']:>+8.3f}  {interval:<18}{r['items']:>6}"
        f"{r['solved']:>7}{r['substantiated']:>9}{r['penalised']:>10}  {r['brier']:>6.3f}"
    )


def cmd_item(args: argparse.Namespace) -> int:
    import polars as pl

    root, event = data_home(args.data), commands.event_name(args.event, COMMANDS.example)
    tables = commands.events_tables(root)
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
        said = commands.reply_said(
            r, lambda r: repr(shown(r["span"] or "")), answered=r["outcome"] != "no_response"
        )
        p = "-" if r["p_defective"] is None else f"{r['p_defective']}%"
        print(f"  {shown(r['contender']):<20} {r['points']:+d} {r['outcome']:<19} P {p:<5} {said}")
        print(f"  {'':<20}    {shown(r['reason'])}")
    return 0


COMMANDS: Final = commands.EventCommands(
    kind=KIND,
    cli=KIND,
    help="the Solve-or-Object event: sound problems and their defective twins",
    example="soo-2026-12-02",
    noun="Solve-or-Object",
    examples=("bank check", "event freeze soo-1 --pairs 6", "event run soo-1", "standings soo-1"),
    event_examples=("event freeze soo-1 --pairs 6", "event run soo-1"),
    freeze_examples=(
        "event freeze smoke --pairs 4 --contender house-paranoid --contender openai-frontier --json",
    ),
    freeze_help="resolve the contenders, draw the pairs and freeze the event's manifest "
    "(signed; never edited)",
    contenders_help="the contenders registry (default solve_or_object.toml)",
    seed_help="the draw's and bootstrap's seed (default: drawn)",
    freeze_options=(_BANK, commands.Option("--pairs", int, 12, "pairs drawn from the bank (default 12)")),
    freeze_config=_freeze_config,
    frozen_report=_frozen_report,
    print_frozen=_print_frozen,
    run_help="ask every contender every item of a frozen event and seal its standings",
    run_note="A run that stops is resumed by running it again: no item already asked is asked again.",
    wrong_kind=lambda event, kind: (
        f"event {event} is a {kind} event: `colosseum events {kind} event run {event}`"
    ),
    run_requires=commands.require_sandbox,
    standings_help="the event's standings: mean points, intervals, placements, medals, Brier",
    standings_title="SOO-STANDINGS-1: mean points, 95 % pair-clustered bootstrap",
    standings_head=_STANDINGS_HEAD,
    standing=_standing,
    check=commands.FileCheck(
        "bank",
        "the project's bank of pairs",
        help="check the bank: its format, and every program of it run in the sandbox",
        option=_BANK,
        func=cmd_bank_check,
    ),
    show=commands.ShowOne(
        "item",
        "one item",
        help="every contender's reply to one item: its verdict, P(defective), outcome, points and why",
        func=cmd_item,
        json_help="machine-readable replies",
        sample="soo-003/twin",
    ),
)
