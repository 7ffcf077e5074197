"""Which executor runs a run's steps: in one process (the offline default) or one process per step
(the production profile), chosen by ``COLOSSEUM_EXECUTOR`` where the Definitions are loaded.

- ``in_process`` (default): every step in the run's own process. Resources start once, so the run
  holds its partition's record lock from its first step to its last.
- ``multiprocess``: each step in a process of its own, at most ``COLOSSEUM_MAX_CONCURRENT_STEPS``
  at once (default: the CPU count), so independent steps run side by side and a step that crashes
  its interpreter does not take the run down. Each step's process starts the resources and holds the
  partition's lock while that step runs: the lock still keeps two writers of one partition from
  ever writing at once, and the run queue (one run per partition) keeps other Dagster runs out
  between steps.
- ``k8s``: each step in a Kubernetes Job (``dagster-k8s``, ``deploy/k8s/``); configured and checked
  here, not run.

What must stay serial whatever the executor is a Dagster pool, enforced by the instance for every
run: ``duckdb_catalog`` (one writer), ``public_site``, ``exchange_requests`` (one sweep at a time:
the exchange's request budget is the account's, not the run's) and one pool per model provider
(``provider_pools``).
"""

from __future__ import annotations

import os

import dagster as dg

EXECUTOR_ENV = "COLOSSEUM_EXECUTOR"
MAX_STEPS_ENV = "COLOSSEUM_MAX_CONCURRENT_STEPS"
EXECUTORS = ("in_process", "multiprocess", "k8s")


def executor_from_environment(environ: dict[str, str] | None = None) -> dg.ExecutorDefinition:
    """The executor ``COLOSSEUM_EXECUTOR`` names; a name it does not know is an error that says so."""
    env = os.environ if environ is None else environ
    choice = env.get(EXECUTOR_ENV, "in_process").strip() or "in_process"
    if choice == "in_process":
        return dg.in_process_executor
    if choice == "multiprocess":
        raw = env.get(MAX_STEPS_ENV, "").strip()
        if raw and not (raw.isdigit() and int(raw) >= 1):
            raise ValueError(f"${MAX_STEPS_ENV} must be a whole number ≥ 1, not {raw!r}")
        return dg.multiprocess_executor.configured(
            {"max_concurrent": int(raw) if raw else 0}, name="multiprocess"
        )
    if choice == "k8s":
        try:
            from dagster_k8s import k8s_job_executor
        except ImportError:
            raise ValueError(
                f'${EXECUTOR_ENV}=k8s needs dagster-k8s: pip install -e ".[production]"'
            ) from None
        return k8s_job_executor
    raise ValueError(f"${EXECUTOR_ENV} must be one of {', '.join(EXECUTORS)}, not {choice!r}")
