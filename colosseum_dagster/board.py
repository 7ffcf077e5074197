"""The public board: one static site of every arena, built from the record, its one manifest signed,
re-read after every build. It belongs to no arena: each arena's wiring names the assets the board
follows (``board_defs(after=…)``) and asks for a rebuild when they change (``PUBLIC_BOARD_JOB``)."""

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import Field

from colosseum_core import arenas
from colosseum_dagster.resources import ClockResource, RecordResource, partitions_being_written

SITE_DIRNAME = "site"
PUBLIC_BOARD = dg.AssetKey("public_board")
PUBLIC_BOARD_JOB = "public_board_job"
PUBLIC_SITE_GROUP = "public_site"
# One build at a time: two builds swapping their sites into one directory would race.
PUBLIC_SITE_POOL = "public_site"
STEP_WORDS = {"public_board": "building the public board"}
# A build that finds another writing the record's site (a CLI board build) waits this long, then fails
# naming it.
BOARD_WAIT_S = 300.0
# A run writing an arena's partition (a card, an epoch, an event) has put down its first tables and
# not yet their signatures or seal: a record with nothing publishable at that moment is built again
# this often, while such runs go on, for up to the build's wait.
WRITERS_RETRY_S = 5.0


def published_check(arena: str) -> str:
    """The board's check that ``arena``'s part was built from a record that verifies."""
    return f"{arena}_published"


class PublishConfig(dg.Config):
    out: str | None = Field(
        default=None,
        description=f"Where the site goes; default <data>/{SITE_DIRNAME} (for a record on a bucket, "
        "in this host's local directory)",
    )
    wait_s: float = Field(
        default=BOARD_WAIT_S,
        description="How long to wait while another build (a CLI `colosseum board build`) writes the "
        "record's site, before failing naming it",
    )


def board_defs(after: Sequence[dg.AssetKey]) -> dg.Definitions:
    """The board asset, drawn after ``after`` (every arena's tables it shows), and its job."""

    @dg.asset(
        key=PUBLIC_BOARD,
        group_name=PUBLIC_SITE_GROUP,
        deps=[dg.AssetDep(asset) for asset in after],
        pool=PUBLIC_SITE_POOL,
        kinds={"html"},
        description="The public board of every arena with a record, one site under one DSSE-signed "
        "manifest: the forecasting board at its root (leaderboards, every card with its packet, ranked "
        "list, answers, settlements and scores, seats, keys, rules, plots, Parquet downloads), the "
        "debate arena's in debate/ (standings, the crown, every epoch and game, prompts, judges) and the "
        "events' in events/. An arena whose record does not verify, or that may not be released yet "
        "(a card's seat that has neither answered nor forfeited, method §11), is held at its last "
        "published pages with a notice, and its check `<arena>_published` fails; the others publish.",
        check_specs=[
            dg.AssetCheckSpec("site_matches_record", asset=PUBLIC_BOARD),
            *(
                dg.AssetCheckSpec(
                    published_check(part.plugin.arena.name),
                    asset=PUBLIC_BOARD,
                    description=f"The {part.label} part of the site is built from a record that verifies "
                    "(failed: the arena is held at its last published pages, and why)",
                )
                for part in arenas.PUBLIC_SITE.parts
            ),
        ],
    )
    def public_board(
        context: dg.AssetExecutionContext, config: PublishConfig, record: RecordResource, clock: ClockResource
    ) -> Iterator[dg.MaterializeResult | dg.AssetCheckResult]:
        # The site engine and every arena's audit: imported by a build, not by every command that
        # loads an arena's Definitions (the debate's board sensor names this module's job).
        from colosseum_core.record.ledger import file_sha256
        from colosseum_core.record.locks import LockBusy
        from colosseum_core.site.plugin import BuildRefused
        from colosseum_core.site.publish import UnverifiedRecordError, publish_site
        from colosseum_core.trust.bundle import MANIFEST_NAME
        from colosseum_core.trust.keys import KeyStore

        site = arenas.PUBLIC_SITE
        out = Path(config.out) if config.out else record.layout.site_dir
        deadline = time.monotonic() + config.wait_s
        while True:
            try:
                published = publish_site(
                    site,
                    record.layout,
                    KeyStore.for_data(record.root),
                    out,
                    built_at=clock.now(),
                    writer=f"{PUBLIC_BOARD_JOB} (the UI, a sensor or a schedule)",
                    owner=context.run.run_id,
                    wait_s=config.wait_s,
                    check=True,
                )
                break
            except UnverifiedRecordError as exc:
                writers = partitions_being_written(context.instance, context.run.run_id)
                if not writers or time.monotonic() > deadline:
                    raise dg.Failure(str(exc)) from exc
                context.log.info(
                    f"public board: nothing publishable while {', '.join(writers)} write the record "
                    f"({str(exc)[:200]}); built again in {WRITERS_RETRY_S:.0f} s"
                )
                time.sleep(WRITERS_RETRY_S)
            except (BuildRefused, LockBusy) as exc:
                raise dg.Failure(str(exc)) from exc
        report = published.report
        yield dg.MaterializeResult(
            metadata={
                "path": dg.MetadataValue.path(str(published.site)),
                "index": dg.MetadataValue.path(str(published.site / "index.html")),
                "arenas": ", ".join(report.parts),
                "summary": dg.MetadataValue.json(report.summary),
                "headline": report.headline,
                "files": report.files,
                "bytes": report.bytes,
                "manifest_sha256": file_sha256(published.site / MANIFEST_NAME),
                "signed_by": published.arena_key_id,
                "held": ", ".join(published.held) or "none",
            }
        )
        problems = published.problems or []
        for problem in problems[:20]:
            context.log.error(f"public board: {problem}")
        yield dg.AssetCheckResult(
            check_name="site_matches_record",
            passed=not problems,
            metadata={"problems": len(problems), "first": "; ".join(problems[:5]) or "none"},
        )
        for part in site.parts:
            name = part.plugin.arena.name
            held = published.held.get(name)
            if held is not None:
                context.log.error(f"public board: {name} {held.headline}")
            yield dg.AssetCheckResult(
                check_name=published_check(name),
                passed=held is None,
                severity=dg.AssetCheckSeverity.ERROR,
                metadata={
                    "status": "held" if held else "published" if name in report.parts else "no record",
                    "problems": held.problem_count if held else 0,
                    "first": "; ".join(held.problems[:5]) if held else "none",
                    "pages_from": (held.pages_built_at or "none") if held else "this build",
                },
            )

    job = dg.define_asset_job(
        PUBLIC_BOARD_JOB,
        selection=dg.AssetSelection.assets(PUBLIC_BOARD),
        description="The public board of every arena, built from the record and signed.",
    )
    return dg.Definitions(assets=[public_board], jobs=[job])


def board_sensor(
    name: str, after: dg.AssetKey, description: str, *, run_key: str, job: Any = None
) -> dg.SensorDefinition:
    """A sensor asking for the board again (``job``, else the public board's job) each time ``after``
    is materialized, as its arena's last step of a card, an epoch or an event."""

    @dg.asset_sensor(
        name=name,
        asset_key=after,
        job=job,
        job_name=None if job is not None else PUBLIC_BOARD_JOB,
        minimum_interval_seconds=60,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description=description,
    )
    def _sensor(context: dg.SensorEvaluationContext, asset_event: dg.EventLogEntry) -> dg.RunRequest:
        # The sensor's cursor moves past each materialization; the run that made it names the request
        # (an EventLogEntry carries no storage id).
        return dg.RunRequest(run_key=f"{run_key}:{asset_event.run_id}")

    return _sensor
