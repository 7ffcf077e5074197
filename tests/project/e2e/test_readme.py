"""The README is true: its `bash` blocks run as written, in order, in a scratch copy of the repository.

A fresh clone's files (git's list) are copied with their times, beside the project's virtualenv, and
every ```bash block of README.md runs there with `bash -eu -o pipefail`, against what the blocks
before it created, on the offline default (no network, no keys). `make run` is the one command that
does not return: it is started, checked to answer (the UI, the simulated exchange and the sparring
server), and stopped with Ctrl-C; `make test` is this suite. A ```console block (commands that need
the network or take minutes) is not run: each command it shows must exist (`--help` answers).

Run it with `make test-readme` (CI does); the default `make test` leaves it out, for time.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import httpx
import polars as pl
import pytest

from tests.support import REPO

pytestmark = pytest.mark.readme
BLOCK = re.compile(r"^```(bash|console)\n(.*?)^```", re.MULTILINE | re.DOTALL)
BLOCK_TIMEOUT_S = 900


def readme_blocks() -> list[tuple[str, str]]:
    return [(kind, body) for kind, body in BLOCK.findall((REPO / "README.md").read_text())]


def _scratch(tmp: Path) -> Path:
    """What a fresh clone holds, with the files' times kept (so make sees the venv as up to date)."""
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True)
    root = tmp / "clone"
    for name in listed.stdout.splitlines():
        source, target = REPO / name, root / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    (root / ".venv").symlink_to(REPO / ".venv")
    # The clone shares this suite's virtualenv, installed from this pyproject.toml: make must see it
    # as installed, not reinstall it through the link.
    installed = (REPO / ".venv" / "bin" / "colosseum").stat().st_mtime
    os.utime(root / "pyproject.toml", (installed - 1, installed - 1))
    return root


def _env(root: Path) -> dict[str, str]:
    drop = ("DAGSTER_HOME", "COLOSSEUM_DATA", "COLOSSEUM_GAMMA_URL", "COLOSSEUM_SPARRING_URL")
    return {k: v for k, v in os.environ.items() if k not in drop} | {"PWD": str(root)}


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=3).status_code < 500
    except httpx.TransportError:
        return False


MAKE_RUN_URLS = (
    "http://127.0.0.1:3000/server_info",
    "http://127.0.0.1:8765/status",
    "http://127.0.0.1:8766/",
    "http://127.0.0.1:8797/status",
)


def _start_make_run(root: Path) -> subprocess.Popen[str]:
    """`make run` started in the clone, once its four services answer."""
    # Its output to a file, not a pipe: up for all the blocks, it would fill a pipe no one reads.
    with (root.parent / "make-run.log").open("w") as log:
        proc = subprocess.Popen(
            ["make", "run"],
            cwd=root,
            env=_env(root),
            start_new_session=True,
            stdout=log,
            stderr=log,
            text=True,
        )
    try:
        deadline = time.monotonic() + 240
        while not all(_answers(u) for u in MAKE_RUN_URLS):
            assert proc.poll() is None, f"make run ended early: {_make_run_output(root)[-3000:]}"
            assert time.monotonic() < deadline, "make run did not answer within 240 s"
            time.sleep(1)
    except BaseException:
        _stop_make_run(proc, root)
        raise
    return proc


def _stop_make_run(proc: subprocess.Popen[str], root: Path) -> None:
    """Ctrl-C to `make run`, and everything it started stops, in seconds."""
    urls = MAKE_RUN_URLS
    stopped = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=60)
    output = _make_run_output(root)
    took = time.monotonic() - stopped
    assert took < 20, f"Ctrl-C took {took:.0f} s to stop make run"
    assert "stopped" in output, output[-2000:]
    left = subprocess.run(["pgrep", "-f", str(root)], capture_output=True, text=True).stdout.split()
    assert not left, f"processes left after Ctrl-C: {left}"
    assert not any(_answers(u) for u in urls), "a service still answers after Ctrl-C"


def _make_run_output(root: Path) -> str:
    return (root.parent / "make-run.log").read_text(errors="replace")


def _make_run(root: Path) -> None:
    """Start `make run`, see the four services answer, press Ctrl-C, and see everything stop."""
    _stop_make_run(_start_make_run(root), root)


def _console_commands(body: str) -> list[list[str]]:
    """The commands a console block shows (``$ `` lines, with their ``\\`` continuations)."""
    joined = re.sub(r"\\\n\s*", " ", body)
    commands = [line[2:] for line in joined.splitlines() if line.startswith("$ ")]
    return [shlex.split(c, comments=True) for c in commands if not c.startswith("export ")]


def _help_of(argv: list[str]) -> list[str]:
    """The command a shown command line runs, asked for its help instead of run."""
    program = []
    for arg in argv:
        if arg.startswith("-"):
            break
        program.append(arg)
        if arg.endswith(".py"):
            break
    return [*program, "--help"]


@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside-make-run"])
def test_the_readme_runs_as_written(tmp_path, beside):
    """Every block in order; a second time with `make run` up all along (its `make run` block finds it
    up), where the blocks use its servers and every run of theirs is in its instance."""
    root = _scratch(tmp_path)
    ran = []
    running = _start_make_run(root) if beside else None
    try:
        _run_blocks(root, ran, make_run_up=beside)
    finally:
        if running is not None:
            _stop_make_run(running, root)
    if beside:
        _check_runs_in_make_runs_instance(root)
    _check_what_the_blocks_left(root, ran)


def _check_runs_in_make_runs_instance(root: Path) -> None:
    """The commands' runs are in make run's instance (the clone's .dagster_home/), with their logs."""
    import dagster as dg

    from colosseum_dagster.resources import STARTED_BY_TAG

    with dg.DagsterInstance.from_config(str(root / ".dagster_home")) as instance:
        runs = [r for r in instance.get_runs() if STARTED_BY_TAG in r.tags]
        jobs = {r.job_name for r in runs}
        # The forecast's, the debate's and the events' commands, each run where the UI shows it.
        assert {"card_job", "settlement_job", "debate_games_job", "chess_event_job"} <= jobs, jobs
        assert all(instance.all_logs(r.run_id) for r in runs)
        # The catalog the commands rebuilt after their runs, as the UI's catalog asset shows it.
        assert instance.get_latest_materialization_event(dg.AssetKey("duckdb_catalog")) is not None


def _run_blocks(root: Path, ran: list[str], *, make_run_up: bool) -> None:
    for kind, body in readme_blocks():
        if kind == "console":
            for argv in _console_commands(body):
                asked = _help_of(argv)
                done = subprocess.run(
                    asked, cwd=root, env=_env(root), capture_output=True, text=True, timeout=120
                )
                assert done.returncode == 0, (asked, done.stderr[-2000:])
                ran.append(" ".join(asked))
            continue
        lines = [line.split("#", 1)[0].strip() for line in body.splitlines()]
        if "make run" in lines or "make test" in lines:
            assert set(filter(None, lines)) <= {"make run", "make test"}, body
            if "make run" in lines and make_run_up:
                assert all(_answers(u) for u in MAKE_RUN_URLS), "make run stopped answering"
                ran.append("make run (up all along)")
                continue
            if "make run" in lines:
                _make_run(root)
            ran.append("make run (started, answered, stopped)")
            continue
        done = subprocess.run(
            ["bash", "-eu", "-o", "pipefail", "-c", body],
            cwd=root,
            env=_env(root),
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT_S,
        )
        assert done.returncode == 0, (
            f"README block failed ({done.returncode}):\n{body}\n{done.stderr[-4000:]}"
        )
        ran.append(body.splitlines()[0])


def _check_what_the_blocks_left(root: Path, ran: list[str]) -> None:
    assert len(ran) >= 6, ran
    print("\n".join(ran))
    # The blocks' record verifies (the README's own `verify` block said so); nothing was left running.
    assert not subprocess.run(["pgrep", "-f", str(root)], capture_output=True, text=True).stdout.split()
    # What the README says of its `select` block: the verdicts re-derived are the ones recorded.
    recorded = pl.read_parquet(
        root / "data/warehouse/forecast/ranked_candidates/card=2026-11-29-0500/data.parquet"
    )
    derived = pl.read_ndjson(root / "data/sweeps/verdicts.jsonl")
    columns = ["market_id", "verdict", "rule", "value", "rank", "place"]
    assert derived.select(columns).sort("market_id").equals(recorded.select(columns).sort("market_id"))
