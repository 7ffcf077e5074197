"""A card with a real gladiator in a seat (its key set: FIGHT for it) asks that gladiator once before
anything: one whose endpoint is not there stops the card in one line naming the seat, the model and
why, and nothing is written to the record. The real card_job of the real Definitions, in a process
of its own (the providers' keys are read when the Definitions load)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from colosseum_core.forecast.answering.seats import DEFAULT_REGISTRY
from colosseum_standins.loopback import free_port
from tests.support import REPO

CARD = "2026-11-29-0500"
SCRIPT = """
import json, sys
import dagster as dg
from colosseum_dagster.definitions import defs

data, seats, exchange = sys.argv[1:4]
config = {"resources": {
    "record": {"config": {"data_dir": data}},
    "io_manager": {"config": {"data_dir": data}},
    "exchange": {"config": {"gamma_url": exchange}},
    "gladiators": {"config": {"seats_path": seats}},
}}
result = defs.resolve_job_def("card_job").execute_in_process(
    partition_key=sys.argv[4], run_config=config, instance=dg.DagsterInstance.ephemeral(),
    raise_on_error=False,
)
failures = [e.step_failure_data.error.message for e in result.get_step_failure_events()]
print(json.dumps({"success": result.success, "failures": failures}))
"""


def test_a_keyed_seat_whose_model_is_not_there_stops_the_card_before_the_sweep(tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"
    registry = DEFAULT_REGISTRY.read_text(encoding="utf-8")
    seat = 'model = "openai/gpt-5"\n'
    assert seat in registry
    seats = tmp_path / "seats.toml"
    seats.write_text(
        registry.replace(
            seat, f'model = "openai/qwen3-8b"\nbase_url = "{closed}"\nkey_env = "OPENAI_API_KEY"\n'
        )
    )
    data = tmp_path / "data"
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("COLOSSEUM_") and not k.endswith("_API_KEY")
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(data), str(seats), f"http://127.0.0.1:{free_port()}", CARD],
        env={**env, "OPENAI_API_KEY": "sk-1"},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["success"] is False
    (failure,) = report["failures"]
    failure = failure.strip().removeprefix("dagster._core.definitions.events.Failure: ")
    assert "\n" not in failure
    assert failure.startswith(f"card {CARD}: model openai-flagship (qwen3-8b): FAILED in ")
    assert f"connection refused: {closed}/chat/completions" in failure
    # openai-small's gladiator has the same key and is asked too (api.openai.com, unreachable here).
    assert failure.endswith("(and 1 more); nothing is swept or sealed")
    # The card was never swept: no table, no receipt of it in the record.
    assert not (data / "warehouse").exists() or not list((data / "warehouse").rglob(f"*{CARD}*"))
    assert not (data / "receipts").exists() or not any(p.is_file() for p in (data / "receipts").rglob("*"))
