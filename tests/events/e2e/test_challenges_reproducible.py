"""Checkers that cannot depend on when or where they run, end to end (issue 37, point 2).

House authors whose checkers accept the reference and reject the failure cases, as admission asks,
and decide every other answer by the clock (``house-author-clockwork``) or by ``/dev/urandom``
(``house-author-dicey``); their second slot digs past the sandbox's fixed clock (threads racing).
Through the real Definitions and ``colosseum verify``:

- the clock and the entropy are the sandbox's recorded ones, so those checkers decide the same at
  every run: admitted, and every verdict replays, the record verifies with no finding;
- the checker that digs past them is refused at admission as not reproducible;
- a record whose recorded verdict disagrees with the replay (the event ran with a checker that
  decided otherwise at solving time) verifies, with a finding naming the event, the task, its author
  and both verdicts, and the board builds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

import colosseum_core.events.tasks.checking as checking
from colosseum_core.arenas import AUDITS
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.tasks.checking import ProgramRunner
from colosseum_core.events.tasks.verification import NOT_REPRODUCIBLE
from colosseum_core.record.layout import Record
from colosseum_core.sandbox.bubblewrap import SandboxRun
from colosseum_core.verify import verify_record
from tests.conftest import cli
from tests.support.sandbox import need_sandbox

CONTENDERS = """
[settings]
temperature = 0.0
top_p = 1.0
max_tokens = 8192
timeout_s = 300.0
seed = 0

[[house]]
id = "house-clockwork"
protocol = "openai"
model = "house-author-clockwork"

[[house]]
id = "house-dicey"
protocol = "openai"
model = "house-author-dicey"

[[house]]
id = "house-solver-a"
protocol = "openai"
model = "house-author-s3"

[[house]]
id = "house-solver-b"
protocol = "openai"
model = "house-author-s5"

[[judge]]
id = "judge-a"
protocol = "openai"
model = "gpt-5.1"
base_url = "https://api.openai.com"
key_env = "OPENAI_API_KEY"
house = "house-reviewer"

[[judge]]
id = "judge-b"
protocol = "anthropic"
model = "claude-opus-4-5"
base_url = "https://api.anthropic.com"
key_env = "ANTHROPIC_API_KEY"
house = "house-reviewer"
"""
CAPRICIOUS = ("house-clockwork", "house-dicey")


def _play(data: Path, event: str) -> None:
    contenders = data.parent / "contenders.toml"
    contenders.write_text(CONTENDERS)
    freeze = ("events", "challenges", "event", "freeze", event, "--contenders", str(contenders))
    assert cli(*freeze, "--slots", "2", "--seed", "3", "--replicates", "199", "--data", str(data)) == 0
    assert cli("events", "challenges", "event", "run", event, "--data", str(data)) == 0


def _table(data: Path, table: str, event: str) -> pl.DataFrame:
    """A table of a revealed event, opened with the key its reveal published (as anyone can)."""
    from colosseum_core.events.challenges.event import open_tables, published_key

    tables = Record(data).tables(EVENTS)
    manifest = json.loads(tables.read("event_manifests", event)["manifest"][0])
    key = published_key(manifest, tables.read("challenge_key", event))
    return open_tables({table: tables.read(table, event)}, key, event)[table]


def _decided_by_chance(runs: pl.DataFrame, submissions: pl.DataFrame) -> pl.DataFrame:
    """The solving runs of the capricious authors' checkers on an answer that is neither the reference
    nor a failure case: the ones the clock or chance decided."""
    tasks = submissions.filter(pl.col("author").is_in(CAPRICIOUS) & (pl.col("status") == "verified"))
    chosen = []
    for task in tasks.iter_rows(named=True):
        fixed = {str(task["reference"]).strip(), *json.loads(task["task"])["failure_cases"]}
        mine = runs.filter((pl.col("task_id") == task["task_id"]) & (pl.col("step") == "solution"))
        chosen.append(mine.filter(~pl.col("answer").str.strip_chars().is_in(list(fixed))))
    return pl.concat(chosen) if chosen else runs.clear()


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An event run in the real sandbox."""
    need_sandbox()
    data = tmp_path_factory.mktemp("reproducible") / "data"
    _play(data, "ch-clock")
    return data


def test_checkers_deciding_by_the_clock_or_by_chance_are_admitted_and_replay_exactly(honest: Path) -> None:
    submissions = _table(honest, "challenge_submissions", "ch-clock")
    by_slot = {(r["author"], r["slot"]): r for r in submissions.iter_rows(named=True)}
    for author in CAPRICIOUS:
        # Slot 1 decides by the sandbox's clock or entropy: the same every run, so admitted.
        assert by_slot[(author, 1)]["status"] == "verified", by_slot[(author, 1)]["detail"]
        # Slot 2 digs past them (threads racing): run again at admission, it is refused.
        refused = by_slot[(author, 2)]
        assert (refused["status"], refused["failure"]) == ("not_verified", NOT_REPRODUCIBLE)
        assert refused["detail"].startswith("not reproducible: at reference check run 1")
    runs = _table(honest, "challenge_checker_runs", "ch-clock")
    assert set(runs["repeat"]) == {0, 1, 2}
    # Solvers' wrong answers were decided by the clock and by chance, and the replay agrees.
    decided = _decided_by_chance(_table(honest, "challenge_solving_runs", "ch-clock"), submissions)
    assert decided.height >= 1 and set(decided["verdict"]) <= {"accept", "reject"}
    report = verify_record(honest, AUDITS)
    assert report.ok(), report.problems
    assert not [note for note in report.notes if note.startswith("finding:")], report.notes


@pytest.fixture(scope="module")
def disagreeing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, object]]]:
    """An event whose solving ran with a sandbox in which one capricious checker said the opposite on
    one answer it decides by the clock: what a checker that reads the real clock would have recorded."""
    need_sandbox()
    data = tmp_path_factory.mktemp("disagreeing") / "data"
    real = checking.sandbox_runner
    flipped: dict[str, object] = {}

    def flipping(limits: object = None) -> ProgramRunner:
        runner = real(limits)  # type: ignore[arg-type]

        def run(source: str, stdin: bytes) -> SandboxRun:
            done = runner(source, stdin)
            given = json.loads(stdin) if stdin else {}
            answer = given.get("answer", "").strip() or None
            deciding = 'else:\n    print("ACCEPT" if (time.time_ns()' in source
            if deciding and answer is not None and not flipped and source.count(repr(answer)) == 0:
                said = done.stdout.decode()
                other = said.replace("ACCEPT", "R-").replace("REJECT", "ACCEPT").replace("R-", "REJECT")
                flipped.update(
                    answer=answer, statement=given["statement"], said=said.strip(), recorded=other.strip()
                )
                return SandboxRun(
                    done.outcome, done.exit_code, None, other.encode(), done.stderr, done.seconds
                )
            return done

        return run

    checking.sandbox_runner = flipping  # the Definitions look the runner up when each phase runs
    try:
        _play(data, "ch-flip")
    finally:
        checking.sandbox_runner = real
    yield data, flipped


def test_a_recorded_verdict_the_replay_disagrees_with_is_a_finding_charged_to_the_author(
    disagreeing: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    data, flipped = disagreeing
    assert flipped, "no clock-decided answer was checked: the event exercised nothing"
    runs = _table(data, "challenge_solving_runs", "ch-flip")
    submissions = _table(data, "challenge_submissions", "ch-flip")
    (task,) = submissions.filter(
        (pl.col("author") == "house-clockwork") & (pl.col("statement") == flipped["statement"])
    ).iter_rows(named=True)
    chosen = runs.filter(
        (pl.col("task_id") == task["task_id"]) & (pl.col("answer").str.strip_chars() == flipped["answer"])
    )
    (row,) = chosen.head(1).iter_rows(named=True)
    assert row["verdict"] == ("accept" if flipped["recorded"] == "ACCEPT" else "reject")
    assert Record(data).seals(EVENTS).get("ch-flip") is not None  # sealed with the verdict it recorded

    report = verify_record(data, AUDITS)
    assert report.ok(), report.problems  # one author's checker never fails the record
    findings = [note for note in report.notes if note.startswith("finding:")]
    assert len(findings) == 1, report.notes
    (finding,) = findings
    recorded = "accept" if flipped["recorded"] == "ACCEPT" else "reject"
    replayed = "reject" if recorded == "accept" else "accept"
    assert f"event ch-flip task {row['task_id']} (author house-clockwork, slot 1)" in finding
    assert f"solver {row['solver']}" in finding and repr(flipped["answer"]) in finding
    assert f"the record says {recorded} (the checker printed {recorded.upper()})" in finding
    assert f"the replay says {replayed} (the checker printed {replayed.upper()})" in finding
    assert "charged to house-clockwork" in finding and "where the record scored the slot sound" in finding

    site = tmp_path / "site"
    assert cli("board", "build", str(site), "--data", str(data)) == 0
    assert (site / "events" / "ch-flip").is_dir()
