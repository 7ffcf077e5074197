"""The public board: a static site built from the record, its manifest signed, re-read after every build."""

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
from pydantic import Field

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.board_site import ReleaseError
from colosseum_core.forecast.publish import UnverifiedRecordError, publish_board, published_problems
from colosseum_core.forecast.seats import DEFAULT_REGISTRY, load_seats
from colosseum_core.record.ledger import file_sha256
from colosseum_core.trust.bundle import MANIFEST_NAME
from colosseum_core.trust.signing import KeyStore
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
    seats = load_seats(DEFAULT_REGISTRY)
    try:
        published = publish_board(
            record.tables(FORECAST), KeyStore.for_data(record.root), out, seats=seats, built_at=clock.now()
        )
    except (ReleaseError, UnverifiedRecordError) as exc:
        raise dg.Failure(str(exc)) from exc
    report = published.report
    yield dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(published.site)),
            "index": dg.MetadataValue.path(str(published.site / "index.html")),
            "cards": report.cards,
            "released": report.released,
            "awaiting_answers": len(report.awaiting_answers),
            "files": report.files,
            "bytes": report.bytes,
            "manifest_sha256": file_sha256(published.site / MANIFEST_NAME),
            "signed_by": published.arena_key_id,
        }
    )
    problems = published_problems(published.site, record.tables(FORECAST), seats)
    for problem in problems[:20]:
        context.log.error(f"public board: {problem}")
    yield dg.AssetCheckResult(
        check_name="site_matches_record",
        passed=not problems,
        metadata={"problems": len(problems), "first": "; ".join(problems[:5]) or "none"},
    )
