"""A challenge event of house authors, solvers and reviewers end to end through the real Definitions,
then ``colosseum verify``: every phase derived again, every commitment opened, every tampered byte named
(the challenge rules on their own: tests/events/test_challenges_rules.py)."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.arenas import AUDITS, sparring_houses
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.challenges.event import JOURNAL_FIELDS
from colosseum_core.events.tasks.checking import sandbox_runner
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.verify import verify_record
from colosseum_standins.sparring import running_sparring
from tests.conftest import cli
from tests.support import events_e2e as e2e
from tests.support.sandbox import need_sandbox

KIND = "challenges"
EVENT = "ch-e2e"
FREEZE = ("--slots", "2", "--seed", "5", "--replicates", "499")


def opened(data: Path, event: str, table: str) -> pl.DataFrame:
    """A table of a revealed event, opened with the key its reveal published (as anyone can)."""
    from colosseum_core.events.challenges.event import open_tables, published_key

    tables = Record(data).tables(EVENTS)
    key = published_key(e2e.manifest(data, event), tables.read("challenge_key", event))
    return open_tables({table: tables.read(table, event)}, key, event)[table]


played = e2e.played_fixture(KIND, EVENT, *FREEZE, need=need_sandbox)


def test_the_event_is_authored_committed_solved_reviewed_revealed_and_sealed(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = Record(played).tables(EVENTS)
    manifest = e2e.manifest(played, EVENT)
    assert manifest["kind"] == "challenge" and [j["id"] for j in manifest["judges"]] == ["judge-a", "judge-b"]
    submissions = opened(played, EVENT, "challenge_submissions")
    assert submissions.height == 5 * 2
    assert "task" not in tables.read("challenge_submissions", EVENT).columns  # recorded sealed
    by_author = {a: set(submissions.filter(pl.col("author") == a)["status"]) for a in submissions["author"]}
    assert by_author["house-lazy"] == {"not_verified"} and by_author["house-hostile"] == {"not_verified"}
    assert by_author["house-malformed"] == {"failed"}
    runs = opened(played, EVENT, "challenge_checker_runs")
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
    replies = opened(played, EVENT, "challenge_replies")
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
    report = e2e.verified(played)
    assert report.checked["challenge_calls"] >= submissions.height + replies.height
    capsys.readouterr()
    assert cli("events", "challenges", "tasks", EVENT, "--data", str(played)) == 0
    assert "the checker did not finish" in capsys.readouterr().out
    assert cli("events", "challenges", "standings", EVENT, "--json", "--data", str(played)) == 0
    assert len(json.loads(capsys.readouterr().out)["standings"]) == 4 * 5


def test_the_tasks_listing_names_the_evidence_that_decided_every_objection(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An objection upheld by its witness was once listed as `(None)` (it has no review): every
    objection now names what decided it, the witness (Verified) or each judge's vote (Reviewed)."""
    replies = opened(played, EVENT, "challenge_replies").filter(pl.col("verdict") == "OBJECT")
    reviews = opened(played, EVENT, "challenge_reviews")
    assert (replies["witness_check"] == "holds").any() and reviews.height >= 2  # both kinds occur
    capsys.readouterr()
    assert cli("events", "challenges", "tasks", EVENT, "--data", str(played)) == 0
    listing = capsys.readouterr().out
    assert "(None)" not in listing and "OBJECT" in listing
    assert cli("events", "challenges", "tasks", EVENT, "--json", "--data", str(played)) == 0
    objections = {
        (r["solver"], r["task_id"]): r["objection"]
        for r in json.loads(capsys.readouterr().out)["replies"]
        if r["verdict"] == "OBJECT"
    }
    assert set(objections) == set(zip(replies["solver"], replies["task_id"], strict=True))
    for r in replies.iter_rows(named=True):
        objection = objections[(r["solver"], r["task_id"])]
        if r["witness_check"] == "holds":
            assert objection == {
                "outcome": "upheld",
                "evidence": "verified",
                "witness": r["witness"],
                "why": r["witness_reason"],
            }
            said = f"OBJECT {r['defect']} (upheld, Verified: its witness {r['witness']} holds)"
        else:
            votes = reviews.filter((pl.col("solver") == r["solver"]) & (pl.col("task_id") == r["task_id"]))
            assert objection["evidence"] == "reviewed" and objection["votes"] == dict(
                zip(votes["judge"], votes["vote"], strict=True)
            )
            assert objection["outcome"] in ("upheld", "rejected", "unresolved")
            cast = ", ".join(f"{j} {v}" for j, v in sorted(objection["votes"].items()))
            said = f"OBJECT {r['defect']} ({objection['outcome']}, Reviewed: {cast}"
        assert any(line.split()[0] == r["solver"] and said in line for line in listing.splitlines()), said


def test_the_board_shows_every_task_opened_and_verify_reads_it_back(played: Path, tmp_path: Path) -> None:
    import html

    from colosseum_core.verify import verify_site

    site = e2e.published(played, tmp_path / "site")
    event = site / "events" / EVENT
    tasks = html.unescape((event / "tasks.html").read_text())
    admitted = opened(played, EVENT, "challenge_submissions").filter(pl.col("status") == "verified")
    assert all(s in tasks for s in admitted["statement"]) and all(r in tasks for r in admitted["reference"])
    assert (event / "downloads" / "challenge_key.parquet").exists()
    assert "sealed" in pl.read_parquet(event / "downloads" / "challenge_replies.parquet").columns
    report = verify_site(site, AUDITS)
    assert report.ok(), report.problems


def test_a_sealed_event_runs_again_to_the_same_bytes(played: Path) -> None:
    names = ("challenge_submissions", "challenge_commitments", "challenge_replies", "challenge_standings")
    e2e.check_runs_again_to_the_same_bytes(KIND, played, EVENT, names)


def _reseal(data: Path, table: str, change: e2e.Change) -> pl.DataFrame:
    """``table`` opened, changed and sealed again with the published key: a forger who knows the key."""
    from colosseum_core.events.challenges.event import published_key, seal_tables

    key = published_key(e2e.manifest(data, EVENT), Record(data).tables(EVENTS).read("challenge_key", EVENT))
    return seal_tables({table: with_ids(change(opened(data, EVENT, table)).drop("id"))}, key)[table]


def _flip(frame: pl.DataFrame) -> pl.DataFrame:
    """One character of the first row's sealed field changed."""
    sealed = frame["sealed"].to_list()
    sealed[0] = ("B" if sealed[0][0] == "A" else "A") + sealed[0][1:]
    return with_ids(frame.with_columns(sealed=pl.Series(sealed)).drop("id"))


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
        ("challenge_authored", _flip, "does not open under the event's key"),
        (
            "challenge_replies",
            lambda f: with_ids(f.with_columns(slot=pl.col("slot") + 1).drop("id")),
            "does not open under the event's key",
        ),
        (
            "challenge_key",
            lambda f: with_ids(f.with_columns(key=pl.lit("ab" * 64)).drop("id")),
            "challenge_",
        ),
    ],
)
def test_a_tampered_phase_is_named(
    played: Path, tmp_path: Path, table: str, change: e2e.Change, named: str
) -> None:
    if named.startswith("field ") and table in ("challenge_reviews", "challenge_replies"):
        copy = e2e.tampered_copy(played, tmp_path)  # the key is public after the reveal
        Record(copy).tables(EVENTS).write(table, _reseal(copy, table, change), EVENT)
    elif table in ("challenge_authored", "challenge_replies", "challenge_key"):
        copy = e2e.tampered_copy(played, tmp_path)  # the change derives the ids itself, or not
        tables = Record(copy).tables(EVENTS)
        tables.write(table, change(tables.read(table, EVENT)), EVENT)
    else:
        copy = e2e.tampered(played, tmp_path, EVENT, table, change)
    e2e.check_named(copy, EVENT, named)


def _result(data: Path, event: str) -> dict[str, list[dict[str, object]]]:
    """What an event decided, whatever its name: every score and standing, in order."""
    tables = Record(data).tables(EVENTS)
    drop = ("id", "event", "manifest_sha256")
    return {
        table: tables.read(table, event).drop(drop, strict=False).sort(key).to_dicts()
        for table, key in (
            ("challenge_scores", ["ranking", "contender", "slot", "task_id"]),
            ("challenge_standings", ["ranking", "basis", "contender"]),
        )
    }


@pytest.mark.slow
def test_a_request_in_flight_when_the_arena_died_is_asked_again(played: Path, tmp_path: Path) -> None:
    """COLOSSEUM-EVENT-ASKING-2: a run killed right after a solver's request is journalled (before it is
    sent) resumes by recording that request interrupted and asking the same question again; the event
    ends exactly as the uncrashed one did, and verify accepts the interrupted request."""
    need_sandbox()
    data = tmp_path / "data"
    e2e.freeze(KIND, data, "ch-crash", *FREEZE)
    with e2e.stalling_sparring() as url:
        victim = _first_solve(data, url)
        run = e2e.run_argv(KIND, data, "ch-crash")
        e2e.killed_then_resumed(run, sparring_url=url, kill_at="event-ask:" + ":".join(victim))
    journal = Record(data).journal_path(EVENTS, "challenges", "ch-crash")
    e2e.check_asked_again(e2e.journal_entries(journal), JOURNAL_FIELDS, victim)
    replies = opened(data, "ch-crash", "challenge_replies").filter(pl.col("solver") == "house-lazy")
    assert set(replies["status"]) == {"answered"}  # the arena's stop cost house-lazy nothing
    assert _result(data, "ch-crash") == _result(played, EVENT)
    e2e.verified(data)


def _first_solve(data: Path, url: str) -> tuple[str, str, str]:
    """The journal key of house-lazy's first solving question (authoring runs once, here, without a kill,
    so the tasks are known; the run replays it from the journal). A sealed event names a task in its
    journal by its commitment."""
    import datetime as dt

    from colosseum_core.events.challenges.event import open_tables, package
    from colosseum_core.events.challenges.run import admit, author, commit_tasks, event_key, frozen_challenge
    from colosseum_core.trust.keys import KeyStore

    tables = Record(data).tables(EVENTS)
    frozen = frozen_challenge(tables.read("event_manifests", "ch-crash"), "ch-crash")
    now = dt.datetime.now(dt.UTC)  # after the event was frozen, by the CLI's own clock
    keys = KeyStore.for_data(data)
    authored = author(frozen, record=Record(data), keys=keys, sparring_url=url, environ={}, clock=lambda: now)
    submissions = admit(frozen, authored, keys=keys, runner=sandbox_runner())["challenge_submissions"]
    commitments = commit_tasks(frozen, submissions, keys=keys, now=now)
    opened_submissions = open_tables(
        {"challenge_submissions": submissions}, event_key(frozen, keys), "ch-crash"
    )
    tasks = package(opened_submissions["challenge_submissions"], commitments)
    handle = next(t["handle"] for t in tasks if t["author"] != "house-lazy")
    assert handle in commitments["document"][0]  # the commitment, not the task's id
    return ("solve", "house-lazy", handle)


# -- sealed until revealed -------------------------------------------------------------------------------


def _strings(value: object) -> Iterator[str]:
    """Every string in a JSON value, and in every string of it that is JSON itself (a receipt's body)."""
    if isinstance(value, str):
        yield value
        stripped = value.strip()
        if stripped[:1] in ("{", "["):
            with contextlib.suppress(ValueError):
                yield from _strings(json.loads(stripped))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _texts(root: Path, *, skip: Path | None = None) -> str:
    """Every file under ``root`` as text a reader would get from it: Parquet tables cell by cell, gzipped
    files decompressed, JSON and JSON lines down to every string they hold (receipts' bodies too), and
    every other file's bytes as they are."""
    parts: list[str] = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or (skip is not None and path.is_relative_to(skip)):
            continue
        raw = path.read_bytes()
        if path.suffix == ".parquet":
            frame = pl.read_parquet(path)
            parts += [str(v) for row in frame.iter_rows() for v in _strings(list(row))]
            parts += [str(v) for row in frame.iter_rows() for v in row]
            continue
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8", errors="replace")
        parts.append(text)
        for line in text.splitlines():
            try:
                parts += list(_strings(json.loads(line)))
            except ValueError:
                continue
    return "\n".join(parts)


def _secrets(data: Path, event: str) -> dict[str, str]:
    """What the event must keep sealed until its reveal, from its private side (the key store): every
    task's id, statement, reference, checker, failure cases and predicate, every author's reply, and every
    other sealed field; each as the words a reader of the record would find (a short reference answer as
    it stands in a task, a reply or a review)."""
    from colosseum_core.events.challenges.event import SEALED_SCHEMAS, open_tables

    key = bytes.fromhex(
        json.loads((data / "keys" / "challenge-sealed" / event / "key.json").read_text())["key"]
    )
    tables = Record(data).tables(EVENTS)
    frames = open_tables(
        {t: tables.read(t, event) for t in SEALED_SCHEMAS if tables.exists(t, event)}, key, event
    )
    found: dict[str, str] = {}
    for r in frames["challenge_submissions"].filter(pl.col("task").is_not_null()).iter_rows(named=True):
        task = json.loads(r["task"])
        where = f"{r['author']} slot {r['slot']}"
        found[r["task_id"]] = f"{where}: task id"
        found[task["statement"]] = f"{where}: statement"
        reference = task["reference"].get("answer") or task["reference"]["program"]
        for form in (f'"answer": "{reference}"', f'"answer":"{reference}"', f"ANSWER: {reference}"):
            found[form] = f"{where}: reference"
        found[f"reference answer: {r['reference']}"] = f"{where}: reference in a review"
        found[f"ANSWER: {r['reference']}"] = f"{where}: reference as a solver's answer"
        for source in (task["checker"].get("source"), (task.get("predicate") or {}).get("source")):
            found.update(
                {line: f"{where}: program" for line in (source or "").splitlines() if len(line) >= 12}
            )
        cases = task["failure_cases"]
        for form in (
            json.dumps(cases),
            json.dumps(cases, separators=(",", ":")),
            json.dumps(cases, indent=2),
        ):
            found[form] = f"{where}: failure cases"
        found.update({case: f"{where}: failure case" for case in cases if len(case) >= 6})
    # Every other sealed field's value, unless the rules' own vocabulary (a defect class in the manifest's
    # prompts, a step's name in a public field) says it too.
    public = tables.read("event_manifests", event)["manifest"][0]
    public += "\n".join(
        str(v) for t in frames for row in tables.read(t, event).drop("sealed").iter_rows() for v in row
    )
    for table, frame in frames.items():
        sealed = [c for c in frame.columns if c not in tables.read(table, event).columns]
        for r in frame.select(sealed).iter_rows(named=True):
            for v in r.values():
                if isinstance(v, str) and len(v) >= 12 and v not in public:
                    found.setdefault(v, f"{table}: a sealed field")
    return found


@pytest.mark.slow
def test_the_record_holds_commitments_not_tasks_until_the_reveal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CHALLENGE-COMMIT-2: a run killed just before the reveal (after the review's table is written)
    leaves nothing of any task in the record: not in a table, a receipt, a journal, the ledger or
    Dagster's own storage; the private key store holds it all. The next run reveals, and then the record
    shows every task and verify derives every phase again."""
    need_sandbox()
    data = tmp_path / "data"
    e2e.freeze(KIND, data, "ch-sealed", *FREEZE)
    env = {
        **os.environ,
        "DAGSTER_HOME": str(data / "dagster_home"),
        "COLOSSEUM_KILL_AT": "wrote:challenge_reviews",
    }
    (data / "dagster_home").mkdir()
    run = [sys.executable, "-m", "colosseum_dagster.cli", *e2e.run_argv(KIND, data, "ch-sealed")]
    with running_sparring(houses=sparring_houses()) as url:
        env["COLOSSEUM_SPARRING_URL"] = url
        killed = subprocess.run(run, env=env, capture_output=True, text=True, timeout=300)
        assert killed.returncode == -9, killed.stderr[-2000:]
        tables = Record(data).tables(EVENTS)
        assert tables.exists("challenge_reviews", "ch-sealed") and not tables.exists(
            "challenge_reveals", "ch-sealed"
        )
        secrets = _secrets(data, "ch-sealed")
        assert sum(kind.endswith("statement") for kind in secrets.values()) >= 4
        private = _texts(data / "keys")
        assert [
            s for s in secrets if "statement" in secrets[s] and s not in private
        ] == []  # the test can fail
        record = _texts(data, skip=data / "keys")
        leaked = sorted({f"{why}: {s[:60]!r}" for s, why in secrets.items() if s in record})
        assert leaked == [], "\n".join(leaked)
        escaped = sorted({why for s, why in secrets.items() if json.dumps(s)[1:-1] in record})
        assert escaped == [], escaped[:10]
        report = verify_record(data, AUDITS)
        assert report.ok(), report.problems
        assert any("sealed until its reveal" in n and "ch-sealed" in n for n in report.notes), report.notes
        capsys.readouterr()
        assert cli("events", "challenges", "tasks", "ch-sealed", "--json", "--data", str(data)) == 0
        shown = json.loads(capsys.readouterr().out)
        assert not shown["revealed"] and set(shown["submissions"][0]) == {"author", "slot", "status"}
        del env["COLOSSEUM_KILL_AT"]
        resumed = subprocess.run(run, env=env, capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
    record = _texts(data, skip=data / "keys")
    revealed = [
        s
        for s, why in secrets.items()
        if why.endswith(("statement", "task id", "program"))
        and s not in record
        and json.dumps(s)[1:-1] not in record  # a program's line, as a task's JSON escapes it
    ]
    assert revealed == []
    assert e2e.verified(data).checked["challenge_calls"] >= 10
