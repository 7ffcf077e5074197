"""A provider's limit on requests at once, shared by every run of the instance: Dagster pools.

A step that asks models holds slots of one Dagster pool per provider it asks
(``provider/<protocol>/<host>``, named by ``colosseum_core.providers.pools``) for as long as it
asks, and sends at most as many requests at once to that provider as it holds slots. So two events
(or an event and a card) asking one provider share its limit, across processes and, on a shared
instance database, across machines; and the UI's Concurrency page shows who holds what.

The slots are claimed per step, not per request: a claim is a write to the instance's database,
and an event sends tens of thousands of requests. A step waits until it holds at least one slot of
each of its pools, then takes as many more as are free, up to ``wanted``. A pool the instance has
no limit for yet is created with ``wanted`` slots; an operator changes it in the UI or with
``dagster instance concurrency set <pool> <n>``. The slots are freed when the step ends; if its
process dies, Dagster's run monitoring frees a finished run's slots. An instance without global
concurrency (the CLI's ephemeral instance) has nothing to share: every pool gets ``wanted``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence

import dagster as dg

WAIT_LOG_EVERY_S = 60.0


@contextlib.contextmanager
def provider_slots(
    context: dg.AssetExecutionContext,
    pools: Sequence[str],
    wanted: int,
    *,
    poll_s: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[dict[str, int]]:
    """Hold slots of each pool for the block; yields the number held per pool (1 to ``wanted``)."""
    storage = context.instance.event_log_storage
    if not pools or not storage.supports_global_concurrency_limits:
        yield dict.fromkeys(pools, wanted)
        return
    run_id, step = context.run.run_id, str(context.op_execution_context.op_handle)
    limits = {pool.name: pool.limit for pool in storage.get_pool_limits()}
    tried: list[str] = []
    held: dict[str, int] = {}
    try:
        for pool in pools:
            if pool not in limits:
                storage.set_concurrency_slots(pool, wanted)
            held[pool] = _claim(context, pool, run_id, step, wanted, tried, poll_s, sleep)
        context.log.info(
            "provider pools: " + ", ".join(f"{pool} {n} slot{'s' * (n != 1)}" for pool, n in held.items())
        )
        yield held
    finally:
        for slot in tried:
            storage.free_concurrency_slot_for_step(run_id, slot)


def _claim(
    context: dg.AssetExecutionContext,
    pool: str,
    run_id: str,
    step: str,
    wanted: int,
    tried: list[str],
    poll_s: float,
    sleep: Callable[[float], None],
) -> int:
    """Wait for the pool's first slot, then take what is free, up to ``wanted``."""
    storage = context.instance.event_log_storage
    waited, next_log = 0.0, 0.0
    for n in range(wanted):
        # One pseudo step per slot: the instance keys a claim by run and step.
        slot = f"{step}[{pool}#{n}]"
        tried.append(slot)
        while not storage.claim_concurrency_slot(pool, run_id, slot).is_claimed:
            if n > 0:
                # Queued, not held: withdraw, or the queue would hand it a slot nobody uses.
                storage.free_concurrency_slot_for_step(run_id, slot)
                tried.pop()
                return n
            if waited >= next_log:
                context.log.info(f"waiting for a slot of pool {pool} (every slot is held by another step)")
                next_log += WAIT_LOG_EVERY_S
            sleep(poll_s)
            waited += poll_s
    return wanted
