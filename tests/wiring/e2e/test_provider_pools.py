"""A provider's limit on requests at once, shared between runs through the instance's Dagster pools.

Real Dagster runs on a real (SQLite) instance: a step takes what is free of each provider's pool, waits
when another run holds every slot, and frees what it held when it ends, whether it succeeded or not.
"""

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from colosseum_core.events.asking import asked_pools
from colosseum_core.events.contenders import SPARRING
from colosseum_core.providers.pools import pool_limit, provider_pool
from colosseum_dagster.provider_pools import provider_slots

OPENAI = provider_pool("openai", "https://api.openai.com/v1")
HOUSE = provider_pool("openai", "http://127.0.0.1:8790/v1")


def test_a_pool_is_a_protocol_at_a_host() -> None:
    assert OPENAI == "provider/openai/api.openai.com"
    assert provider_pool("anthropic", "http://127.0.0.1:8790") == "provider/anthropic/127.0.0.1:8790"
    entries = [
        {"kind": "model", "protocol": "openai", "base_url": SPARRING},
        {"kind": "model", "protocol": "openai", "base_url": SPARRING},
        {
            "kind": "model",
            "protocol": "gemini",
            "base_url": "https://generativelanguage.googleapis.com/v1beta",
        },
        {"kind": "engine", "nodes": 100},
    ]
    assert asked_pools(entries, sparring_url="http://127.0.0.1:8790") == [
        "provider/gemini/generativelanguage.googleapis.com",
        "provider/openai/127.0.0.1:8790",
    ]


def test_a_limit_is_one_for_all_or_one_per_pool_and_a_missing_or_bad_one_is_named() -> None:
    assert pool_limit(3, OPENAI) == 3
    assert pool_limit({OPENAI: 2}, OPENAI) == 2
    with pytest.raises(ValueError, match=f"no limit is given for pool {HOUSE}"):
        pool_limit({OPENAI: 2}, HOUSE)
    with pytest.raises(ValueError, match="whole number ≥ 1, not 0"):
        pool_limit({OPENAI: 0}, OPENAI)


@pytest.fixture
def instance(tmp_path: Path) -> Iterator[dg.DagsterInstance]:
    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        yield instance


def asking_step(wanted: int, seen: dict[str, object], *, fail: bool = False) -> dg.AssetsDefinition:
    @dg.asset
    def asking(context: dg.AssetExecutionContext) -> None:
        storage = context.instance.event_log_storage

        def sleep(_: float) -> None:  # the other run finishes while this step waits
            seen["waited"] = True
            storage.free_concurrency_slots_for_run("other-run")

        with provider_slots(context, [HOUSE, OPENAI], wanted, sleep=sleep) as held:
            seen["held"] = dict(held)
            seen["claimed"] = {p: len(storage.get_concurrency_info(p).claimed_slots) for p in (HOUSE, OPENAI)}
            if fail:
                raise RuntimeError("the provider answered nonsense")

    return asking


def test_a_step_takes_what_is_free_of_each_pool_and_frees_it_when_it_ends(
    instance: dg.DagsterInstance,
) -> None:
    storage = instance.event_log_storage
    storage.set_concurrency_slots(OPENAI, 4)
    for n in range(3):  # another run holds three of OpenAI's four slots
        assert storage.claim_concurrency_slot(OPENAI, "other-run", f"other[{n}]").is_claimed
    seen: dict[str, object] = {}
    assert dg.materialize([asking_step(6, seen)], instance=instance).success
    # The house pool was new: created with the six slots wanted, all taken. OpenAI had one free.
    assert seen["held"] == {HOUSE: 6, OPENAI: 1} and "waited" not in seen
    assert seen["claimed"] == {HOUSE: 6, OPENAI: 4}
    assert storage.get_concurrency_info(HOUSE).slot_count == 6
    assert not storage.get_concurrency_info(HOUSE).claimed_slots
    assert len(storage.get_concurrency_info(OPENAI).claimed_slots) == 3  # the other run's, untouched
    # Nothing of this run is left queued, either: a withdrawn claim would be handed a slot later.
    assert {p.run_id for p in storage.get_concurrency_info(OPENAI).pending_steps} == {"other-run"}


def test_a_step_waits_while_another_run_holds_every_slot(instance: dg.DagsterInstance) -> None:
    storage = instance.event_log_storage
    storage.set_concurrency_slots(OPENAI, 2)
    for n in range(2):
        assert storage.claim_concurrency_slot(OPENAI, "other-run", f"other[{n}]").is_claimed
    seen: dict[str, object] = {}
    result = dg.materialize([asking_step(2, seen)], instance=instance)
    assert result.success and seen["waited"] is True
    assert seen["held"] == {HOUSE: 2, OPENAI: 2}
    logged = [e.message for e in instance.all_logs(result.run_id) if e.message]
    assert any(f"waiting for a slot of pool {OPENAI}" in m for m in logged)
    assert any(f"provider pools: {HOUSE} 2 slots, {OPENAI} 2 slots" in m for m in logged)


def test_a_failed_step_frees_its_slots(instance: dg.DagsterInstance) -> None:
    seen: dict[str, object] = {}
    assert not dg.materialize(
        [asking_step(3, seen, fail=True)], instance=instance, raise_on_error=False
    ).success
    assert seen["held"] == {HOUSE: 3, OPENAI: 3}
    for pool in (HOUSE, OPENAI):
        info = instance.event_log_storage.get_concurrency_info(pool)
        assert not info.claimed_slots and not info.pending_steps


def test_an_instance_without_pools_gives_every_pool_what_is_wanted() -> None:
    seen: dict[str, object] = {}
    assert dg.materialize([asking_step(5, seen)], instance=dg.DagsterInstance.ephemeral()).success
    assert seen["held"] == {HOUSE: 5, OPENAI: 5}
