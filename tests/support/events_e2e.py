"""What the events' end-to-end tests share: an event frozen and run through the CLI (``colosseum events
<kind> event freeze|run``), verified, run again to the same bytes, tampered with and named, published;
and the crash tests' steps: a CLI run killed at a crash point (``COLOSSEUM_KILL_AT``), then run again,
and what the event's journal must show of the requests the kill interrupted (COLOSSEUM-EVENT-ASKING-2).
Each kind's test keeps only what is its own: its freeze arguments, tables, tamperings and findings."""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from colosseum_core.arenas import AUDITS, PUBLIC_SITE, sparring_houses
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.asking import EVENT_ASKING, INTERRUPTED, journalled_calls
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import file_sha256
from colosseum_core.site.publish import publish_site
from colosseum_core.trust.keys import KeyStore
from colosseum_core.verify import VerifyReport, verify_record
from colosseum_standins.sparring import running_sparring
from tests.conftest import cli

Change = Callable[[pl.DataFrame], pl.DataFrame]  # a tampering: a table as recorded, then as forged


def freeze(kind: str, data: Path, event: str, *args: str) -> None:
    """``colosseum events <kind> event freeze <event> *args --data <data>``, which must succeed."""
    assert cli("events", kind, "event", "freeze", event, *args, "--data", str(data)) == 0


def run(kind: str, data: Path, event: str) -> None:
    """``colosseum events <kind> event run <event> --data <data>``, which must succeed."""
    assert cli(*run_argv(kind, data, event)) == 0


def run_argv(kind: str, data: Path, event: str) -> list[str]:
    return ["events", kind, "event", "run", event, "--data", str(data)]


def contenders(ids: Sequence[str]) -> list[str]:
    """The freeze command's arguments picking ``ids``, in order."""
    return [word for c in ids for word in ("--contender", c)]


def played(tmp_path_factory: pytest.TempPathFactory, kind: str, event: str, *args: str) -> Path:
    """A record of its own holding ``event`` frozen with ``args`` and run to its seal."""
    data = tmp_path_factory.mktemp(kind) / "data"
    freeze(kind, data, event, *args)
    run(kind, data, event)
    return data


def played_fixture(kind: str, event: str, *args: str, need: Callable[[], object]) -> Any:
    """A test module's fixture ``played``: the record of :func:`played`, once a module, after ``need``
    (the tool the kind needs, or the test skipped saying why)."""

    @pytest.fixture(scope="module", name="played")
    def fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
        need()
        return played(tmp_path_factory, kind, event, *args)

    return fixture


def manifest(data: Path, event: str) -> dict[str, Any]:
    return json.loads(Record(data).tables(EVENTS).read("event_manifests", event)["manifest"][0])


def verified(data: Path) -> VerifyReport:
    """``colosseum verify``'s report on the record, which must find nothing wrong."""
    report = verify_record(data, AUDITS)
    assert report.ok(), report.problems
    return report


def check_runs_again_to_the_same_bytes(kind: str, data: Path, event: str, tables: Sequence[str]) -> None:
    """A sealed event run again leaves every one of ``tables`` byte for byte; a frozen one is never frozen
    again (exit 2)."""
    record = Record(data).tables(EVENTS)
    before = {t: file_sha256(record.path(t, event)) for t in tables}
    run(kind, data, event)
    assert {t: file_sha256(record.path(t, event)) for t in tables} == before
    assert cli("events", kind, "event", "freeze", event, "--data", str(data)) == 2


def tampered(data: Path, tmp_path: Path, event: str, table: str, change: Change) -> Path:
    """A copy of the record whose ``table`` of ``event`` is changed by ``change`` (its ids derived again)."""
    copy = tampered_copy(data, tmp_path)
    tables = Record(copy).tables(EVENTS)
    tables.write(table, with_ids(change(tables.read(table, event)).drop("id")), event)
    return copy


def tampered_copy(data: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    subprocess.run(["cp", "-a", str(data), str(copy)], check=True)
    return copy


def check_named(data: Path, event: str, named: str) -> None:
    """``colosseum verify`` fails the record, with a problem naming ``named`` and the event."""
    report = verify_record(data, AUDITS)
    assert not report.ok()
    assert any(named in p and event in p for p in report.problems), report.problems[:5]


def published(data: Path, out: Path) -> Path:
    """The public site built from the record into ``out``, as of now: after the events were frozen, by
    the CLI's own clock."""
    built = dt.datetime.now(dt.UTC)
    return publish_site(PUBLIC_SITE, Record(data), KeyStore.for_data(data), out, built_at=built).site


@contextlib.contextmanager
def stalling_sparring() -> Iterator[str]:
    """The house players' server, answering each request after 5 s: a kill finds requests in flight."""
    with running_sparring(houses=sparring_houses(), stall_s=5) as url:
        yield url


def killed_then_resumed(argv: Sequence[str], *, sparring_url: str, kill_at: str) -> None:
    """``colosseum <argv>`` killed (SIGKILL, as a power cut) at ``kill_at``, then run again to the end."""
    env = {**os.environ, "COLOSSEUM_SPARRING_URL": sparring_url, "COLOSSEUM_KILL_AT": kill_at}
    run = [sys.executable, "-m", "colosseum_dagster.cli", *argv]
    killed = subprocess.run(run, env=env, capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9, (kill_at, killed.stderr[-2000:])
    del env["COLOSSEUM_KILL_AT"]
    resumed = subprocess.run(run, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]


def journal_entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def check_asked_again(
    entries: list[dict[str, Any]], fields: tuple[str, ...], victim: tuple[Any, ...]
) -> list[tuple[Any, ...]]:
    """The journal after a kill and a resume: the ``victim`` (killed right after its ask was journalled)
    was marked interrupted, with why and the rule, and asked again as its next request, which was
    answered; every interrupted request was; every call ends answered. The calls interrupted."""
    calls = journalled_calls(entries, fields)
    assert victim in calls, sorted(calls)[:5]
    first, again = calls[victim][0], calls[victim][-1]
    assert first.interrupted and first.receipt_id is None
    assert again.request == first.request + 1 and again.receipt_id is not None and not again.interrupted
    marks = [e for e in entries if e["event"] == "interrupted"]
    assert marks and all(m["reason"] == INTERRUPTED and m["rule"] == EVENT_ASKING for m in marks)
    interrupted = [where for where, requests in calls.items() if any(r.interrupted for r in requests)]
    for where, requests in calls.items():
        assert requests[-1].receipt_id is not None, f"{where}: the resumed run left it unanswered"
        for before, after in itertools.pairwise(requests):
            assert after.request == before.request + 1
    return interrupted
