"""A challenge event of house authors, solvers and reviewers end to end through the real Definitions,
then ``colosseum verify``: every phase derived again, every commitment opened, every tampered byte named.
And the challenge rules on their own: authoring replies, the scoring table, the standings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import polars as pl
import pytest

from colosseum_core.arenas import AUDITS, sparring_houses
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.challenges.authoring import authoring_prompt, parse_submission
from colosseum_core.events.challenges.house import _SOUND, _SOUND_ANSWERS
from colosseum_core.events.challenges.scoring import TaskVerdict, authoring_score, solving_score
from colosseum_core.events.tasks.checking import sandbox_runner
from colosseum_core.events.tasks.task import parse_task
from colosseum_core.events.tasks.verification import verify_task
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import file_sha256
from colosseum_core.standins.sparring import running_sparring
from colosseum_core.verify import verify_record
from colosseum_dagster.cli import main
from tests.sandbox_support import need_sandbox

EVENT = "ch-e2e"


def cli(*argv: str) -> int:
    try:
        main(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def freeze(data: Path, event: str) -> None:
    args = (
        "events",
        "challenges",
        "event",
        "freeze",
        event,
        "--slots",
        "2",
        "--seed",
        "5",
        "--replicates",
        "499",
    )
    assert cli(*args, "--data", str(data)) == 0


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need_sandbox()
    data = tmp_path_factory.mktemp("challenges") / "data"
    freeze(data, EVENT)
    assert cli("events", "challenges", "event", "run", EVENT, "--data", str(data)) == 0
    return data


# -- the rules on their own ---------------------------------------------------------------------------


def test_every_house_sound_task_verifies_with_the_answer_the_house_knows() -> None:
    need_sandbox()
    runner = sandbox_runner()
    for fields, answer in zip(_SOUND, _SOUND_ANSWERS, strict=True):
        verification = verify_task(parse_task({"format": "COLOSSEUM-TASK-1", **fields}), runner)
        assert verification.verified, (fields["statement"], verification.reason)
        assert verification.reference is not None and verification.reference.strip() == answer


@pytest.mark.parametrize(
    ("reply", "failure"),
    [
        (None, "no_reply"),
        ("Here is a problem: what is 2 + 2?", "no_block"),
        ("```json\n{not json\n```", "not_json"),
        ('```json\n{"format": "COLOSSEUM-TASK-1"}\n```', "schema"),
        ("x" * 100_001, "too_long"),
    ],
)
def test_an_authors_reply_without_a_task_is_a_failed_submission_saying_why(
    reply: str | None, failure: str
) -> None:
    assert parse_submission(reply).failure == failure


def test_the_last_json_block_of_a_reply_is_the_task() -> None:
    task = {"format": "COLOSSEUM-TASK-1", **_SOUND[1]}
    reply = "A draft:\n```json\n{}\n```\nThe final one:\n```json\n" + json.dumps(task) + "\n```\n"
    parsed = parse_submission(reply)
    assert (
        parsed.failure is None and parsed.task is not None and parsed.task.statement == _SOUND[1]["statement"]
    )
    assert "slot 2 of 3" in authoring_prompt(2, 3) and "{" in authoring_prompt(1, 1)


def test_a_predicate_must_agree_with_the_checker_before_a_task_is_verified() -> None:
    need_sandbox()
    runner = sandbox_runner()
    from colosseum_core.events.challenges.house import _DEFECTIVE

    task = dict(_DEFECTIVE[0]["task"])
    assert verify_task(parse_task(task), runner).verified
    lax = {**task, "predicate": {"source": "print('SATISFIES')"}}  # accepts the failure cases too
    assert verify_task(parse_task(lax), runner).failed_step == "failure_predicate"
    strict = {**task, "predicate": {"source": "print('VIOLATES')"}}  # refuses the reference
    assert verify_task(parse_task(strict), runner).failed_step == "reference_predicate"
    with pytest.raises(Exception, match="predicate: not a field of COLOSSEUM-TASK-1"):
        parse_task({**task, "format": "COLOSSEUM-TASK-1"})


def test_the_scoring_table() -> None:
    sound = TaskVerdict("t", False, "verified", "no defect shown")
    defective = TaskVerdict("t", True, "reviewed", "1 objection(s) upheld by review")

    def reply(**fields: object) -> dict[str, object]:
        return {
            "status": "answered",
            "verdict": "ANSWER",
            "check": "accept",
            "check_reason": "",
            "review": None,
            "failure": None,
            **fields,
        }

    assert solving_score("s", "t", reply(), sound).units == 1
    assert solving_score("s", "t", reply(check="reject"), sound).outcome == "wrong_answer"
    assert solving_score("s", "t", reply(), defective).outcome == "missed_defect"
    assert solving_score("s", "t", reply(), defective).evidence == "reviewed"
    assert solving_score("s", "t", reply(verdict="OBJECT", review="upheld"), defective).units == 1
    assert (
        solving_score("s", "t", reply(verdict="OBJECT", review="rejected"), sound).outcome
        == "invented_objection"
    )
    assert (
        solving_score("s", "t", reply(verdict="OBJECT", review="unresolved"), sound).evidence == "unresolved"
    )
    assert solving_score("s", "t", reply(verdict="ABSTAIN"), sound).units == 0
    assert solving_score("s", "t", reply(status="no_response"), sound).units == -1
    assert solving_score("s", "t", reply(check="error"), sound).evidence == "unresolved"
    submission = {"status": "verified", "task_id": "t", "detail": "verified"}
    # 4 opponents, 3 of them failed it: 0.25 + 0.75 × 3/4 = 0.8125 = (4 + 9) / 16
    assert (
        authoring_score("a", 1, submission, sound, 3, 4).units,
        authoring_score("a", 1, submission, sound, 3, 4).scale,
    ) == (13, 16)
    assert authoring_score("a", 1, submission, defective, 3, 4).units == -16
    failed = {"status": "failed", "task_id": None, "detail": "no fenced block"}
    assert authoring_score("a", 2, failed, None, 0, 4).units == 0


# -- end to end -----------------------------------------------------------------------------------------


def test_the_event_is_authored_committed_solved_reviewed_revealed_and_sealed(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = Record(played).tables(EVENTS)
    manifest = json.loads(tables.read("event_manifests", EVENT)["manifest"][0])
    assert manifest["kind"] == "challenge" and [j["id"] for j in manifest["judges"]] == ["judge-a", "judge-b"]
    submissions = tables.read("challenge_submissions", EVENT)
    assert submissions.height == 5 * 2
    by_author = {a: set(submissions.filter(pl.col("author") == a)["status"]) for a in submissions["author"]}
    assert by_author["house-lazy"] == {"not_verified"} and by_author["house-hostile"] == {"not_verified"}
    assert by_author["house-malformed"] == {"failed"}
    runs = tables.read("challenge_checker_runs", EVENT)
    assert {"output_limit", "exit"} & set(
        runs["sandbox_outcome"].drop_nulls()
    )  # the hostile checkers, contained
    commitments = tables.read("challenge_commitments", EVENT).row(0, named=True)
    verified = submissions.filter(pl.col("status") == "verified")
    assert commitments["commitments"] == verified.height >= 1
    document = commitments["document"]
    assert all(task_id not in document for task_id in verified["task_id"])  # a commitment hides its task
    reveals = tables.read("challenge_reveals", EVENT)
    assert reveals.height == verified.height and reveals["reference_stable"].all()
    replies = tables.read("challenge_replies", EVENT)
    assert not replies.filter(pl.col("solver") == pl.col("author")).height  # nobody solves their own task
    # The sharp solver proves the subtle author's defect with a witness: decided by machine, not judged.
    witnessed = replies.filter(pl.col("witness_check") == "holds")
    assert witnessed.height >= 1 and set(witnessed["author"]) == {"anthropic-frontier"}
    scores = tables.read("challenge_scores", EVENT)
    upheld = scores.filter((pl.col("outcome") == "upheld") & (pl.col("evidence") == "verified"))
    assert set(upheld["contender"]) >= set(witnessed["solver"])
    defective = reveals.filter(pl.col("task_id").is_in(witnessed["task_id"].to_list()))
    assert defective["defective"].all() and set(defective["defect_evidence"]) == {"verified"}
    standings = tables.read("challenge_standings", EVENT)
    assert set(zip(standings["ranking"], standings["basis"], strict=True)) == {
        (r, b) for r in ("solving", "authoring") for b in ("verified", "with_reviewed")
    }
    authoring = standings.filter((pl.col("ranking") == "authoring") & (pl.col("medal").is_not_null()))
    assert (authoring["verified_slots"] >= 0.8 * authoring["slots"]).all()
    assert Record(played).seals(EVENTS).get(EVENT) is not None
    salts = Path(played) / "keys" / "challenge-salts" / f"{EVENT}.json"
    assert salts.stat().st_mode & 0o777 == 0o600
    report = verify_record(played, AUDITS)
    assert report.ok(), report.problems
    assert report.checked["challenge_calls"] >= submissions.height + replies.height
    capsys.readouterr()
    assert cli("events", "challenges", "tasks", EVENT, "--data", str(played)) == 0
    assert "the checker did not finish" in capsys.readouterr().out
    assert cli("events", "challenges", "standings", EVENT, "--json", "--data", str(played)) == 0
    assert len(json.loads(capsys.readouterr().out)["standings"]) == 4 * 5


def test_a_sealed_event_runs_again_to_the_same_bytes(played: Path) -> None:
    tables = Record(played).tables(EVENTS)
    names = ("challenge_submissions", "challenge_commitments", "challenge_replies", "challenge_standings")
    before = {t: file_sha256(tables.path(t, EVENT)) for t in names}
    assert cli("events", "challenges", "event", "run", EVENT, "--data", str(played)) == 0
    assert {t: file_sha256(tables.path(t, EVENT)) for t in names} == before
    assert cli("events", "challenges", "event", "freeze", EVENT, "--data", str(played)) == 2


@pytest.mark.parametrize(
    ("table", "change", "named"),
    [
        (
            "challenge_reveals",
            lambda f: f.with_columns(salt=pl.lit("00" * 32)),
            "do not open the signed commitments",
        ),
        ("challenge_reviews", lambda f: f.with_columns(vote=pl.lit("SUBSTANTIATED")), "field vote"),
        ("challenge_scores", lambda f: f.with_columns(units=pl.col("units") + 1), "field units"),
        (
            "challenge_replies",
            lambda f: f.with_columns(
                answer=pl.when(pl.col("verdict") == "ANSWER").then(pl.lit("7")).otherwise("answer")
            ),
            "field answer",
        ),
        (
            "challenge_commitments",
            lambda f: f.with_columns(document=pl.col("document").str.replace('"slot":1', '"slot":2')),
            "challenge_commitments event",
        ),
    ],
)
def test_a_tampered_phase_is_named(
    played: Path, tmp_path: Path, table: str, change: object, named: str
) -> None:
    copy = tmp_path / "data"
    subprocess.run(["cp", "-a", str(played), str(copy)], check=True)
    tables = Record(copy).tables(EVENTS)
    tables.write(table, with_ids(change(tables.read(table, EVENT)).drop("id")), EVENT)  # type: ignore[operator]
    report = verify_record(copy, AUDITS)
    assert not report.ok()
    assert any(named in p and EVENT in p for p in report.problems), report.problems[:5]


def test_a_run_killed_while_solving_resumes_without_asking_anyone_twice(tmp_path: Path) -> None:
    need_sandbox()
    data = tmp_path / "data"
    freeze(data, "ch-crash")
    with running_sparring(houses=sparring_houses(), stall_s=5) as url:
        env = {
            **os.environ,
            "COLOSSEUM_SPARRING_URL": url,
            "COLOSSEUM_KILL_AT": "event-reply:solve:house-lazy",
        }
        run = [
            sys.executable,
            "-m",
            "colosseum_dagster.cli",
            "events",
            "challenges",
            "event",
            "run",
            "ch-crash",
            "--data",
            str(data),
        ]
        env["COLOSSEUM_KILL_AT"] = _first_solve_point(data, url, env)
        killed = subprocess.run(run, env=env, capture_output=True, text=True, timeout=300)
        assert killed.returncode == -9, killed.stderr[-2000:]
        del env["COLOSSEUM_KILL_AT"]
        resumed = subprocess.run(run, env=env, capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        served = httpx.get(f"{url}/status").json()["requests"]
    journal = Record(data).journal_path(EVENTS, "challenges", "ch-crash")
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    asks = [e for e in entries if e["event"] == "ask"]
    replies = [e for e in entries if e["event"] == "reply"]
    assert len({(a["phase"], a["who"], a["subject"]) for a in asks}) == len(asks)
    assert len(replies) <= served <= len(asks)
    report = verify_record(data, AUDITS)
    assert report.ok(), report.problems


def _first_solve_point(data: Path, url: str, env: dict[str, str]) -> str:
    """The crash point of house-lazy's reply to the first task it is asked (authoring runs once, here,
    without a kill, so the task ids are known; the run replays it from the journal)."""
    import datetime as dt

    from colosseum_core.events.challenges.event import package
    from colosseum_core.events.challenges.run import admit, author, commit_tasks, frozen_challenge
    from colosseum_core.trust.keys import KeyStore

    tables = Record(data).tables(EVENTS)
    frozen = frozen_challenge(tables.read("event_manifests", "ch-crash"), "ch-crash")
    now = dt.datetime.now(dt.UTC)  # after the event was frozen, by the CLI's own clock
    authored = author(frozen, record=Record(data), sparring_url=url, environ={}, clock=lambda: now)
    submissions = admit(frozen, authored, runner=sandbox_runner())["challenge_submissions"]
    commitments = commit_tasks(frozen, submissions, keys=KeyStore.for_data(data), now=now)
    tasks = [t for t in package(submissions, commitments) if t["author"] != "house-lazy"]
    return f"event-reply:solve:house-lazy:{tasks[0]['task_id']}"
