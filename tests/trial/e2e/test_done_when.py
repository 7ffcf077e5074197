"""Issue 41's "done when", as far as the trial goes (slow): a guest model served on loopback by a small
OpenAI-compatible server (``colosseum standins guest``, a name none of the house players'), tried by
``colosseum trial`` on a fresh record in every arena's registered parts (the card and the rotation
made first), ends with the report, which ``colosseum trial report`` gives again, passes ``colosseum
verify``, and its page is on the built site, which verifies too. It waits for the arenas' parts:
with none registered it is skipped, saying so. And the trial benchmark's smoke test, on the toy part."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import REPO, run_colosseum

pytestmark = pytest.mark.slow


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("trial_benchmark", REPO / "benchmarks" / "trial.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_guest_model_tried_in_every_arena_ends_with_the_report_and_verifies(
    tmp_path: Path, sparring_url: str
) -> None:
    from colosseum_core.arenas import trial_parts
    from colosseum_standins.loopback import free_port, running_process

    parts = trial_parts()
    if not parts:
        pytest.skip("no arena offers a trial part yet (colosseum_core.arenas.TRIAL_PARTS)")
    bench = _benchmark()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env["COLOSSEUM_SPARRING_URL"] = sparring_url
    env["DAGSTER_HOME"] = str(tmp_path / "dagster_home")
    (tmp_path / "dagster_home").mkdir()
    data = tmp_path / "data"
    argv = [
        "colosseum_standins.guest",
        "--name",
        bench.NAME,
        "--sparring",
        sparring_url,
        "--default",
        bench.DEFAULT,
    ]
    for route in bench.ROUTES:
        argv += ["--route", route]
    with running_process(argv) as guest:
        model = (f"openai/{bench.NAME}", "--base-url", f"{guest.url}/v1", "--data", str(data))
        wrong = (
            f"openai/{bench.NAME}",
            "--base-url",
            f"http://127.0.0.1:{free_port()}/v1",
            "--data",
            str(data),
        )
        refused = run_colosseum("trial", *wrong, env=env, timeout=120)
        assert refused.returncode == 2 and "refused before anything ran" in refused.stderr
        ran = run_colosseum("trial", *model, "--json", env=env, timeout=900)
    assert ran.returncode == 0, ran.stderr[-3000:]
    report = json.loads(ran.stdout)
    assert [(p["arena"], p["part"]) for p in report["parts"]] == [(p.arena, p.part) for p in parts]
    # On a fresh record the wiring made the card and the rotation first: every part is sealed, the
    # forecast's waiting for its questions to settle; the routes met every part's prompts.
    states = {(p["arena"], p["part"]): p["state"] for p in report["parts"]}
    assert all(s == ("waiting" if a == "forecast" else "sealed") for (a, _), s in states.items()), states
    for part in report["parts"]:
        assert part["calls"] > 0 and part["transcripts"], part
    again = run_colosseum(
        "trial", "report", report["trial"], "--data", str(data), "--json", env=env, timeout=300
    )
    assert json.loads(again.stdout)["parts"] == report["parts"]
    verified = run_colosseum("verify", str(data), "--workers", "2", env=env, timeout=900)
    assert verified.returncode == 0, verified.stdout[-3000:]
    built = run_colosseum("board", "build", str(data / "site"), "--data", str(data), env=env, timeout=900)
    assert built.returncode == 0, built.stderr[-3000:]
    assert (data / "site" / "trials" / f"{report['trial']}.html").is_file()
    # Every part's transcripts are the record's files (PartReport: relative to the record's root).
    for part in report["parts"]:
        for transcript in part["transcripts"]:
            assert (data / transcript).is_file(), transcript
    site = run_colosseum("verify", str(data / "site"), "--record", str(data), env=env, timeout=900)
    assert site.returncode == 0, site.stdout[-3000:]


def test_the_trial_benchmark_times_each_part_and_the_resume() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [
            *(sys.executable, str(REPO / "benchmarks" / "trial.py")),
            *("--parts", "tests.support.trial_part_toy", "--arena", "trial_toy", "--json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env=env,
    )
    summary = json.loads(done.stdout)
    parts = {p["part"]: p for p in summary["parts"]}
    assert parts["trial_toy/answers"]["state"] == "sealed" and parts["trial_toy/answers"]["calls"] == 3
    assert parts["trial_toy/broken"]["state"] == "failed"
    # A failed part is not a trial that met its target, however fast.
    assert summary["met"] is False and done.returncode == 1
    assert summary["rerun_same_units"] and 0 < summary["trial_s"] < summary["target_s"]
    # The guest answered every request of the toy's through its default route: 3, and a check per run.
    assert summary["routed"] == {"house-hash": 5}
