"""A challenge event: its manifest, and each phase's tables as pure functions of what was asked.

1. **Authoring and admission** (``submissions``): every contender asked once per slot; each reply
   parsed into a task (CHALLENGE-AUTHORING-1) and verified in the sandbox (COLOSSEUM-TASK-VERIFIED-1):
   ``challenge_submissions`` and the runs in ``challenge_checker_runs``.
2. **Commitments** (``commitments``): every verified task committed by a salted SHA-256
   (COLOSSEUM-COMMIT-1 under the domain ``colosseum/challenge-task``), the list signed by the arena
   key before any solver is asked: ``challenge_commitments``.
3. **Solving and review** (``solving``): every verified task asked of every contender but its author
   (CHALLENGE-SOLVING-1), answers checked by the task's checker, objections put to the two blinded
   judges (CHALLENGE-REVIEW-1): ``challenge_replies`` and ``challenge_reviews``.
4. **Reveal and scores** (``closing``): every task and salt revealed and checked against its
   commitment, every reference program run again, the points (CHALLENGE-SCORING-1) and standings
   (CHALLENGE-STANDINGS-1): ``challenge_reveals``, ``challenge_scores``, ``challenge_standings``.
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
from colosseum_core.events.challenges.rules import CHALLENGE_COMMIT, COMMIT_DOMAIN, RULES
from colosseum_core.events.challenges.scoring import authoring_score, solving_score, task_verdicts
from colosseum_core.events.challenges.standings import challenge_standings
from colosseum_core.events.manifest import EVENT_MANIFEST
from colosseum_core.events.tasks.answers import MalformedAnswer, read_answer
from colosseum_core.events.tasks.checking import CheckerRun, ProgramRunner, check_answer, reference_answer
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
        "format": EVENT_MANIFEST,
        "event": event,
        "kind": KIND,
        "class": resolved["class"],
        "missing_keys": list(resolved.get("missing_keys", [])),
        "frozen_at": frozen_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
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


def _settings(asked: Asked) -> str | None:
    return json.dumps(dict(asked.settings), sort_keys=True) if asked.settings else None


# -- 1. authoring and admission ------------------------------------------------------------------


def author_questions(manifest: Mapping[str, Any]) -> list[Question]:
    slots = int(manifest["slots"])
    return [
        Question(c["id"], ("author", c["id"], str(slot)), authoring_prompt(slot, slots))
        for c in manifest["contenders"]
        for slot in range(1, slots + 1)
    ]


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
    "text": pl.String(),
    "receipt_ids": pl.List(pl.String()),
    "model": pl.String(),
    "protocol": pl.String(),
    "status_of_call": pl.String(),
    "settings": pl.String(),
    "error": pl.String(),
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
    "manifest_sha256": pl.String(),
}


def _run_row(
    manifest: Mapping[str, Any], cited: str, phase: str, solver: str | None, run: CheckerRun
) -> dict[str, Any]:
    return {
        "event": manifest["event"],
        "phase": phase,
        "solver": solver,
        **{k: v for k, v in run.row().items()},
        "manifest_sha256": cited,
    }


def submissions_tables(
    manifest: Mapping[str, Any], cited: str, asked: Sequence[Asked], runner: ProgramRunner
) -> dict[str, pl.DataFrame]:
    rows, runs = [], []
    for reply in asked:
        _, author, slot = reply.where
        answered = reply.status == "answered"
        submission = parse_submission(reply.text if answered else None)
        task = submission.task
        row: dict[str, Any] = {
            "event": manifest["event"],
            "author": author,
            "slot": int(slot),
            "status": "failed",
            "failure": submission.failure,
            "detail": submission.detail,
            "task_id": None,
            "task": None,
            "statement": None,
            "answer_type": None,
            "reference": None,
            "text": reply.text,
            "receipt_ids": list(reply.receipt_ids),
            "model": reply.model,
            "protocol": reply.protocol,
            "status_of_call": reply.status,
            "settings": _settings(reply),
            "error": reply.error,
            "manifest_sha256": cited,
        }
        if task is not None:
            verification = verify_task(task, runner)
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
    return {
        "challenge_submissions": with_ids(pl.DataFrame(rows, schema=SUBMISSION_SCHEMA)),
        "challenge_checker_runs": with_ids(pl.DataFrame(runs, schema=RUN_SCHEMA)),
    }


def admitted(submissions: pl.DataFrame) -> pl.DataFrame:
    return submissions.filter(pl.col("status") == "verified").sort("author", "slot")


# -- 2. commitments --------------------------------------------------------------------------------

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
    manifest: Mapping[str, Any], cited: str, submissions: pl.DataFrame, salts: Mapping[str, bytes]
) -> bytes:
    """The canonical JSON of every verified task's commitment: what is signed before solving starts."""
    entries = [
        {
            "author": r["author"],
            "slot": r["slot"],
            "commitment": commitment(COMMIT_DOMAIN, salts[r["task_id"]], json.loads(r["task"])),
        }
        for r in admitted(submissions).iter_rows(named=True)
    ]
    return rfc8785.dumps(
        {
            "format": CHALLENGE_COMMIT,
            "event": manifest["event"],
            "manifest_sha256": cited,
            "domain": COMMIT_DOMAIN,
            "commitments": entries,
        }
    )


def commitments_table(
    manifest: Mapping[str, Any],
    cited: str,
    submissions: pl.DataFrame,
    salts: Mapping[str, bytes],
    key: SigningKey,
) -> pl.DataFrame:
    body = commitments_document(manifest, cited, submissions, salts)
    row = {
        "event": manifest["event"],
        "format": CHALLENGE_COMMIT,
        "document": body.decode("utf-8"),
        "sha256": hashlib.sha256(body).hexdigest(),
        "envelope": json.dumps(dsse_envelope(COMMITMENTS_PAYLOAD, body, key), sort_keys=True),
        "commitments": len(json.loads(body)["commitments"]),
        "manifest_sha256": cited,
    }
    return with_ids(pl.DataFrame([row], schema=COMMITMENT_SCHEMA))


# -- 3. solving and review ---------------------------------------------------------------------------


def package(submissions: pl.DataFrame, commitments: pl.DataFrame) -> list[dict[str, Any]]:
    """The public package, the same for every solver: each verified task's id, statement and answer type,
    in the order of its commitment (which says nothing of its author)."""
    document = json.loads(commitments["document"][0])
    order = {(c["author"], c["slot"]): c["commitment"] for c in document["commitments"]}
    tasks = [
        {
            "task_id": r["task_id"],
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
    return [
        Question(c["id"], ("solve", c["id"], t["task_id"]), solving_prompt(t["statement"], t["answer_type"]))
        for c in manifest["contenders"]
        for t in tasks
        if t["author"] != c["id"]
    ]


def _checker_text(task: Task) -> str:
    if task.checker_program is None:
        return f"the built-in exact checker for {task.answer_type} answers, against the reference answer"
    return "a program that reads the answer and prints ACCEPT or REJECT:\n" + task.checker_program


def review_questions(
    manifest: Mapping[str, Any], submissions: pl.DataFrame, solved: Sequence[Asked]
) -> list[Question]:
    tasks = {r["task_id"]: r for r in admitted(submissions).iter_rows(named=True)}
    questions = []
    for reply in solved:
        _, solver, task_id = reply.where
        reading = read_reply(reply.text if reply.status == "answered" else None)
        if reading.verdict != "OBJECT":
            continue
        row = tasks[task_id]
        task = parse_task(json.loads(row["task"]))
        prompt = review_prompt(
            statement=task.statement,
            answer_type=task.answer_type,
            reference=str(row["reference"]),
            checker=_checker_text(task),
            defect=str(reading.defect),
            span=str(reading.span),
            reason=reading.reason,
            witness=reading.witness,
        )
        questions += [
            Question(j["id"], ("review", j["id"], f"{solver}:{task_id}"), prompt) for j in manifest["judges"]
        ]
    return questions


REPLY_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "solver": pl.String(),
    "task_id": pl.String(),
    "author": pl.String(),
    "slot": pl.Int64(),
    "status": pl.String(),
    "text": pl.String(),
    "receipt_ids": pl.List(pl.String()),
    "model": pl.String(),
    "protocol": pl.String(),
    "settings": pl.String(),
    "error": pl.String(),
    "verdict": pl.String(),
    "answer": pl.String(),
    "defect": pl.String(),
    "span": pl.String(),
    "reason": pl.String(),
    "witness": pl.String(),
    "failure": pl.String(),
    "check": pl.String(),
    "check_reason": pl.String(),
    "review": pl.String(),  # upheld, rejected or unresolved, for an objection
    "manifest_sha256": pl.String(),
}
REVIEW_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "judge": pl.String(),
    "solver": pl.String(),
    "task_id": pl.String(),
    "status": pl.String(),
    "text": pl.String(),
    "receipt_ids": pl.List(pl.String()),
    "model": pl.String(),
    "protocol": pl.String(),
    "vote": pl.String(),
    "vote_reason": pl.String(),
    "manifest_sha256": pl.String(),
}


def solving_tables(
    manifest: Mapping[str, Any],
    cited: str,
    submissions: pl.DataFrame,
    solved: Sequence[Asked],
    reviewed: Sequence[Asked],
    runner: ProgramRunner,
) -> dict[str, pl.DataFrame]:
    tasks = {r["task_id"]: r for r in admitted(submissions).iter_rows(named=True)}
    votes: dict[str, list[str | None]] = {}
    review_rows = []
    for review in reviewed:
        _, judge, subject = review.where
        solver, task_id = subject.split(":", 1)
        vote = read_vote(review.text if review.status == "answered" else None)
        votes.setdefault(subject, []).append(vote.vote)
        review_rows.append(
            {
                "event": manifest["event"],
                "judge": judge,
                "solver": solver,
                "task_id": task_id,
                "status": review.status,
                "text": review.text,
                "receipt_ids": list(review.receipt_ids),
                "model": review.model,
                "protocol": review.protocol,
                "vote": vote.vote,
                "vote_reason": vote.reason,
                "manifest_sha256": cited,
            }
        )
    rows, runs = [], []
    for reply in solved:
        _, solver, task_id = reply.where
        row = tasks[task_id]
        reading = read_reply(reply.text if reply.status == "answered" else None)
        check = check_reason = review = None
        if reading.verdict == "ANSWER" and reading.answer is not None:
            task = parse_task(json.loads(row["task"]))
            run = check_answer(
                task, reading.answer, reference=str(row["reference"]), runner=runner, step="solution"
            )
            runs.append(_run_row(manifest, cited, "solving", solver, run))
            check, check_reason = run.verdict, run.reason
        if reading.verdict == "OBJECT":
            cast = votes.get(f"{solver}:{task_id}", [])
            review = (
                "upheld"
                if len(cast) == 2 and all(v == "SUBSTANTIATED" for v in cast)
                else "rejected"
                if len(cast) == 2 and all(v == "NOT_SUBSTANTIATED" for v in cast)
                else "unresolved"
            )
        rows.append(
            {
                "event": manifest["event"],
                "solver": solver,
                "task_id": task_id,
                "author": row["author"],
                "slot": row["slot"],
                "status": reply.status,
                "text": reply.text,
                "receipt_ids": list(reply.receipt_ids),
                "model": reply.model,
                "protocol": reply.protocol,
                "settings": _settings(reply),
                "error": reply.error,
                "verdict": reading.verdict,
                "answer": reading.answer,
                "defect": reading.defect,
                "span": reading.span,
                "reason": reading.reason,
                "witness": reading.witness,
                "failure": reading.failure,
                "check": check,
                "check_reason": check_reason,
                "review": review,
                "manifest_sha256": cited,
            }
        )
    return {
        "challenge_replies": with_ids(pl.DataFrame(rows, schema=REPLY_SCHEMA)),
        "challenge_reviews": with_ids(pl.DataFrame(review_rows, schema=REVIEW_SCHEMA)),
        "challenge_solving_runs": with_ids(pl.DataFrame(runs, schema=RUN_SCHEMA)),
    }


# -- 4. reveal, scores and standings -------------------------------------------------------------------

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


def closing_tables(
    manifest: Mapping[str, Any],
    cited: str,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    replies: pl.DataFrame,
    salts: Mapping[str, bytes],
    runner: ProgramRunner,
) -> dict[str, pl.DataFrame]:
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
    upheld = replies.filter(pl.col("review") == "upheld").group_by("task_id").len()
    verdicts = task_verdicts(
        tasks["task_id"].to_list(),
        stable,
        {r["task_id"]: int(r["len"]) for r in upheld.iter_rows(named=True)},
    )
    reveals = [
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
    scores = []
    solved_by: dict[str, int] = {}
    for r in replies.sort("task_id", "solver").iter_rows(named=True):
        score = solving_score(r["solver"], r["task_id"], r, verdicts[r["task_id"]])
        solved_by[r["task_id"]] = solved_by.get(r["task_id"], 0) + (score.outcome == "solved")
        scores.append(score)
    opponents = len(manifest["contenders"]) - 1
    for r in submissions.sort("author", "slot").iter_rows(named=True):
        verdict = verdicts.get(r["task_id"]) if r["status"] == "verified" else None
        failed_by = opponents - solved_by.get(r["task_id"], 0) if verdict else 0
        scores.append(authoring_score(r["author"], r["slot"], r, verdict, failed_by, opponents))
    score_frame = with_ids(
        pl.DataFrame(
            [
                {
                    "event": manifest["event"],
                    **{
                        k: getattr(s, k)
                        for k in (
                            "ranking",
                            "contender",
                            "task_id",
                            "slot",
                            "outcome",
                            "units",
                            "scale",
                            "evidence",
                            "reason",
                        )
                    },
                    "manifest_sha256": cited,
                }
                for s in scores
            ],
            schema=SCORE_SCHEMA,
        )
    )
    return {
        "challenge_reveals": with_ids(pl.DataFrame(reveals, schema=REVEAL_SCHEMA)),
        "challenge_scores": score_frame,
        "challenge_standings": challenge_standings(manifest, cited, score_frame, submissions),
    }
