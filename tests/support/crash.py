"""Run one job of the real Definitions in a process of its own, so a test can kill it anywhere.

``python -m tests.support.crash JOB PARTITION CONFIG [ASSET ...]`` runs ``JOB`` for ``PARTITION`` with
the run config ``CONFIG`` (JSON) on an ephemeral instance (a dynamic partition is added to it first),
the whole job or only the named assets (``arena/table``). It exits 0 when the run succeeded and 1 with
the step failures on stderr when it did not; ``COLOSSEUM_KILL_AT`` in its environment kills it at that
point of the run (``colosseum_core.record.crash``), as a power cut would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from tests.support import REPO


def run_job(
    job: str, partition: str | None, config: Mapping[str, Any], assets: Sequence[str] = ()
) -> list[str]:
    """Run ``job`` in this process; the step failures (none when it succeeded)."""
    import dagster as dg

    from colosseum_dagster.definitions import defs

    definition = defs.resolve_job_def(job)
    instance = dg.DagsterInstance.ephemeral()
    partitions = definition.partitions_def
    if partition is not None and isinstance(partitions, dg.DynamicPartitionsDefinition):
        assert partitions.name is not None
        instance.add_dynamic_partitions(partitions.name, [partition])
    result = definition.execute_in_process(
        partition_key=partition,
        run_config=dict(config),
        instance=instance,
        raise_on_error=False,
        asset_selection=[dg.AssetKey(a.split("/")) for a in assets] or None,
    )
    failures = [e.event_specific_data.error.to_string() for e in result.all_events if e.is_step_failure]
    return [] if result.success else failures or ["the run failed without a step failure"]


def spawn(
    job: str,
    partition: str | None,
    config: Mapping[str, Any],
    *,
    kill_at: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[str]:
    """``job`` started in a child process (``kill_at``: the crash point that kills it)."""
    environ = {**os.environ, **(env or {}), "PYTHONPATH": str(REPO)}
    environ.pop("COLOSSEUM_KILL_AT", None)
    if kill_at is not None:
        environ["COLOSSEUM_KILL_AT"] = kill_at
    argv = [sys.executable, "-m", "tests.support.crash", job, partition or "", json.dumps(config)]
    return subprocess.Popen(
        argv, cwd=REPO, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def run_killed(job: str, partition: str | None, config: Mapping[str, Any], point: str, **kw: Any) -> None:
    """Run ``job`` until it reaches ``point`` and dies there (AssertionError if it never does)."""
    child = spawn(job, partition, config, kill_at=point, **kw)
    _, err = child.communicate(timeout=600)
    assert child.returncode == -signal.SIGKILL, (point, child.returncode, err[-3000:])


def run_killed_after(
    job: str, partition: str | None, config: Mapping[str, Any], seconds: float, **kw: Any
) -> bool:
    """Run ``job`` and SIGKILL it ``seconds`` after it started; whether it was still running then."""
    child = spawn(job, partition, config, **kw)
    try:
        child.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return True
    _, err = child.communicate()
    assert child.returncode == 0, err[-3000:]
    return False


def timed(job: str, partition: str | None, config: Mapping[str, Any], **kw: Any) -> float:
    """Seconds ``job`` takes in a child process, run to its end."""
    started = time.monotonic()
    child = spawn(job, partition, config, **kw)
    _, err = child.communicate(timeout=600)
    assert child.returncode == 0, err[-3000:]
    return time.monotonic() - started


if __name__ == "__main__":
    job, partition, config, *assets = sys.argv[1:]
    failures = run_job(job, partition or None, json.loads(config), assets)
    for failure in failures:
        print(failure, file=sys.stderr)
    sys.exit(1 if failures else 0)
