"""The challenge event's part of ``colosseum verify``: every phase derived again from what was asked.

- Every model reply (an author's, a solver's, a judge's) is the text its last receipt answered, and
  its request carries the prompt the rules give (the slot's authoring prompt, the task's solving
  prompt, the objection's review prompt).
- Each phase is derived again from the one before: ``challenge_submissions`` and
  ``challenge_checker_runs`` from ``challenge_authored`` (parsed, and verified in the sandbox);
  ``challenge_replies`` and ``challenge_solving_runs`` from the solvers' replies (answers checked
  again); ``challenge_reviews`` from the judges' replies.
- The commitments document is canonical, hashes to its recorded SHA-256, carries the arena key's
  signature (the manifest's key), and is exactly the commitments of the revealed tasks and salts:
  every reveal opens its commitment.
- The reveal is derived again (every reference program run again), and a sealed event's scores and
  standings must equal the record.
- Sealed until revealed (CHALLENGE-COMMIT-2): before the reveal only the commitments can be checked
  (the replies' receipts wait in the private store). After it, the published key must be the one whose
  SHA-256 the commitments signed before solving, every sealed row must open under it, and every phase
  is derived again from the opened tables: a row that opens and equals its re-derivation is exactly
  the recorded bytes, as the sealing is deterministic.

Every program runs again in today's sandbox under the limits the manifest froze, through a
``Replay`` (COLOSSEUM-REPLAY-1): a program run whose replay differs from the recorded one is a
**finding about its task**, charged to the task's author, and the derivation goes on with the
recorded run, so the record still verifies. The finding (a note of the report) names the event, the
task, its author and slot, the run, the recorded and the replayed verdicts, and what the method
charges: a task whose checker's verdict depends on when or where it runs is a defective problem,
Verified by the replay (CHALLENGE-SCORING-1: −1 to its author); the sealed points stand (history is
never re-scored), and the finding says what the record scored the slot.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from colosseum_core.events.asking import Asked, call_problems, recorded_call
from colosseum_core.events.challenges.authoring import authoring_prompt
from colosseum_core.events.challenges.event import (
    COMMITMENTS_PAYLOAD,
    ChallengeError,
    commitments_document,
    key_table,
    open_tables,
    package,
    published_key,
    replies_tables,
    reveals_table,
    review_questions,
    reviews_table,
    scoring_tables,
    sealed_event,
    solve_questions,
    submissions_tables,
)
from colosseum_core.events.challenges.sealing import SealingError, key_sha256
from colosseum_core.events.manifest import FrozenManifest
from colosseum_core.events.tasks.checking import frozen_runner
from colosseum_core.events.tasks.replay import Disagreement, Replay
from colosseum_core.events.tasks.verification import NOT_REPRODUCIBLE
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.sandbox.bubblewrap import SANDBOX_VERSION, unavailable_reason
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
    manifest, event = frozen.document, frozen.event
    if sealed_event(manifest) and "challenge_key" not in present:
        if sealed:
            out.problems.append(f"event {event}: sealed, but the record has no challenge_key")
        elif "challenge_commitments" in present:
            _check_commitments(out, frozen, present["challenge_commitments"])
        out.notes.append(f"event {event}: sealed until its reveal; its commitments alone were checked")
        return
    key = None
    try:
        key = published_key(manifest, present.get("challenge_key"))
        present = {**present, **open_tables(present, key, event)}
    except (ChallengeError, SealingError) as exc:
        out.problems.append(str(exc))
        return
    reason = unavailable_reason()
    if reason is not None:
        out.notes.append(f"event {event}: its tasks' programs were not run again ({reason})")
        return
    replays: list[Replay] = []
    try:
        _check(out, frozen, present, receipts, sealed=sealed, key=key, replays=replays)
    finally:
        out.notes += findings(frozen, present, [d for replay in replays for d in replay.disagreements])


def _as_asked(
    out: Outcome,
    receipts: ReceiptStore,
    where: str,
    asked: Sequence[Asked],
    prompts: Mapping[Any, str],
    counted: str,
    who: Callable[[Asked], str],
) -> bool:
    """The calls ``where`` records (a table of an event) are the questions the rules ask (else how
    many there are, ``counted`` of them), each with its receipts (``who`` names its asker)."""
    if {a.where for a in asked} != set(prompts):
        out.problems.append(f"{where}: {len(asked)} {counted} the rules ask")
        return False
    for call in asked:
        _check_receipts(out, f"{where} {who(call)}", call, prompts[call.where], receipts)
    return True


def _rows(frame: pl.DataFrame | None) -> list[dict[str, object]]:
    return [] if frame is None else frame.to_dicts()


def _check(
    out: Outcome,
    frozen: FrozenManifest,
    present: Mapping[str, pl.DataFrame],
    receipts: ReceiptStore,
    *,
    sealed: bool,
    key: bytes | None,
    replays: list[Replay],
) -> None:
    manifest, event, cited = frozen.document, frozen.event, frozen.sha256
    sandbox = frozen_runner(manifest.get("sandbox"))

    def replay(phase: str, recorded: list[dict[str, object]]) -> Replay:
        replays.append(Replay(sandbox, phase, recorded))
        return replays[-1]

    def compare(table: str, again: pl.DataFrame, key: tuple[str, ...]) -> None:
        if table not in present:
            out.problems.append(
                f"event {event}: the record has no {table}, which the phase before it implies"
            )
            return
        # Stable sorts: admission's runs of one step again share their key with the step's run.
        mine = present[table].sort(*key, nulls_last=True, maintain_order=True)
        out.problems += rederived_differences(
            mine, again.sort(*key, nulls_last=True, maintain_order=True), f"{table} event {event}", key
        )

    authored_rows = present.get("challenge_authored")
    if authored_rows is None:
        return
    slots = int(manifest["slots"])
    for r in authored_rows.iter_rows(named=True):
        asked = recorded_call(r, r["author"], ("author", r["author"], str(r["slot"])))
        where = f"challenge_authored event {event} author {asked.who} slot {r['slot']}"
        _check_receipts(out, where, asked, authoring_prompt(int(r["slot"]), slots), receipts)
    if "challenge_submissions" not in present:
        return
    admission = replay("admission", _rows(present.get("challenge_checker_runs")))
    admitted_again = submissions_tables(manifest, cited, authored_rows, admission)
    compare("challenge_submissions", admitted_again["challenge_submissions"], ("author", "slot"))
    compare("challenge_checker_runs", admitted_again["challenge_checker_runs"], ("task_id", "step", "case"))
    submissions = present["challenge_submissions"]
    commitments = present.get("challenge_commitments")
    if commitments is None:
        return
    body = _check_commitments(out, frozen, commitments)
    if key is not None:
        signed = json.loads(body).get("sealing") or {}
        if signed.get("key_sha256") != key_sha256(key):
            out.problems.append(
                f"challenge_key event {event}: the published key hashes to {key_sha256(key)}, not to the "
                f"key_sha256 {signed.get('key_sha256')} the commitments signed before anyone solved"
            )
    replies = present.get("challenge_replies")
    if replies is None:
        return
    tasks = package(submissions, commitments)
    handles = {t["task_id"]: t["handle"] for t in tasks}
    prompts = {q.where: q.prompt for q in solve_questions(manifest, tasks)}
    solved = [
        recorded_call(
            r,
            r["solver"],
            ("solve", r["solver"], handles.get(r["task_id"], r["task_id"])),
            about=r["task_id"],
        )
        for r in replies.iter_rows(named=True)
    ]
    where, counted = f"challenge_replies event {event}", f"replies for the {len(prompts)} questions"
    if not _as_asked(
        out, receipts, where, solved, prompts, counted, lambda a: f"solver {a.who} task {a.where[2][:12]}"
    ):
        return
    order = [q.where for q in solve_questions(manifest, tasks)]
    solved.sort(key=lambda a: order.index(a.where))
    solving = replay("solving", _rows(present.get("challenge_solving_runs")))
    solved_again = replies_tables(manifest, cited, submissions, solved, solving)
    compare("challenge_replies", solved_again["challenge_replies"], ("solver", "task_id"))
    compare("challenge_solving_runs", solved_again["challenge_solving_runs"], ("solver", "task_id"))
    reviews = present.get("challenge_reviews")
    if reviews is None:
        return
    review_prompts = {
        q.where: q.prompt for q in review_questions(manifest, submissions, commitments, replies)
    }
    reviewed = [
        recorded_call(
            r,
            r["judge"],
            ("review", r["judge"], f"{r['solver']}:{handles.get(r['task_id'], r['task_id'])}"),
            about=(r["solver"], r["task_id"]),
        )
        for r in reviews.iter_rows(named=True)
    ]
    where, counted = f"challenge_reviews event {event}", f"votes for the {len(review_prompts)}"
    if not _as_asked(
        out,
        receipts,
        where,
        reviewed,
        review_prompts,
        counted,
        lambda a: f"judge {a.who} on {a.where[2][:30]}",
    ):
        return
    compare("challenge_reviews", reviews_table(manifest, cited, reviewed), ("judge", "solver", "task_id"))
    reveals = present.get("challenge_reveals")
    if reveals is None:
        if sealed:
            out.problems.append(f"event {event}: sealed, but the record has no challenge_reveals")
        return
    salts = {r["task_id"]: bytes.fromhex(r["salt"]) for r in reveals.iter_rows(named=True)}
    if key is not None:
        compare("challenge_key", key_table(manifest, cited, key), ("event",))
    try:
        document = commitments_document(manifest, cited, submissions, salts, key)
    except KeyError as exc:
        out.problems.append(f"challenge_reveals event {event}: no salt revealed for task {exc}")
        return
    if document != body:
        out.problems.append(
            f"challenge_reveals event {event}: the revealed tasks and salts do not open the signed "
            "commitments"
        )
    # A reveal records only what each reference program printed again.
    revealed = replay(
        "reveal",
        [
            {"task_id": r["task_id"], "step": "reference", "case": None, "answer": r["reference_again"]}
            for r in reveals.iter_rows(named=True)
        ],
    )
    compare(
        "challenge_reveals",
        reveals_table(manifest, cited, submissions, commitments, replies, reviews, salts, revealed),
        ("author", "slot"),
    )
    if not sealed:
        return
    scored = scoring_tables(manifest, cited, submissions, replies, reviews, reveals)
    compare("challenge_scores", scored["challenge_scores"], ("ranking", "contender", "slot", "task_id"))
    compare("challenge_standings", scored["challenge_standings"], ("ranking", "basis", "contender"))
    out.count("standings")


def _check_commitments(out: Outcome, frozen: FrozenManifest, commitments: pl.DataFrame) -> bytes:
    """The commitments document hashes to its recorded SHA-256 and carries the arena key's signature (the
    manifest's key); its bytes."""
    event = frozen.event
    row = commitments.row(0, named=True)
    body = str(row["document"]).encode("utf-8")
    if hashlib.sha256(body).hexdigest() != row["sha256"]:
        out.problems.append(f"challenge_commitments event {event}: its document does not hash to its sha256")
    raw = b64url_decode(frozen.public_key)
    arena_key = {key_id_of(raw): Ed25519PublicKey.from_public_bytes(raw)}
    where = f"challenge_commitments event {event}"
    out.problems += dsse_problems(json.loads(row["envelope"]), COMMITMENTS_PAYLOAD, body, arena_key, where)
    return body


def findings(
    frozen: FrozenManifest, present: Mapping[str, pl.DataFrame], disagreements: list[Disagreement]
) -> list[str]:
    """One finding per task whose programs' replays differ from the record, charged to its author."""
    if not disagreements:
        return []
    event, manifest = frozen.event, frozen.document
    authors: dict[str, tuple[str, int, str, str | None]] = {}
    submissions = present.get("challenge_submissions")
    if submissions is not None:
        named = submissions.filter(pl.col("task_id").is_not_null()).sort("author", "slot")
        for r in named.iter_rows(named=True):
            authors.setdefault(r["task_id"], (r["author"], r["slot"], r["status"], r["failure"]))
    scored: dict[tuple[str, int], str] = {}
    scores = present.get("challenge_scores")
    if scores is not None:
        for r in scores.filter(pl.col("ranking") == "authoring").iter_rows(named=True):
            scored[(r["contender"], r["slot"])] = f"{r['outcome']}, {r['units'] / r['scale']:+.4g}"
    recorded_under = str(manifest.get("sandbox", {}).get("version", "an unrecorded sandbox"))
    under = (
        ""
        if recorded_under == SANDBOX_VERSION
        else f" (recorded under {recorded_under}, replayed under {SANDBOX_VERSION})"
    )
    by_task: dict[str, list[Disagreement]] = {}
    for disagreement in disagreements:
        by_task.setdefault(disagreement.task_id, []).append(disagreement)
    notes = []
    for task_id, found in sorted(by_task.items()):
        author, slot, status, failure = authors.get(
            task_id, ("an author the record does not name", 0, "", None)
        )
        if failure == NOT_REPRODUCIBLE:
            continue  # refused at admission for just this: its replays differing is no news
        first = found[0]
        recorded, replayed = first.verdicts()
        more = f"; {len(found) - 1} more of its runs disagree too" if len(found) > 1 else ""
        said = (
            f"finding: event {event} task {task_id} (author {author}, slot {slot}): its programs are not "
            f"reproducible{under}: {first.what()}: the record says {recorded}, the replay says {replayed}"
            f"{more}. The recorded verdicts stand (a sealed event is never re-scored) and the record verifies"
        )
        if status != "verified":
            notes.append(f"{said}; the task was refused at admission ({failure}), which counts 0 either way.")
            continue
        charge = (
            f"where the record scored the slot {scored[(author, slot)]}"
            if (author, slot) in scored
            else "the event is not scored yet"
        )
        notes.append(
            f"{said}; the task is charged to {author}: a problem whose verdicts depend on when or where "
            f"its programs run is defective, Verified by this replay (CHALLENGE-SCORING-1: -1 to its "
            f"author), {charge}."
        )
    return notes
