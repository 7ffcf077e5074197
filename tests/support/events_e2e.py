"""The events' crash tests: a CLI run killed at a crash point (``COLOSSEUM_KILL_AT``), then run again,
and what the event's journal must show of the requests the kill interrupted (COLOSSEUM-EVENT-ASKING-2)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colosseum_core.events.asking import EVENT_ASKING, INTERRUPTED, journalled_calls


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
