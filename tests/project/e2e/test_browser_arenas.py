"""The whole public site in a real browser (slow): a record of all three arenas (a settled card, three
debate epochs, a chess, a Solve-or-Object and a challenge event), built into one signed site, served
on loopback and read in headless Chromium at a desktop and a phone width (390 px).

Every board shows its pictures: each figure's SVG lays out at a real size, has a title and a text
alternative, and the page never scrolls sideways on a phone. A screenshot of each page at each width
is kept under ``test-artifacts/`` (``$COLOSSEUM_TEST_ARTIFACTS``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from colosseum_core.arenas import AUDITS, PUBLIC_SITE
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import publish_site
from colosseum_core.trust.keys import KeyStore
from colosseum_core.verify import verify_site
from tests.conftest import cli
from tests.project.e2e.test_browser import Browser, serving
from tests.project.e2e.test_browser import browser as browser
from tests.support.debate import OTHERS, Arena, debate_servers, enter

pytestmark = pytest.mark.slow

CARD = "2026-11-20-0500"
CHESS, SOO, CHALLENGE = "chess-pictures", "soo-pictures", "ch-pictures"
BUILT = dt.datetime(2027, 1, 4, 12, 0, tzinfo=dt.UTC)
EPOCHS = 3

FIGURES = """
const doc = document.documentElement;
return {
  overflow: doc.scrollWidth - doc.clientWidth,
  figures: Array.from(document.querySelectorAll('figure.chart')).map(f => {
    const svg = f.querySelector('svg');
    const r = svg.getBoundingClientRect(), box = f.getBoundingClientRect();
    return {id: f.id, caption: f.querySelector('figcaption').innerText,
            title: svg.querySelector(':scope > title').textContent,
            desc: svg.querySelector(':scope > desc').textContent,
            width: r.width, height: r.height, right: box.right, view: window.innerWidth,
            scrolls: f.scrollWidth > f.clientWidth};
  }),
  images: Array.from(document.images).map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]),
};
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from tests.support.chess import need_stockfish
    from tests.support.sandbox import need_sandbox

    need_stockfish()
    need_sandbox()
    data = tmp_path_factory.mktemp("arenas-in-a-browser") / "data"
    assert cli("forecast", "card", "run", CARD, "--markets", "800", "--data", str(data)) == 0
    assert (
        cli("forecast", "settle", "--at", "2026-12-30T00:00:00Z", "--markets", "800", "--data", str(data))
        == 0
    )
    with debate_servers() as (ledger_url, ledger, sparring, exchange):
        enter(ledger, OTHERS)
        arena = Arena(data, ledger_url, ledger, sparring, exchange)
        for _ in range(EPOCHS):
            arena.epoch()
    chess = [
        "events",
        "chess",
        "event",
        "freeze",
        CHESS,
        "--lines",
        "1",
        "--seed",
        "7",
        "--replicates",
        "199",
    ]
    for contender in ("stockfish-n1", "stockfish-n100", "openai-frontier", "house-illegal"):
        chess += ["--contender", contender]
    assert cli(*chess, "--data", str(data)) == 0
    soo = ("--pairs", "3", "--seed", "11", "--replicates", "199")
    assert cli("events", "solve-or-object", "event", "freeze", SOO, *soo, "--data", str(data)) == 0
    challenge = ("--slots", "2", "--seed", "5", "--replicates", "199")
    assert cli("events", "challenges", "event", "freeze", CHALLENGE, *challenge, "--data", str(data)) == 0
    for kind, event in (("chess", CHESS), ("solve-or-object", SOO), ("challenges", CHALLENGE)):
        assert cli("events", kind, "event", "run", event, "--data", str(data)) == 0
    out = tmp_path_factory.mktemp("arenas-site") / "site"
    built = publish_site(PUBLIC_SITE, Record(data), KeyStore.for_data(data), out, built_at=BUILT).site
    report = verify_site(built, AUDITS)
    assert report.ok(), report.problems[:5]
    yield built


def _miner_page(site: Path) -> str:
    pages = sorted((site / "debate" / "miners").glob("*.html"))
    assert pages, "no miner page"
    return f"debate/miners/{pages[0].name}"


# Each page, and the pictures it must show (by a word of their captions).
PAGES: dict[str, tuple[str, ...]] = {
    "index.html": (),
    "forecast/index.html": ("CONFIDENCE", "VS MARKET"),
    "debate/index.html": ("Bradley–Terry", "Head to head"),
    "debate/crown.html": ("crown",),
    "events/index.html": (),
    f"events/{CHESS}/index.html": ("rating", "Head to head"),
    f"events/{SOO}/index.html": ("score", "share defective"),
    f"events/{CHALLENGE}/index.html": ("olving",),
}


@pytest.mark.parametrize("width", [1280, 390])
def test_every_board_shows_its_pictures_at_desktop_and_phone_widths(
    site: Path,
    browser: Browser,
    width: int,
) -> None:
    pages = {**PAGES, _miner_page(site): ("Elo",)}
    with serving(site) as base:
        browser.size(width, 1600)
        try:
            for page, wanted in pages.items():
                browser.go(f"{base}/{page}")
                found: dict[str, Any] = browser.js(FIGURES)
                assert found["overflow"] <= 0, (page, width, found["overflow"])
                assert all(ok for _, ok in found["images"]), (page, found["images"])
                figures = found["figures"]
                for figure in figures:
                    assert figure["title"] and figure["desc"] and figure["caption"], (page, figure["id"])
                    assert figure["width"] > 100 and figure["height"] > 50, (page, figure)
                    # Never cut at the page's edge: a chart wider than a phone scrolls inside its figure.
                    assert figure["right"] <= figure["view"] + 1, (page, figure)
                    assert figure["width"] >= 420 or not figure["scrolls"], (page, figure)
                captions = " ".join(f["caption"] for f in figures)
                missing = [word for word in wanted if word.lower() not in captions.lower()]
                assert not missing, (page, missing, captions)
                name = page.replace("/", "-").removesuffix(".html")
                shot = browser.screenshot(f"site-{width}-{name}.png")
                assert shot.stat().st_size > 5_000
        finally:
            browser.size(1280, 1600)
