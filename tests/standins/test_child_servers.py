"""A stand-in server started in a child process never outlives the command that started it, however
that command ends: a ``kill -9`` runs none of its clean-up, and the child must still go."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

PARENT = """
import sys, time
from colosseum_standins.simulated_exchange.server import exchange_process
with exchange_process(markets=50) as server:
    print(server.pid, server.url, flush=True)
    time.sleep(600)
"""


def _alive(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return False
    # A zombie has exited; only its parent's wait is missing.
    return "\nState:\tZ" not in status.read_text()


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return not _alive(pid)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_child_server_ends_with_the_command_that_started_it(how: signal.Signals) -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child_pid, url = parent.stdout.readline().split()
        child = int(child_pid)
        assert httpx.get(f"{url}/status", timeout=5).status_code == 200
        os.kill(parent.pid, how)
        parent.wait(timeout=10)
        assert _gone_within(child, 5.0), f"the exchange (pid {child}) outlived its command"
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"{url}/status", timeout=1)
    finally:
        parent.kill()
        parent.wait()


def test_a_child_server_not_waited_for_answers_the_first_request_and_a_dead_one_is_refused() -> None:
    """``wait_ready=False``: the caller goes on while the child starts. Its first request, made at once,
    waits in the listening socket's backlog and is answered; a child that died leaves nobody holding
    the socket, so a request is refused at once rather than hanging."""
    from colosseum_standins.loopback import running_process
    from colosseum_standins.simulated_exchange.server import exchange_process

    with exchange_process(markets=50, wait_ready=False) as server:
        assert httpx.get(f"{server.url}/status", timeout=30).status_code == 200
    # A child that exits before serving: its argv names no server.
    with running_process(["json.tool", "--help"], wait_ready=False) as server:
        deadline = time.monotonic() + 30
        while _alive(server.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{server.url}/status", timeout=10)
        assert time.monotonic() - started < 5
