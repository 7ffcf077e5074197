"""The public board in a real browser: served on loopback, driven in headless Chromium over WebDriver.

The WebDriver protocol is plain HTTP, spoken here with httpx to Debian's chromedriver. `.ci/run`
installs chromium and chromium-driver and sets COLOSSEUM_REQUIRE_BROWSER=1, so in CI a missing
browser fails the test instead of skipping it. A screenshot of each page is kept as a test artifact
under ``test-artifacts/`` (or ``$COLOSSEUM_TEST_ARTIFACTS``).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.server
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from colosseum_core.loopback import wait_until_answering
from tests.conftest import REPO, Record

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver")
ARTIFACTS = Path(os.environ.get("COLOSSEUM_TEST_ARTIFACTS", REPO / "test-artifacts"))

if not (CHROMIUM and CHROMEDRIVER):
    if os.environ.get("COLOSSEUM_REQUIRE_BROWSER") == "1":
        raise RuntimeError("COLOSSEUM_REQUIRE_BROWSER=1 but chromium and chromedriver are not both installed")
    pytest.skip("headless Chromium and chromedriver are not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def site(published: Record) -> Path:
    return published.root / "site"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(directory: Path) -> Iterator[str]:
    """Any static host will do: the standard library's, on a loopback port."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class Browser:
    """The few WebDriver commands the test needs (W3C WebDriver, over HTTP)."""

    def __init__(self, driver_url: str) -> None:
        self.http = httpx.Client(base_url=driver_url, timeout=60)
        options = {
            "binary": CHROMIUM,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1600"],
        }
        reply = self._call(
            "POST", "/session", {"capabilities": {"alwaysMatch": {"goog:chromeOptions": options}}}
        )
        self.session = f"/session/{reply['sessionId']}"

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self.http.request(method, path, json=body)
        value = response.json()["value"]
        if response.status_code != 200:
            raise AssertionError(f"WebDriver {method} {path}: {response.status_code} {value}")
        return value

    def go(self, url: str) -> None:
        self._call("POST", f"{self.session}/url", {"url": url})

    def js(self, script: str, *args: Any) -> Any:
        return self._call("POST", f"{self.session}/execute/sync", {"script": script, "args": list(args)})

    def click_first(self, selector: str) -> None:
        found = self._call("POST", f"{self.session}/element", {"using": "css selector", "value": selector})
        element = next(iter(found.values()))
        self._call("POST", f"{self.session}/element/{element}/click", {})

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / name
        path.write_bytes(base64.b64decode(self._call("GET", f"{self.session}/screenshot")))
        return path

    def close(self) -> None:
        with contextlib.suppress(httpx.HTTPError, AssertionError):
            self._call("DELETE", self.session)
        self.http.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    port = _free_port()
    driver = subprocess.Popen(
        [CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_until_answering(f"http://127.0.0.1:{port}/status", timeout_s=30)
        session = Browser(f"http://127.0.0.1:{port}")
        try:
            yield session
        finally:
            session.close()
    finally:
        driver.terminate()
        driver.wait(timeout=10)


IMAGES_LOADED = """
const images = Array.from(document.images);
return images.map(img => [img.getAttribute('src'), img.complete && img.naturalWidth > 0]);
"""


def test_the_board_renders_in_headless_chromium(site: Path, browser: Browser) -> None:
    with serving(site) as base:
        browser.go(f"{base}/index.html")
        assert "Colosseum" in browser.js("return document.title")
        rows = browser.js(
            "return Array.from(document.querySelectorAll('table')).map("
            "t => [t.closest('section') ? t.closest('section').id : '', "
            "t.querySelectorAll('tbody tr').length])"
        )
        calibration_rows = sum(n for section, n in rows if "calibration" in section.lower())
        assert calibration_rows >= 13, rows  # every seat on the CALIBRATION board
        text = browser.js("return document.body.innerText")
        assert "no FIGHT records yet" in text and "CROWN" in text
        assert browser.screenshot("board-index.png").stat().st_size > 10_000

        # A plot renders: every image on the page decoded to a real size.
        images = browser.js(IMAGES_LOADED)
        assert images and all(ok for _, ok in images), images
        assert any(src.endswith(".svg") for src, _ in images)

        # A card page, reached by clicking through as a reader would.
        browser.click_first("a[href^='cards/'][href$='index.html']")
        browser.click_first("a[href$='.html'][href*='2026-11-20-1000']")
        assert browser.js("return location.pathname").endswith(".html")
        packet = browser.js("const p = document.querySelector('pre'); return p ? p.innerText : ''")
        assert "M01" in packet
        assert "2026-11-20-1000" in browser.js("return document.body.innerText")
        assert browser.screenshot("board-card.png").stat().st_size > 10_000

        # The standing plot on its own.
        browser.go(f"{base}/plots/standing-calibration.svg")
        size = browser.js(
            "const s = document.querySelector('svg'); const r = s.getBoundingClientRect(); "
            "return [r.width, r.height]"
        )
        assert size[0] > 100 and size[1] > 100
        browser.screenshot("board-standing.png")

    # And straight from the file system, with no server at all.
    browser.go((site / "index.html").as_uri())
    assert all(ok for _, ok in browser.js(IMAGES_LOADED))
