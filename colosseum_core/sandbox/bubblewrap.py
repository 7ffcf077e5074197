"""COLOSSEUM-SANDBOX-1: a Python program run under bubblewrap, contained and limited.

What a sandboxed program sees and may do:

- **No network.** Its own network namespace, with only a loopback that is down.
- **None of the host's files.** The root is empty but for ``/usr`` (read-only, for the interpreter
  and its standard library), ``/proc`` and ``/dev`` of its own, a private ``/tmp`` (a tmpfs of
  ``tmp_bytes``), ``/job`` (read-only: the program and its input) and ``/launch.py`` (read-only,
  below). No ``/etc``, ``/home``,
  ``/root``, the record or the project.
- **Not root.** Run as root, the sandbox first drops to ``nobody`` (65534): the kernel exempts
  root from the process limit. bubblewrap then makes an unprivileged user namespace.
- **Limits,** set by ``launch.py`` inside the sandbox, after the namespaces exist, so that the
  process limit counts the sandbox's own processes only (set outside, it would count every process
  of the same user on the machine): CPU seconds (``SIGXCPU``, then ``SIGKILL`` a second later),
  address space, processes, the size of any file written, open files, no core dumps. Outside, the
  caller enforces the wall time and the output size, killing the whole sandbox when either is
  exceeded; ``--die-with-parent`` and the PID namespace take every process in it down with it.

The outcome is one of ``OUTCOMES``: ``ok`` (exit 0), ``exit`` (another exit code), ``cpu_limit``,
``wall_limit``, ``output_limit``, ``signal`` (killed by another signal). A program that runs out of
memory raises ``MemoryError`` and so ends as ``exit`` with the error on stderr.

Interpreter: Debian's ``/usr/bin/python3`` (the sandbox binds ``/usr`` only, so a virtualenv's or
pyenv's interpreter is out of reach), started isolated (``-I``) and without ``site`` (``-S``),
with a fixed hash seed. The seconds a run took are measured, never recorded with a result.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Final

SANDBOX_VERSION: Final = "COLOSSEUM-SANDBOX-1"
OUTCOMES: Final = ("ok", "exit", "cpu_limit", "wall_limit", "output_limit", "signal")
INTERPRETER: Final = "/usr/bin/python3"
NOBODY: Final = 65534
PROGRAM: Final = "program.py"
_LAUNCHER: Final = Path(__file__).with_name("launch.py")
_MIB: Final = 1024 * 1024


class SandboxUnavailable(RuntimeError):
    """bubblewrap or the interpreter is missing, or the kernel refuses the namespaces it needs."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """The limits of one run; every field is recorded beside what the run produced."""

    cpu_seconds: int = 2
    wall_seconds: float = 5.0
    memory_bytes: int = 256 * _MIB
    processes: int = 16
    output_bytes: int = 1 * _MIB  # stdout and stderr together
    file_bytes: int = 8 * _MIB  # any one file the program writes
    tmp_bytes: int = 16 * _MIB  # the whole of /tmp
    open_files: int = 64

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"sandbox limit {field.name} must be a positive number, not {value!r}")

    def as_record(self) -> dict[str, float | int]:
        return dataclasses.asdict(self)


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


def unavailable_reason() -> str | None:
    """Why programs cannot be sandboxed on this machine (None when they can)."""
    if bwrap_path() is None:
        return "bubblewrap is not installed (Debian: apt-get install bubblewrap)"
    if not os.access(INTERPRETER, os.X_OK):
        return f"{INTERPRETER} is missing: the sandbox runs Debian's Python from /usr"
    probe = run_python("", limits=Limits(wall_seconds=10.0), check_available=False)
    if not probe.ok:
        return f"bubblewrap could not start a sandbox here: {probe.describe()}"
    return None


def _command(job: Path, limits: Limits) -> list[str]:
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap is not installed (Debian: apt-get install bubblewrap)")
    return [
        bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--setenv", "PATH", "/usr/bin",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "PYTHONHASHSEED", "0",
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin",
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(limits.tmp_bytes),
        "--tmpfs", "/tmp",
        "--ro-bind", str(job), "/job",
        "--ro-bind", str(_launcher()), "/launch.py",
        "--chdir", "/tmp",
        INTERPRETER, "-I", "-S", "/launch.py",
        str(limits.cpu_seconds),
        str(limits.memory_bytes),
        str(limits.processes),
        str(limits.file_bytes),
        str(limits.open_files),
        f"/job/{PROGRAM}",
    ]  # fmt: skip


def _readable_directory(prefix: str) -> Path:
    # Readable by the unprivileged user the sandbox runs as; nothing in it is secret.
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    return folder


@functools.cache
def _launcher() -> Path:
    """launch.py where the sandbox's user can read it (a package under /root may not be), once a process."""
    folder = _readable_directory("colosseum-sandbox-launcher-")
    atexit.register(shutil.rmtree, folder, True)
    copy = folder / "launch.py"
    shutil.copyfile(_LAUNCHER, copy)
    copy.chmod(0o644)
    return copy


def _job_directory(source: str, files: Mapping[str, bytes]) -> Path:
    job = _readable_directory("colosseum-sandbox-")
    for name, data in {PROGRAM: source.encode("utf-8"), **files}.items():
        if "/" in name or name in ("", ".", "..", "stdin"):
            raise ValueError(f"sandbox file name {name!r} must be a plain file name (not stdin)")
        (job / name).write_bytes(data)
        (job / name).chmod(0o644)
    return job


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
    job = _job_directory(source, files or {})
    try:
        return _run(job, stdin, limits)
    finally:
        shutil.rmtree(job, ignore_errors=True)


def _run(job: Path, stdin: bytes, limits: Limits) -> SandboxRun:
    (job / "stdin").write_bytes(stdin)
    prefix, drop = _unprivileged()
    started = time.perf_counter()
    with (job / "stdin").open("rb") as given:
        process = subprocess.Popen(
            [*prefix, *_command(job, limits)],
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
