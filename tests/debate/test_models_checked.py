"""A models document may name its models as models.toml does, resolved into the same endpoints; every
real model it would ask is asked once before a game: one not there refuses in one line, and nothing
is written to the record."""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from pathlib import Path

import pytest

import colosseum_core.debate
from colosseum_core.debate.models import ChainLink, ModelsError, parse_models
from colosseum_standins.loopback import free_port
from tests.support import run_colosseum


def house_document() -> dict:
    return json.loads(resources.files(colosseum_core.debate).joinpath("house_models.json").read_text())


def test_a_named_link_resolves_as_a_spelled_out_one() -> None:
    document = house_document()
    document["judges"][0]["chain"] = [
        {"model": "openai/gpt-5.1"},
        {"model": "openai/qwen3-8b", "base_url": "http://127.0.0.1:8000/v1"},
        {"model": "house/anthropic/house-judge-s2"},
    ]
    config = parse_models(json.dumps(document).encode(), "doc.json")
    assert config.judges[0].chain == (
        ChainLink("openai", "gpt-5.1", "https://api.openai.com", "OPENAI_API_KEY"),
        ChainLink("openai", "qwen3-8b", "http://127.0.0.1:8000/v1", None),
        ChainLink("anthropic", "house-judge-s2", "sparring", None),
    )
    # A local server that needs no key is asked without one; a keyed model only with its key.
    assert [link["model"] for link in config.keyed_links({})] == ["qwen3-8b"]
    assert [link["model"] for link in config.keyed_links({"OPENAI_API_KEY": "k"})] == ["gpt-5.1", "qwen3-8b"]


@pytest.mark.parametrize(
    ("link", "says"),
    [
        ({"model": "acme/x"}, "judges[0] slot judge-a chain[0]: model name: provider 'acme' is not one of"),
        ({"model": "gpt"}, "'gpt' is not provider/model"),
        ({"model": "openai/x", "key_env": 3}, "field key_env: expected a non-empty string, got 3"),
    ],
)
def test_a_bad_named_link_is_one_line(link: dict, says: str) -> None:
    document = house_document()
    document["judges"][0]["chain"] = [link]
    with pytest.raises(ModelsError, match=re.escape(says)):
        parse_models(json.dumps(document).encode(), "doc.json")


def test_a_game_with_a_model_not_there_refuses_before_anything(tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"
    document = house_document()
    document["debater"]["chain"] = [
        {"model": "openai/qwen3-8b", "base_url": closed, "key_env": "OPENAI_API_KEY"}
    ]
    path = tmp_path / "models.json"
    path.write_text(json.dumps(document))
    data = tmp_path / "data"
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("COLOSSEUM_") and not k.endswith("_API_KEY")
    }
    played = run_colosseum(
        "debate", "play", "--pro", "Ask questions.", "--con", "Use analogies.", "--motion", "Homework goes",
        "--models", str(path), "--data", str(data),
        env={**env, "OPENAI_API_KEY": "sk-test"},
        timeout=300,
    )  # fmt: skip
    assert played.returncode == 2 and played.stdout == ""
    (line,) = played.stderr.strip().splitlines()
    assert line.startswith(f"colosseum debate play: {path}: model debater (qwen3-8b): FAILED in ")
    assert f"connection refused: {closed}/chat/completions" in line and line.endswith("; nothing is asked")
    assert not (data / "receipts").exists() or not any(p.is_file() for p in (data / "receipts").rglob("*"))
