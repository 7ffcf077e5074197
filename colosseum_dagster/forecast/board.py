"""The public board: a static site built from the record, its manifest signed, re-read after every build."""

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
from pydantic import Field

from colosseum_core.forecast.site import FORECAST_SITE
from colosseum_core.record.ledger import file_sha256
from colosseum_core.site.plugin import BuildRefused
from colosseum_core.site.publish import UnverifiedRecordError, publish_site, published_problems
from colosseum_core.trust.bundle import MANIFEST_NAME
from colosseum_core.trust.keys import KeyStore
from colosseum_dagster.forecast.keys import ARENA, key
from colosseum_dagster.forecast.scores import BOARD_GROUP
from colosseum_dagster.resources import ClockResource, RecordResource

SITE_DIRNAME = "site"


class PublishConfig(dg.Config):
    out: str | None = Field(default=None, description=f"Where the site goes; default <data>/{SITE_DIRNAME}")


@dg.asset(
    key_prefix=ARENA,
    group_name=BOARD_GROUP,
    deps=[dg.AssetDep(key("leaderboard")), dg.AssetDep(key("calibration"))],
    kinds={"html"},
    description="The public board: leaderboards, every card (packet, ranked list, settings and format "
    "records, answers, settlements, scores), seats, keys, rules, SVG plots and Parquet downloads, with a "
    "DSSE-signed manifest of every file. Refuses to build while any card's seat has neither answered nor "
    "forfeited (method §11).",
    check_specs=[dg.AssetCheckSpec("site_matches_record", asset=key("public_board"))],
)
def public_board(
    context: dg.AssetExecutionContext, config: PublishConfig, record: RecordResource, clock: ClockResource
) -> Iterator[dg.MaterializeResult | dg.AssetCheckResult]:
    out = Path(config.out) if config.out else record.root / SITE_DIRNAME
    tables = record.tables(FORECAST_SITE.arena)
    try:
        published = publish_site(
            FORECAST_SITE, tables, KeyStore.for_data(record.root), out, built_at=clock.now()
        )
    except (BuildRefused, UnverifiedRecordError) as exc:
        raise dg.Failure(str(exc)) from exc
    report = published.report
    yield dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(published.site)),
            "index": dg.MetadataValue.path(str(published.site / "index.html")),
            "cards": report.summary["cards"],
            "released": report.summary["released"],
            "awaiting_answers": len(report.summary["awaiting_answers"]),
            "files": report.files,
            "bytes": report.bytes,
            "manifest_sha256": file_sha256(published.site / MANIFEST_NAME),
            "signed_by": published.arena_key_id,
        }
    )
    problems = published_problems(FORECAST_SITE, published.site, tables)
    for problem in problems[:20]:
        context.log.error(f"public board: {problem}")
    yield dg.AssetCheckResult(
        check_name="site_matches_record",
        passed=not problems,
        metadata={"problems": len(problems), "first": "; ".join(problems[:5]) or "none"},
    )
