"""A FIGHT event's models are asked once before it is frozen (``contenders.check_fight``): a model
whose endpoint is not there refuses the freeze in one line naming it and why, and nothing is
written to the record. Every kind of event, through its own ``event freeze`` command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from colosseum_standins.loopback import free_port
from tests.support import run_colosseum

KEYS = {"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-2"}


def contenders(closed: str, *, judges: bool) -> str:
    text = f"""[[model]]
id = "alpha"
model = "openai/qwen3-8b"
base_url = "{closed}"
key_env = "OPENAI_API_KEY"
house = "house-solver"

[[model]]
id = "beta"
model = "anthropic/claude-local"
base_url = "{closed}"
key_env = "ANTHROPIC_API_KEY"
house = "house-solver"
"""
    if judges:
        text += "".join(
            f'\n[[judge]]\nid = "judge-{x}"\nmodel = "openai/judge"\nbase_url = "{closed}"\n'
            'key_env = "OPENAI_API_KEY"\nhouse = "house-reviewer"\n'
            for x in "ab"
        )
    return text


@pytest.mark.parametrize("kind", ["chess", "solve-or-object", "challenges"])
def test_a_fight_freeze_with_a_model_not_there_refuses_in_one_line(kind: str, tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"
    path = tmp_path / "contenders.toml"
    path.write_text(contenders(closed, judges=kind == "challenges"), encoding="utf-8")
    data = tmp_path / "data"
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("COLOSSEUM_") and not k.endswith("_API_KEY")
    }
    argv = ["--ephemeral-instance", "events", kind, "event", "freeze", "fight-1", "--contenders", str(path)]
    done = run_colosseum(
        *argv, *(["--lines", "1"] if kind == "chess" else []), "--data", str(data), env={**env, **KEYS}
    )
    assert done.returncode != 0
    (line,) = [line for line in done.stdout.splitlines() if "FAILED" in line]
    assert line.startswith("event fight-1: FAILED: event fight-1: model alpha (qwen3-8b): FAILED in ")
    assert f"connection refused: {closed}/chat/completions" in line and line.endswith("; nothing is frozen")
    assert "(and 1 more)" in line or "(and 3 more)" in line
    # Nothing of the event in the record: no table, no receipt (the check's went to a scratch folder).
    assert not list((data / "warehouse").rglob("*fight-1*")) if (data / "warehouse").exists() else True
    assert not (data / "receipts").exists() or not any((data / "receipts").rglob("*.*"))
