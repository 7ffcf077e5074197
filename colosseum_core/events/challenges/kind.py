"""The challenge event as the multi-event arena sees it (``events.kind``): its phases are written
once each, in order (authoring, admission, commitments, solving, review, reveal), and its scores
and standings seal it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from colosseum_core.events.kind import Drawn, EventKind, EventPages, HouseReply, ImportedWhenCalled, Step

AUTHORED_TABLES: Final = ("challenge_authored",)
ADMISSION_TABLES: Final = ("challenge_submissions", "challenge_checker_runs")
COMMITMENT_TABLES: Final = ("challenge_commitments",)
SOLVING_TABLES: Final = ("challenge_replies", "challenge_solving_runs")
REVIEW_TABLES: Final = ("challenge_reviews",)
# The reveal: every task and salt, and the event's sealing key (CHALLENGE-COMMIT-2), published.
REVEAL_TABLES: Final = ("challenge_reveals", "challenge_key")
STEPS: Final = (
    Step("authoring", AUTHORED_TABLES),
    Step("admission", ADMISSION_TABLES),
    Step("commitments", COMMITMENT_TABLES),
    Step("solving", SOLVING_TABLES),
    Step("review", REVIEW_TABLES),
    Step("reveal", REVEAL_TABLES),
)
# Written once each, phase by phase; the scoring tables are written by the seal.
WRITTEN_TABLES: Final = tuple(t for step in STEPS for t in step.tables)
CLOSING_TABLES: Final = ("challenge_scores", "challenge_standings")


def _pages(pages: EventPages) -> Drawn:
    """The event's standings, its tasks and its prompts (``challenges.pages``); the index's medals
    are the solving ranking's on the Verified basis."""
    import polars as pl

    from colosseum_core.events.challenges import pages as drawn

    page, event, manifest, frames = pages.page, pages.event, pages.manifest, pages.frames
    body = drawn.event_page(event, manifest, frames, pages.downloads, pages.html_table, pages.medals)
    page(f"{event}/index.html", f"{event}: standings", body)
    page(f"{event}/tasks.html", f"{event}: tasks", drawn.tasks_page(event, frames, pages.html_table))
    page(f"{event}/prompts.html", f"{event}: prompts", drawn.prompts_page(event, manifest))
    standings = frames["challenge_standings"].filter(
        (pl.col("ranking") == "solving") & (pl.col("basis") == "verified")
    )
    return Drawn(standings, frames["challenge_reveals"].height)


def _houses() -> Mapping[str, HouseReply]:
    from colosseum_core.events.challenges.house import HOUSES

    return HOUSES


KIND: Final = EventKind(
    name="challenge",
    steps=STEPS,
    standings=CLOSING_TABLES,
    sealing="challenge_standings",
    journals={"challenges": ("phase", "who", "subject")},
    counts=("challenge_calls",),
    # Every phase checked against its commitments and receipts, the tasks' programs run again.
    audit=ImportedWhenCalled("colosseum_core.events.challenges.audit", "check_event"),
    pages=_pages,
    houses=_houses,
    wiring="colosseum_dagster.events.challenges",
    commands="colosseum_dagster.cli.events.challenges",
    # Authors', then as solvers, then reviewers'.
    house_behaviours=(
        "subtle",
        "lazy",
        "hostile",
        "clockwork",
        "dicey",
        "malformed",
        "sharp",
        "credulous",
        "paranoid",
        "contrarian",
    ),
)
