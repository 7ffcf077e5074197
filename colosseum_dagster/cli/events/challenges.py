"""``colosseum events challenges …``: the challenge event's commands beside the shared
``event freeze|run`` and ``standings`` (``commands``): ``event run`` plays every phase (authoring
and admission, the commitments, solving and review, the reveal and the scores) and seals the
standings; ``tasks`` prints every submission and, once the event is sealed, every task revealed with
every reply to it; ``standings`` prints solving and authoring apart.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any, Final

from colosseum_dagster.cli.common import UserError, data_home, shown
from colosseum_dagster.cli.events import commands

KIND = "challenge"


def _freeze_config(args: argparse.Namespace) -> dict[str, Any]:
    if args.slots < 1:
        raise UserError(f"--slots {args.slots}: every contender needs at least one authoring slot")
    return {"slots": args.slots}


def _frozen_report(event: str, row: dict[str, Any], manifest: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **commands.frozen_report(event, row, manifest, key_id=False),
        "judges": [j["id"] for j in manifest["judges"]],
        "slots": manifest["slots"],
        "missing_keys": manifest["missing_keys"],
        "seed": manifest["seeds"]["bootstrap"],
    }


def _print_frozen(report: dict[str, Any]) -> None:
    print(
        f"  {len(report['contenders'])} contenders, {report['slots']} authoring slots each: "
        + ", ".join(report["contenders"])
    )
    print(f"  review panel: {', '.join(report['judges'])}; bootstrap seed {report['seed']}")
    commands.print_calibration(report)


def _print_standings(rows: list[dict[str, Any]]) -> None:
    for ranking in ("solving", "authoring"):
        for basis in ("verified", "with_reviewed"):
            chosen = sorted(
                (r for r in rows if r["ranking"] == ranking and r["basis"] == basis),
                key=lambda r: (r["placement"] is None, r["placement"] or 0, r["contender"]),
            )
            print(f"  {ranking}, {basis.replace('_', ' ')}:")
            for r in chosen:
                place = "-" if r["placement"] is None else str(r["placement"])
                place += commands.medal_mark(r["medal"])
                score = (
                    "-" if r["score"] is None else f"{r['score']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}]"
                )
                extra = (
                    f"  verified slots {r['verified_slots']}/{r['slots']}" if ranking == "authoring" else ""
                )
                print(
                    f"    {place:<6}{shown(r['contender']):<22}{score:<28} n {r['n']:<4} "
                    f"excluded {r['excluded']}{extra}"
                )


def cmd_tasks(args: argparse.Namespace) -> int:
    import polars as pl

    from colosseum_core.events.challenges.event import (
        ChallengeError,
        open_tables,
        published_key,
        review_outcomes,
        sealed_event,
    )
    from colosseum_core.events.challenges.sealing import SealingError

    root, event = data_home(args.data), commands.event_name(args.event, COMMANDS.example)
    tables = commands.events_tables(root)
    if not tables.exists("challenge_submissions", event):
        raise UserError(
            f"event {event} has no submissions yet: `colosseum events challenges event run {event}`"
        )
    manifest = json.loads(tables.read("event_manifests", event)["manifest"][0])
    names = ("challenge_submissions", "challenge_replies", "challenge_reviews", "challenge_key")
    frames = {t: tables.read(t, event) for t in names if tables.exists(t, event)}
    # Before the reveal the record holds the tasks sealed (CHALLENGE-COMMIT-2): only who submitted what
    # and whether it was admitted can be shown.
    revealed = not sealed_event(manifest) or "challenge_key" in frames
    if not revealed:
        return _print_sealed(event, frames["challenge_submissions"], args.json)
    try:
        frames = open_tables(frames, published_key(manifest, frames.get("challenge_key")), event)
    except (ChallengeError, SealingError) as exc:
        raise UserError(str(exc)) from None
    submissions = frames["challenge_submissions"].sort("author", "slot")
    replies = frames.get("challenge_replies")
    reviews = frames.get("challenge_reviews")
    outcomes = review_outcomes(reviews) if reviews is not None else {}
    sealed = tables.exists("challenge_standings", event)
    if args.json:
        document = {"event": event, "sealed": sealed, "submissions": submissions.to_dicts()}
        if sealed and replies is not None:
            document["replies"] = [
                {
                    **r,
                    "review": outcomes.get((r["solver"], r["task_id"])),
                    "objection": _objection(r, outcomes, reviews) if r["verdict"] == "OBJECT" else None,
                }
                for r in replies.drop("text").to_dicts()
            ]
        print(json.dumps(document, indent=1, default=str))
        return 0
    for s in submissions.iter_rows(named=True):
        print(
            f"{s['author']} slot {s['slot']}: {s['status']}"
            + (f" ({shown(s['detail'])})" if s["status"] != "verified" else "")
        )
        if s["status"] != "verified":
            continue
        print(f"  task {s['task_id'][:16]}… ({s['answer_type']})")
        if not sealed:
            print("  (revealed when the event closes)")
            continue
        print(f"  {shown(s['statement'])}")
        for r in (
            replies.filter(pl.col("task_id") == s["task_id"]).sort("solver").iter_rows(named=True)
            if replies is not None
            else []
        ):
            said = commands.reply_said(
                r,
                lambda r: f"({_said(_objection(r, outcomes, reviews))})",
                answered=r["status"] == "answered",
                check=f" ({r['check']})",
            )
            print(f"    {shown(r['solver']):<20} {said}")
    return 0


def _objection(reply: dict[str, Any], outcomes: dict[tuple[str, str], str], reviews: Any) -> dict[str, Any]:
    """What decided an objection, and on what evidence: a witness that holds decides it by machine
    (Verified, CHALLENGE-WITNESS-1) and the judges never see it; any other is the judges' (Reviewed)."""
    import polars as pl

    if reply["witness_check"] == "holds":
        return {
            "outcome": "upheld",
            "evidence": "verified",
            "witness": reply["witness"],
            "why": reply["witness_reason"],
        }
    key = (reply["solver"], reply["task_id"])
    votes = (
        reviews.filter((pl.col("solver") == key[0]) & (pl.col("task_id") == key[1])).sort("judge")
        if reviews is not None
        else None
    )
    return {
        "outcome": outcomes.get(key, "not reviewed"),
        "evidence": "reviewed",
        "votes": {v["judge"]: v["vote"] for v in votes.iter_rows(named=True)} if votes is not None else {},
        # A witness that fails leaves the objection to the judges; why it failed is part of the case.
        **({"witness": reply["witness"], "why": reply["witness_reason"]} if reply["witness_check"] else {}),
    }


def _said(objection: dict[str, Any]) -> str:
    """An objection's outcome and its evidence, in one parenthesis of the tasks listing."""
    if objection["evidence"] == "verified":
        return f"upheld, Verified: its witness {shown(objection['witness'])} holds"
    votes = ", ".join(f"{shown(judge)} {vote or 'no vote'}" for judge, vote in objection["votes"].items())
    failed = f"; its witness {shown(objection['witness'])} does not hold" if objection.get("witness") else ""
    return f"{objection['outcome']}, Reviewed: {votes or 'no judge voted'}{failed}"


def _print_sealed(event: str, submissions: Any, as_json: bool) -> int:
    rows = submissions.select("author", "slot", "status").sort("author", "slot").to_dicts()
    if as_json:
        print(json.dumps({"event": event, "sealed": False, "revealed": False, "submissions": rows}, indent=1))
        return 0
    for r in rows:
        print(f"{r['author']} slot {r['slot']}: {r['status']}")
    print(f"event {event}: every task is sealed until the reveal")
    return 0


def _tasks_commands(kind: argparse._SubParsersAction) -> None:
    commands.event_command(
        kind,
        "tasks",
        help="every submission and, once the event is sealed, every task revealed with every reply",
        epilog="example:\n  colosseum events challenges tasks ch-2026-12-02",
        func=cmd_tasks,
        json_help="machine-readable submissions and replies",
    )


COMMANDS: Final = commands.EventCommands(
    kind=KIND,
    cli="challenges",
    help="the challenge event: contenders author tasks for each other, then solve or object",
    example="ch-2026-12-02",
    noun="challenge",
    examples=("event freeze ch-1 --slots 2", "event run ch-1", "standings ch-1"),
    event_examples=("event freeze ch-1 --slots 2", "event run ch-1"),
    freeze_examples=(
        "event freeze smoke --slots 1 --contender house-lazy --contender openai-frontier --json",
    ),
    freeze_help="resolve the contenders and the review panel and freeze the manifest (signed; never edited)",
    contenders_help="the contenders registry (default challenges.toml)",
    seed_help="the bootstrap's seed (default: drawn, recorded)",
    freeze_options=(commands.Option("--slots", int, 2, "authoring slots per contender (default 2)"),),
    freeze_config=_freeze_config,
    frozen_report=_frozen_report,
    print_frozen=_print_frozen,
    run_help="author, commit, solve, review, reveal and score a frozen event, and seal its standings",
    run_note="A run that stops is resumed by running it again: nothing answered is asked again.",
    wrong_kind=lambda event, kind: f"event {event} is a {kind} event, not a challenge event",
    run_requires=commands.require_sandbox,
    standings_help="solving and authoring standings, on the Verified basis and with Reviewed outcomes",
    standings_title="CHALLENGE-STANDINGS-1, 95 % task-clustered bootstrap",
    print_standings=_print_standings,
    extras=_tasks_commands,
)
