"""The epoch sensor: follows the chain's block height and starts each epoch's entries as it begins."""

import dagster as dg
import httpx

from colosseum_core.chain.ledger import LedgerError
from colosseum_core.debate.epochs import epoch_key, epoch_of
from colosseum_dagster.debate.jobs import debate_entries_job
from colosseum_dagster.debate.partitions import epoch_partitions
from colosseum_dagster.debate.resources import ChainResource
from colosseum_dagster.resources import RecordResource


@dg.sensor(
    job=debate_entries_job,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Reads the chain's block height; when a new epoch (360 blocks) has begun, adds its "
    "partition and runs its entries once. Off by default: start it once a ledger is running.",
)
def debate_epoch_sensor(
    context: dg.SensorEvaluationContext, chain: ChainResource, record: RecordResource
) -> dg.SensorResult | dg.SkipReason:
    try:
        block = chain.ledger(record.receipts).current_block()
    except (LedgerError, httpx.HTTPError) as exc:
        return dg.SkipReason(f"the ledger at {chain.ledger_base()} does not answer ({exc})")
    key = epoch_key(epoch_of(block))
    if context.instance.has_dynamic_partition(epoch_partitions.name, key):
        return dg.SkipReason(f"epoch {key} (block {block}) already has its partition")
    return dg.SensorResult(
        run_requests=[dg.RunRequest(run_key=f"epoch-{key}", partition_key=key)],
        dynamic_partitions_requests=[epoch_partitions.build_add_request([key])],
    )
