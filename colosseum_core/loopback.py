"""Serve an ASGI app on a free loopback port in a background thread (tests, benchmarks, CLI runs)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import uvicorn


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
    app: Any, *, host: str = "127.0.0.1", ready_path: str = "/status", startup_timeout_s: float = 30.0
) -> Iterator[str]:
    """Start ``app`` under uvicorn on a port the OS picks, yield its base URL, stop it on exit."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name=f"loopback:{port}"
    )
    thread.start()
    base_url = f"http://{host}:{port}"
    try:
        deadline = time.monotonic() + startup_timeout_s
        while True:
            if not thread.is_alive():
                raise RuntimeError(f"server on {base_url} failed to start")
            try:
                if httpx.get(base_url + ready_path, timeout=2.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"server on {base_url} did not answer {ready_path} within {startup_timeout_s} s"
                )
            time.sleep(0.02)
        yield base_url
    finally:
        server.should_exit = True
        thread.join(timeout=15.0)
        sock.close()
