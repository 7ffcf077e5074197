"""The topic rotation: every six hours, the sources asked, the rules applied, twelve motions sealed."""

import datetime as dt
import os
from collections.abc import Iterator

import dagster as dg
import polars as pl
from pydantic import Field

from colosseum_core.debate.arena import DEBATE_TOPICS
from colosseum_core.debate.models import ModelsError
from colosseum_core.debate.topics import TOPICS_VERSION, collect_topics, load_evergreen
from colosseum_core.debate.topics.record import (
    COLLECTED_JOURNAL,
    CollectedError,
    collected_entry,
    collected_from,
    rotation_kind,
    rotation_tables,
)
from colosseum_core.record.crash import crash_point
from colosseum_core.record.journal import Journal
from colosseum_core.record.sealed_step import Derived, run_sealed_step
from colosseum_core.record.seals import Seal, SealError
from colosseum_core.settings import KALSHI_URL_ENV, SIMULATED_KALSHI_URL
from colosseum_dagster.debate.keys import TOPICS, TOPICS_GROUP, op_name
from colosseum_dagster.debate.resources import ASKING, Asking
from colosseum_dagster.resources import EXCHANGE_POOL, ExchangeResource
from colosseum_dagster.wiring import table_out

TABLES = ("topic_sources", "topic_candidates", "motions")
# A rotation is drawn as its window begins (end_offset=1: the window in progress is a partition).
rotation_partitions = dg.TimeWindowPartitionsDefinition(
    cron_schedule="0 */6 * * *", start="2026-01-01T00Z", fmt="%Y-%m-%dT%HZ", timezone="UTC", end_offset=1
)


class KalshiResource(dg.ConfigurableResource):
    """Kalshi's public API (no key needed to read markets): the simulated exchange's unless told."""

    base_url: str | None = Field(
        default=None,
        description=f"Kalshi trade API base; default ${KALSHI_URL_ENV}, else {SIMULATED_KALSHI_URL}. "
        "The real one is https://api.elections.kalshi.com/trade-api/v2.",
    )

    def url(self) -> str:
        return (self.base_url or os.environ.get(KALSHI_URL_ENV) or SIMULATED_KALSHI_URL).rstrip("/")


@dg.multi_asset(
    name=op_name("topic_rotation"),
    partitions_def=rotation_partitions,
    group_name=TOPICS_GROUP,
    pool=EXCHANGE_POOL,
    outs={
        "topic_sources": table_out(
            TOPICS,
            "What each live source (Polymarket, Kalshi, the web search) answered for the "
            "rotation: ok or failed, the items it gave, every receipt, the error that failed it.",
        ),
        "topic_candidates": table_out(
            TOPICS,
            f"Every candidate motion with its verdict under {TOPICS_VERSION}: kept, or the "
            "first rule that excluded it (priced above 95 %, past its end, a duplicate, over its source's "
            "cap) and the value that did.",
            rules=TOPICS_VERSION,
        ),
        "motions": table_out(
            TOPICS,
            "The rotation's twelve motions in the published source order, each with its "
            "context parenthetical and its URL or citations. They seal the rotation.",
        ),
    },
    required_resource_keys={*ASKING, "exchange", "kalshi"},
)
def topic_rotation(context: dg.AssetExecutionContext) -> Iterator[dg.Output[pl.DataFrame]]:
    asking = Asking.of(context)
    record, clock = asking.record, asking.clock
    exchange: ExchangeResource = context.resources.exchange
    kalshi: KalshiResource = context.resources.kalshi
    key = context.partition_key
    layout = record.layout
    seals = layout.seals(DEBATE_TOPICS)
    journal = Journal(record.journal_path(DEBATE_TOPICS, COLLECTED_JOURNAL, key))
    if seals.get(key) is None and not journal.entries():
        try:
            models = asking.models()
        except ModelsError as exc:
            raise dg.Failure(f"topics {key}: {exc}") from exc
        chain = (
            models.search.endpoints(asking.debate_models.sparring(), asking.provider_keys.by_variable())
            if models.search
            else []
        )
        gamma, kalshi_url = exchange.settings().base_url, kalshi.url()
        collected = collect_topics(
            key,
            gamma_url=gamma,
            kalshi_url=kalshi_url,
            search_chain=chain,
            receipts=record.receipts,
            clock=clock.now,
        )
        # Recorded before anything is derived from it: a run stopped after this asks no source again.
        journal.append(collected_entry(key, collected, rotation_kind([gamma, kalshi_url], chain)))
        crash_point(f"journal:{COLLECTED_JOURNAL}")

    def derive(seal: Seal | None) -> Derived:
        entries = journal.entries()
        if not entries:
            raise SealError(
                f"rotation {key} is sealed, but some of its tables are missing and it has no collection "
                "journal to re-derive them from (it was sealed before rotations journalled their sources)"
            )
        collected, kind = collected_from(entries[0], key)
        made = rotation_tables(key, collected, load_evergreen(), kind)
        return Derived(
            tables=made.tables(),
            kind=made.kind,
            content_id=made.rotation_id,
            checks={"motions": made.motions.height, "candidates": made.topic_candidates.height},
        )

    try:
        step = run_sealed_step(
            layout.tables(DEBATE_TOPICS),
            seals,
            key,
            outputs=TABLES,
            vouched=(),
            derive=derive,
            sealed_at=lambda: clock.now().astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        )
    except (SealError, CollectedError) as exc:
        raise dg.Failure(f"rotation {key}: {exc}") from exc
    context.log.info(step.describe())
    frames, rotation_id = step.frames, step.seal.content_id
    sources = frames["topic_sources"]
    yield dg.Output(
        sources,
        output_name="topic_sources",
        metadata={
            "failed": int((sources["status"] != "ok").sum()),
            **{s: int(n) for s, n in sources.select("source", "items").iter_rows()},
        },
    )
    candidates = frames["topic_candidates"]
    yield dg.Output(
        candidates,
        output_name="topic_candidates",
        metadata={
            "candidates": candidates.height,
            **{
                f"excluded_{rule}": int(n)
                for rule, n in candidates.drop_nulls("rule").group_by("rule").len().sort("rule").iter_rows()
            },
        },
    )
    motions = frames["motions"]
    yield dg.Output(
        motions,
        output_name="motions",
        metadata={
            "rotation_id": rotation_id,
            **{f"from_{s}": int(n) for s, n in motions.group_by("source").len().sort("source").iter_rows()},
        },
    )
