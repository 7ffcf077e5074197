"""Record locks, the file ledger and journals: the mechanisms that keep one writer and every byte."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from colosseum_core.record.journal import Journal, JournalError, read_journal
from colosseum_core.record.ledger import (
    FileEntry,
    LedgerError,
    check_file,
    read_entry,
    sidecar_path,
    write_recorded,
)
from colosseum_core.record.locks import LockBusy, RecordLocks, partition_lock

HOLD_IN_ANOTHER_PROCESS = """
import sys, time
from colosseum_core.record.locks import RecordLocks
with RecordLocks(sys.argv[1]).hold(sys.argv[2], owner="run-other", purpose="card_job run"):
    print("held", flush=True)
    time.sleep(60)
"""


def _hold_elsewhere(root: Path, name: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_IN_ANOTHER_PROCESS, str(root), name], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


# ------------------------------------------------------------------------------------------- locks


def test_a_lock_is_reentrant_for_its_owner_and_refused_to_anyone_else(tmp_path):
    locks = RecordLocks(tmp_path)
    name = partition_lock("card", "2026-11-30-1800")
    with locks.hold(name, owner="run-a", purpose="card_job run"):
        with locks.hold(name, owner="run-a", purpose="writing answers"):
            assert locks.held_by(name) == "run-a"
        assert locks.held_by(name) == "run-a"  # the inner release keeps the outer hold
        with (
            pytest.raises(
                LockBusy, match=r"card=2026-11-30-1800 is being written by card_job run, run run-a"
            ),
            locks.hold(name, owner="run-b", purpose="card_job run"),
        ):
            pass
        # Another thread of the same process is another writer too.
        refused: list[BaseException] = []

        def other() -> None:
            try:
                with locks.hold(name, owner="run-c", purpose="card_job run"):
                    pass
            except LockBusy as exc:
                refused.append(exc)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert len(refused) == 1
    assert locks.held_by(name) is None and locks.holder(name) is None
    with locks.hold(name, owner="run-b", purpose="card_job run"):
        pass


def test_a_lock_held_by_another_process_is_refused_naming_it_and_freed_when_it_dies(tmp_path):
    locks = RecordLocks(tmp_path)
    name = partition_lock("card", "2026-11-30-1800")
    proc = _hold_elsewhere(tmp_path, name)
    try:
        holder = locks.holder(name)
        assert holder is not None and holder.pid == proc.pid and holder.owner == "run-other"
        with (
            pytest.raises(LockBusy, match=f"pid {proc.pid}") as refused,
            locks.hold(name, owner="run-a", purpose="card_job run"),
        ):
            pass
        assert "nothing was written" in str(refused.value)
        started = time.monotonic()
        with (
            pytest.raises(LockBusy, match=r"after waiting 0\.3 s"),
            locks.hold(name, owner="run-a", purpose="card_job run", wait_s=0.3),
        ):
            pass
        assert time.monotonic() - started >= 0.3
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # The kernel dropped the dead holder's lock: nothing is stale, nothing needs breaking.
    assert locks.holder(name) is None
    with locks.hold(name, owner="run-a", purpose="card_job run"):
        pass


def test_a_waiting_writer_gets_the_lock_when_it_is_freed(tmp_path):
    locks = RecordLocks(tmp_path)
    proc = _hold_elsewhere(tmp_path, "record-wide")
    threading.Timer(0.3, lambda: proc.send_signal(signal.SIGKILL)).start()
    with locks.hold("record-wide", owner="run-a", purpose="leaderboard_job run", wait_s=30):
        assert locks.held_by("record-wide") == "run-a"
    proc.wait()


# ------------------------------------------------------------------------------------------ ledger


def test_the_ledger_records_every_write_and_names_every_change(tmp_path):
    path = tmp_path / "t" / "data.parquet"
    assert write_recorded(path, b"first") is True
    assert write_recorded(path, b"first") is False  # the same bytes: nothing written
    entry = read_entry(path)
    assert entry == FileEntry(hashlib.sha256(b"first").hexdigest(), 5)
    assert check_file(path).ok and check_file(path).note is None
    assert write_recorded(path, b"second") is True
    assert check_file(path).sha256 == hashlib.sha256(b"second").hexdigest()

    path.write_bytes(b"secund")  # a change outside the writer
    assert "not to the recorded" in (check_file(path, "t/data.parquet").problem or "")
    write_recorded(path, b"second")
    sidecar_path(path).unlink()
    assert "no recorded SHA-256" in (check_file(path).problem or "")


def test_an_interrupted_write_is_accepted_as_either_version_and_completed_by_the_next(tmp_path):
    path = tmp_path / "data.parquet"
    write_recorded(path, b"old")
    old, new = hashlib.sha256(b"old").hexdigest(), hashlib.sha256(b"new").hexdigest()
    # Killed after step 1: the sidecar names the new bytes as pending, the file is still the old one.
    sidecar_path(path).write_bytes(FileEntry(old, 3, new, 3).encode())
    check = check_file(path)
    assert check.ok and "interrupted" in (check.note or "")
    # Killed after step 2: the file is the new one.
    path.write_bytes(b"new")
    assert check_file(path).ok
    # The next write under the lock completes it.
    assert write_recorded(path, b"new") is True
    assert read_entry(path) == FileEntry(new, 3)


def test_a_sidecar_is_canonical_and_its_size_counts(tmp_path):
    path = tmp_path / "data.parquet"
    write_recorded(path, b"12345")
    side = sidecar_path(path)
    doc = json.loads(side.read_bytes())
    side.write_bytes(json.dumps(doc, indent=1).encode())  # the same content, other bytes
    with pytest.raises(LedgerError, match="canonical"):
        read_entry(path)
    assert "cannot be read" in (check_file(path).problem or "")
    side.write_bytes(FileEntry(doc["sha256"], 6).encode())
    assert "another size" in (check_file(path).problem or "")


# ----------------------------------------------------------------------------------------- journal


def test_a_journal_chains_its_lines_and_names_any_changed_byte(tmp_path):
    journal = Journal(tmp_path / "j.jsonl")
    first = journal.append({"event": "ask", "seat": "openai-flagship", "request": 1})
    second = journal.append({"event": "reply", "seat": "openai-flagship", "request": 1, "receipt_id": "ab"})
    first_line = json.loads(journal.path.read_bytes().splitlines()[0])
    assert (first["seq"], second["seq"], second["prev"]) == (1, 2, first_line["sha256"])
    assert [e["event"] for e in journal.entries()] == ["ask", "reply"]
    with pytest.raises(ValueError, match="may not set"):
        journal.append({"seq": 9})

    data = journal.path.read_bytes()
    for index in range(len(data)):
        if data[index : index + 1] == b"\n":
            continue
        flipped = bytearray(data)
        flipped[index] ^= 0x04
        journal.path.write_bytes(bytes(flipped))
        with pytest.raises(JournalError, match=r"j\.jsonl line [12]"):
            read_journal(journal.path)
    journal.path.write_bytes(data)
    lines = data.splitlines(keepends=True)
    journal.path.write_bytes(lines[1] + lines[0])
    with pytest.raises(JournalError):
        read_journal(journal.path)


def test_a_torn_last_line_is_ignored_and_cut_off_by_the_next_append(tmp_path):
    journal = Journal(tmp_path / "j.jsonl")
    journal.append({"event": "ask", "seat": "a", "request": 1})
    with journal.path.open("ab") as handle:
        handle.write(b'{"event":"ask","seat":"b"')  # the crash cut the write short
    entries, torn = read_journal(journal.path)
    assert torn and len(entries) == 1
    journal.append({"event": "ask", "seat": "c", "request": 1})
    entries, torn = read_journal(journal.path)
    assert not torn and [e["seat"] for e in entries] == ["a", "c"]


def test_a_killed_writer_leaves_a_readable_journal(tmp_path):
    script = (
        "import sys\nfrom colosseum_core.record.journal import Journal\n"
        "j = Journal(sys.argv[1])\n"
        "for i in range(100000):\n    j.append({'event': 'ask', 'request': i})\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "j.jsonl")])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (tmp_path / "j.jsonl").exists():
        time.sleep(0.05)
    time.sleep(0.5)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    entries, _ = read_journal(tmp_path / "j.jsonl")
    assert entries and [e["request"] for e in entries] == list(range(len(entries)))


def test_a_run_locks_its_arenas_partition_by_its_tag_or_its_assets() -> None:
    import dagster as dg

    from colosseum_core.forecast.arena import FORECAST
    from colosseum_dagster.resources import ARENA_TAG, lock_for, run_arena

    tagged = dg.DagsterRun(job_name="card_job", tags={ARENA_TAG: "forecast", "dagster/partition": "k"})
    from_ui = dg.DagsterRun(
        job_name="__ASSET_JOB",
        asset_selection=frozenset({dg.AssetKey(["forecast", "sweeps"]), dg.AssetKey(["forecast", "packet"])}),
    )
    assert run_arena(tagged) is FORECAST and run_arena(from_ui) is FORECAST
    assert run_arena(dg.DagsterRun(job_name="other")) is None
    assert lock_for(FORECAST, "2026-11-30-1800") == ("card=2026-11-30-1800", 0.0)
    assert lock_for(None, None)[0] == "record-wide"
    with pytest.raises(dg.Failure, match="partition 2026-11-30-1800 of no arena"):
        lock_for(None, "2026-11-30-1800")
