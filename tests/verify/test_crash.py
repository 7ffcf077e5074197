"""A verification worker that dies is reported with the file it was decoding, and the audit goes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.audit.record import check_cards
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.record.ledger import write_recorded
from colosseum_core.verify import verify_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, reading, run_tasks
from tests.support import FIXTURES

# An answers file with one flipped bit, found by flipping every bit of a real one: this polars does
# not raise on it, it aborts the whole process (it tries to allocate exabytes). Its ledger entry is
# made to match, as if the writer had written it, so the ledger check lets it through to a decoder.
ABORTING = FIXTURES / "decoder_abort.parquet"


def _die_or_count(path: str, die: bool) -> Outcome:
    reading([path])
    if die:
        os.kill(os.getpid(), signal.SIGKILL)
    out = Outcome()
    out.count("files")
    return out


def test_a_task_whose_worker_is_killed_is_named_with_its_file_and_the_rest_still_run(tmp_path):
    tasks = [
        Task("cards", 1, _die_or_count, (str(tmp_path / f"warehouse/t/card={i}/data.parquet"), i == 3))
        for i in range(8)
    ]
    seen: list[tuple[str, int, int]] = []
    outcome, _ = run_tasks(tasks, workers=2, root=str(tmp_path), progress=lambda *a: seen.append(a))
    assert outcome.checked["files"] == 7
    assert outcome.problems == [
        "cards: a verification task failed (its worker process died while decoding "
        "warehouse/t/card=3/data.parquet)"
    ]
    assert seen[-1] == ("cards", 8, 8)


def _aborts(path: Path) -> bool:
    probe = subprocess.run(
        [sys.executable, "-c", "import sys, polars as pl; pl.read_parquet(sys.argv[1])", str(path)],
        capture_output=True,
        timeout=120,
    )
    return probe.returncode < 0


def test_a_decoder_that_aborts_on_recorded_bytes_is_named_and_the_other_cards_are_checked(tmp_path):
    root = tmp_path / "data"
    tables = RecordLayout(root).tables(FORECAST)
    crashing = root / "warehouse" / "forecast" / "answers" / "card=2026-11-30-1000" / "data.parquet"
    write_recorded(crashing, ABORTING.read_bytes())
    if not _aborts(crashing):
        pytest.skip(f"polars {pl.__version__} no longer aborts on these bytes; nothing to attribute")
    for card in ("2026-11-30-0500", "2026-11-30-1800"):
        tables.write("answers", with_ids(pl.DataFrame({"card": [card], "seat": ["openai-flagship"]})), card)
    report = verify_record(root, AUDITS, workers=2)
    assert (
        "cards: a verification task failed (its worker process died while decoding "
        "warehouse/forecast/answers/card=2026-11-30-1000/data.parquet)"
    ) in report.problems
    # The other cards were still checked: their own problems are reported.
    assert any("public_keys card 2026-11-30-1800" in p for p in report.problems)
    assert any("public_keys card 2026-11-30-0500" in p for p in report.problems)

    # One task for all three cards, alone on its worker: the batch read dies, and the task run
    # again reads file by file, so the one file is named, not the batch.
    keys = ["2026-11-30-0500", "2026-11-30-1000", "2026-11-30-1800"]
    task = Task("cards", 3, check_cards, (str(root), keys, ("answers",), False))
    outcome, _ = run_tasks([task], workers=2, root=str(root), progress=None)
    assert outcome.problems == [
        "cards: a verification task failed (its worker process died while decoding "
        "warehouse/forecast/answers/card=2026-11-30-1000/data.parquet)"
    ]
