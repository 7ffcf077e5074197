"""An epoch's entries: who of the registered miners plays, and why the others do not."""

from collections.abc import Iterator

import dagster as dg
import polars as pl

from colosseum_core.chain.ledger import LedgerError
from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.crown.closing import ClosingError, check_not_overtaken, king_going_in
from colosseum_core.debate.entry import entry_counts
from colosseum_core.debate.entry.epoch_entries import judge_entries
from colosseum_core.debate.models import ModelsError
from colosseum_core.debate.rules import COMPELLE_ENTRY
from colosseum_core.interrupts import run_async
from colosseum_dagster.debate.keys import ARENA, ENTRY_GROUP, op_name
from colosseum_dagster.debate.partitions import epoch_partitions
from colosseum_dagster.debate.resources import ChainResource, DebateModelsResource
from colosseum_dagster.resources import ClockResource, ProviderKeysResource, RecordResource


@dg.multi_asset(
    name=op_name("epoch_entries"),
    partitions_def=epoch_partitions,
    group_name=ENTRY_GROUP,
    outs={
        "entries": dg.AssetOut(
            key_prefix=ARENA,
            description="Every registered miner of the epoch: its commitment and what it resolved to, the "
            f"strategy's SHA-256, the intent panel's counts and verdict, and its entry ({COMPELLE_ENTRY}): "
            "entered, rejected or pending, with the first check that stopped it and the value that did.",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": COMPELLE_ENTRY},
        ),
        "panel_calls": dg.AssetOut(
            key_prefix=ARENA,
            description="Every intent panel call of the epoch: slot, model, the walk down its fallback "
            "chain, the raw reply, the vote read from it (or why it is not one), its settings and receipts.",
            kinds={"polars", "parquet"},
        ),
    },
)
def epoch_entries(
    context: dg.AssetExecutionContext,
    record: RecordResource,
    chain: ChainResource,
    debate_models: DebateModelsResource,
    provider_keys: ProviderKeysResource,
    clock: ClockResource,
) -> Iterator[dg.Output[pl.DataFrame]]:
    receipts = record.receipts
    tables = record.layout.tables(DEBATE)
    if all(tables.exists(t, context.partition_key) for t in ("entries", "panel_calls")):
        # Written once: the recorded entries are the epoch's; the chain and the panel are not asked again.
        context.log.info(f"epoch {context.partition_key}: its entries are recorded; they are re-read")
        recorded = tables.read_checked("entries", context.partition_key)
        yield dg.Output(recorded, output_name="entries", metadata={"registered": recorded.height})
        calls = tables.read_checked("panel_calls", context.partition_key)
        yield dg.Output(calls, output_name="panel_calls", metadata={"calls": calls.height})
        return
    earlier_scan = record.layout.tables(DEBATE).scan("entries")
    # The panel's decided verdicts are kept across epochs (per strategy and models document).
    earlier = (
        earlier_scan.filter(pl.col("epoch") < context.partition_key).collect()
        if earlier_scan is not None
        else None
    )
    try:
        # An epoch a later one has overtaken can never play: nobody is asked anything for it.
        check_not_overtaken(record.layout, context.partition_key, "entries")
        # The sitting king is never locked out by one BAD verdict (COMPELLE-ENTRY-1).
        king, demoted = king_going_in(record.layout, context.partition_key)
        judged = run_async(
            judge_entries(
                context.partition_key,
                ledger=chain.ledger(receipts),
                gists=chain.gists(receipts),
                models=debate_models.models(),
                receipts=receipts,
                clock=clock.now,
                sparring_url=debate_models.sparring(),
                keys=provider_keys.by_variable(),
                earlier=earlier,
                king=king,
                king_demoted=demoted,
            )
        )
    except (LedgerError, ModelsError, ClosingError) as exc:
        raise dg.Failure(f"epoch {context.partition_key}: {exc}") from exc
    frame = judged.entries
    counts = entry_counts(frame)
    yield dg.Output(
        frame,
        output_name="entries",
        metadata={
            "block": judged.block,
            "kind": judged.kind,
            "registered": frame.height,
            "entered": counts.entered,
            "panel_kept": int((frame["panel_epoch"].drop_nulls() != context.partition_key).sum()),
            **{f"stopped_{rule}": n for rule, n in counts.by_rule.items()},
        },
    )
    yield dg.Output(
        judged.panel_calls, output_name="panel_calls", metadata={"calls": judged.panel_calls.height}
    )
