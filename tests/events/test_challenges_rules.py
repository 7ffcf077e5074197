"""The challenge event's rules on their own: the house's sound tasks verified, authoring replies read,
a predicate held to its checker, and the scoring table."""

from __future__ import annotations

import json

import pytest

from colosseum_core.events.challenges.authoring import authoring_prompt, parse_submission
from colosseum_core.events.challenges.house import _SOUND, _SOUND_ANSWERS
from colosseum_core.events.challenges.scoring import TaskVerdict, authoring_score, solving_score
from colosseum_core.events.tasks.checking import sandbox_runner
from colosseum_core.events.tasks.task import parse_task
from colosseum_core.events.tasks.verification import verify_task
from tests.support.sandbox import need_sandbox


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
