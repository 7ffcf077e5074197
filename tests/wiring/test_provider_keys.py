"""Model providers' API keys reach the runs through a resource whose fields are ``EnvVar``s."""

from __future__ import annotations

import dagster as dg
import pytest

from colosseum_core.forecast.answering.seats import DEFAULT_REGISTRY, load_seats
from colosseum_dagster.resources import (
    PROVIDER_KEY_VARIABLES,
    ProviderKeysResource,
    provider_keys_from_environment,
)


def test_every_variable_a_registry_names_is_a_field_of_the_resource() -> None:
    named = {g.key_env for seat in load_seats(DEFAULT_REGISTRY) for g in seat.gladiators}
    assert named <= set(PROVIDER_KEY_VARIABLES)
    assert {v.lower() for v in PROVIDER_KEY_VARIABLES} <= set(ProviderKeysResource.model_fields)


def test_a_set_variable_becomes_an_env_var_and_an_unset_one_stays_empty() -> None:
    resource = provider_keys_from_environment({"OPENAI_API_KEY": "sk-test", "XAI_API_KEY": ""})
    assert resource.openai_api_key == dg.EnvVar("OPENAI_API_KEY")
    assert resource.xai_api_key is None and resource.anthropic_api_key is None


def test_a_run_reads_the_key_from_the_environment_at_run_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-at-load")
    resource = provider_keys_from_environment()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-at-run")

    @dg.asset
    def keys_seen(provider_keys: ProviderKeysResource) -> dict[str, str]:
        return provider_keys.by_variable()

    result = dg.materialize([keys_seen], resources={"provider_keys": resource})
    assert result.success and result.output_for_node("keys_seen") == {"OPENAI_API_KEY": "sk-at-run"}
    # The run's recorded configuration names the variable, never the value.
    run_config = str(result.dagster_run.run_config)
    assert "sk-at-run" not in run_config and "sk-at-load" not in run_config
