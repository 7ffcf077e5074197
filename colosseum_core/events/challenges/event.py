"""A challenge event: its manifest, and each phase's tables as pure functions of what was asked.

1. **Authoring** (``authored_table``): every contender asked once per slot: ``challenge_authored``.
2. **Admission** (``submissions_tables``): each reply parsed into a task (CHALLENGE-AUTHORING-1) and
   verified in the sandbox (COLOSSEUM-TASK-VERIFIED-1): ``challenge_submissions`` and the runs in
   ``challenge_checker_runs``.
3. **Commitments** (``commitments_table``): every verified task committed by a salted SHA-256
   (COLOSSEUM-COMMIT-1 under the domain ``colosseum/challenge-task``), the list and the SHA-256 of
   the event's sealing key signed by the arena key before any solver is asked:
   ``challenge_commitments``.
4. **Solving** (``replies_tables``): every verified task asked of every contender but its author
   (CHALLENGE-SOLVING-1), answers checked by the task's checker: ``challenge_replies`` and
   ``challenge_solving_runs``.
5. **Review** (``reviews_table``): every objection before two blinded judges (CHALLENGE-REVIEW-1):
   ``challenge_reviews``.
6. **Reveal** (``reveals_table``, ``key_table``): every task and salt revealed against its
   commitment, every reference program run again, every task's defect and its evidence:
   ``challenge_reveals``; and the event's sealing key published: ``challenge_key``.
7. **Scoring** (``scoring_tables``): the points (CHALLENGE-SCORING-1) and the standings
   (CHALLENGE-STANDINGS-1): ``challenge_scores`` and ``challenge_standings``.

Sealed until revealed (CHALLENGE-COMMIT-2): the tables of phases 1, 2, 4 and 5 are recorded sealed
(``seal_tables``, ``sealing``): only who was asked what and how each call went are in the clear
(``PUBLIC_FIELDS``); every reply, task, reference, checker, failure case, answer, reading, verdict
and task id is sealed under the event's key. Those phases' questions name a task in the journal by
its commitment (``package``'s ``handle``), never by its id, an unsalted hash of the whole task. The
functions here take and give the tables open; the run seals what it writes and opens what it reads.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl
import rfc8785

from colosseum_core.events.asking import Asked, Question
from colosseum_core.events.challenges.authoring import AUTHORING_PROMPT, authoring_prompt, parse_submission
from colosseum_core.events.challenges.prompts import (
    REVIEW_PROMPT,
    SOLVING_PROMPT,
    read_vote,
    review_prompt,
    solving_prompt,
)
from colosseum_core.events.challenges.rules import CHALLENGE_COMMIT_1, COMMIT_DOMAIN, RULES
from colosseum_core.events.challenges.scoring import (
    TaskVerdict,
    authoring_score,
    solving_score,
    task_verdicts,
)
from colosseum_core.events.challenges.sealing import (
    ALGORITHM,
    SEALED_FIELD,
    key_sha256,
    open_frame,
    seal_frame,
)
from colosseum_core.events.challenges.standings import challenge_standings
from colosseum_core.events.manifest import manifest_head
from colosseum_core.events.tables import id_tables
from colosseum_core.events.tasks.answers import MalformedAnswer, read_answer
from colosseum_core.events.tasks.checking import (
    CheckerRun,
    ProgramRunner,
    check_answer,
    predicate_run,
    reference_answer,
)
from colosseum_core.events.tasks.reading import MAX_REPLY_CHARS, read_reply
from colosseum_core.events.tasks.task import Task, parse_task
from colosseum_core.events.tasks.verification import verify_task
from colosseum_core.record import with_ids
from colosseum_core.sandbox.bubblewrap import SANDBOX_VERSION, Limits
from colosseum_core.trust.bundle import dsse_envelope
from colosseum_core.trust.commitments import commitment
from colosseum_core.trust.keys import SigningKey

KIND: Final = "challenge"
BOOTSTRAP_REPLICATES: Final = 1999
JOURNAL_FIELDS: Final = ("phase", "who", "subject")
COMMITMENTS_PAYLOAD: Final = "application/vnd.colosseum.challenge-commitments+json"


class ChallengeError(ValueError):
    """An event that cannot go on as it stands; names the event and what does not fit."""


def challenge_manifest(
    *,
    event: str,
    resolved: Mapping[str, Any],
    judges: Sequence[Mapping[str, Any]],
    slots: int,
    seed: int,
    frozen_at: dt.datetime,
    replicates: int = BOOTSTRAP_REPLICATES,
) -> dict[str, Any]:
    if slots < 1:
        raise ChallengeError(f"event {event}: every contender needs at least one authoring slot, not {slots}")
    if len(judges) != 2:
        raise ChallengeError(f"event {event}: review needs two judges, not {len(judges)}")
    return {
        **manifest_head(event, KIND, resolved, frozen_at),
        "contenders": [dict(c) for c in resolved["contenders"]],
        "judges": [dict(j) for j in judges],
        "slots": slots,
        "rules": {
            **RULES,
            "authoring_prompt": AUTHORING_PROMPT,
            "solving_prompt": SOLVING_PROMPT,
            "review_prompt": REVIEW_PROMPT,
            "commit_domain": COMMIT_DOMAIN,
            "max_reply_chars": MAX_REPLY_CHARS,
        },
        "sandbox": {"version": SANDBOX_VERSION, **Limits().as_record()},
        "seeds": {"bootstrap": seed},
        "standings": {"bootstrap_replicates": replicates, "level": 0.95},
    }


def sealed_event(manifest: Mapping[str, Any]) -> bool:
    """Whether the event seals its record until the reveal (CHALLENGE-COMMIT-2 on): not under version 1."""
    return manifest["rules"]["commitments"] != CHALLENGE_COMMIT_1


def _settings(asked: Asked) -> str | None:
    return json.dumps(dict(asked.settings), sort_keys=True) if asked.settings else None


# -- 1. authoring ----------------------------------------------------------------------------------


def author_questions(manifest: Mapping[str, Any]) -> list[Question]:
    slots = int(manifest["slots"])
    return [
        Question(c["id"], ("author", c["id"], str(slot)), authoring_prompt(slot, slots))
        for c in manifest["contenders"]
        for slot in range(1, slots + 1)
    ]


CALL_SCHEMA: Final[dict[str, pl.DataType]] = {
    "status": pl.String(),
    "text": pl.String(),
    "receipt_ids": pl.List(pl.String()),
    "model": pl.String(),
    "protocol": pl.String(),
    "settings": pl.String(),
    "error": pl.String(),
}
AUTHORED_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "author": pl.String(),
    "slot": pl.Int64(),
    **CALL_SCHEMA,
    "manifest_sha256": pl.String(),
}


def _call(asked: Asked) -> dict[str, Any]:
    return {
        "status": asked.status,
        "text": asked.text,
        "receipt_ids": list(asked.receipt_ids),
        "model": asked.model,
        "protocol": asked.protocol,
        "settings": _settings(asked),
        "error": asked.error,
    }


def authored_table(manifest: Mapping[str, Any], cited: str, asked: Sequence[Asked]) -> pl.DataFrame:
    """``challenge_authored``: every author's reply for every slot, as it came."""
    rows = [
        {
            "event": manifest["event"],
            "author": a.where[1],
            "slot": int(a.where[2]),
            **_call(a),
            "manifest_sha256": cited,
        }
        for a in asked
    ]
    return with_ids(pl.DataFrame(rows, schema=AUTHORED_SCHEMA))


# -- 2. admission ----------------------------------------------------------------------------------

SUBMISSION_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "author": pl.String(),
    "slot": pl.Int64(),
    "status": pl.String(),  # verified, not_verified or failed
    "failure": pl.String(),  # the failed step, the parse failure, or "duplicate"
    "detail": pl.String(),
    "task_id": pl.String(),
    "task": pl.String(),  # the task's canonical JSON
    "statement": pl.String(),
    "answer_type": pl.String(),
    "reference": pl.String(),
    "manifest_sha256": pl.String(),
}
RUN_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "phase": pl.String(),
    "task_id": pl.String(),
    "solver": pl.String(),
    "step": pl.String(),
    "case": pl.Int64(),
    "answer": pl.String(),
    "checker": pl.String(),
    "verdict": pl.String(),
    "reason": pl.String(),
    "sandbox_outcome": pl.String(),
    "stdout_sha256": pl.String(),
    "repeat": pl.Int64(),  # admission runs a passing program step again (COLOSSEUM-TASK-VERIFIED-2)
    "manifest_sha256": pl.String(),
}


def _run_row(
    manifest: Mapping[str, Any], cited: str, phase: str, solver: str | None, run: CheckerRun
) -> dict[str, Any]:
    return {
        "event": manifest["event"],
        "phase": phase,
        "solver": solver,
        **run.row(),
        "manifest_sha256": cited,
    }


def submissions_tables(
    manifest: Mapping[str, Any], cited: str, authored: pl.DataFrame, runner: ProgramRunner
) -> dict[str, pl.DataFrame]:
    """``challenge_submissions`` and ``challenge_checker_runs``: every reply parsed, every task verified."""
    rows, runs = [], []
    for reply in authored.sort("author", "slot").iter_rows(named=True):
        submission = parse_submission(reply["text"] if reply["status"] == "answered" else None)
        task = submission.task
        row: dict[str, Any] = {
            "event": manifest["event"],
            "author": reply["author"],
            "slot": reply["slot"],
            "status": "failed",
            "failure": submission.failure,
            "detail": submission.detail,
            "task_id": None,
            "task": None,
            "statement": None,
            "answer_type": None,
            "reference": None,
            "manifest_sha256": cited,
        }
        if task is not None:
            verification = verify_task(task, runner, rule=manifest["rules"]["admission"])
            runs += [_run_row(manifest, cited, "admission", None, run) for run in verification.runs]
            row |= {
                "status": verification.status,
                "failure": verification.failed_step,
                "detail": verification.reason,
                "task_id": task.task_id,
                "task": task.canonical().decode("utf-8"),
                "statement": task.statement,
                "answer_type": task.answer_type,
                "reference": verification.reference,
            }
        rows.append(row)
    # The same task from two slots cannot be told apart by its id, nor fairly credited to either: every
    # copy is a failed submission.
    verified_ids = [r["task_id"] for r in rows if r["status"] == "verified"]
    for r in rows:
        if r["status"] == "verified" and verified_ids.count(r["task_id"]) > 1:
            others = sorted(
                f"{o['author']} slot {o['slot']}" for o in rows if o["task_id"] == r["task_id"] and o is not r
            )
            r |= {
                "status": "failed",
                "failure": "duplicate",
                "detail": f"the same task as {', '.join(others)}",
            }
    return id_tables(
        challenge_submissions=(rows, SUBMISSION_SCHEMA), challenge_checker_runs=(runs, RUN_SCHEMA)
    )


def admitted(submissions: pl.DataFrame) -> pl.DataFrame:
    return submissions.filter(pl.col("status") == "verified").sort("author", "slot")


# -- 3. commitments --------------------------------------------------------------------------------

COMMITMENT_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "format": pl.String(),
    "document": pl.String(),
    "sha256": pl.String(),
    "envelope": pl.String(),
    "commitments": pl.Int64(),
    "manifest_sha256": pl.String(),
}


def commitments_document(
    manifest: Mapping[str, Any],
    cited: str,
    submissions: pl.DataFrame,
    salts: Mapping[str, bytes],
    key: bytes | None = None,
) -> bytes:
    """The canonical JSON of every verified task's commitment and (CHALLENGE-COMMIT-2) the SHA-256 of the
    event's sealing ``key``: what is signed before solving starts."""
    entries = [
        {
            "author": r["author"],
            "slot": r["slot"],
            "commitment": commitment(COMMIT_DOMAIN, salts[r["task_id"]], json.loads(r["task"])),
        }
        for r in admitted(submissions).iter_rows(named=True)
    ]
    document: dict[str, Any] = {
        "format": manifest["rules"]["commitments"],
        "event": manifest["event"],
        "manifest_sha256": cited,
        "domain": COMMIT_DOMAIN,
        "commitments": entries,
    }
    if sealed_event(manifest):
        if key is None:
            raise ChallengeError(f"event {manifest['event']}: its commitments need its sealing key")
        document["sealing"] = {"algorithm": ALGORITHM, "key_sha256": key_sha256(key)}
    return rfc8785.dumps(document)


def commitments_table(
    manifest: Mapping[str, Any],
    cited: str,
    submissions: pl.DataFrame,
    salts: Mapping[str, bytes],
    key: SigningKey,
    sealing_key: bytes | None = None,
) -> pl.DataFrame:
    body = commitments_document(manifest, cited, submissions, salts, sealing_key)
    row = {
        "event": manifest["event"],
        "format": manifest["rules"]["commitments"],
        "document": body.decode("utf-8"),
        "sha256": hashlib.sha256(body).hexdigest(),
        "envelope": json.dumps(dsse_envelope(COMMITMENTS_PAYLOAD, body, key), sort_keys=True),
        "commitments": len(json.loads(body)["commitments"]),
        "manifest_sha256": cited,
    }
    return with_ids(pl.DataFrame([row], schema=COMMITMENT_SCHEMA))


# -- 4. solving ---------------------------------------------------------------------------


def package(submissions: pl.DataFrame, commitments: pl.DataFrame) -> list[dict[str, Any]]:
    """The public package, the same for every solver: each verified task's statement and answer type,
    in the order of its commitment (which says nothing of its author); with its id, its author and its
    ``handle``, the name its questions have in the journal: its commitment (CHALLENGE-COMMIT-2), or
    under version 1 its id."""
    document = json.loads(commitments["document"][0])
    order = {(c["author"], c["slot"]): c["commitment"] for c in document["commitments"]}
    by_id = document["format"] == CHALLENGE_COMMIT_1
    tasks = [
        {
            "task_id": r["task_id"],
            "handle": r["task_id"] if by_id else order[(r["author"], r["slot"])],
            "author": r["author"],
            "statement": r["statement"],
            "answer_type": r["answer_type"],
        }
        for r in admitted(submissions).iter_rows(named=True)
    ]
    keyed = {
        (r["author"], r["slot"]): t
        for r, t in zip(admitted(submissions).iter_rows(named=True), tasks, strict=True)
    }
    return [keyed[k] for k in sorted(keyed, key=lambda k: order[k])]


def solve_questions(manifest: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]]) -> list[Question]:
    """Every task of the package (``package``) asked of every contender but its author."""
    return [
        Question(
            c["id"],
            ("solve", c["id"], t["handle"]),
            solving_prompt(t["statement"], t["answer_type"]),
            about=t["task_id"],
        )
        for c in manifest["contenders"]
        for t in tasks
        if t["author"] != c["id"]
    ]


def _checker_text(task: Task) -> str:
    if task.checker_program is None:
        return f"the built-in exact checker for {task.answer_type} answers, against the reference answer"
    return "a program that reads the answer and prints ACCEPT or REJECT:\n" + task.checker_program


REPLY_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "solver": pl.String(),
    "task_id": pl.String(),
    "author": pl.String(),
    "slot": pl.Int64(),
    **CALL_SCHEMA,
    "verdict": pl.String(),
    "answer": pl.String(),
    "defect": pl.String(),
    "span": pl.String(),
    "reason": pl.String(),
    "witness": pl.String(),
    "failure": pl.String(),
    "check": pl.String(),
    "check_reason": pl.String(),
    "witness_check": pl.String(),  # holds or fails, for an objection with a witness
    "witness_reason": pl.String(),
    "manifest_sha256": pl.String(),
}


def witness_holds(
    task: Task, witness: str, *, reference: str, runner: ProgramRunner
) -> tuple[bool, str, list[CheckerRun]]:
    """CHALLENGE-WITNESS-1: a witness shows a task defective when the task has a predicate (COLOSSEUM-
    TASK-2), the predicate says the witness satisfies the statement, and the task's checker rejects it:
    the task admits an answer its own checker refuses. Whether it holds, why, and the runs."""
    if task.predicate_program is None:
        return False, "the task has no predicate to check a witness against", []
    satisfied = predicate_run(task, witness, runner=runner, step="witness_predicate")
    if satisfied.verdict != "satisfies":
        return False, f"the witness does not satisfy the statement: {satisfied.reason}", [satisfied]
    checked = check_answer(task, witness, reference=reference, runner=runner, step="witness_check")
    if checked.verdict != "reject":
        return (
            False,
            f"the task's checker does not reject the witness: {checked.reason}",
            [satisfied, checked],
        )
    return True, "the witness satisfies the statement and the task's checker rejects it", [satisfied, checked]


def replies_tables(
    manifest: Mapping[str, Any],
    cited: str,
    submissions: pl.DataFrame,
    solved: Sequence[Asked],
    runner: ProgramRunner,
) -> dict[str, pl.DataFrame]:
    """``challenge_replies`` and ``challenge_solving_runs``: every reply read, every answer checked by its
    task's checker."""
    tasks = {r["task_id"]: r for r in admitted(submissions).iter_rows(named=True)}
    rows, runs = [], []
    for reply in solved:
        solver, task_id = reply.who, reply.about
        row = tasks[task_id]
        reading = read_reply(reply.text if reply.status == "answered" else None)
        check = check_reason = witness_check = witness_reason = None
        task = parse_task(json.loads(row["task"]))
        if reading.verdict == "OBJECT" and reading.witness:
            holds, witness_reason, witness_runs = witness_holds(
                task, reading.witness, reference=str(row["reference"]), runner=runner
            )
            runs += [_run_row(manifest, cited, "solving", solver, run) for run in witness_runs]
            witness_check = "holds" if holds else "fails"
        if reading.verdict == "ANSWER" and reading.answer is not None:
            run = check_answer(
                task, reading.answer, reference=str(row["reference"]), runner=runner, step="solution"
            )
            runs.append(_run_row(manifest, cited, "solving", solver, run))
            check, check_reason = run.verdict, run.reason
        rows.append(
            {
                "event": manifest["event"],
                "solver": solver,
                "task_id": task_id,
                "author": row["author"],
                "slot": row["slot"],
                **_call(reply),
                "verdict": reading.verdict,
                "answer": reading.answer,
                "defect": reading.defect,
                "span": reading.span,
                "reason": reading.reason,
                "witness": reading.witness,
                "failure": reading.failure,
                "check": check,
                "check_reason": check_reason,
                "witness_check": witness_check,
                "witness_reason": witness_reason,
                "manifest_sha256": cited,
            }
        )
    return id_tables(challenge_replies=(rows, REPLY_SCHEMA), challenge_solving_runs=(runs, RUN_SCHEMA))


# -- 5. review --------------------------------------------------------------------------------------


def review_questions(
    manifest: Mapping[str, Any], submissions: pl.DataFrame, commitments: pl.DataFrame, replies: pl.DataFrame
) -> list[Question]:
    """Every objection before each judge, blinded: the task, its reference, its checker and the objection;
    named in the journal by the objector and the task's handle (``package``)."""
    tasks = {r["task_id"]: r for r in admitted(submissions).iter_rows(named=True)}
    handles = {t["task_id"]: t["handle"] for t in package(submissions, commitments)}
    questions = []
    # An objection whose witness holds is decided by machine (Verified); the judges see the others.
    objections = replies.filter(
        (pl.col("verdict") == "OBJECT") & (pl.col("witness_check") != "holds").fill_null(True)
    )
    for reply in objections.sort("task_id", "solver").iter_rows(named=True):
        row = tasks[reply["task_id"]]
        task = parse_task(json.loads(row["task"]))
        prompt = review_prompt(
            statement=task.statement,
            answer_type=task.answer_type,
            reference=str(row["reference"]),
            checker=_checker_text(task),
            defect=str(reply["defect"]),
            span=str(reply["span"]),
            reason=reply["reason"],
            witness=reply["witness"],
        )
        subject = f"{reply['solver']}:{handles[reply['task_id']]}"
        about = (reply["solver"], reply["task_id"])
        questions += [
            Question(j["id"], ("review", j["id"], subject), prompt, about=about) for j in manifest["judges"]
        ]
    return questions


REVIEW_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "judge": pl.String(),
    "solver": pl.String(),
    "task_id": pl.String(),
    **CALL_SCHEMA,
    "vote": pl.String(),
    "vote_reason": pl.String(),
    "manifest_sha256": pl.String(),
}


def reviews_table(manifest: Mapping[str, Any], cited: str, reviewed: Sequence[Asked]) -> pl.DataFrame:
    """``challenge_reviews``: every judge's vote on every objection."""
    rows = []
    for review in reviewed:
        judge, (solver, task_id) = review.who, review.about
        vote = read_vote(review.text if review.status == "answered" else None)
        rows.append(
            {
                "event": manifest["event"],
                "judge": judge,
                "solver": solver,
                "task_id": task_id,
                **_call(review),
                "vote": vote.vote,
                "vote_reason": vote.reason,
                "manifest_sha256": cited,
            }
        )
    return with_ids(pl.DataFrame(rows, schema=REVIEW_SCHEMA))


def review_outcomes(reviews: pl.DataFrame) -> dict[tuple[str, str], str]:
    """Each objection's outcome: upheld (both judges SUBSTANTIATED), rejected (both NOT_SUBSTANTIATED),
    or unresolved (anything else: a split, or a judge with no valid vote)."""
    votes: dict[tuple[str, str], list[str | None]] = {}
    for r in reviews.iter_rows(named=True):
        votes.setdefault((r["solver"], r["task_id"]), []).append(r["vote"])
    return {
        key: "upheld"
        if len(cast) == 2 and all(v == "SUBSTANTIATED" for v in cast)
        else "rejected"
        if len(cast) == 2 and all(v == "NOT_SUBSTANTIATED" for v in cast)
        else "unresolved"
        for key, cast in votes.items()
    }


# -- sealed until revealed (CHALLENGE-COMMIT-2) -----------------------------------------------------

_CALL_PUBLIC: Final = ("status", "receipt_ids", "model", "protocol", "settings")
# What each table written before the reveal keeps in the clear: who was asked what, by author and
# slot (as the signed commitments name them), and how each call went. Every other field (any field
# added later included) is sealed.
PUBLIC_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "challenge_authored": ("event", "author", "slot", *_CALL_PUBLIC, "manifest_sha256"),
    # Whether a slot's task was admitted is what the commitments say; why one failed is not.
    "challenge_submissions": ("event", "author", "slot", "status", "manifest_sha256"),
    "challenge_checker_runs": ("event", "phase", "solver", "step", "case", "manifest_sha256"),
    "challenge_replies": ("event", "solver", "author", "slot", *_CALL_PUBLIC, "manifest_sha256"),
    "challenge_solving_runs": ("event", "phase", "solver", "step", "case", "manifest_sha256"),
    "challenge_reviews": ("event", "judge", "solver", *_CALL_PUBLIC, "manifest_sha256"),
}
SEALED_SCHEMAS: Final[dict[str, dict[str, pl.DataType]]] = {
    "challenge_authored": AUTHORED_SCHEMA,
    "challenge_submissions": SUBMISSION_SCHEMA,
    "challenge_checker_runs": RUN_SCHEMA,
    "challenge_replies": REPLY_SCHEMA,
    "challenge_solving_runs": RUN_SCHEMA,
    "challenge_reviews": REVIEW_SCHEMA,
}
KEY_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "format": pl.String(),
    "algorithm": pl.String(),
    "key": pl.String(),  # hex: published at the reveal, so anyone can open the sealed tables
    "key_sha256": pl.String(),
    "manifest_sha256": pl.String(),
}


def seal_tables(frames: Mapping[str, pl.DataFrame], key: bytes | None) -> dict[str, pl.DataFrame]:
    """The tables as the record keeps them before the reveal: sealed under ``key`` (None: an event
    under CHALLENGE-COMMIT-1, kept open)."""
    if key is None:
        return dict(frames)
    return {
        table: seal_frame(frame, table, key, PUBLIC_FIELDS[table]) if table in PUBLIC_FIELDS else frame
        for table, frame in frames.items()
    }


def open_tables(frames: Mapping[str, pl.DataFrame], key: bytes | None, event: str) -> dict[str, pl.DataFrame]:
    """The tables as the record keeps them, opened with ``key`` (None: recorded open, under version 1).
    ``sealing.SealingError`` names the first row that does not open."""
    if key is None:
        return dict(frames)
    return {
        table: open_frame(frame, table, key, SEALED_SCHEMAS[table], where=f"event {event}")
        if table in SEALED_SCHEMAS and SEALED_FIELD in frame.columns
        else frame
        for table, frame in frames.items()
    }


def key_table(manifest: Mapping[str, Any], cited: str, key: bytes | None) -> pl.DataFrame:
    """``challenge_key``: the event's sealing key, published at the reveal (no row under version 1)."""
    rows = (
        [
            {
                "event": manifest["event"],
                "format": manifest["rules"]["commitments"],
                "algorithm": ALGORITHM,
                "key": key.hex(),
                "key_sha256": key_sha256(key),
                "manifest_sha256": cited,
            }
        ]
        if key is not None
        else []
    )
    return with_ids(pl.DataFrame(rows, schema=KEY_SCHEMA))


def published_key(manifest: Mapping[str, Any], key_frame: pl.DataFrame | None) -> bytes | None:
    """The key ``challenge_key`` publishes (None for an event under version 1); ``ChallengeError`` if a
    sealed event's reveal published none."""
    if not sealed_event(manifest):
        return None
    if key_frame is None or key_frame.height != 1:
        rows = "no challenge_key" if key_frame is None else f"{key_frame.height} challenge_key rows"
        raise ChallengeError(f"event {manifest['event']}: sealed until its reveal, and the record has {rows}")
    try:
        return bytes.fromhex(str(key_frame["key"][0]))
    except ValueError:
        raise ChallengeError(
            f"challenge_key event {manifest['event']} field key: {str(key_frame['key'][0])[:20]!r} is not hex"
        ) from None


# -- 6. reveal --------------------------------------------------------------------------------------

REVEAL_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "author": pl.String(),
    "slot": pl.Int64(),
    "task_id": pl.String(),
    "task": pl.String(),
    "salt": pl.String(),
    "commitment": pl.String(),
    "reference_again": pl.String(),
    "reference_stable": pl.Boolean(),
    "defective": pl.Boolean(),
    "defect_evidence": pl.String(),
    "defect_reason": pl.String(),
    "manifest_sha256": pl.String(),
}
SCORE_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "ranking": pl.String(),
    "contender": pl.String(),
    "task_id": pl.String(),
    "slot": pl.Int64(),
    "outcome": pl.String(),
    "units": pl.Int64(),
    "scale": pl.Int64(),
    "evidence": pl.String(),
    "reason": pl.String(),
    "manifest_sha256": pl.String(),
}


def _same_answer(answer_type: str, first: str | None, again: str | None) -> bool:
    try:
        return (
            first is not None
            and again is not None
            and read_answer(answer_type, first) == read_answer(answer_type, again)
        )
    except MalformedAnswer:
        return False


def reveals_table(
    manifest: Mapping[str, Any],
    cited: str,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    replies: pl.DataFrame,
    reviews: pl.DataFrame,
    salts: Mapping[str, bytes],
    runner: ProgramRunner,
) -> pl.DataFrame:
    """``challenge_reveals``: every admitted task with its salt and commitment, its reference program run
    again, and whether it was shown defective and by what evidence."""
    document = json.loads(commitments["document"][0])
    committed = {(c["author"], c["slot"]): c["commitment"] for c in document["commitments"]}
    tasks = admitted(submissions)
    stable: dict[str, bool] = {}
    again: dict[str, str | None] = {}
    for r in tasks.iter_rows(named=True):
        task = parse_task(json.loads(r["task"]))
        if task.reference_program is None:
            stable[r["task_id"]], again[r["task_id"]] = True, task.reference_answer
            continue
        rerun = reference_answer(task, runner)
        again[r["task_id"]] = rerun.answer
        stable[r["task_id"]] = _same_answer(task.answer_type, r["reference"], rerun.answer)
    upheld: dict[str, int] = {}
    for (_, task_id), outcome in review_outcomes(reviews).items():
        upheld[task_id] = upheld.get(task_id, 0) + (outcome == "upheld")
    witnessed = set(replies.filter(pl.col("witness_check") == "holds")["task_id"].to_list())
    verdicts = task_verdicts(tasks["task_id"].to_list(), stable, upheld, witnessed)
    rows = [
        {
            "event": manifest["event"],
            "author": r["author"],
            "slot": r["slot"],
            "task_id": r["task_id"],
            "task": r["task"],
            "salt": salts[r["task_id"]].hex(),
            "commitment": committed[(r["author"], r["slot"])],
            "reference_again": again[r["task_id"]],
            "reference_stable": stable[r["task_id"]],
            "defective": verdicts[r["task_id"]].defective,
            "defect_evidence": verdicts[r["task_id"]].evidence if verdicts[r["task_id"]].defective else None,
            "defect_reason": verdicts[r["task_id"]].reason,
            "manifest_sha256": cited,
        }
        for r in tasks.iter_rows(named=True)
    ]
    return with_ids(pl.DataFrame(rows, schema=REVEAL_SCHEMA))


# -- 7. scoring ------------------------------------------------------------------------------------


def scoring_tables(
    manifest: Mapping[str, Any],
    cited: str,
    submissions: pl.DataFrame,
    replies: pl.DataFrame,
    reviews: pl.DataFrame,
    reveals: pl.DataFrame,
) -> dict[str, pl.DataFrame]:
    """``challenge_scores`` and ``challenge_standings``."""
    verdicts = {
        r["task_id"]: TaskVerdict(
            r["task_id"], r["defective"], r["defect_evidence"] or "verified", r["defect_reason"]
        )
        for r in reveals.iter_rows(named=True)
    }
    outcomes = review_outcomes(reviews)
    scores = []
    solved_by: dict[str, int] = {}
    for r in replies.sort("task_id", "solver").iter_rows(named=True):
        reply = {**r, "review": outcomes.get((r["solver"], r["task_id"]))}
        score = solving_score(r["solver"], r["task_id"], reply, verdicts[r["task_id"]])
        solved_by[r["task_id"]] = solved_by.get(r["task_id"], 0) + (score.outcome == "solved")
        scores.append(score)
    opponents = len(manifest["contenders"]) - 1
    for r in submissions.sort("author", "slot").iter_rows(named=True):
        verdict = verdicts.get(r["task_id"]) if r["status"] == "verified" else None
        failed_by = opponents - solved_by.get(r["task_id"], 0) if verdict else 0
        scores.append(authoring_score(r["author"], r["slot"], r, verdict, failed_by, opponents))
    fields = ("ranking", "contender", "task_id", "slot", "outcome", "units", "scale", "evidence", "reason")
    rows = [
        {"event": manifest["event"], **{k: getattr(s, k) for k in fields}, "manifest_sha256": cited}
        for s in scores
    ]
    score_frame = with_ids(pl.DataFrame(rows, schema=SCORE_SCHEMA))
    return {
        "challenge_scores": score_frame,
        "challenge_standings": challenge_standings(manifest, cited, score_frame, submissions),
    }
