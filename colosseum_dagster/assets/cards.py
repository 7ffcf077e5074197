"""The card graph: raw sweep → verbatim markets (→ ranked candidates → packet → …).

Each asset body calls one colosseum_core function; this module only wires partitions, resources,
metadata and checks.
"""

from collections.abc import Iterator

import dagster as dg
import polars as pl

from colosseum_core.forecast.copy import copy_markets
from colosseum_core.forecast.copy_check import mismatch_lines, recheck_copy
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.sweep import sweep_card
from colosseum_core.rules import SLATE_LAWS, VERBATIM_COPY
from colosseum_dagster.partitions import card_partitions
from colosseum_dagster.resources import ClockResource, ExchangeResource, RecordResource

CARDS_GROUP = "cards"
LOGGED_ERRORS = 50


@dg.multi_asset(
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    outs={
        "raw_sweep": dg.AssetOut(
            description="Every HTTP request of the card's sweep, each naming its receipt (raw bytes "
            "stored content-addressed before anything parsed them).",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": SLATE_LAWS},
        ),
        "sweeps": dg.AssetOut(
            description="One row per card: was the whole board seen (complete) or not (partial, why).",
            kinds={"polars", "parquet"},
        ),
    },
)
def raw_sweep(
    context: dg.AssetExecutionContext,
    exchange: ExchangeResource,
    record: RecordResource,
    clock: ClockResource,
) -> Iterator[dg.Output]:
    card = card_from_key(context.partition_key)
    settings = exchange.settings()
    context.log.info(f"sweeping {settings.base_url} as of {card.seal.isoformat()} for card {card.key}")
    swept = sweep_card(card, settings, record.receipts, clock=clock.now)
    result = swept.result
    for failed in swept.requests.filter(pl.col("outcome") == "failed").iter_rows(named=True):
        context.log.error(
            f"card {card.key}: request failed for good: receipt {failed['receipt_id']} "
            f"(shard {failed['shard']}, page {failed['page']}, status {failed['status']}, {failed['error']})"
        )
    if not result.complete:
        context.log.error(f"card {card.key}: sweep is PARTIAL: {result.reason}")
    summary = result.summary()
    yield dg.Output(
        swept.requests,
        output_name="raw_sweep",
        metadata={**summary, "exchange_url": settings.base_url},
    )
    yield dg.Output(
        swept.summary,
        output_name="sweeps",
        metadata={"complete": result.complete, "reason": result.reason or ""},
    )


@dg.multi_asset(
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    ins={"raw_sweep": dg.AssetIn("raw_sweep")},
    outs={
        "verbatim_markets": dg.AssetOut(
            description="Every swept market copied from its receipt exactly as published; each row "
            "names the receipt it came from.",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": VERBATIM_COPY},
        ),
        "copy_errors": dg.AssetOut(
            description="Markets or pages that could not be copied: receipt, market, field and value.",
            kinds={"polars", "parquet"},
        ),
    },
    check_specs=[
        dg.AssetCheckSpec(
            "verbatim_matches_receipts",
            asset="verbatim_markets",
            blocking=True,
            description="Re-reads every copied row's receipt and re-compares every field, independently "
            "of the copy code.",
        )
    ],
)
def verbatim_markets(
    context: dg.AssetExecutionContext, raw_sweep: pl.DataFrame, record: RecordResource
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    card = card_from_key(context.partition_key)
    pages = raw_sweep.filter(pl.col("outcome").is_in(["page", "last_page"])).sort("shard", "page")
    copied = copy_markets(card.key, pages["receipt_id"].to_list(), record.receipts)
    for line in copied.errors["error"].head(LOGGED_ERRORS).to_list():
        context.log.error(f"card {card.key}: not copied: {line}")
    if copied.errors.height > LOGGED_ERRORS:
        context.log.error(f"card {card.key}: {copied.errors.height - LOGGED_ERRORS} more copy errors")
    yield dg.Output(
        copied.markets,
        output_name="verbatim_markets",
        metadata={
            "markets": copied.markets.height,
            "events": copied.markets["event_id"].n_unique(),
            "copy_errors": copied.errors.height,
        },
    )
    yield dg.Output(copied.errors, output_name="copy_errors", metadata={"errors": copied.errors.height})

    mismatches = recheck_copy(copied.markets, record.receipts)
    yield dg.AssetCheckResult(
        check_name="verbatim_matches_receipts",
        asset_key="verbatim_markets",
        passed=not mismatches,
        metadata={
            "rows_checked": copied.markets.height,
            "mismatches": len(mismatches),
            "first_mismatches": dg.MetadataValue.md(
                "\n".join(f"- {line}" for line in mismatch_lines(mismatches[:20])) or "none"
            ),
        },
    )
