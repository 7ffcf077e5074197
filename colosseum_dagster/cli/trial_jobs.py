"""The wiring's job runner for a model maker's trial (``colosseum_core.trial.RunJob``): a part whose unit
is made by Dagster steps (an event) asks it to run one job of the real Definitions for one partition,
in this process, as the arenas' own commands run theirs (``common.run_partition``: the partition
added if new, refused while another run writes it, the catalog refreshed after), after reaping the
runs whose command was killed, which would hold their pool slots. The model's key variables go into
the run's config by name only; the run reads their values from the environment.

Imported by: the ``trial`` command and the tests. Knows no arena.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from colosseum_core.trial.part import JobOutcome, RunJob
from colosseum_dagster.cli.common import dagster_instance, failure_messages, resource_config, run_partition
from colosseum_dagster.cli.instance import reap_dead_cli_runs
from colosseum_dagster.resources import PROVIDER_KEY_VARIABLES


def provider_keys_config(
    key_variables: Sequence[str], environ: Mapping[str, str] = os.environ
) -> dict[str, Any]:
    """The providers' keys resource's run config with ``key_variables`` added: a resource's run config
    replaces the one it was defined with, so the providers' variables set now are named again, each
    as an ``env`` source (the name is stored, the value read by the run)."""
    provider = {v.lower(): {"env": v} for v in PROVIDER_KEY_VARIABLES if environ.get(v)}
    return {"config": {**provider, "variables": list(key_variables)}}


def job_runner(root: Path, *, verbose: bool = False) -> RunJob:
    """The runner of jobs over the record at ``root``."""

    def run_job(
        job: str,
        partitions: str,
        key: str,
        *,
        ops: Mapping[str, Any] | None = None,
        resources: Mapping[str, Any] | None = None,
        key_variables: Sequence[str] = (),
    ) -> JobOutcome:
        # A run whose command was killed (a trial's own, stopped and run again in this process) would
        # hold its pool slots for ever: the instance is reaped before each job, not only when a
        # command's process first opens it.
        reap_dead_cli_runs(dagster_instance())
        config: dict[str, Any] = {**resource_config(root, None), **(resources or {})}
        if key_variables:
            config["provider_keys"] = provider_keys_config(key_variables)
        result = run_partition(
            job, partitions, key, root, config, verbose=verbose, step_words={}, ops=dict(ops) if ops else None
        )
        return JobOutcome(bool(result.success), () if result.success else tuple(failure_messages(result)))

    return run_job
