"""Serve an ASGI app on a free loopback port, in a background thread or a child process (tests,
benchmarks, CLI runs)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import httpx
import uvicorn


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now (the OS's pick), for a server about to bind it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def wait_until_answering(
    url: str, *, timeout_s: float = 30.0, alive: Callable[[], bool] = lambda: True
) -> None:
    """Poll ``url`` until it answers 200; RuntimeError if ``alive`` turns false or time runs out."""
    deadline = time.monotonic() + timeout_s
    while True:
        if not alive():
            raise RuntimeError(f"the server for {url} stopped before it answered")
        try:
            if httpx.get(url, timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer within {timeout_s} s")
        time.sleep(0.02)


def uvicorn_config(app: Any, host: str = "127.0.0.1", port: int = 0) -> uvicorn.Config:
    """Quiet, lifespan-free, quick to shut down: how every project server runs under uvicorn."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=2,
    )


@contextlib.contextmanager
def running_app(
    app: Any,
    *,
    host: str = "127.0.0.1",
    ready_path: str = "/status",
    startup_timeout_s: float = 30.0,
    join_on_exit: bool = True,
) -> Iterator[str]:
    """Start ``app`` under uvicorn on a port the OS picks, yield its base URL, stop it on exit.

    ``join_on_exit=False`` asks the server to stop and returns at once, for a command about to end:
    uvicorn notices at its next tick (a tenth of a second) and closes its socket itself; a test or a
    longer process keeps the default, which returns once it has."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(app, host, port))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name=f"loopback:{port}"
    )
    thread.start()
    base_url = f"http://{host}:{port}"
    try:
        wait_until_answering(base_url + ready_path, timeout_s=startup_timeout_s, alive=thread.is_alive)
        yield base_url
    finally:
        server.should_exit = True
        if join_on_exit:
            thread.join(timeout=15.0)
            sock.close()


@dataclasses.dataclass(frozen=True)
class ServerProcess:
    """A server running in a child process: its base URL and the child's process id."""

    url: str
    pid: int


@contextlib.contextmanager
def running_process(
    argv: Sequence[str],
    *,
    host: str = "127.0.0.1",
    ready_path: str = "/status",
    startup_timeout_s: float = 60.0,
    wait_ready: bool = True,
) -> Iterator[ServerProcess]:
    """Run ``argv`` (a Python module serving on the listening socket it is handed) in a child process.

    The socket is bound here, on a port the OS picks, and passed as ``--fd N`` so there is no race
    for the port; the child must serve on it. A server in its own process keeps its CPU and memory
    out of the caller's: on two cores the simulated exchange and the sweep then run side by side
    instead of sharing one interpreter lock, as a real exchange and its client would.

    ``wait_ready=False`` yields at once, for a caller with its own work to do while the child starts
    (a command loading Dagster): the socket already listens, so a request made before the child
    serves waits in its backlog, and one made after the child died is refused, the child holding the
    socket's only copy.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    fd = sock.fileno()
    child = subprocess.Popen([sys.executable, "-m", *argv, "--fd", str(fd)], pass_fds=(fd,))
    sock.close()  # the child holds its own copy
    base_url = f"http://{host}:{port}"
    try:
        alive = lambda: child.poll() is None  # noqa: E731
        if wait_ready:
            wait_until_answering(base_url + ready_path, timeout_s=startup_timeout_s, alive=alive)
        yield ServerProcess(base_url, child.pid)
    finally:
        child.terminate()
        try:
            child.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def exit_with_parent(poll_s: float = 0.25) -> None:
    """End this process (SIGTERM to itself, so the server shuts down as on ``terminate``) when the
    process that started it is gone, whatever killed that one: a child server must never outlive the
    command it serves (a ``kill -9`` of the command runs none of its clean-up). The parent's death shows
    as a new parent process id (the orphan is adopted); polling it needs no help from the parent and
    holds whichever thread of it started the child."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


def serve_on_fd(app: Any, fd: int) -> None:
    """Serve ``app`` on the listening socket ``fd`` (handed over by ``running_process``) until SIGTERM,
    or until the process that started it is gone."""
    exit_with_parent()
    sock = socket.socket(fileno=fd)
    host, port = sock.getsockname()[:2]
    uvicorn.Server(uvicorn_config(app, host, port)).run(sockets=[sock])
