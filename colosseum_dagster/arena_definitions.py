"""One arena's Definitions for a command that runs that arena's jobs (the platform's are
``platform_definitions``').

The UI and the daemon load ``colosseum_dagster.definitions.defs``: the platform merged with every
arena and the public board. A ``colosseum`` command runs one arena's job (or the catalog's), so it
resolves that job from the platform merged with that arena alone, built the same way: importing and
resolving every arena's assets would add seconds to a command that spends one in its steps. The
arena's schedules and sensors stay out (a command runs jobs, it does not evaluate sensors); its
assets, jobs and resources are the merged Definitions' own objects (``tests/wiring/test_definitions.py``).
"""

from __future__ import annotations

import functools
import importlib

import dagster as dg

from colosseum_dagster.platform_definitions import platform_defs

# Each part's Definitions (module, name), and the jobs a command runs from it alone. The forecast's
# settlement and leaderboard jobs build the public board too, so they are resolved from the merged
# Definitions, as is any job no part lists here.
PARTS: dict[str, tuple[str, str]] = {
    "catalog": ("colosseum_dagster.catalog", "catalog_defs"),
    "forecast": ("colosseum_dagster.forecast.definitions", "forecast_defs"),
    "debate": ("colosseum_dagster.debate.definitions", "debate_defs"),
    "events": ("colosseum_dagster.events.definitions", "events_defs"),
}
PART_JOBS: dict[str, tuple[str, ...]] = {
    "catalog": ("catalog_job",),
    "forecast": ("card_job",),
    "debate": (
        "debate_entries_job",
        "debate_games_job",
        "debate_close_job",
        "debate_epoch_job",
        "debate_topics_job",
    ),
    "events": (
        "chess_freeze_job",
        "chess_event_job",
        "soo_freeze_job",
        "soo_event_job",
        "challenge_freeze_job",
        "challenge_event_job",
    ),
}


def part_defs(part: str) -> dg.Definitions:
    """One part's own Definitions (``PARTS``), as ``colosseum_dagster.definitions`` merges it."""
    module, name = PARTS[part]
    return getattr(importlib.import_module(module), name)


@functools.cache
def arena_definitions(part: str) -> dg.Definitions:
    """The platform merged with ``part``'s assets, resources and the jobs ``PART_JOBS`` lists (its
    schedules and sensors left out), for a command; one per process."""
    own = part_defs(part)
    jobs = [job for job in own.jobs or () if job.name in PART_JOBS[part]]
    return dg.Definitions.merge(
        platform_defs(), dg.Definitions(assets=own.assets, jobs=jobs, resources=own.resources)
    )


def job_definition(job: str) -> dg.JobDefinition:
    """``job`` as a command runs it: resolved from the Definitions of the one part that lists it, else
    from the merged Definitions."""
    for part, jobs in PART_JOBS.items():
        if job in jobs:
            return arena_definitions(part).resolve_job_def(job)
    from colosseum_dagster.definitions import defs

    return defs.resolve_job_def(job)
