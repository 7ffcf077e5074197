"""The challenge event's part of ``colosseum verify``: every phase derived again from what was asked.

- Every model reply (an author's, a solver's, a judge's) is the text its last receipt answered, and
  its request carries the prompt the rules give (the slot's authoring prompt, the task's solving
  prompt, the objection's review prompt).
- ``challenge_submissions`` and ``challenge_checker_runs`` are derived again from the authors'
  replies (parsed, and verified in the sandbox); ``challenge_replies``, ``challenge_reviews`` and
  ``challenge_solving_runs`` from the solvers' and judges' replies.
- The commitments document is canonical, hashes to its recorded SHA-256, carries the arena key's
  signature (the manifest's key), and is exactly the commitments of the revealed tasks and salts:
  every reveal opens its commitment.
- A sealed event's reveal, scores and standings are derived again and must equal the record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

import polars as pl
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from colosseum_core.events.asking import Asked, call_problems, recorded_call
from colosseum_core.events.challenges.authoring import authoring_prompt
from colosseum_core.events.challenges.event import (
    COMMITMENTS_PAYLOAD,
    closing_tables,
    commitments_document,
    package,
    review_questions,
    solve_questions,
    solving_tables,
    submissions_tables,
)
from colosseum_core.events.manifest import FrozenManifest
from colosseum_core.events.tasks.checking import sandbox_runner
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.sandbox.bubblewrap import unavailable_reason
from colosseum_core.trust.bundle import dsse_problems
from colosseum_core.trust.keys import b64url_decode, key_id_of
from colosseum_core.verify.canonical import rederived_differences
from colosseum_core.verify.report import Outcome


def _check_receipts(out: Outcome, where: str, asked: Asked, prompt: str, receipts: ReceiptStore) -> None:
    out.problems += call_problems(where, asked, prompt, receipts)
    out.count("challenge_calls")


def check_event(
    out: Outcome,
    frozen: FrozenManifest,
    present: Mapping[str, pl.DataFrame],
    receipts: ReceiptStore,
    *,
    sealed: bool,
) -> None:
    manifest, event, cited = frozen.document, frozen.event, frozen.sha256
    reason = unavailable_reason()
    if reason is not None:
        out.notes.append(f"event {event}: its tasks' programs were not run again ({reason})")
        return
    runner = sandbox_runner()
    submissions = present.get("challenge_submissions")
    if submissions is None:
        return
    slots = int(manifest["slots"])
    authored = [
        recorded_call(r, r["author"], ("author", r["author"], str(r["slot"])), "status_of_call")
        for r in submissions.sort("author", "slot").iter_rows(named=True)
    ]
    for asked in authored:
        where = f"challenge_submissions event {event} author {asked.who} slot {asked.where[2]}"
        _check_receipts(out, where, asked, authoring_prompt(int(asked.where[2]), slots), receipts)
    order = {c["id"]: i for i, c in enumerate(manifest["contenders"])}
    authored.sort(key=lambda a: (order[a.who], int(a.where[2])))
    again = submissions_tables(manifest, cited, authored, runner)
    for table, key in (
        ("challenge_submissions", ("author", "slot")),
        ("challenge_checker_runs", ("task_id", "step", "case")),
    ):
        if table in present:
            mine = present[table].sort(*key, nulls_last=True)
            out.problems += rederived_differences(
                mine, again[table].sort(*key, nulls_last=True), f"{table} event {event}", key
            )
    commitments = present.get("challenge_commitments")
    if commitments is None:
        return
    row = commitments.row(0, named=True)
    body = str(row["document"]).encode("utf-8")
    if hashlib.sha256(body).hexdigest() != row["sha256"]:
        out.problems.append(f"challenge_commitments event {event}: its document does not hash to its sha256")
    raw = b64url_decode(frozen.public_key)
    arena_key = {key_id_of(raw): Ed25519PublicKey.from_public_bytes(raw)}
    where = f"challenge_commitments event {event}"
    out.problems += dsse_problems(json.loads(row["envelope"]), COMMITMENTS_PAYLOAD, body, arena_key, where)
    if "challenge_replies" not in present:
        return
    tasks = {t["task_id"]: t for t in package(submissions, commitments)}
    replies, reviews = present["challenge_replies"], present["challenge_reviews"]
    solved = [
        recorded_call(r, r["solver"], ("solve", r["solver"], r["task_id"]))
        for r in replies.iter_rows(named=True)
    ]
    prompts = {q.where: q.prompt for q in solve_questions(manifest, list(tasks.values()))}
    for asked in solved:
        where = f"challenge_replies event {event} solver {asked.who} task {asked.where[2][:12]}"
        if asked.where not in prompts:
            out.problems.append(f"{where}: the rules never ask this solver this task")
            continue
        _check_receipts(out, where, asked, prompts[asked.where], receipts)
    reviewed = [
        recorded_call(r, r["judge"], ("review", r["judge"], f"{r['solver']}:{r['task_id']}"))
        for r in reviews.iter_rows(named=True)
    ]
    review_prompts = {q.where: q.prompt for q in review_questions(manifest, submissions, solved)}
    for asked in reviewed:
        where = f"challenge_reviews event {event} judge {asked.who} on {asked.where[2][:30]}"
        if asked.where not in review_prompts:
            out.problems.append(f"{where}: the rules never put this objection to this judge")
            continue
        _check_receipts(out, where, asked, review_prompts[asked.where], receipts)
    again = solving_tables(manifest, cited, submissions, solved, reviewed, runner)
    for table, key in (
        ("challenge_replies", ("solver", "task_id")),
        ("challenge_reviews", ("judge", "solver", "task_id")),
        ("challenge_solving_runs", ("solver", "task_id")),
    ):
        mine = present[table].sort(*key)
        out.problems += rederived_differences(mine, again[table].sort(*key), f"{table} event {event}", key)
    if not sealed:
        return
    reveals = present.get("challenge_reveals")
    if reveals is None:
        out.problems.append(f"event {event}: sealed, but the record has no challenge_reveals")
        return
    salts = {r["task_id"]: bytes.fromhex(r["salt"]) for r in reveals.iter_rows(named=True)}
    try:
        document = commitments_document(manifest, cited, submissions, salts)
    except KeyError as exc:
        out.problems.append(f"challenge_reveals event {event}: no salt revealed for task {exc}")
        return
    if document != body:
        out.problems.append(
            f"challenge_reveals event {event}: the revealed tasks and salts do not open the signed "
            "commitments"
        )
    again = closing_tables(manifest, cited, submissions, commitments, replies, salts, runner)
    for table, key in (
        ("challenge_reveals", ("author", "slot")),
        ("challenge_scores", ("ranking", "contender", "slot", "task_id")),
        ("challenge_standings", ("ranking", "basis", "contender")),
    ):
        if table not in present:
            out.problems.append(f"event {event}: sealed, but the record has no {table}")
            continue
        mine = present[table].sort(*key, nulls_last=True)
        out.problems += rederived_differences(
            mine, again[table].sort(*key, nulls_last=True), f"{table} event {event}", key
        )
    out.count("standings")
