"""COLOSSEUM-SANDBOX-2 for real: bubblewrap on this machine, each hostile program contained, every run
repeatable, and the host's memory bounded by the sizes the limits record."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time

import pytest

from colosseum_core.sandbox.bubblewrap import (
    FILE_COST,
    SANDBOX_VERSION,
    Limits,
    SandboxRun,
    address_randomisation_off,
    entropy_bytes,
    run_python,
)
from tests.support.sandbox import need_sandbox

pytestmark = pytest.mark.usefixtures("_sandbox")
# A CPU-limit test must not race the wall clock: a loaded host may give a loop its CPU second only
# after many seconds, so the wall limit is far out of reach (a loop the CPU limit failed to stop
# would still end, as wall_limit, and fail the test); the loop's verdict then depends on no load.
SHORT = Limits(cpu_seconds=1, wall_seconds=60.0)


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
    assert seen["/"] == ["bin", "dev", "job", "launch.py", "lib", "lib64", "tmp", "usr"]
    for path in ("/etc/passwd", "/root", "/home", secret, "/work", "/proc/1/environ"):
        assert not seen[path].startswith("read"), (path, seen[path])
    assert seen["uid"] != 0


def test_an_endless_loop_is_stopped_by_the_cpu_limit() -> None:
    run = run_python("while True:\n    pass", limits=SHORT)
    assert run.outcome == "cpu_limit"


def test_a_program_that_ignores_the_cpu_signal_is_killed_and_a_sleeper_by_the_wall_clock() -> None:
    # The CPU second and the kernel's second at SHORT's wall limit, which no load reaches.
    ignoring = run_python(
        "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass",
        limits=SHORT,
    )
    assert (ignoring.outcome, ignoring.signal_number) == ("signal", 9)
    # A sleeper uses no CPU: only the wall limit can end it, long before its minute, however busy.
    sleeper = run_python("import time\ntime.sleep(60)", limits=Limits(wall_seconds=1.0))
    assert sleeper.outcome == "wall_limit" and sleeper.seconds < 30


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
    # The kernel ends the PID namespace's processes as its first one dies: give it a moment.
    for _ in range(40):
        left = _processes_with(b"launch.py\x001\x00200000017\x00")
        if not left:
            break
        time.sleep(0.05)
    assert left == []


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


# -- COLOSSEUM-SANDBOX-2: the file systems are sized, and the host's memory is bounded by the record ------


def _shmem_bytes() -> int:
    """The host's memory held by tmpfs and shared memory (``Shmem`` in /proc/meminfo)."""
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("Shmem:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no Shmem line in /proc/meminfo")


def _run_measured(source: str, limits: Limits) -> tuple[SandboxRun, int]:
    """The run, and the most the host's shared memory grew while it ran (sampled every 5 ms)."""
    before = _shmem_bytes()
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], _shmem_bytes())

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        run = run_python(source, limits=limits)
    finally:
        done.set()
        sampler.join()
    return run, max(peak[0], _shmem_bytes()) - before


# Every write tries a gigabyte in chunks of 1 MiB, and reports what it wrote and how it stopped.
WRITE_A_GIGABYTE = """
import json, os, sys
written, stopped = 0, None
try:
    with open(sys.argv[1] if len(sys.argv) > 1 else PATH, "wb") as handle:
        for _ in range(1024):
            handle.write(b"x" * 1024 * 1024)
            handle.flush()
            written += 1024 * 1024
except OSError as exc:
    stopped = f"{type(exc).__name__} errno {exc.errno}"
print(json.dumps({"written": written, "stopped": stopped}))
"""
TIGHT = Limits(cpu_seconds=2, wall_seconds=10.0, tmp_bytes=4 * 1024**2, file_bytes=64 * 1024**2, tmp_files=64)


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        ("/gigabyte", "errno 30"),  # the root: read-only
        ("/dev/gigabyte", "errno 30"),  # /dev: read-only
        ("/dev/shm/gigabyte", "errno 2"),  # there is no /dev/shm
        ("/job/gigabyte", "errno 30"),
        ("/usr/gigabyte", "errno 30"),
        ("/proc/self/gigabyte", "errno 2"),  # no /proc
        ("/sys/gigabyte", "errno 2"),
        ("/lib/gigabyte", "errno 30"),  # a symbolic link into /usr
    ],
)
def test_nowhere_but_tmp_can_be_written(path: str, refused: str) -> None:
    run, grew = _run_measured(WRITE_A_GIGABYTE.replace("PATH", repr(path)), TIGHT)
    assert run.ok, run.describe()
    result = json.loads(run.stdout)
    assert result["written"] == 0 and refused in result["stopped"], result
    assert grew < 64 * 1024**2, f"the host's shared memory grew {grew:,} bytes"


def test_tmp_holds_its_size_and_no_more() -> None:
    run, grew = _run_measured(WRITE_A_GIGABYTE.replace("PATH", "'/tmp/gigabyte'"), TIGHT)
    result = json.loads(run.stdout)
    assert result["stopped"] == "OSError errno 28", result  # no space left on the device
    assert 0 < result["written"] <= TIGHT.tmp_bytes
    assert grew < TIGHT.tmp_bytes + 64 * 1024**2, f"the host's shared memory grew {grew:,} bytes"


def test_tmp_holds_its_number_of_files_and_no_more() -> None:
    run = run_python(
        "import os\n"
        "made = 0\n"
        "try:\n"
        "    while True:\n"
        "        os.close(os.open(f'/tmp/{made:06d}' + 'n' * 200, os.O_CREAT | os.O_WRONLY))\n"
        "        made += 1\n"
        "except OSError as exc:\n"
        "    print(made, exc.errno)\n",
        limits=TIGHT,
    )
    made, errno = (int(word) for word in run.stdout.split())
    assert errno == 28 and made == TIGHT.tmp_files - 1  # /tmp itself is one of them


def test_forks_share_one_tmp_so_files_do_not_multiply() -> None:
    limits = Limits(cpu_seconds=2, wall_seconds=10.0, processes=8, tmp_bytes=8 * 1024**2, tmp_files=64)
    run, grew = _run_measured(
        "import os, sys\n"
        "children = []\n"
        "for index in range(6):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        written = 0\n"
        "        try:\n"
        "            with open(f'/tmp/child-{index}', 'wb') as handle:\n"
        "                for _ in range(256):\n"
        "                    handle.write(b'x' * 1024 * 1024)\n"
        "                    handle.flush()\n"
        "                    written += 1024 * 1024\n"
        "        except OSError:\n"
        "            pass\n"
        "        print(written, flush=True)\n"
        "        os._exit(0)\n"
        "    children.append(pid)\n"
        "for pid in children:\n"
        "    os.waitpid(pid, 0)\n",
        limits,
    )
    assert run.ok, run.describe()
    totals = [int(line) for line in run.stdout.split()]
    assert len(totals) == 6 and sum(totals) <= limits.tmp_bytes
    assert grew < limits.tmp_bytes + 64 * 1024**2, f"the host's shared memory grew {grew:,} bytes"


def test_a_file_mapped_past_tmps_size_dies_at_the_size_not_beyond() -> None:
    # 8 MiB of a file in a /tmp of 4 MiB, written through a shared mapping: the page past the size
    # has nowhere to go, and the kernel's SIGBUS ends the program.
    limits = Limits(cpu_seconds=2, wall_seconds=10.0, tmp_bytes=4 * 1024**2, file_bytes=8 * 1024**2)
    run, grew = _run_measured(
        "import mmap, os\n"
        "fd = os.open('/tmp/mapped', os.O_CREAT | os.O_RDWR)\n"
        "os.ftruncate(fd, 8 * 1024 * 1024)\n"
        "view = mmap.mmap(fd, 8 * 1024 * 1024)\n"
        "for page in range(0, 8 * 1024 * 1024, 4096):\n"
        "    view[page] = 1\n"
        "print('wrote every page')\n",
        limits,
    )
    assert (run.outcome, run.signal_number) == ("signal", signal.SIGBUS), run.describe()
    assert b"wrote every page" not in run.stdout
    assert grew < limits.tmp_bytes + 64 * 1024**2, f"the host's shared memory grew {grew:,} bytes"


@pytest.mark.parametrize(
    ("program", "refused"),
    [
        # A file larger than file_bytes cannot even be sized, let alone mapped.
        (
            "import os\nfd = os.open('/tmp/f', os.O_CREAT | os.O_RDWR)\nos.ftruncate(fd, 2**30)\n",
            "File too large",
        ),
        # Shared anonymous memory and /dev/zero's are in the address space, which the limit bounds.
        ("import mmap\nmmap.mmap(-1, 2**30, flags=mmap.MAP_SHARED)\n", "Cannot allocate memory"),
        (
            "import mmap, os\n"
            "fd = os.open('/dev/zero', os.O_RDWR)\n"
            "mmap.mmap(fd, 2**30, flags=mmap.MAP_SHARED)\n",
            "Cannot allocate memory",
        ),
        # An in-memory file no file system sizes, and the C library that would reach it anyway.
        ("import os\nos.memfd_create('unsized')\n", "has no attribute 'memfd_create'"),
        ("import ctypes\n", "import of _ctypes halted"),
        ("import mmap\nmmap.mmap(-1, 4096)\nimport _ctypes\n", "import of _ctypes halted"),
    ],
)
def test_memory_outside_the_files_is_the_address_space_or_nothing(program: str, refused: str) -> None:
    run, grew = _run_measured(program, Limits(memory_bytes=256 * 1024**2))
    assert run.outcome == "exit" and refused in run.describe(), run.describe()
    assert grew < 64 * 1024**2


@pytest.mark.parametrize(
    "program",
    [
        "import subprocess\nsubprocess.run(['/usr/bin/date'])",
        "import os\nos.execv('/usr/bin/date', ['date'])",
        "import os\nos.system('date')",
        "import os\nos.posix_spawn('/usr/bin/date', ['date'], {})",
        "import _posixsubprocess\n_posixsubprocess.fork_exec()",
        "import gc\ngc.get_objects()",
    ],
)
def test_no_other_program_runs_and_no_object_walk(program: str) -> None:
    run = run_python(program)
    assert run.outcome == "exit" and "PermissionError" in run.describe(), run.describe()
    assert b"2000" not in run.stdout and b"20" not in run.stdout


def test_the_limits_record_the_host_memory_they_promise() -> None:
    limits = Limits()
    assert limits.host_memory_bytes == 16 * 256 * 1024**2 + 16 * 1024**2 + 512 * FILE_COST
    record = limits.as_record()
    assert record["host_memory_bytes"] == limits.host_memory_bytes
    assert Limits.from_record({"version": SANDBOX_VERSION, **record}) == limits
    # A manifest frozen under COLOSSEUM-SANDBOX-1 has no tmp_files, clock or seed: they default.
    old = {k: v for k, v in record.items() if k not in ("tmp_files", "clock_start", "entropy_seed")}
    assert Limits.from_record({"version": "COLOSSEUM-SANDBOX-1", **old}) == limits
    with pytest.raises(ValueError, match="tmp_files"):
        Limits(tmp_files=1)
    with pytest.raises(ValueError, match="entropy_seed must be a number ≥ 0"):
        Limits(entropy_seed=-1)
    assert Limits(entropy_seed=0).entropy_seed == 0


# -- COLOSSEUM-SANDBOX-2: a replay sees the same world ---------------------------------------------------

WHAT_THE_WORLD_LOOKS_LIKE = """
import datetime, json, os, random, resource, secrets, sys, tempfile, time, uuid
first = time.time()
seen = {
    "time": [first, time.time(), time.time_ns()],
    "monotonic": [time.monotonic(), time.perf_counter(), time.process_time(), time.thread_time()],
    "clock_gettime": [time.clock_gettime(time.CLOCK_REALTIME), time.clock_gettime(time.CLOCK_MONOTONIC)],
    "now": [str(datetime.datetime.now()), str(datetime.datetime.utcnow()), str(datetime.date.today()),
            str(datetime.datetime.now(datetime.timezone.utc)), time.ctime(), time.strftime("%Y-%m-%d")],
    "localtime": list(time.localtime()[:6]),
    "random": [random.random(), random.Random().random(), random.SystemRandom().random()],
    "entropy": [os.urandom(8).hex(), os.getrandom(8).hex(), secrets.token_hex(8), str(uuid.uuid4()),
                str(uuid.uuid1()), open("/dev/urandom", "rb").read(8).hex(),
                open("/dev/random", "rb").read(8).hex()],
    "names": [tempfile.mktemp(), tempfile.mkdtemp()],
    "objects": [id(object()), hash(object()), hash("text"), sorted({object(): 1, object(): 2}.values())],
    "files": [os.stat("/tmp").st_mtime, os.lstat("/").st_mtime_ns, os.stat("/job/program.py").st_ctime,
              [e.stat().st_mtime for e in os.scandir("/dev")]],
    "process": [os.getpid(), os.getppid(), list(os.times()),
                resource.getrusage(resource.RUSAGE_SELF).ru_utime],
}
start = time.monotonic()
time.sleep(0.01)
seen["slept"] = time.monotonic() - start
loops = 0
begun = time.time()
while time.time() - begun < 1.5:
    loops += 1
seen["loops"] = loops
print(json.dumps(seen))
"""


def test_the_clock_and_entropy_are_the_recorded_ones_and_repeat_exactly() -> None:
    limits = Limits(entropy_seed=7)
    runs = [run_python(WHAT_THE_WORLD_LOOKS_LIKE, limits=limits) for _ in range(3)]
    assert all(run.ok for run in runs), runs[0].describe()
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    seen = json.loads(runs[0].stdout)
    start = limits.clock_start
    assert start < seen["time"][0] < seen["time"][1] < start + 1  # it advances, a tick per reading
    assert seen["now"][0].startswith("2000-01-01 00:00:00") and seen["now"][2] == "2000-01-01"
    assert seen["now"][5] == "2000-01-01" and seen["localtime"][:3] == [2000, 1, 1]
    assert seen["files"][:3] == [start, start * 10**9, start] and set(seen["files"][3]) == {start}
    assert seen["entropy"][5] == entropy_bytes(7)[:8].hex()  # /dev/urandom: the recorded seed's bytes
    assert 0.01 <= seen["slept"] < 0.02  # sleeping advances the clock by the time slept
    assert seen["loops"] == 1499  # a loop waiting for 1.5 s ends after as many readings every run
    other = json.loads(run_python(WHAT_THE_WORLD_LOOKS_LIKE, limits=Limits(entropy_seed=8)).stdout)
    assert other["entropy"] != seen["entropy"] and other["random"] != seen["random"]
    assert other["time"] == seen["time"]


def test_addresses_repeat_where_the_kernel_lets_randomisation_be_turned_off() -> None:
    if not address_randomisation_off():
        pytest.skip("this kernel refuses ADDR_NO_RANDOMIZE (setarch -R): id() is not repeatable here")
    program = "print(id(object()), hash(object()), id([]))"
    assert len({run_python(program).stdout for _ in range(3)}) == 1


def test_a_checker_reading_the_time_through_c_or_the_clock_of_a_file_reads_the_recorded_one() -> None:
    # The routes around time.time a program might try: the C datetime, a fresh file's times, the
    # kernel's uptime and its random uuid.
    run = run_python(
        "import os, time\n"
        "try:\n"
        "    import _datetime\n"
        "    print('C datetime')\n"
        "except ImportError:\n"
        "    print('no C datetime')\n"
        "open('/tmp/fresh', 'w').write('x')\n"
        "print(os.stat('/tmp/fresh').st_mtime, os.path.getmtime('/tmp'))\n"
        "for path in ('/proc/uptime', '/proc/sys/kernel/random/uuid', '/sys/kernel'):\n"
        "    print(path, os.path.exists(path))\n"
    )
    lines = run.stdout.decode().splitlines()
    assert lines[0] == "no C datetime"
    assert lines[1] == "946684800.0 946684800.0"
    assert all(line.endswith("False") for line in lines[2:])


def test_ordinary_programs_run_as_before_under_the_fixed_world() -> None:
    run = run_python(
        "import datetime, fractions, logging, os, pathlib, random, shutil, tempfile, threading\n"
        "folder = tempfile.mkdtemp()\n"
        "for name in ('a', 'b'):\n"
        "    pathlib.Path(folder, name, 'deep').mkdir(parents=True)\n"
        "    pathlib.Path(folder, name, 'deep', 'f.txt').write_text(name)\n"
        "walked = sorted(f for _, _, files in os.walk(folder) for f in files)\n"
        "globbed = sorted(p.name for p in pathlib.Path(folder).glob('*/deep/*.txt'))\n"
        "shutil.copytree(folder, folder + '-copy')\n"
        "shutil.rmtree(folder)\n"
        "day = datetime.date(2024, 2, 28) + datetime.timedelta(days=1)\n"
        "moment = datetime.datetime(2024, 2, 28, 12) - datetime.timedelta(hours=13)\n"
        "kinds = [isinstance(moment, datetime.date), isinstance(moment.date(), datetime.date)]\n"
        "seeded = random.Random(42).random() == random.Random(42).random()\n"
        "results = []\n"
        "workers = [threading.Thread(target=results.append, args=(n,)) for n in range(4)]\n"
        "[w.start() for w in workers]\n"
        "[w.join() for w in workers]\n"
        "logging.basicConfig(format='%(asctime)s %(message)s')\n"
        "logging.warning('logged')\n"
        "print(walked, globbed, os.path.exists(folder), sorted(os.listdir(folder + '-copy')), day, moment,\n"
        "      kinds, seeded, sorted(results), fractions.Fraction(6, 8))\n"
    )
    assert run.ok, run.describe()
    assert run.stdout.decode() == (
        "['f.txt', 'f.txt'] ['f.txt', 'f.txt'] False ['a', 'b'] 2024-02-29 2024-02-27 23:00:00 "
        "[True, True] True [0, 1, 2, 3] 3/4\n"
    )
    assert run.stderr.decode().startswith("2000-01-01 00:00:00,")  # logging's clock is the sandbox's
