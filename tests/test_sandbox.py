"""COLOSSEUM-SANDBOX-1 for real: bubblewrap on this machine, each hostile program contained."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from colosseum_core.sandbox.bubblewrap import Limits, run_python
from tests.sandbox_support import need_sandbox

pytestmark = pytest.mark.usefixtures("_sandbox")
SHORT = Limits(cpu_seconds=1, wall_seconds=3.0)


@pytest.fixture
def _sandbox() -> None:
    need_sandbox()


def test_a_program_reads_its_input_and_prints_its_answer() -> None:
    run = run_python("import sys\nprint(sys.stdin.read()[::-1])", stdin=b"abc")
    assert (run.outcome, run.exit_code, run.stdout) == ("ok", 0, b"cba\n")


def test_an_exit_code_and_an_exception_are_exits_with_the_error_named() -> None:
    assert run_python("raise SystemExit(3)").describe() == "exit code 3"
    crashed = run_python("1/0")
    assert crashed.outcome == "exit" and "ZeroDivisionError" in crashed.describe()


def test_the_network_is_out_of_reach_even_on_the_hosts_loopback() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    accepted: list[object] = []
    listener.settimeout(3)
    waiter = threading.Thread(target=lambda: accepted.append(_accept(listener)))
    waiter.start()
    try:
        run = run_python(
            "import socket\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
            "    print('connected')\n"
            "except OSError as exc:\n"
            "    print('refused', type(exc).__name__)\n"
            "try:\n"
            "    socket.getaddrinfo('pypi.org', 443)\n"
            "    print('resolved')\n"
            "except OSError as exc:\n"
            "    print('no name', type(exc).__name__)\n"
        )
    finally:
        waiter.join()
        listener.close()
    assert run.ok
    assert b"connected" not in run.stdout and b"resolved" not in run.stdout
    assert accepted == [None]  # nothing reached the host's server


def _accept(listener: socket.socket) -> object:
    try:
        connection, _ = listener.accept()
        connection.close()
        return "reached"
    except TimeoutError:
        return None


def test_the_hosts_files_are_out_of_reach() -> None:
    secret = os.path.abspath(__file__)
    run = run_python(
        "import json, os\n"
        "seen = {}\n"
        f"for path in ['/etc/passwd', '/root', '/home', {secret!r}, '/proc/1/environ', '/work']:\n"
        "    try:\n"
        "        got = open(path, 'rb').read() if os.path.isfile(path) else os.listdir(path)\n"
        "        seen[path] = 'read ' + str(len(got))\n"
        "    except OSError as exc:\n"
        "        seen[path] = type(exc).__name__\n"
        "seen['/'] = sorted(os.listdir('/'))\n"
        "seen['uid'] = os.getuid()\n"
        "print(json.dumps(seen))\n"
    )
    seen = json.loads(run.stdout)
    assert seen["/"] == ["bin", "dev", "job", "launch.py", "lib", "lib64", "proc", "tmp", "usr"]
    for path in ("/etc/passwd", "/root", "/home", secret, "/work"):
        assert not seen[path].startswith("read"), (path, seen[path])
    assert seen["uid"] != 0


def test_an_endless_loop_is_stopped_by_the_cpu_limit() -> None:
    run = run_python("while True:\n    pass", limits=SHORT)
    assert run.outcome == "cpu_limit"


def test_a_program_that_ignores_the_cpu_signal_is_killed_and_a_sleeper_by_the_wall_clock() -> None:
    ignoring = run_python(
        "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass", limits=SHORT
    )
    assert (ignoring.outcome, ignoring.signal_number) == ("signal", 9)
    sleeper = run_python("import time\ntime.sleep(60)", limits=Limits(wall_seconds=1.0))
    assert sleeper.outcome == "wall_limit" and sleeper.seconds < 5


def test_a_gigabyte_of_output_is_cut_at_the_limit() -> None:
    run = run_python(
        "import sys\nfor _ in range(16384):\n    sys.stdout.write('x' * 65536)",
        limits=Limits(output_bytes=100_000),
    )
    assert run.outcome == "output_limit"
    assert len(run.stdout) + len(run.stderr) <= 100_000


def test_a_fork_bomb_gets_no_more_processes_than_its_limit_and_leaves_none_behind() -> None:
    run = run_python(
        "import os, time\n"
        "children = 0\n"
        "for _ in range(200):\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(30)\n"
        "        os._exit(0)\n"
        "    children += 1\n"
        "print(children, flush=True)\n"
        "while True:\n"
        "    try:\n"
        "        os.fork()\n"
        "    except OSError:\n"
        "        pass\n",
        # An address-space limit no other test uses names this run's processes in the process table.
        limits=Limits(processes=8, wall_seconds=2.0, cpu_seconds=1, memory_bytes=200_000_017),
    )
    assert run.outcome in ("wall_limit", "cpu_limit")
    assert int(run.stdout.split()[0]) < 8
    assert _processes_with(b"launch.py\x001\x00200000017\x00") == []


def _processes_with(marker: bytes) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if marker in handle.read():
                        found.append(entry)
            except OSError:
                continue
    return found


def test_memory_beyond_the_limit_is_refused_and_tmp_is_bounded() -> None:
    hungry = run_python("x = bytearray(2 * 1024**3)", limits=Limits(memory_bytes=128 * 1024**2))
    assert hungry.outcome == "exit" and "MemoryError" in hungry.describe()
    filler = run_python(
        "open('/tmp/fill', 'wb').write(b'x' * (64 * 1024**2))", limits=Limits(tmp_bytes=4 * 1024**2)
    )
    assert filler.outcome == "exit"
    assert "No space left" in filler.describe() or "File too large" in filler.describe()


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="cpu_seconds"):
        Limits(cpu_seconds=0)
    with pytest.raises(ValueError, match="plain file name"):
        run_python("pass", files={"../escape": b""})
