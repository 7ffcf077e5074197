"""The epoch sensor: follows the chain's block height and the topics' clock, and plays each epoch.

Each tick reads the ledger's block height. When the current six-hour rotation of motions is not
sealed yet, it asks for it first (``debate_topics_job``); when a new epoch (360 blocks) has begun
and a rotation is sealed for it to argue, it adds the epoch's partition and runs the epoch once
(``debate_epoch_job``: its entries, then its games). Run keys make every request at most once.

The board sensor rebuilds the public board after each epoch's close.
"""

import dagster as dg
import httpx

from colosseum_core.chain.ledger import LedgerError
from colosseum_core.debate.arena import DEBATE, DEBATE_TOPICS
from colosseum_core.debate.epochs import epoch_key, epoch_of
from colosseum_core.debate.topics.rotation import rotation_key, rotation_start
from colosseum_dagster.board import board_sensor
from colosseum_dagster.debate.jobs import debate_epoch_job, debate_topics_job
from colosseum_dagster.debate.keys import key
from colosseum_dagster.debate.partitions import epoch_partitions
from colosseum_dagster.debate.resources import ChainResource
from colosseum_dagster.resources import ClockResource, RecordResource, partition_in_flight


@dg.sensor(
    jobs=[debate_topics_job, debate_epoch_job],
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Reads the chain's block height: draws the current topic rotation if it is not sealed, "
    "then, when a new epoch (360 blocks) has begun, adds its partition and plays it once (entries, "
    "games). With no ledger answering, it skips and says so.",
)
def debate_epoch_sensor(
    context: dg.SensorEvaluationContext, chain: ChainResource, record: RecordResource, clock: ClockResource
) -> dg.SensorResult | dg.SkipReason:
    try:
        block = chain.ledger(record.receipts).current_block()
    except (LedgerError, httpx.HTTPError) as exc:
        return dg.SkipReason(f"the ledger at {chain.ledger_base()} does not answer ({exc})")
    now = clock.now()
    rotation = rotation_key(now)
    seals = record.layout.seals(DEBATE_TOPICS)
    requests: list[dg.RunRequest] = []
    if seals.get(rotation) is None:
        requests.append(
            dg.RunRequest(
                job_name=debate_topics_job.name, run_key=f"rotation-{rotation}", partition_key=rotation
            )
        )
    begun = [s.partition for s in seals.seals() if rotation_start(s.partition) <= now]
    key = epoch_key(epoch_of(block))
    if context.instance.has_dynamic_partition(epoch_partitions.name, key):
        if not requests:
            return dg.SkipReason(
                f"epoch {key} (block {block}) has its run, and rotation {rotation} is sealed"
            )
        return dg.SensorResult(run_requests=requests)
    if not begun:
        context.log.info(f"epoch {key} waits for a sealed topic rotation ({rotation} is being drawn)")
        return dg.SensorResult(run_requests=requests)
    # A command playing the epoch on another instance (or host) holds its lock: the sensor names it and
    # leaves the epoch to it, never playing it alongside (on this instance its partition says so above).
    writer = partition_in_flight(context.instance, DEBATE, key, record.root)
    if writer is not None:
        said = f"epoch {key} (block {block}) is being played by {writer}: not started here"
        if not requests:
            return dg.SkipReason(said)
        context.log.info(said)
        return dg.SensorResult(run_requests=requests)
    # The epoch argues the rotation sealed when it began, named in its run: a re-run argues the same.
    games = {"ops": {"debate__epoch_games": {"config": {"rotation": max(begun)}}}}
    requests.append(
        dg.RunRequest(
            job_name=debate_epoch_job.name, run_key=f"epoch-{key}", partition_key=key, run_config=games
        )
    )
    return dg.SensorResult(
        run_requests=requests, dynamic_partitions_requests=[epoch_partitions.build_add_request([key])]
    )


debate_board_sensor = board_sensor(
    "debate_board_sensor",
    key("weight_sets"),
    "Rebuilds the public board after an epoch closes (its weights are set and recorded).",
    run_key="debate-board",
)
