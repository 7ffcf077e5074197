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
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from colosseum_standins.loopback import free_port, wait_until_answering
from tests.conftest import Record
from tests.support import REPO

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

    def size(self, width: int, height: int) -> None:
        """The viewport's size in CSS pixels, as a phone or a desktop shows a page."""
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}
        self._call(
            "POST",
            f"{self.session}/goog/cdp/execute",
            {"cmd": "Emulation.setDeviceMetricsOverride", "params": metrics},
        )

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
    port = free_port()
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


HEADERS = """
return Array.from(document.querySelectorAll('th[scope=col]')).map(th => [th.innerText, th.title]);
"""
KEY = """
const key = document.querySelector('section#key');
if (!key) return null;
const r = key.getBoundingClientRect();
return {terms: Array.from(key.querySelectorAll('dt')).map(d => d.innerText), height: r.height,
        meanings: Array.from(key.querySelectorAll('dd')).map(d => d.innerText)};
"""
PANELS = """
return Array.from(document.querySelectorAll('svg > g')).map(g => {
  const texts = Array.from(g.querySelectorAll(':scope > text'));
  const [name, score] = texts;
  const a = name.getBBox(), b = score.getBBox();
  return {title: g.querySelector('title').textContent, texts: texts.map(t => t.textContent),
          marked: score.getAttribute('data-field'), gap: b.x - (a.x + a.width)};
});
"""
SEAT_NAMES = {
    "openai-flagship": "OpenAI flagship",
    "openai-small": "OpenAI small",
    "anthropic-flagship": "Anthropic flagship",
    "anthropic-small": "Anthropic small",
    "google-flagship": "Google flagship",
    "google-small": "Google small",
    "xai-flagship": "xAI flagship",
    "deepseek-flagship": "DeepSeek flagship",
    "mistral-flagship": "Mistral AI flagship",
    "meta-flagship": "Meta flagship",
    "alibaba-flagship": "Alibaba (Qwen) flagship",
    "moonshot-flagship": "Moonshot AI flagship",
    "cohere-flagship": "Cohere flagship",
}


def _check_headers(browser: Browser, page: str) -> None:
    headers = browser.js(HEADERS)
    assert headers, page
    untitled = [text for text, title in headers if not title.strip()]
    assert not untitled, (page, untitled)


def test_the_board_renders_in_headless_chromium(site: Path, browser: Browser) -> None:
    with serving(site) as base:
        browser.go(f"{base}/forecast/index.html")
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

        # The key, in plain words, above the boards: the method's public names with the recorded ones.
        key = browser.js(KEY)
        assert key is not None and key["height"] > 100
        assert key["terms"][:4] == [
            "RECORD",
            "CONFIDENCE (recorded as SHARP)",
            "VS MARKET (recorded as EDGE)",
            "FC SCORE (recorded as CROWN)",
        ]
        assert {"n and EARLY", "BAD FORMATTING"} <= set(key["terms"]) and all(key["meanings"])
        # Every column header of every table says what it is when hovered.
        _check_headers(browser, "index.html")
        titles = dict(browser.js(HEADERS))
        confidence = next(t for h, t in titles.items() if h.startswith("CONFIDENCE"))
        assert "recorded as SHARP" in confidence and "0–100" in confidence
        assert "recorded as CROWN" in next(t for h, t in titles.items() if h.startswith("FC SCORE"))
        # The interval note in words; its recipe opens from a <details>.
        assert "drawn again at random, with replacement" in text
        recipe = "return document.querySelector('.interval-note details').open"
        assert browser.js(recipe) is False
        browser.click_first(".interval-note details summary")
        assert browser.js(recipe) is True
        assert "question-clustered" in browser.js(
            "return document.querySelector('.interval-note details').innerText"
        )
        browser.js("document.querySelector('figure.standing').scrollIntoView()")
        browser.screenshot("board-index-standing.png")

        # A plot renders: every image on the page decoded to a real size.
        images = browser.js(IMAGES_LOADED)
        assert images and all(ok for _, ok in images), images
        assert any(src.endswith(".svg") for src, _ in images)

        # A card page, reached by clicking through as a reader would.
        browser.click_first("a[href^='cards/'][href$='index.html']")
        _check_headers(browser, "cards/index.html")
        browser.click_first("a[href$='.html'][href*='2026-11-20-1000']")
        assert browser.js("return location.pathname").endswith(".html")
        packet = browser.js("const p = document.querySelector('pre'); return p ? p.innerText : ''")
        assert "M01" in packet
        card_text = browser.js("return document.body.innerText")
        assert "2026-11-20-1000" in card_text
        card_key = browser.js(KEY)
        assert card_key is not None
        assert {"Listings, Swept, Ranked", "VS MARKET (EDGE)", "FC SCORE (CROWN)"} <= set(card_key["terms"])
        assert (
            "How the sweep's listings add up" in card_text
            and "Market listings counts every market" in card_text
        )
        _check_headers(browser, "card page")
        assert {"VS MARKET (EDGE)", "FC SCORE (CROWN)"} <= {h for h, _ in browser.js(HEADERS)}
        assert browser.screenshot("board-card.png").stat().st_size > 10_000

        # The standing plot on its own: a named panel per seat, none of its labels running into another.
        browser.go(f"{base}/forecast/plots/standing-calibration.svg")
        size = browser.js(
            "const s = document.querySelector('svg'); const r = s.getBoundingClientRect(); "
            "return [r.width, r.height]"
        )
        assert size[0] > 100 and size[1] > 100
        panels = browser.js(PANELS)
        assert len(panels) == 13
        assert sorted(p["title"] for p in panels) == sorted(f"{n} ({s})" for s, n in SEAT_NAMES.items())
        for panel in panels:
            assert panel["marked"] == "crown" and panel["gap"] > 0, panel
            assert panel["texts"][2].startswith("House "), panel  # the gladiator, by its readable name
        # Seats whose lines coincide are told apart by their panels, and each says it is not alone.
        alike = [p for p in panels if any(t.startswith("same line as") for t in p["texts"])]
        scores = [p["texts"][1] for p in alike]
        assert all(scores.count(s) > 1 for s in scores)
        browser.screenshot("board-standing.png")

    # And straight from the file system, with no server at all.
    browser.go((site / "forecast" / "index.html").as_uri())
    assert all(ok for _, ok in browser.js(IMAGES_LOADED))


LANDING = """
const arenas = Array.from(document.querySelectorAll('section.arena')).map(s => ({
  id: s.id, title: s.querySelector('h2').innerText,
  kinds: Array.from(s.querySelectorAll('section.lead')).map(k => [k.dataset.kind, k.innerText]),
  empty: s.querySelector(':scope > p.empty') ? s.querySelector(':scope > p.empty').innerText : null}));
const doc = document.documentElement;
return {arenas, overflow: doc.scrollWidth - doc.clientWidth,
        check: document.querySelector('section#check').innerText};
"""


def test_the_landing_page_renders_at_desktop_and_phone_widths(site: Path, browser: Browser) -> None:
    """The site's root is the front door: each arena, who leads in each kind, the way in; readable on
    a phone (no sideways scrolling) and on a desktop, with the screenshots kept."""
    with serving(site) as base:
        for width, name in ((1280, "landing-1280.png"), (390, "landing-390.png")):
            browser.size(width, 2000)
            browser.go(f"{base}/index.html")
            page = browser.js(LANDING)
            assert [a["id"] for a in page["arenas"]] == ["arena-forecast", "arena-debate", "arena-events"]
            forecast, debate, events = page["arenas"]
            assert forecast["title"] == "Forecasting" and [k for k, _ in forecast["kinds"]] == [
                "FIGHT",
                "CALIBRATION",
            ]
            kinds = dict(forecast["kinds"])
            assert "no FIGHT records yet" in kinds["FIGHT"]
            assert "Top seat by FC SCORE" in kinds["CALIBRATION"] and "FC SCORE" in kinds["CALIBRATION"]
            assert "Last changed: card 2026-11-20-" in kinds["CALIBRATION"]
            # A record of the forecast alone: the other arenas say they have none yet.
            assert debate["empty"] == events["empty"] == "No record yet."
            assert "colosseum verify SITE" in page["check"] and "`" not in page["check"]
            assert page["overflow"] <= 0, (width, page["overflow"])
            assert browser.screenshot(name).stat().st_size > 10_000
        # The way in: the forecasting board, one click away.
        browser.click_first("#arena-forecast h2 a")
        assert browser.js("return location.pathname") == "/forecast/index.html"
        assert "The board" in browser.js("return document.querySelector('h1').innerText")
        browser.click_first("nav.arenas a[href='../index.html']")
        assert browser.js("return location.pathname") == "/index.html"
    browser.size(1280, 1600)
