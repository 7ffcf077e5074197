"""A trial end to end with a part that lives only in the tests (``tests/support/trial_part_toy.py``):
the model is a guest served on loopback (``colosseum_standins.guest``), the toy part's unit is real
(real HTTP, receipts, a sealed Parquet table), a part that raises is reported failed while the other
runs, a rerun reads what is sealed and asks nothing, and the report rebuilds from the record alone."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from colosseum_core.providers.models import parse_model
from colosseum_core.record.journal import read_journal
from colosseum_core.trial import TrialRequest, trial_id
from colosseum_core.trial.entries import entry_path, read_entry, trials_in
from colosseum_core.trial.prepared import Prepared
from colosseum_core.trial.report import rebuild_report, render_text, run_trial
from colosseum_standins.guest import build_app, config_of
from colosseum_standins.loopback import free_port, running_app
from tests.support import REPO, run_colosseum
from tests.support.trial_part_toy import TOY, BrokenPart, ToyPart

NAME = "acme-7b"
AT = dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def guest(sparring_url: str) -> Iterator[str]:
    config = config_of(NAME, ["(?i)prime=house-solver"], "house-hash", sparring_url)
    with running_app(build_app(config)) as url:
        yield url


def request_for(data: Path, guest: str, sparring_url: str, said: list[str]) -> TrialRequest:
    model = parse_model(f"openai/{NAME}", base_url=f"{guest}/v1")
    return TrialRequest(
        model=model,
        trial=trial_id(model),
        data_dir=data,
        sparring_url=sparring_url,
        environ={},
        clock=lambda: AT,
        progress=said.append,
    )


def guest_requests(guest: str) -> int:
    return int(httpx.get(f"{guest}/status").json()["requests"])


def test_a_trial_runs_every_part_reports_a_failed_one_and_resumes_without_asking_twice(
    tmp_path: Path, guest: str, sparring_url: str
) -> None:
    data, said = tmp_path / "data", []
    request = request_for(data, guest, sparring_url, said)
    before = guest_requests(guest)
    report = run_trial((BrokenPart(), ToyPart()), request)
    asked = guest_requests(guest) - before
    assert asked == 3  # the toy's three prompts, each once

    broken, toy = report.parts
    assert (
        broken.state == "failed" and broken.note == "RuntimeError: the broken toy part breaks over two lines"
    )
    assert toy.state == "sealed" and toy.unit == f"round={request.trial}"
    (standing,) = toy.standings
    # The guest answers every prompt (house speed); house-coin too, so the field of three ties at 1.
    assert standing.value == 1.0 and standing.rank == 1 and standing.field == 3
    assert 0.4 < standing.low < 1.0 and standing.high == 1.0
    assert toy.calls == 3 and toy.refusals == 0 and dict(toy.format_failures) == {}
    for transcript in toy.transcripts:
        assert (data / transcript).is_file()
    sealed = TOY.sealing
    assert (data / "seals" / TOY.name / f"round={request.trial}.json").is_file(), sealed
    assert any("broken: failed" in line for line in said) and any("answers: sealed" in line for line in said)

    # The trial's entry: started, one line per part, finished, every line whole.
    entries, torn = read_journal(entry_path(data, request.trial))
    assert not torn and [e["event"] for e in entries] == ["started", "part", "part", "finished"]
    assert entries[0]["model"]["base_url"] == f"{guest}/v1" and entries[0]["rule"] == "COLOSSEUM-TRIAL-1"

    # Again: the sealed unit is read back, nothing is asked of the model, the report is the same.
    again = run_trial((BrokenPart(), ToyPart()), request)
    assert guest_requests(guest) - before == asked
    assert again.parts[1] == toy and again.runs == 2
    assert read_entry(data, request.trial).runs == 2 and trials_in(data) == [request.trial]

    # From the record alone, as `colosseum trial report` and the site do.
    rebuilt = rebuild_report(data, request.trial, (BrokenPart(), ToyPart()))
    assert rebuilt is not None and rebuilt.parts[1] == toy
    assert rebuilt.parts[0].state == "failed" and "broken toy part" in rebuilt.parts[0].note
    gone = rebuild_report(data, request.trial, ())
    assert gone is not None and all("no part" in p.note for p in gone.parts)
    assert rebuild_report(data, "nobody-00000000", ()) is None

    lines = render_text(rebuilt)
    assert lines[0].startswith(f"trial {request.trial}: openai/{NAME}") and "1 failed" in lines[0]
    assert "answered share 1 [" in "\n".join(lines) and "1st of 3 (higher is better)" in "\n".join(lines)
    assert len(lines) < 20


def test_a_skipped_part_gets_its_prerequisite_made_and_runs_again_once(
    tmp_path: Path, guest: str, sparring_url: str
) -> None:
    """The wiring's prerequisites (``colosseum_core.trial.prepared``): a part with no unit to be tried
    on yet is ``skipped``; the wrapper makes one and asks again, and a part that runs is not touched."""
    data, said = tmp_path / "data", []
    request = request_for(data, guest, sparring_url, said)
    made: list[str] = []

    class NeedsAUnit(ToyPart):
        def run(self, request: TrialRequest):  # type: ignore[no-untyped-def]
            if not made:
                from colosseum_core.trial import PartReport

                return PartReport(self.arena, self.part, "", "skipped", note="nothing to be tried on")
            return super().run(request)

    part = Prepared(NeedsAUnit(), lambda r: made.append(r.trial), "a unit")
    assert (part.arena, part.part) == (TOY.name, "answers")
    report = part.run(request)
    assert made == [request.trial] and report.state == "sealed"
    assert any("nothing to be tried on; making a unit first" in line for line in said)
    again = part.run(request)
    assert made == [request.trial] and again == part.read(data, request.trial)

    never = Prepared(ToyPart(), lambda r: made.append("again"), "a unit")
    assert never.run(request).state == "sealed" and made == [request.trial]


def test_colosseum_trial_reports_resumes_and_refuses_a_wrong_url(
    tmp_path: Path, guest: str, sparring_url: str
) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env["COLOSSEUM_TRIAL_PARTS"] = "tests.support.trial_part_toy"
    env["COLOSSEUM_SPARRING_URL"] = sparring_url
    env["DAGSTER_HOME"] = str(tmp_path / "dagster_home")
    data = str(tmp_path / "data")
    name = (f"openai/{NAME}", "--base-url", f"{guest}/v1", "--data", data)

    ran = run_colosseum("trial", *name, "--arena", TOY.name, env=env, timeout=120)
    assert ran.returncode == 1, ran.stderr  # the broken part failed; the toy's ran
    assert "trial: trial_toy/answers: sealed" in ran.stderr
    assert "trial_toy/broken: FAILED" in ran.stdout and "trial_toy/answers round=" in ran.stdout
    assert "again: colosseum trial report" in ran.stdout

    as_json = run_colosseum("trial", *name, "--arena", TOY.name, "--json", env=env, timeout=120)
    document = json.loads(as_json.stdout)
    trial = document["trial"]
    assert document["failed"] == 1 and document["runs"] == 2
    assert [p["state"] for p in document["parts"]] == ["sealed", "failed"]

    report = run_colosseum("trial", "report", trial, "--data", data, "--json", env=env, timeout=120)
    assert json.loads(report.stdout)["parts"] == document["parts"]
    missing = run_colosseum("trial", "report", "nobody-00000000", "--data", data, env=env, timeout=120)
    assert missing.returncode == 2 and f"trials there: {trial}" in missing.stderr

    wrong = (f"openai/{NAME}", "--base-url", f"http://127.0.0.1:{free_port()}/v1", "--data", data)
    refused = run_colosseum("trial", *wrong, env=env, timeout=120)
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 2, refused.stderr
    assert "refused before anything ran" in refused.stderr
    unknown = run_colosseum("trial", *name, "--arena", "nowhere", env=env, timeout=120)
    assert unknown.returncode == 2 and "--arena nowhere" in unknown.stderr


def test_verify_checks_the_trial_s_entry_as_every_journal(tmp_path: Path, sparring_url: str) -> None:
    """A record holding a trial's entry verifies; a byte of the entry changed is named with its line."""
    from colosseum_core.arenas import AUDITS
    from colosseum_core.verify import verify_record
    from tests.trial.conftest import fixture_record

    data = tmp_path / "data"
    fixture_record(data)
    request = request_for(data, "http://127.0.0.1:9", sparring_url, [])
    run_trial((BrokenPart(),), request)
    clean = verify_record(data, AUDITS, workers=1)
    assert clean.problems == [] and clean.per_arena["trial"]["journals"] == 1
    assert clean.per_arena["trial"]["journal_entries"] == 3
    path = entry_path(data, request.trial)
    path.write_bytes(path.read_bytes().replace(b'"failed":1', b'"failed":0'))
    tampered = verify_record(data, AUDITS, workers=1)
    assert any(f"trial={request.trial}.jsonl line 3" in p for p in tampered.problems), tampered.problems


def test_one_run_of_a_trial_at_a_time(tmp_path: Path, sparring_url: str) -> None:
    from colosseum_core.record.layout import Record
    from colosseum_core.record.locks import LockBusy
    from colosseum_core.trial.report import trial_lock

    data = tmp_path / "data"
    request = request_for(data, "http://127.0.0.1:9", sparring_url, [])
    held = Record(data).locks.hold(trial_lock(request.trial), owner="another run", purpose="colosseum trial")
    with held, pytest.raises(LockBusy, match="another run"):
        run_trial((BrokenPart(),), request, owner="this run")
    assert read_entry(data, request.trial) is None  # nothing was written
