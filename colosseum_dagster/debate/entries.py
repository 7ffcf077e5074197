"""An epoch's entries: who of the registered miners plays, and why the others do not."""

from collections.abc import Iterator

import dagster as dg
import polars as pl

from colosseum_core.chain.ledger import LedgerError
from colosseum_core.debate.arena import DEBATE, ENTRY_TABLES
from colosseum_core.debate.crown.closing import ClosingError, check_not_overtaken, king_going_in
from colosseum_core.debate.entry import entry_counts
from colosseum_core.debate.entry.epoch_entries import EpochEntries, judge_entries
from colosseum_core.debate.models import ModelsError
from colosseum_core.debate.rules import COMPELLE_ENTRY
from colosseum_core.interrupts import run_async
from colosseum_dagster.debate.keys import ARENA, ENTRY_GROUP, op_name
from colosseum_dagster.debate.partitions import epoch_partitions
from colosseum_dagster.debate.resources import ASKING, Asking, ChainResource
from colosseum_dagster.wiring import recorded, table_out


@dg.multi_asset(
    name=op_name("epoch_entries"),
    partitions_def=epoch_partitions,
    group_name=ENTRY_GROUP,
    outs={
        "entries": table_out(
            ARENA,
            "Every registered miner of the epoch: its commitment and what it resolved to, the "
            f"strategy's SHA-256, the intent panel's counts and verdict, and its entry ({COMPELLE_ENTRY}): "
            "entered, rejected or pending, with the first check that stopped it and the value that did.",
            rules=COMPELLE_ENTRY,
        ),
        "panel_calls": table_out(
            ARENA,
            "Every intent panel call of the epoch: slot, model, the walk down its fallback "
            "chain, the raw reply, the vote read from it (or why it is not one), its settings and receipts.",
        ),
    },
    required_resource_keys={*ASKING, "chain"},
)
def epoch_entries(context: dg.AssetExecutionContext) -> Iterator[dg.Output[pl.DataFrame]]:
    asking = Asking.of(context)
    epoch = context.partition_key
    frames = recorded(asking.record.tables(DEBATE), epoch, ENTRY_TABLES)
    if frames is not None:
        # Written once: the recorded entries are the epoch's; the chain and the panel are not asked again.
        context.log.info(f"epoch {epoch}: its entries are recorded; they are re-read")
        metadata: dict[str, object] = {"registered": frames["entries"].height}
    else:
        judged = _judged(epoch, asking, context.resources.chain)
        frames = {"entries": judged.entries, "panel_calls": judged.panel_calls}
        metadata = _entries_metadata(epoch, judged)
    yield dg.Output(frames["entries"], output_name="entries", metadata=metadata)
    calls = frames["panel_calls"]
    yield dg.Output(calls, output_name="panel_calls", metadata={"calls": calls.height})


def _judged(epoch: str, asking: Asking, chain: ChainResource) -> EpochEntries:
    """The epoch's entries judged now: the chain read and the intent panel asked."""
    record, debate_models = asking.record, asking.debate_models
    receipts = record.receipts
    earlier_scan = record.layout.tables(DEBATE).scan("entries")
    # The panel's decided verdicts are kept across epochs (per strategy and models document).
    earlier = earlier_scan.filter(pl.col("epoch") < epoch).collect() if earlier_scan is not None else None
    try:
        # An epoch a later one has overtaken can never play: nobody is asked anything for it.
        check_not_overtaken(record.layout, epoch, "entries")
        # The sitting king is never locked out by one BAD verdict (COMPELLE-ENTRY-1).
        king, demoted = king_going_in(record.layout, epoch)
        return run_async(
            judge_entries(
                epoch,
                ledger=chain.ledger(receipts),
                gists=chain.gists(receipts),
                models=asking.models(),
                receipts=receipts,
                clock=asking.clock.now,
                sparring_url=debate_models.sparring(),
                keys=asking.provider_keys.by_variable(),
                earlier=earlier,
                king=king,
                king_demoted=demoted,
            )
        )
    except (LedgerError, ModelsError, ClosingError) as exc:
        raise dg.Failure(f"epoch {epoch}: {exc}") from exc


def _entries_metadata(epoch: str, judged: EpochEntries) -> dict[str, object]:
    frame = judged.entries
    counts = entry_counts(frame)
    return {
        "block": judged.block,
        "kind": judged.kind,
        "registered": frame.height,
        "entered": counts.entered,
        "panel_kept": int((frame["panel_epoch"].drop_nulls() != epoch).sum()),
        **{f"stopped_{rule}": n for rule, n in counts.by_rule.items()},
    }
