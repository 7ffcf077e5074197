"""Sensors: settle cards as the exchange resolves their questions, and refresh the boards."""

import dagster as dg

from colosseum_core.exchanges.polymarket.client import GammaClient
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.settlement.watch import DEFAULT_BATCH, RECHECK, WatchState, describe, watch_tick
from colosseum_dagster.board import board_sensor
from colosseum_dagster.forecast.jobs import leaderboard_job, settlement_job
from colosseum_dagster.forecast.keys import key, op_name
from colosseum_dagster.resources import ClockResource, ExchangeResource, RecordResource

SETTLEMENT_INTERVAL_S = 15 * 60


def settlement_run_config(receipt_ids: list[str]) -> dict:
    return {"ops": {op_name("settle_card"): {"config": {"receipt_ids": receipt_ids}}}}


@dg.sensor(
    job=settlement_job,
    minimum_interval_seconds=SETTLEMENT_INTERVAL_S,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description=f"Asks the exchange about the markets of answered, unsettled cards (at most {DEFAULT_BATCH} "
    "markets a tick, in rotation, batched by id; every response a receipt) and requests a settlement run "
    "for each card whose record would change. Run keys name the news, so no tick duplicates a run. A card "
    f"stays watched {RECHECK} after its last settlement, so a changed outcome is caught and flagged.",
)
def settlement_sensor(
    context: dg.SensorEvaluationContext,
    record: RecordResource,
    exchange: ExchangeResource,
    clock: ClockResource,
) -> dg.SensorResult:
    settings = exchange.settings()

    def client() -> GammaClient:
        return GammaClient(
            settings.base_url, record.receipts, as_of=clock.now(), timeout_s=settings.timeout_s
        )

    report = watch_tick(
        WatchState.from_cursor(context.cursor),
        record.tables(FORECAST),
        record.receipts,
        client,
        now=clock.now(),
    )
    context.log.info(f"settlement watch: {describe(report)}")
    requests = [
        dg.RunRequest(
            run_key=news.run_key,
            partition_key=news.card,
            run_config=settlement_run_config(news.receipt_ids),
            tags={"colosseum/trigger": "settlement_sensor", "colosseum/news": str(len(news.news))},
        )
        for news in report.cards
    ]
    skip = None
    if not requests:
        skip = dg.SkipReason(
            f"{len(report.state.pending)} cards waiting; asked about {report.polled_markets} markets, no news"
        )
    return dg.SensorResult(run_requests=requests, cursor=report.state.to_cursor(), skip_reason=skip)


leaderboard_sensor = board_sensor(
    "leaderboard_sensor",
    key("scores"),
    "Recomputes the leaderboard from the whole record after any card's scores change.",
    run_key="leaderboard",
    job=leaderboard_job,
)
