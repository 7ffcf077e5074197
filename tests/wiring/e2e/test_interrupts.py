"""Ctrl-C with a run in flight: the work stops, the run is recorded CANCELED (not FAILURE), and the
command says so in one line, with no stack; the same command then resumes it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import dagster as dg
import pytest

from colosseum_core.interrupts import run_async
from colosseum_dagster.cli.common import RunInterrupted, execute_job
from tests.support.chess import need_stockfish


class ForeignInterruption(BaseException):
    """What a caller's own SIGINT handler raises (Dagster's executor raises one of its own)."""


def _raise_foreign(signum: int, frame: object) -> None:
    raise ForeignInterruption


def test_ctrl_c_cancels_async_work_and_raises_keyboard_interrupt_under_a_foreign_handler() -> None:
    closed: list[str] = []

    async def work() -> None:
        async def forever(name: str) -> None:
            try:
                await asyncio.sleep(3600)
            finally:
                closed.append(name)

        asyncio.get_running_loop().call_later(0.2, signal.raise_signal, signal.SIGINT)
        await asyncio.gather(forever("a"), forever("b"))

    previous = signal.signal(signal.SIGINT, _raise_foreign)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_async(work())
        # The caller's handler is back in place once the loop is done.
        assert signal.getsignal(signal.SIGINT) is _raise_foreign
    finally:
        signal.signal(signal.SIGINT, previous)
    assert sorted(closed) == ["a", "b"]


def test_run_async_returns_the_result_and_leaves_the_handler_alone() -> None:
    async def work() -> int:
        return 42

    before = signal.getsignal(signal.SIGINT)
    assert run_async(work()) == 42
    assert signal.getsignal(signal.SIGINT) is before

    # Off the main thread no signal arrives, and the handler cannot be changed: plain asyncio.run.
    found: list[int] = []
    thread = threading.Thread(target=lambda: found.append(run_async(work())))
    thread.start()
    thread.join()
    assert found == [42]


@dg.op
def _pressed_ctrl_c() -> None:
    signal.raise_signal(signal.SIGINT)


@dg.op(ins={"after": dg.In(dg.Nothing)})
def _never_reached() -> None:
    raise AssertionError("a step after the interruption ran")


@dg.job
def _interrupted_job() -> None:
    _never_reached(after=_pressed_ctrl_c())


def test_a_run_interrupted_in_a_step_is_canceled_and_named_in_one_line() -> None:
    with dg.DagsterInstance.ephemeral() as instance:
        with pytest.raises(RunInterrupted) as raised:
            execute_job(_interrupted_job, instance=instance)
        [run] = instance.get_runs()
        assert run.status == dg.DagsterRunStatus.CANCELED
        said = str(raised.value)
        assert "\n" not in said
        assert said.startswith(f"interrupted: run {run.run_id[:8]} of _interrupted_job marked canceled")
        steps = {e.step_key for e in instance.all_logs(run.run_id) if e.is_dagster_event and e.step_key}
        assert "_never_reached" not in steps


@pytest.mark.slow
def test_ctrl_c_during_a_chess_event_cancels_its_run_and_the_same_command_resumes_it(tmp_path: Path) -> None:
    """The real command in a terminal's shoes: SIGINT while the games are being played."""
    need_stockfish()
    data, home = tmp_path / "data", tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOSSEUM_") or "_REQUIRE_" in k}
    env |= {"DAGSTER_HOME": str(home), "COLOSSEUM_DATA": str(data)}
    colosseum = [sys.executable, "-m", "colosseum_dagster.cli"]
    freeze = [*colosseum, "events", "chess", "event", "freeze", "ctrl-c", "--lines", "3", "--seed", "7"]
    for contender in ("openai-frontier", "house-illegal", "stockfish-n1", "stockfish-n100"):
        freeze += ["--contender", contender]
    subprocess.run(freeze, env=env, check=True, capture_output=True, timeout=300)

    run = subprocess.Popen(
        [*colosseum, "events", "chess", "event", "run", "ctrl-c"],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert run.stderr is not None
    lines = []
    for line in run.stderr:
        lines.append(line)
        if "playing the event's games…" in line:
            break
    else:
        pytest.fail(f"the games never started: {''.join(lines)}")
    with contextlib.suppress(subprocess.TimeoutExpired):
        # Once a few moves are in flight: Stockfish, the sparring server and the journal all busy.
        run.wait(timeout=2)
    run.send_signal(signal.SIGINT)
    out, rest = run.communicate(timeout=120)
    said = "".join(lines) + rest
    assert run.returncode == 130, said
    assert "Traceback" not in said and "Exception" not in said, said
    last = said.strip().splitlines()[-1]
    assert last.startswith("colosseum events chess event run: interrupted: run "), said
    assert "of chess_event_job for ctrl-c marked canceled" in last
    assert "standings" not in out

    with dg.DagsterInstance.from_config(str(home)) as instance:
        [event_run] = instance.get_runs(filters=dg.RunsFilter(job_name="chess_event_job"))
        assert event_run.status == dg.DagsterRunStatus.CANCELED
        assert last.split("run ")[1].startswith(event_run.run_id[:8])

    resumed = subprocess.run(
        [*colosseum, "events", "chess", "event", "run", "ctrl-c"], env=env, capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "standings" in resumed.stdout
