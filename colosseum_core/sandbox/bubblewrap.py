"""COLOSSEUM-SANDBOX-2: a Python program run under bubblewrap, contained, limited and repeatable.

What a sandboxed program sees and may do:

- **No network.** Its own network namespace, with only a loopback that is down.
- **None of the host's files, and nowhere to write but a sized /tmp.** The root is bubblewrap's
  own, made read-only once it is built: ``/usr`` (read-only, for the interpreter and its standard
  library), a ``/dev`` of four entries (``null``, ``zero``, ``full``, and ``urandom``/``random``
  reading a recorded file of seeded bytes; read-only, no ``/dev/shm``), a private ``/tmp`` (a tmpfs
  of ``tmp_bytes`` and at most ``tmp_files`` files and directories, no executables), ``/job``
  (read-only: the program and its input) and ``/launch.py`` (read-only, below). No ``/proc``, no
  ``/sys``, no ``/etc``, ``/home``, ``/root``, the record or the project.
- **Not root.** Run as root, the sandbox first drops to ``nobody`` (65534): the kernel exempts
  root from the process limit. ``unshare`` then makes a user and mount namespace only to mount the
  sized ``/tmp`` (bubblewrap cannot size a tmpfs's files), and bubblewrap makes the sandbox's own
  user namespace inside it, with every capability dropped.
- **Limits,** set by ``launch.py`` inside the sandbox, after the namespaces exist, so that the
  process limit counts the sandbox's own processes only (set outside, it would count every process
  of the same user on the machine): CPU seconds (``SIGXCPU``, then ``SIGKILL`` a second later),
  address space, processes, the size of any file written, open files, no core dumps. Outside, the
  caller enforces the wall time and the output size, killing the whole sandbox when either is
  exceeded; ``--die-with-parent`` and the PID namespace take every process in it down with it.
- **Memory that counts files.** The host's memory a run can hold is at most ``processes`` address
  spaces of ``memory_bytes`` plus ``/tmp`` (``tmp_bytes`` of data and ``tmp_files`` inodes at
  ``FILE_COST`` each): ``Limits.host_memory_bytes``, recorded with the limits. Every other place a
  file could be written is read-only or absent, and ``launch.py`` removes ``memfd_create`` (an
  unsized in-memory file) and refuses ``ctypes``, so no file escapes the sum; ``/tmp`` is one file
  system shared by all the sandbox's processes, so forks multiply address space, never files. (No
  cgroup: the machines this runs on, root in a container, do not reliably delegate one.)
- **One world, whenever and wherever it runs.** ``launch.py`` gives the program a clock that starts
  at ``clock_start`` and advances ``CLOCK_TICK_NS`` at every reading, and entropy drawn from
  ``entropy_seed`` (``os.urandom``, ``random``'s seeding, ``secrets``, ``uuid``, ``/dev/urandom``),
  with address-space randomisation off where the kernel allows it (``setarch -R``), so ``id()``
  and the default ``hash()`` of objects repeat; it refuses ``ctypes``, running other programs and
  the garbage collector's object walks. This makes a replay give the same result for every program
  that does not dig for the real clock on purpose (threads racing each other, interval timers); what
  slips through is caught by running each admission step again (COLOSSEUM-TASK-VERIFIED-2) and, at
  ``verify``, named as a finding about the program's author.

The outcome is one of ``OUTCOMES``: ``ok`` (exit 0), ``exit`` (another exit code), ``cpu_limit``,
``wall_limit``, ``output_limit``, ``signal`` (killed by another signal). A program that runs out of
memory raises ``MemoryError`` and so ends as ``exit`` with the error on stderr.

Interpreter: Debian's ``/usr/bin/python3`` (the sandbox binds ``/usr`` only, so a virtualenv's or
pyenv's interpreter is out of reach), started isolated (``-I``) and without ``site`` (``-S``),
with a fixed hash seed. The seconds a run took are measured, never recorded with a result.

COLOSSEUM-SANDBOX-1 (events frozen before this version record it) had a writable, unsized root and
``/dev`` (with ``/dev/shm``), a ``/proc``, the real clock and the kernel's entropy. Its programs are
replayed in this sandbox, under the limits their manifest froze (``Limits.from_record``).
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import os
import random
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

SANDBOX_VERSION: Final = "COLOSSEUM-SANDBOX-2"
SANDBOX_VERSIONS: Final = ("COLOSSEUM-SANDBOX-1", SANDBOX_VERSION)
OUTCOMES: Final = ("ok", "exit", "cpu_limit", "wall_limit", "output_limit", "signal")
INTERPRETER: Final = "/usr/bin/python3"
NOBODY: Final = 65534
PROGRAM: Final = "program.py"
_LAUNCHER: Final = Path(__file__).with_name("launch.py")
_MIB: Final = 1024 * 1024
# What one file or directory of /tmp can cost the kernel beyond its data: an inode, a directory
# entry and its name (measured: about 1.2 KiB on Linux 6.x; rounded up).
FILE_COST: Final = 2048
# The program's clock advances this much at every reading, so that a loop waiting for time to pass
# ends, after the same number of readings every run.
CLOCK_TICK_NS: Final = 1_000_000
# Bytes of /dev/urandom and /dev/random: a program reading past them reads end of file.
ENTROPY_FILE_BYTES: Final = 256 * 1024
# /dev's own tmpfs: it holds only mount points and is read-only once they exist.
_DEV_BYTES: Final = 64 * 1024
# Mounts the sized /tmp in the namespace ``unshare`` made, then becomes the rest of the command.
_MOUNT_TMP: Final = (
    'mount -t tmpfs -o "size=$2,nr_inodes=$3,mode=1777,nosuid,nodev,noexec" colosseum-tmp "$1" '
    '&& shift 3 && exec "$@"'
)


class SandboxUnavailable(RuntimeError):
    """bubblewrap or the interpreter is missing, or the kernel refuses the namespaces it needs."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """The limits of one run, and the world it sees; every field is recorded beside what it produced."""

    cpu_seconds: int = 2
    wall_seconds: float = 5.0
    memory_bytes: int = 256 * _MIB  # the address space of each process
    processes: int = 16
    output_bytes: int = 1 * _MIB  # stdout and stderr together
    file_bytes: int = 8 * _MIB  # any one file the program writes
    tmp_bytes: int = 16 * _MIB  # the data of the whole of /tmp
    tmp_files: int = 512  # files and directories in /tmp, its own root included
    open_files: int = 64
    clock_start: int = 946_684_800  # the program's clock starts here: 2000-01-01T00:00:00Z
    entropy_seed: int = 0  # every byte of entropy the program gets is drawn from this

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            least = 0 if field.name == "entropy_seed" else 1e-9
            if not isinstance(value, int | float) or isinstance(value, bool) or value < least:
                allowed = "a number ≥ 0" if field.name == "entropy_seed" else "a positive number"
                raise ValueError(f"sandbox limit {field.name} must be {allowed}, not {value!r}")
        if self.tmp_files < 2:
            raise ValueError(f"sandbox limit tmp_files must be at least 2 (/tmp), not {self.tmp_files}")

    @property
    def host_memory_bytes(self) -> int:
        """The most host memory one run can hold: every process's address space, and /tmp's files."""
        return self.processes * self.memory_bytes + self.tmp_bytes + self.tmp_files * FILE_COST

    def as_record(self) -> dict[str, float | int]:
        return {**dataclasses.asdict(self), "host_memory_bytes": self.host_memory_bytes}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Limits:
        """The limits a manifest froze (its ``sandbox`` entry); a field it predates keeps its default."""
        names = {field.name for field in dataclasses.fields(cls)}
        return cls(**{name: value for name, value in record.items() if name in names})


@dataclasses.dataclass(frozen=True)
class SandboxRun:
    outcome: str  # one of OUTCOMES
    exit_code: int | None  # the program's exit code when it exited
    signal_number: int | None  # the signal that ended it, when one did
    stdout: bytes  # at most Limits.output_bytes of stdout and stderr together
    stderr: bytes
    seconds: float  # measured wall time: for reports, never for a result

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"

    def describe(self) -> str:
        if self.outcome == "exit":
            tail = self.stderr.decode("utf-8", "replace").strip().splitlines()
            return f"exit code {self.exit_code}" + (f" ({tail[-1][:200]})" if tail else "")
        if self.outcome == "signal":
            return f"killed by signal {self.signal_number}"
        return self.outcome.replace("_", " ")


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def _tools() -> dict[str, str | None]:
    return {name: shutil.which(name) for name in ("bwrap", "unshare", "mount", "sh")}


def _missing_tools() -> str | None:
    missing = [name for name, path in _tools().items() if path is None]
    if "bwrap" in missing:
        return "bubblewrap is not installed (Debian: apt-get install bubblewrap)"
    if missing:
        return f"{', '.join(missing)} not found (Debian's util-linux and mount provide them)"
    return None


def unavailable_reason() -> str | None:
    """Why programs cannot be sandboxed on this machine (None when they can)."""
    missing = _missing_tools()
    if missing is not None:
        return missing
    if not os.access(INTERPRETER, os.X_OK):
        return f"{INTERPRETER} is missing: the sandbox runs Debian's Python from /usr"
    probe = run_python("", limits=Limits(wall_seconds=10.0), check_available=False)
    if not probe.ok:
        return f"bubblewrap could not start a sandbox here: {probe.describe()}"
    return None


@functools.cache
def address_randomisation_off() -> bool:
    """Whether ``setarch -R`` may turn address-space randomisation off here (a container's seccomp
    profile may refuse the personality it needs; the sandbox then runs with it on)."""
    setarch = shutil.which("setarch")
    if setarch is None:
        return False
    try:
        done = subprocess.run([setarch, "-R", "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _settings(limits: Limits) -> list[str]:
    """What ``launch.py`` sets inside the sandbox, in the order it reads them."""
    return [
        str(value)
        for value in (
            limits.cpu_seconds,
            limits.memory_bytes,
            limits.processes,
            limits.file_bytes,
            limits.open_files,
            limits.clock_start,
            CLOCK_TICK_NS,
            limits.entropy_seed,
        )
    ]


def _command(folder: Path, limits: Limits) -> list[str]:
    missing = _missing_tools()
    if missing is not None:
        raise SandboxUnavailable(missing)
    tools = _tools()
    setarch = shutil.which("setarch")
    fixed_addresses = [setarch, "-R"] if setarch and address_randomisation_off() else []
    entropy = str(_entropy_file(limits.entropy_seed))
    return [
        str(tools["unshare"]), "--user", "--map-root-user", "--mount", "--propagation", "private",
        str(tools["sh"]), "-c", _MOUNT_TMP, "colosseum-sandbox",
        str(folder / "tmp"), str(limits.tmp_bytes), str(limits.tmp_files),
        *fixed_addresses,
        str(tools["bwrap"]),
        "--unshare-all",
        "--uid", str(NOBODY), "--gid", str(NOBODY),
        "--cap-drop", "ALL",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--setenv", "PATH", "/usr/bin",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "TZ", "UTC",
        "--setenv", "PYTHONHASHSEED", "0",
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin",
        "--size", str(_DEV_BYTES), "--tmpfs", "/dev",
        "--dev-bind", "/dev/null", "/dev/null",
        "--dev-bind", "/dev/zero", "/dev/zero",
        "--dev-bind", "/dev/full", "/dev/full",
        "--ro-bind", entropy, "/dev/urandom",
        "--ro-bind", entropy, "/dev/random",
        "--remount-ro", "/dev",
        "--bind", str(folder / "tmp"), "/tmp",
        "--ro-bind", str(folder / "job"), "/job",
        "--ro-bind", str(_launcher()), "/launch.py",
        "--remount-ro", "/",
        "--chdir", "/tmp",
        INTERPRETER, "-P", "-s", "-S", "/launch.py", *_settings(limits), f"/job/{PROGRAM}",
    ]  # fmt: skip


def _readable_directory(prefix: str) -> Path:
    # Readable by the unprivileged user the sandbox runs as; nothing in it is secret.
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    return folder


def _fixed_times(path: Path, clock_start: int) -> None:
    # The host's clock is not to be read off a file's times either.
    os.utime(path, (clock_start, clock_start), follow_symlinks=False)


@functools.cache
def _shared_folder() -> Path:
    folder = _readable_directory("colosseum-sandbox-launcher-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


@functools.cache
def _launcher() -> Path:
    """launch.py where the sandbox's user can read it (a package under /root may not be), once a process."""
    copy = _shared_folder() / "launch.py"
    shutil.copyfile(_LAUNCHER, copy)
    copy.chmod(0o644)
    _fixed_times(copy, Limits().clock_start)
    return copy


def entropy_bytes(seed: int, size: int = ENTROPY_FILE_BYTES) -> bytes:
    """What /dev/urandom and /dev/random hold for ``seed``: Python's Mersenne Twister from that seed."""
    return random.Random(seed).randbytes(size)


@functools.cache
def _entropy_file(seed: int) -> Path:
    path = _shared_folder() / f"entropy-{seed}"
    # Whole or not at all: two threads may make it at once.
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
    partial.write_bytes(entropy_bytes(seed))
    partial.chmod(0o444)
    _fixed_times(partial, Limits().clock_start)
    partial.replace(path)
    return path


def _run_folder(source: str, files: Mapping[str, bytes]) -> Path:
    """``job/`` (the program, its files and its input) and ``tmp/`` (where /tmp is mounted)."""
    folder = _readable_directory("colosseum-sandbox-")
    job, tmp = folder / "job", folder / "tmp"
    job.mkdir(mode=0o755)
    tmp.mkdir(mode=0o755)
    for name, data in {PROGRAM: source.encode("utf-8"), **files}.items():
        if "/" in name or name in ("", ".", "..", "stdin"):
            shutil.rmtree(folder, ignore_errors=True)
            raise ValueError(f"sandbox file name {name!r} must be a plain file name (not stdin)")
        (job / name).write_bytes(data)
        (job / name).chmod(0o644)
    return folder


def _unprivileged() -> tuple[list[str], dict[str, object]]:
    """How to start bubblewrap as ``nobody`` when this process is root: setpriv's exec keeps
    subprocess's fast spawn (a change of user in Popen forces a fork of this whole process)."""
    if os.geteuid() != 0:
        return [], {}
    setpriv = shutil.which("setpriv")
    if setpriv is not None:
        return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"], {}
    return [], {"user": NOBODY, "group": NOBODY, "extra_groups": []}


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def run_python(
    source: str,
    *,
    stdin: bytes = b"",
    files: Mapping[str, bytes] | None = None,
    limits: Limits | None = None,
    check_available: bool = True,
) -> SandboxRun:
    """Run the Python program ``source`` in the sandbox with ``stdin``; ``files`` are beside it in /job."""
    limits = limits or Limits()
    if check_available and not os.access(INTERPRETER, os.X_OK):
        raise SandboxUnavailable(f"{INTERPRETER} is missing: the sandbox runs Debian's Python from /usr")
    folder = _run_folder(source, files or {})
    try:
        return _run(folder, stdin, limits)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run(folder: Path, stdin: bytes, limits: Limits) -> SandboxRun:
    given_path = folder / "job" / "stdin"
    given_path.write_bytes(stdin)
    for path in (*(folder / "job").iterdir(), folder / "job"):
        _fixed_times(path, limits.clock_start)
    prefix, drop = _unprivileged()
    started = time.perf_counter()
    with given_path.open("rb") as given:
        process = subprocess.Popen(
            [*prefix, *_command(folder, limits)],
            stdin=given,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
            **drop,  # type: ignore[arg-type]
        )
    chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
    received = 0
    ended_by: str | None = None
    deadline = started + limits.wall_seconds
    with selectors.DefaultSelector() as selector:
        assert process.stdout is not None and process.stderr is not None
        selector.register(process.stdout, selectors.EVENT_READ, "stdout")
        selector.register(process.stderr, selectors.EVENT_READ, "stderr")
        while selector.get_map():
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                ended_by = "wall_limit"
                break
            for key, _ in selector.select(timeout=remaining):
                data = os.read(key.fd, 65536)
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                room = limits.output_bytes - received
                chunks[key.data].append(data[:room])
                received += len(data)
                if received > limits.output_bytes:
                    ended_by = "output_limit"
                    break
            if ended_by:
                break
    if ended_by:
        _kill(process)
    try:
        code = process.wait(timeout=max(deadline - time.perf_counter(), 0.5))
    except subprocess.TimeoutExpired:
        ended_by = ended_by or "wall_limit"
        _kill(process)
        code = process.wait()
    finally:
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    seconds = time.perf_counter() - started
    stdout, stderr = b"".join(chunks["stdout"]), b"".join(chunks["stderr"])
    if ended_by:
        return SandboxRun(ended_by, None, None, stdout, stderr, seconds)
    # bubblewrap exits with its child's code, or 128 + the signal that killed it. The CPU limit's
    # signal is SIGXCPU; a program that ignores it is killed a second later and ends as ``signal``.
    if code == 128 + signal.SIGXCPU:
        return SandboxRun("cpu_limit", None, signal.SIGXCPU, stdout, stderr, seconds)
    if code > 128:
        return SandboxRun("signal", None, code - 128, stdout, stderr, seconds)
    if code < 0:  # bubblewrap itself killed
        return SandboxRun("signal", None, -code, stdout, stderr, seconds)
    return SandboxRun("ok" if code == 0 else "exit", code, None, stdout, stderr, seconds)
