"""A trial's page in headless Chromium (the WebDriver helpers of ``tests/project/e2e/test_browser.py``):
its table and key laid out readably at a desktop width, and one screenshot kept as a test artifact."""

from __future__ import annotations

from pathlib import Path

from colosseum_core.record.layout import Record
from colosseum_core.site.trials import trial_page_name
from tests.project.e2e.test_browser import Browser, serving
from tests.project.e2e.test_browser import browser as browser

LAYOUT = """
const table = document.querySelector('main table');
const key = document.querySelector('section#key');
return {rows: table.querySelectorAll('tbody tr').length, tableWidth: table.getBoundingClientRect().width,
        viewport: document.documentElement.clientWidth,
        terms: Array.from(key.querySelectorAll('dt')).map(d => d.innerText),
        title: document.title, h1: document.querySelector('h1').innerText};
"""


def test_a_trial_page_renders_in_headless_chromium(built: tuple[Record, Path, str], browser: Browser) -> None:
    _, site, trial = built
    with serving(site) as url:
        browser.size(1280, 900)
        browser.go(f"{url}/index.html")
        browser.click_first("section#trials li a")
        assert browser.js("return location.pathname") == f"/{trial_page_name(trial)}"
        seen = browser.js(LAYOUT)
        shot = browser.screenshot("trial-page.png")
    assert seen["rows"] == 2 and seen["tableWidth"] <= seen["viewport"]
    assert seen["terms"][:3] == ["Trial", "Part", "State"]
    assert seen["h1"].startswith("Trial of openai/acme") and "U+202E" in seen["h1"]
    assert shot.stat().st_size > 10_000
