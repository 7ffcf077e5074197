"""Model names (COLOSSEUM-MODELS-1): provider/model, the registry, and every bad name refused in one line."""

from __future__ import annotations

import pytest

from colosseum_core.providers.house_models import HOUSE_KEY
from colosseum_core.providers.models import (
    MODEL_NAMES,
    SPARRING,
    ModelNameError,
    ModelRef,
    Registry,
    load_registry,
    parse_model,
    read_registry,
)
from tests.support import REPO


def test_a_provider_name_resolves_by_its_defaults() -> None:
    assert parse_model("openai/gpt-5.1") == ModelRef(
        "openai/gpt-5.1", "openai", "gpt-5.1", "https://api.openai.com", "OPENAI_API_KEY"
    )
    assert parse_model("google/gemini-3-pro-preview").protocol == "gemini"
    assert parse_model("gemini/gemini-2.5-pro").key_env == "GEMINI_API_KEY"
    assert parse_model("anthropic/claude-opus-4-5").base_url == "https://api.anthropic.com"


def test_a_base_url_without_a_key_variable_sends_no_key() -> None:
    ref = parse_model("openai/qwen3-8b", base_url="http://127.0.0.1:8000/v1/")
    assert (ref.base_url, ref.key_env, ref.key({"OPENAI_API_KEY": "sk-real"})) == (
        "http://127.0.0.1:8000/v1",
        None,
        None,
    )
    keyed = parse_model("openai/qwen3-8b", base_url="http://127.0.0.1:8000/v1", key_env="LOCAL_KEY")
    assert keyed.key({"LOCAL_KEY": "k"}) == "k"
    assert keyed.missing_key({}) == "LOCAL_KEY"


def test_a_house_name_is_the_sparring_server_on_any_protocol() -> None:
    ref = parse_model("house/anthropic/house-judge-s2")
    assert (ref.protocol, ref.model, ref.base_url, ref.house) == (
        "anthropic",
        "house-judge-s2",
        SPARRING,
        True,
    )
    assert ref.key({}) == HOUSE_KEY and ref.missing_key({}) is None
    assert parse_model("house/house-hash").protocol == "openai"


@pytest.mark.parametrize(
    ("name", "kwargs", "says"),
    [
        ("gpt-5.1", {}, "'gpt-5.1' is not provider/model"),
        ("acme/x", {}, "provider 'acme' is not one of"),
        ("openai/ gpt", {}, "is not provider/model"),
        ("openai/x\u200b y", {}, "is not provider/model"),
        ("openai/x", {"base_url": "ftp://host"}, "base_url 'ftp://host' is not an http(s) URL"),
        ("openai/x", {"base_url": "http://h", "key_env": "BAD-NAME"}, "key_env 'BAD-NAME'"),
        (3, {}, "3 is not provider/model"),
    ],
)
def test_a_bad_name_is_refused_naming_the_value(name: object, kwargs: dict[str, str], says: str) -> None:
    with pytest.raises(ModelNameError, match=".*" + says.replace("(", r"\(").replace(")", r"\)")):
        parse_model(name, **kwargs)  # type: ignore[arg-type]


def test_the_registry_points_a_name_elsewhere_and_overrides_apply() -> None:
    registry = read_registry(
        """
registry = "COLOSSEUM-MODELS-1"
[models."openai/qwen3-8b"]
base_url = "http://127.0.0.1:8000/v1"
key_env = "LOCAL_KEY"
[models."meta/llama"]
provider = "together"
model = "meta-llama/Llama-4"
"""
    )
    assert registry.resolve("openai/qwen3-8b").key_env == "LOCAL_KEY"
    assert registry.resolve("openai/qwen3-8b", base_url="http://10.0.0.2:9000").key_env is None
    llama = registry.resolve("meta/llama")
    assert (llama.protocol, llama.model, llama.base_url) == (
        "openai",
        "meta-llama/Llama-4",
        "https://api.together.xyz",
    )
    assert registry.resolve("openai/gpt-5").key_env == "OPENAI_API_KEY"
    assert llama.record()["names"] == MODEL_NAMES


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("registry = [", "not valid TOML"),
        ('registry = "COLOSSEUM-MODELS-0"', "field registry: 'COLOSSEUM-MODELS-0' is not COLOSSEUM-MODELS-1"),
        ("seats = 1", "field seats: not a field of the registry"),
        ('[models."openai/x"]\nbase = "http://h"', "field base: not a field of a model"),
        ('[models."openai/x"]\nprotocol = "grpc"', "field protocol: 'grpc' is not one of"),
        ('[models."openai/x"]\nmodel = ""', "field model: expected a non-empty string"),
        ('[models."x"]\nmodel = "y"', "'x' is not provider/model"),
    ],
)
def test_a_bad_registry_is_refused_naming_the_field(text: str, says: str) -> None:
    with pytest.raises(ModelNameError, match="models.toml.*" + says.replace("(", r"\(").replace(")", r"\)")):
        read_registry(text)


def test_the_projects_registry_reads_and_a_missing_file_is_empty(tmp_path) -> None:
    registry = load_registry(REPO / "models.toml")
    assert registry.resolve("moonshot/kimi-k2").base_url == "https://api.moonshot.ai"
    assert load_registry(tmp_path / "none.toml") == Registry({}, source=str(tmp_path / "none.toml"))
