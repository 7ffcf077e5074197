"""``colosseum debate topics|games|play`` as a user meets them: one clear line and exit 2 for bad input,
the transcript and the panel printed for a game played on its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from colosseum_core.record.receipts import ReceiptStore
from tests.support import run_colosseum


def colosseum(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOSSEUM_")}
    return run_colosseum(*args, "--data", str(data), env=env, timeout=300)


def test_one_game_is_played_and_its_transcript_and_panel_printed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    motion = "Homework should be abolished"
    text = colosseum(
        "debate", "play", "--pro", "Ask questions.", "--con", "Use analogies.", "--motion", motion, data=data
    )
    assert text.returncode == 0, text.stderr
    assert f"motion: {motion}" in text.stdout and "--- turn 1 (Pro, house-debater) ---" in text.stdout
    last = text.stdout.strip().splitlines()[-1]
    assert last.startswith(
        ("Panel verdict 2-0 → ", "Panel split 1-1 → deliberation", "Pro conceded", "Con conceded")
    )
    played = colosseum(
        "debate",
        "play",
        "--pro",
        "Ask questions.",
        "--con",
        "Use analogies.",
        "--motion",
        motion,
        "--json",
        data=data,
    )
    report = json.loads(played.stdout)
    assert set(report) == {"game", "turns", "judge_calls"} and report["game"]["motion"] == motion
    # Every request and reply is a receipt in the record.
    receipts = ReceiptStore(data / "receipts")
    assert all(r in receipts for row in report["turns"] + report["judge_calls"] for r in row["receipt_ids"])


def test_a_game_under_a_models_document_that_names_a_key_variable_is_played(tmp_path: Path) -> None:
    """A models document naming the variable of a real key: the command reads the key from its own
    environment (it once asked Dagster's EnvVar for it outside a run and crashed)."""
    from importlib import resources

    import colosseum_core.debate

    document = json.loads(resources.files(colosseum_core.debate).joinpath("house_models.json").read_text())
    for link in document["debater"]["chain"]:
        link["key_env"] = "OPENAI_API_KEY"
    models = tmp_path / "models.json"
    models.write_text(json.dumps(document))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOSSEUM_")}
    played = subprocess.run(
        [sys.executable, "-m", "colosseum_dagster.cli", "debate", "play", "--pro", "Ask questions.",
         "--con", "Use analogies.", "--motion", "Homework should be abolished", "--models", str(models),
         "--json", "--data", str(tmp_path / "data")],
        env={**env, "OPENAI_API_KEY": "sk-test-not-a-real-key"},
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr[-2000:]
    turns = json.loads(played.stdout)["turns"]
    assert turns and {t["model"] for t in turns} == {"house-debater"}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("debate", "play", "--pro", "x" * 40_000, "--con", "y", "--motion", "m"),
            "--pro: 40,000 bytes; a strategy is at most 32,768 bytes",
        ),
        (
            ("debate", "play", "--pro", "ok", "--con", "a\x01b", "--motion", "m"),
            "--con: character 1 is U+0001",
        ),
        (("debate", "play", "--pro", "ok", "--con", "ok", "--motion", "  "), "--motion: the motion is empty"),
        (
            ("debate", "play", "--pro", "@/nonexistent/s.md", "--con", "ok", "--motion", "m"),
            "--pro @/nonexistent/s.md: cannot be read",
        ),
        (("debate", "topics", "2026-12-01T07Z"), "rotation key '2026-12-01T07Z' is not a rotation"),
        (
            ("debate", "topics", "2099-01-01T00Z"),
            "rotation 2099-01-01T00Z begins at 2099-01-01 00:00 UTC; nothing to run yet",
        ),
        (
            ("debate", "games", "0000040"),
            "epoch 0000040 has no entries yet in the record at ",
        ),
        (("debate", "games", "40", "--rounds", "0"), "0: an epoch plays at least one round"),
        (
            ("debate", "close", "0000040"),
            "epoch 0000040 has no games yet in the record at ",
        ),
        (("debate", "close", "forty"), "epoch 'forty': expected an epoch number"),
        *(
            ((*command, "999999999"), "epoch 999999999: no such epoch in the record at ")
            for command in (("debate", "entries"), ("debate", "games"), ("debate", "close"))
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    done = colosseum(*args, data=tmp_path / "data")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_an_epoch_past_the_last_names_the_record_and_the_epochs_it_holds(tmp_path: Path) -> None:
    """`debate games 999999999` once said it expected an epoch number; it names the record and what
    it holds, at once (no ledger is asked: none is running here)."""
    import polars as pl

    from colosseum_core.debate.arena import DEBATE
    from colosseum_core.record.layout import Record

    data = tmp_path / "data"
    for key in ("0000040", "0000041"):
        Record(data).tables(DEBATE).write("entries", pl.DataFrame({"epoch": [key]}), key)
    for command in ("entries", "games", "close"):
        done = colosseum("debate", command, "999999999", data=data)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == (
            f"colosseum debate {command}: epoch 999999999: no such epoch in the record at {data} "
            "(epochs are numbered 0 to 9999999; it holds 2 epoch(s): 0000040, 0000041)"
        )


def test_a_binary_strategy_file_is_refused(tmp_path: Path) -> None:
    strategy = tmp_path / "s.md"
    strategy.write_bytes(b"\xff\xfe\x00binary")
    done = colosseum(
        "debate", "play", "--pro", f"@{strategy}", "--con", "ok", "--motion", "m", data=tmp_path / "data"
    )
    assert done.returncode == 2 and "byte 0 is not UTF-8; a strategy is text" in done.stderr


def test_entries_for_an_epoch_the_ledger_has_not_reached_are_refused_before_any_run(tmp_path: Path) -> None:
    """`debate entries 9999998` once judged an epoch millions of blocks ahead of the chain, from
    commitments still free to change; it is refused, naming the ledger's epoch, and nothing is run."""
    import datetime as dt

    from colosseum_core.debate.epochs import epoch_key, epoch_of
    from colosseum_standins.ledger.server import running_ledger

    data = tmp_path / "data"
    with running_ledger(now=lambda: dt.datetime(2026, 12, 5, 12, tzinfo=dt.UTC)) as (url, ledger):
        current = epoch_key(epoch_of(ledger.current_block()))
        done = colosseum("debate", "entries", "9999998", "--ledger", url, data=data)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"colosseum debate entries: epoch 9999998: has not begun on the ledger at {url} "
        f"(block {ledger.current_block()} is in epoch {current}); its entries are judged once it has"
    )
    assert not (data / "warehouse").exists()
