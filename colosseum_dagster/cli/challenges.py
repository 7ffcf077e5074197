"""``colosseum events challenges …``: a challenge event's freeze, its run, its tasks and its standings.

``event freeze`` resolves the contenders and the two judges and freezes the manifest; ``event run``
plays every phase (authoring and admission, the commitments, solving and review, the reveal and the
scores) and seals the standings, both through the real Definitions; ``task show`` prints one task as
revealed with every reply to it; ``standings`` prints solving and authoring apart.
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
from colosseum_dagster.cli.solve_or_object import require_sandbox

KIND = "challenge"


def _run(job: str, event: str, root: Path, *, verbose: bool, ops: dict[str, Any] | None = None) -> Any:
    from colosseum_dagster.events.challenges import STEP_WORDS

    with sparring_for_run() as sparring_url:
        resources: dict[str, Any] = resource_config(root, None)
        resources["solve_or_object"] = {"config": {"sparring_url": sparring_url}}
        print(f"event {event}: running {job}", file=sys.stderr)
        return run_partition(
            job, "events", event, root, resources, verbose=verbose, step_words=STEP_WORDS, ops=ops
        )


def _tables(root: Path) -> Any:
    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    return Record(root).tables(EVENTS)


def cmd_freeze(args: argparse.Namespace) -> int:
    root, event = data_home(args.data), event_name(args.event, KIND)
    tables = _tables(root)
    if tables.exists("event_manifests", event):
        raise UserError(
            f"event {event} is frozen already (its manifest is never edited); a new event needs a new name"
        )
    if args.contenders and not Path(args.contenders).is_file():
        raise UserError(f"--contenders {args.contenders}: no such file")
    if args.slots < 1:
        raise UserError(f"--slots {args.slots}: every contender needs at least one authoring slot")
    config: dict[str, Any] = {
        "kind": KIND,
        "slots": args.slots,
        "only": args.contender or [],
        "replicates": args.replicates,
    }
    if args.contenders:
        config["contenders"] = str(Path(args.contenders).resolve())
    if args.seed is not None:
        config["seed"] = args.seed
    result = _run(
        "challenge_freeze_job",
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
        "contenders": [c["id"] for c in manifest["contenders"]],
        "judges": [j["id"] for j in manifest["judges"]],
        "slots": manifest["slots"],
        "missing_keys": manifest["missing_keys"],
        "seed": manifest["seeds"]["bootstrap"],
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"event {event}: frozen ({manifest['class']}), manifest sha256 {row['manifest_sha256']}")
    print(
        f"  {len(report['contenders'])} contenders, {report['slots']} authoring slots each: "
        + ", ".join(report["contenders"])
    )
    print(f"  review panel: {', '.join(report['judges'])}; bootstrap seed {report['seed']}")
    if report["missing_keys"]:
        print(f"  CALIBRATION: house stand-ins take part, as {', '.join(report['missing_keys'])} are not set")
    print(f"next: colosseum events challenges event run {event}")
    return 0


def _standings(root: Path, event: str) -> list[dict[str, Any]]:
    tables = _tables(root)
    if not tables.exists("challenge_standings", event):
        raise UserError(
            f"event {event} has no challenge standings yet: `colosseum events challenges event run {event}`"
        )
    return tables.read("challenge_standings", event).to_dicts()


def _print_standings(event: str, rows: list[dict[str, Any]]) -> None:
    print(f"event {event}: standings (CHALLENGE-STANDINGS-1, 95 % task-clustered bootstrap)")
    for ranking in ("solving", "authoring"):
        for basis in ("verified", "with_reviewed"):
            chosen = sorted(
                (r for r in rows if r["ranking"] == ranking and r["basis"] == basis),
                key=lambda r: (r["placement"] is None, r["placement"] or 0, r["contender"]),
            )
            print(f"  {ranking}, {basis.replace('_', ' ')}:")
            for r in chosen:
                place = "-" if r["placement"] is None else str(r["placement"])
                place += {"gold": " G", "silver": " S", "bronze": " B"}.get(r["medal"] or "", "")
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


def cmd_run(args: argparse.Namespace) -> int:
    root, event = data_home(args.data), event_name(args.event, KIND)
    tables = _tables(root)
    if not tables.exists("event_manifests", event):
        raise UserError(
            f"event {event} is not frozen: `colosseum events challenges event freeze {event}` first"
        )
    kind = json.loads(tables.read("event_manifests", event)["manifest"][0]).get("kind")
    if kind != KIND:
        raise UserError(f"event {event} is a {kind} event, not a challenge event")
    require_sandbox()
    result = _run("challenge_event_job", event, root, verbose=args.verbose)
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

    root, event = data_home(args.data), event_name(args.event, KIND)
    tables = _tables(root)
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
            said = (
                f"ANSWER {shown(r['answer'] or '')} ({r['check']})"
                if r["verdict"] == "ANSWER"
                else f"OBJECT {r['defect']} ({_said(_objection(r, outcomes, reviews))})"
                if r["verdict"] == "OBJECT"
                else r["verdict"]
                or ("no reply" if r["status"] != "answered" else f"unreadable ({r['failure']})")
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


def add_commands(events: argparse._SubParsersAction) -> None:
    challenges = events.add_parser(
        "challenges",
        help="the challenge event: contenders author tasks for each other, then solve or object",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events challenges event freeze ch-1 --slots 2\n"
        "  colosseum events challenges event run ch-1\n  colosseum events challenges standings ch-1",
    ).add_subparsers(dest="action", required=True)
    event = challenges.add_parser(
        "event",
        help="freeze or run an event",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events challenges event freeze ch-1 --slots 2\n"
        "  colosseum events challenges event run ch-1",
    ).add_subparsers(dest="event_action", required=True)
    freeze = event.add_parser(
        "freeze",
        help="resolve the contenders and the review panel and freeze the manifest (signed; never edited)",
        formatter_class=RAW,
        epilog="examples:\n  colosseum events challenges event freeze ch-2026-12-02\n"
        "  colosseum events challenges event freeze smoke --slots 1 --contender house-lazy "
        "--contender openai-frontier --json",
    )
    freeze.add_argument("event", help="the event's name (its partition), e.g. ch-2026-12-02")
    freeze.add_argument(
        "--contenders", default=None, help="the contenders registry (default challenges.toml)"
    )
    freeze.add_argument("--slots", type=int, default=2, help="authoring slots per contender (default 2)")
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
        help="author, commit, solve, review, reveal and score a frozen event, and seal its standings",
        formatter_class=RAW,
        epilog="example:\n  colosseum events challenges event run ch-2026-12-02 --json\n"
        "A run that stops is resumed by running it again: nothing answered is asked again.",
    )
    run.add_argument("event", help="a frozen challenge event")
    run.add_argument("--data", default=None, help=DATA_HELP)
    run.add_argument("--json", action="store_true", help="machine-readable standings")
    run.add_argument("-v", "--verbose", action="store_true", help="print every Dagster event")
    run.set_defaults(func=cmd_run)
    tasks = challenges.add_parser(
        "tasks",
        help="every submission and, once the event is sealed, every task revealed with every reply",
        formatter_class=RAW,
        epilog="example:\n  colosseum events challenges tasks ch-2026-12-02",
    )
    tasks.add_argument("event")
    tasks.add_argument("--data", default=None, help=DATA_HELP)
    tasks.add_argument("--json", action="store_true", help="machine-readable submissions and replies")
    tasks.set_defaults(func=cmd_tasks)
    standings = challenges.add_parser(
        "standings",
        help="solving and authoring standings, on the Verified basis and with Reviewed outcomes",
        formatter_class=RAW,
        epilog="example:\n  colosseum events challenges standings ch-2026-12-02 --json",
    )
    standings.add_argument("event")
    standings.add_argument("--data", default=None, help=DATA_HELP)
    standings.add_argument("--json", action="store_true", help="machine-readable standings")
    standings.set_defaults(func=cmd_standings)
