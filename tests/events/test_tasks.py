"""Tasks (COLOSSEUM-TASK-1), the exact checkers, and the verified rule, with hostile tasks in the sandbox."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from colosseum_core.events.tasks.answers import MalformedAnswer, exact_check, read_answer
from colosseum_core.events.tasks.checking import ProgramRunner, check_answer, sandbox_runner
from colosseum_core.events.tasks.replay import Replay
from colosseum_core.events.tasks.task import TaskError, parse_task
from colosseum_core.events.tasks.verification import NOT_REPRODUCIBLE, NOT_VERIFIED, VERIFIED, verify_task
from colosseum_core.sandbox.bubblewrap import Limits, SandboxRun
from tests.support.sandbox import need_sandbox


def _task(**changes: Any) -> dict[str, Any]:
    task: dict[str, Any] = {
        "format": "COLOSSEUM-TASK-1",
        "statement": "How many positive divisors has 360? Give the answer as an integer.",
        "answer_type": "integer",
        "reference": {"answer": "24"},
        "checker": {"kind": "exact"},
        "failure_cases": ["23", "12"],
    }
    task.update(changes)
    return task


def _no_programs(source: str, stdin: bytes) -> SandboxRun:
    raise AssertionError("an exact task must not start the sandbox")


# -- the exact checkers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer_type", "expected", "answer", "accepted"),
    [
        ("integer", "42", " 42\n", True),
        ("integer", "42", "+042", True),
        ("integer", "-7", "-7", True),
        ("integer", "42", "43", False),
        ("fraction", "3/4", "6/8", True),
        ("fraction", "5", "10/2", True),
        ("fraction", "-1/2", "1/-2", False),  # malformed: the sign belongs to p
        ("fraction", "1/3", "0.333", False),
        ("string", "Bob,Alice", "Bob,Alice\n", True),
        ("string", "Bob,Alice", "bob,alice", False),
        ("string", "Bob,Alice", "Bob, Alice", False),
        ("json", "[1,2,3]", "[ 1, 2, 3 ]", True),
        ("json", '{"a":1,"b":2}', '{"b": 2, "a": 1.0}', True),
        ("json", "[1,2,3]", "[3,2,1]", False),
    ],
)
def test_exact_checkers_compare_values_of_their_type(
    answer_type: str, expected: str, answer: str, accepted: bool
) -> None:
    assert exact_check(answer_type, expected, answer).accepted is accepted


@pytest.mark.parametrize(
    ("answer_type", "answer", "why"),
    [
        ("integer", "٤٢", "ASCII digits"),  # Arabic-Indic digits are never read generously
        ("integer", "４２", "ASCII digits"),
        ("integer", "1,000", "ASCII digits"),
        ("integer", "42 apples", "ASCII digits"),
        ("integer", "", "ASCII digits"),
        ("fraction", "3/0", "divides by zero"),
        ("json", "NaN", "not a JSON number"),
        ("json", '{"a": 1, "a": 2}', "repeats the key"),
        ("json", str(2**60), "canonical form"),
        ("json", "[1, 2", "not one JSON value"),
        ("string", "x" * 10_001, "over 10,000"),
        ("colour", "red", "not one of"),
    ],
)
def test_a_malformed_answer_is_rejected_saying_why(answer_type: str, answer: str, why: str) -> None:
    with pytest.raises(MalformedAnswer, match=why):
        read_answer(answer_type, answer)
    if answer_type != "colour":
        verdict = exact_check(answer_type, "1", answer)
        assert not verdict.accepted and verdict.reason.startswith("malformed")


@given(st.integers(-(10**30), 10**30), st.integers(1, 10**9), st.integers(1, 50))
def test_a_fraction_equals_itself_scaled(p: int, q: int, scale: int) -> None:
    assert read_answer("fraction", f"{p * scale}/{q * scale}") == Fraction(p, q)
    assert exact_check("fraction", f"{p}/{q}", f"{p * scale}/{q * scale}").accepted


# -- the schema -------------------------------------------------------------------------------------


def test_a_task_has_a_stable_id_that_every_field_changes() -> None:
    task = parse_task(_task())
    assert task.task_id == parse_task(copy.deepcopy(_task())).task_id
    assert len(task.task_id) == 64
    for change in (
        {"statement": _task()["statement"] + " "},
        {"answer_type": "fraction"},
        {"reference": {"answer": "24 "}},
        {"checker": {"kind": "program", "source": "print('ACCEPT')"}},
        {"failure_cases": ["12", "23"]},
    ):
        assert parse_task(_task(**change)).task_id != task.task_id, change
    assert parse_task(task.document()) == task


def test_the_public_item_gives_nothing_away() -> None:
    item = parse_task(_task()).public_item()
    assert set(item) == {"task_id", "statement", "answer_type"}
    assert "24" not in str(item.values())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"format": "TASK-0"}, "task field format: 'TASK-0'"),
        ({"statement": ""}, "task field statement: must not be empty"),
        ({"statement": 7}, "task field statement: expected text, not int 7"),
        ({"statement": "x" * 8001}, "task field statement: 8,001 characters"),
        ({"answer_type": "float"}, "task field answer_type: 'float' is not one of"),
        ({"reference": {"answer": "1", "program": "print(1)"}}, "task field reference: has keys"),
        ({"reference": "24"}, "task field reference: expected an object"),
        ({"checker": {"kind": "program"}}, "task field checker.kind: 'program'"),
        ({"checker": {"kind": "magic"}}, "task field checker.kind: 'magic'"),
        ({"failure_cases": []}, "task field failure_cases: a list of 1 to 16"),
        ({"failure_cases": ["1"] * 17}, "not 17"),
        ({"failure_cases": ["1", "1"]}, "the same wrong answer twice"),
        ({"failure_cases": [1]}, r"task field failure_cases\[0\]: expected text, not int 1"),
        ({"hint": "x"}, "task field hint: not a field"),
        ({"statement": "a\x00b"}, "NUL"),
    ],
)
def test_a_malformed_task_is_refused_naming_the_field_and_value(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(TaskError, match=message):
        parse_task(_task(**changes))


def test_a_missing_field_and_a_non_object_are_named() -> None:
    partial = _task()
    del partial["checker"]
    with pytest.raises(TaskError, match="task field checker: missing"):
        parse_task(partial)
    with pytest.raises(TaskError, match="a task is a JSON object, not list"):
        parse_task([1])


# -- verified, with the exact checker (no sandbox) --------------------------------------------------


def test_an_exact_task_with_a_right_reference_and_wrong_cases_is_verified() -> None:
    verification = verify_task(parse_task(_task()), _no_programs)
    assert verification.status == VERIFIED and verification.reference == "24"
    assert [(run.step, run.case, run.verdict) for run in verification.runs] == [
        ("reference", None, "produced"),
        ("reference_check", None, "accept"),
        ("failure_case", 0, "reject"),
        ("failure_case", 1, "reject"),
    ]


@pytest.mark.parametrize(
    ("changes", "step", "reason"),
    [
        ({"reference": {"answer": "twenty-four"}}, "reference", "not a well-formed integer"),
        ({"failure_cases": ["23", "024"]}, "failure_case", "failure case 1 is the reference answer itself"),
        ({"failure_cases": ["many"]}, "failure_case", "failure case 0 is not a well-formed integer"),
    ],
)
def test_an_exact_task_fails_verification_at_the_step_that_is_wrong(
    changes: dict[str, Any], step: str, reason: str
) -> None:
    verification = verify_task(parse_task(_task(**changes)), _no_programs)
    assert verification.status == NOT_VERIFIED
    assert verification.failed_step == step and reason in verification.reason


# -- program checkers and reference programs, in the real sandbox -----------------------------------

PRIME_CHECKER = """
import json, sys
answer = json.load(sys.stdin)["answer"].strip()
n = int(answer) if answer.isascii() and answer.isdigit() else 0
ok = n > 100 and all(n % d for d in range(2, n))
print("ACCEPT" if ok else "REJECT")
"""


def _program_task(checker: str, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "statement": "Give a prime number greater than 100 as an integer.",
        "reference": {
            "program": "print(next(n for n in range(101, 200) if all(n % d for d in range(2, n))))"
        },
        "checker": {"kind": "program", "source": checker},
        "failure_cases": ["100", "121", "7"],
    }
    return _task(**{**fields, **changes})


@pytest.fixture(scope="module")
def runner() -> ProgramRunner:
    need_sandbox()
    # The wall limit is far out of reach of a loop's CPU second however loaded the host, so "cpu limit"
    # never races the wall clock (test_sandbox's SHORT says why).
    return sandbox_runner(Limits(cpu_seconds=1, wall_seconds=60.0, output_bytes=65536))


def test_a_program_checker_and_a_reference_program_verify_in_the_sandbox(runner: ProgramRunner) -> None:
    verification = verify_task(parse_task(_program_task(PRIME_CHECKER)), runner)
    assert verification.status == VERIFIED, verification.reason
    assert verification.reference is not None and verification.reference.strip() == "101"
    # Every passing program step runs three times in all (COLOSSEUM-TASK-VERIFIED-2), each recorded.
    assert [(run.verdict, run.repeat) for run in verification.runs] == [
        (verdict, repeat)
        for verdict in ("produced", "accept", "reject", "reject", "reject")
        for repeat in range(3)
    ]
    assert all(run.sandbox_outcome == "ok" and run.stdout_sha256 for run in verification.runs)
    once = verify_task(parse_task(_program_task(PRIME_CHECKER)), runner, rule="COLOSSEUM-TASK-VERIFIED-1")
    assert once.verified and [run.repeat for run in once.runs] == [0] * 5


HOSTILE_CHECKERS = {
    "a checker that accepts every answer": (
        'print("ACCEPT")',
        "failure_case",
        "does not reject failure case 0",
    ),
    "a checker that rejects every answer": (
        'print("REJECT")',
        "reference_check",
        "does not accept the reference",
    ),
    "a fork bomb": (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
        "reference_check",
        "did not finish",
    ),
    "a network call": (
        "import urllib.request\n"
        "urllib.request.urlopen('http://127.0.0.1:8799/answer', timeout=1)\n"
        "print('ACCEPT')",
        "reference_check",
        "URLError",
    ),
    "a read of the host's files": (
        "print('ACCEPT' if 'root' in open('/etc/passwd').read() else 'REJECT')",
        "reference_check",
        "FileNotFoundError",
    ),
    "an infinite loop": ("while True:\n    pass", "reference_check", "cpu limit"),
    "a gigabyte of output": (
        "import sys\nfor _ in range(16384):\n    sys.stdout.write('ACCEPT\\n' * 9362)",
        "reference_check",
        "output limit",
    ),
    "a checker that prints something else": ("print('yes')", "reference_check", "not ACCEPT or REJECT"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_CHECKERS))
def test_a_hostile_checker_is_contained_and_its_task_not_verified(runner: ProgramRunner, name: str) -> None:
    source, step, reason = HOSTILE_CHECKERS[name]
    verification = verify_task(parse_task(_program_task(source)), runner)
    assert verification.status == NOT_VERIFIED
    assert verification.failed_step == step, verification.reason
    assert reason in verification.reason, verification.reason
    assert verification.runs[-1].verdict in ("accept", "error", "reject")


@pytest.mark.parametrize(
    ("program", "reason"),
    [
        ("while True:\n    pass", "did not finish: cpu limit"),
        ("import sys\nsys.stdout.buffer.write(b'\\xff\\xfe')", "not UTF-8"),
        ("print('one hundred and one')", "not a well-formed integer"),
    ],
)
def test_a_reference_program_that_fails_leaves_the_task_unverified(
    runner: ProgramRunner, program: str, reason: str
) -> None:
    verification = verify_task(
        parse_task(_program_task(PRIME_CHECKER, reference={"program": program})), runner
    )
    assert (verification.status, verification.failed_step) == (NOT_VERIFIED, "reference")
    assert reason in verification.reason


# -- checkers that cannot depend on when or where they run ------------------------------------------------


def _printing(*outputs: str) -> ProgramRunner:
    """A stand-in sandbox whose checker prints each of ``outputs`` in turn (the reference is given)."""
    said = iter(outputs)

    def run(source: str, stdin: bytes) -> SandboxRun:
        return SandboxRun("ok", 0, None, (next(said) + "\n").encode(), b"", 0.01)

    return run


def test_a_checker_that_says_two_things_on_one_input_is_refused_naming_both_runs() -> None:
    task = parse_task(_task(checker={"kind": "program", "source": "coin flip"}, failure_cases=["23"]))
    # The reference is accepted three times; failure case 0 is rejected, then accepted on its second run.
    verification = verify_task(task, _printing("ACCEPT", "ACCEPT", "ACCEPT", "REJECT", "ACCEPT"))
    assert (verification.status, verification.failed_step, verification.failed_case) == (
        NOT_VERIFIED,
        NOT_REPRODUCIBLE,
        0,
    )
    assert verification.reason == (
        "not reproducible: at failure case 0 run 1 gave reject (the checker printed REJECT), "
        "run 2 accept (the checker printed ACCEPT)"
    )
    assert [(run.step, run.repeat, run.verdict) for run in verification.runs][-2:] == [
        ("failure_case", 0, "reject"),
        ("failure_case", 1, "accept"),
    ]
    # The same verdict with other output is another run too: what it printed is recorded.
    noisy = verify_task(task, _printing("ACCEPT", "run 2\nACCEPT"))
    assert noisy.failed_step == NOT_REPRODUCIBLE
    assert noisy.reason.startswith(
        "not reproducible: at reference check run 1 and run 2 both gave accept (the checker printed ACCEPT) "
        "but printed different output"
    )
    with pytest.raises(ValueError, match="admission rule 'COLOSSEUM-TASK-VERIFIED-9'"):
        verify_task(task, _printing(), rule="COLOSSEUM-TASK-VERIFIED-9")


# Threads racing each other are the one clock a program always has: how far one counts before the
# other, which really sleeps, stops it differs from run to run.
RACING = """
import json, sys, threading, time
stop = []
threading.Thread(target=lambda: (time.sleep(0.003), stop.append(1))).start()
counted = 0
while not stop:
    counted += 1
answer = json.load(sys.stdin)["answer"].strip()
print(counted)
print("ACCEPT" if answer == "24" else "REJECT")
"""
BY_THE_CLOCK = """
import datetime, json, sys, time
answer = json.load(sys.stdin)["answer"].strip()
if answer in ("24", "23", "12"):
    print("ACCEPT" if answer == "24" else "REJECT")
else:  # any other answer: decided by the clock
    print("ACCEPT" if int(time.time() * 1000) % 2 or datetime.datetime.now().second % 2 else "REJECT")
"""
BY_CHANCE = """
import json, os, random, sys
answer = json.load(sys.stdin)["answer"].strip()
if answer in ("24", "23", "12"):
    print("ACCEPT" if answer == "24" else "REJECT")
else:  # any other answer: decided by /dev/urandom, os.urandom and random
    coin = open("/dev/urandom", "rb").read(1)[0] ^ os.urandom(1)[0] ^ random.getrandbits(8)
    print("ACCEPT" if coin % 2 else "REJECT")
"""


def test_a_checker_racing_threads_is_caught_by_running_it_again(runner: ProgramRunner) -> None:
    verification = verify_task(parse_task(_task(checker={"kind": "program", "source": RACING})), runner)
    assert (verification.status, verification.failed_step) == (NOT_VERIFIED, NOT_REPRODUCIBLE)
    assert "at reference check run 1 and run 2 both gave accept" in verification.reason


@pytest.mark.parametrize("checker", [BY_THE_CLOCK, BY_CHANCE])
def test_a_checker_deciding_by_the_clock_or_by_chance_decides_the_same_every_time(
    runner: ProgramRunner, checker: str
) -> None:
    task = parse_task(_task(checker={"kind": "program", "source": checker}))
    first, again = verify_task(task, runner), verify_task(task, runner)
    assert first.verified and first.runs == again.runs, first.reason
    verdicts = {
        check_answer(task, answer, reference="24", runner=runner, step="solution").verdict
        for answer in ("25", "25", "25")
    }
    assert len(verdicts) == 1 and verdicts <= {"accept", "reject"}


# -- verify's replay -----------------------------------------------------------------------------------


def test_a_replay_settles_on_the_recorded_run_and_names_the_disagreement() -> None:
    task = parse_task(_task(checker={"kind": "program", "source": "print('REJECT')"}))
    recorded = check_answer(task, "25", reference="24", runner=_printing("ACCEPT"), step="solution")
    row = {**recorded.row(), "solver": "house-sharp", "event": "e", "id": "x"}
    replay = Replay(_printing("REJECT", "REJECT"), "solving", [row])
    settled = check_answer(task, "25", reference="24", runner=replay, step="solution")
    assert settled == recorded  # the derivation goes on with what the record says
    (found,) = replay.disagreements
    assert found.task_id == task.task_id and found.recorded["solver"] == "house-sharp"
    assert found.verdicts() == ("accept (the checker printed ACCEPT)", "reject (the checker printed REJECT)")
    assert found.what() == "solving (solver house-sharp), solution on the answer '25'"
    # A run the record does not hold goes on as replayed (the tables' comparison names it), and so
    # does every run of the built-in exact checker: a difference there is the record's own.
    other = check_answer(task, "26", reference="24", runner=replay, step="solution")
    assert other.verdict == "reject" and len(replay.disagreements) == 1
    exact = parse_task(_task())
    tampered = {**check_answer(exact, "25", reference="24", runner=_no_programs, step="solution").row()}
    tampered["verdict"] = "accept"
    exact_replay = Replay(_no_programs, "solving", [tampered])
    assert check_answer(exact, "25", reference="24", runner=exact_replay, step="solution").verdict == "reject"
    assert exact_replay.disagreements == []


def test_a_replay_holds_each_repeat_against_its_own_recorded_run() -> None:
    task = parse_task(_task(checker={"kind": "program", "source": "x"}, failure_cases=["23"]))
    recorded = verify_task(task, _printing("ACCEPT", "ACCEPT", "ACCEPT", "REJECT", "REJECT", "REJECT"))
    assert recorded.verified
    # Replayed, the third run of the reference check says otherwise: one disagreement, and the task is
    # admitted again exactly as the record says.
    replay = Replay(
        _printing("ACCEPT", "ACCEPT", "REJECT", "REJECT", "REJECT", "REJECT"),
        "admission",
        [run.row() for run in recorded.runs],
    )
    again = verify_task(task, replay)
    assert again == recorded
    assert [(d.replayed.step, d.replayed.repeat) for d in replay.disagreements] == [("reference_check", 2)]
