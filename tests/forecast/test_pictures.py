"""The forecast board's interval charts: CONFIDENCE and VS MARKET beside each standings table.

Every test builds the board from a real record (the records of ``test_board_site``: cards written,
answered, settled and scored table by table as the arena writes them) and reads the page back.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import xml.etree.ElementTree as ET
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.site import build_site, site_problems
from colosseum_core.forecast.site.names import gladiator_name
from colosseum_core.record import RecordTables
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.site.formats import hidden_in
from tests.forecast.test_board_site import (
    BETA,
    BUILT_AT,
    CARD_A,
    HOSTILE,
    SEATS,
    _rebuild_boards,
    _score,
    make_hostile_record,
    make_record,
)

SVG = "{http://www.w3.org/2000/svg}"
SEAT_NAMES = {s.id: f"{s.company} {s.line}" for s in SEATS}
TITLES = {"sharp": "CONFIDENCE", "edge": "VS MARKET"}
DIGITS = {"sharp": 1, "edge": 4}


@dataclasses.dataclass(frozen=True)
class Figure:
    ident: str
    caption: str
    svg: ET.Element
    html: str

    @property
    def title(self) -> str:
        return str(self.svg.findtext(f"{SVG}title"))

    @property
    def desc(self) -> str:
        return str(self.svg.findtext(f"{SVG}desc"))


def figures(html: str) -> dict[str, Figure]:
    """Every inline chart of a page by its id, its SVG parsed as XML (so it must be well-formed)."""
    found = {}
    for match in re.finditer(r'<figure class="chart" id="([^"]+)">(.*?)</figure>', html, re.S):
        body = match.group(2)
        caption = re.search(r"<figcaption>(.*?)</figcaption>", body, re.S)
        svg = re.search(r"<svg .*</svg>", body, re.S)
        assert caption is not None and svg is not None, match.group(1)
        found[match.group(1)] = Figure(
            match.group(1), unescape(caption.group(1)), ET.fromstring(svg.group(0)), body
        )
    return found


def section(html: str, kind: str) -> str:
    found = re.search(rf'<section id="{kind.lower()}".*?</section>', html, re.S)
    assert found is not None, kind
    return found.group(0)


def table_order(html: str, kind: str, entrant_type: str) -> list[str]:
    """The leaderboard row ids of the table of ``kind`` by ``entrant_type``, top to bottom."""
    caption = f"<caption>{kind} · by {entrant_type}</caption>"
    table = section(html, kind).split(caption, 1)[1].split("</table>", 1)[0]
    return re.findall(r'data-table="leaderboard" data-id="([^"]+)" data-field="entrant"', table)


def board_rows(tables: RecordTables) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in tables.read("leaderboard").iter_rows(named=True)}


def shown_name(row: dict[str, Any]) -> str:
    entrant = str(row["entrant"])
    return SEAT_NAMES[entrant] if row["entrant_type"] == "seat" else gladiator_name(entrant)


def said(row: dict[str, Any], field: str, name: str) -> str:
    """What the text alternative says of ``row``: its name, its point and range as the record has them."""
    digits = DIGITS[field]
    point, low, high = (row[f] for f in (field, f"{field}_low", f"{field}_high"))
    return f"{name}: {point:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}], no placement"


@pytest.fixture(scope="module")
def record_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pictures") / "data"
    make_record(root)
    return root


@pytest.fixture(scope="module")
def built(record_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pictures-site") / "site"
    build_site(RecordLayout(record_root).tables(FORECAST), out, seats=SEATS, built_at=BUILT_AT)
    return out


def test_each_standings_table_has_its_confidence_and_vs_market_chart(built: Path, record_root: Path) -> None:
    tables = RecordLayout(record_root).tables(FORECAST)
    board = board_rows(tables)
    html = (built / "index.html").read_text(encoding="utf-8")
    charts = figures(html)
    drawn = 0
    for kind in ("FIGHT", "CALIBRATION"):
        part = section(html, kind)
        for entrant_type in ("seat", "gladiator"):
            order = table_order(html, kind, entrant_type)
            expected = {i for i, r in board.items() if (r["kind"], r["entrant_type"]) == (kind, entrant_type)}
            assert order and set(order) == expected, (kind, entrant_type)
            for field in ("sharp", "edge"):
                ident = f"{kind.lower()}-{entrant_type}-{field}"
                chart = charts[ident]
                drawn += 1
                # In its kind's section, after its table; a title, a caption and the ARIA wiring.
                assert f'id="{ident}"' in part
                assert part.index(f"<caption>{kind} · by {entrant_type}</caption>") < part.index(
                    f'id="{ident}"'
                )
                title = f"{TITLES[field]} by {entrant_type}, {kind}: point and 95% range"
                assert chart.title == chart.caption == title
                assert chart.svg.get("role") == "img"
                assert chart.svg.get("aria-labelledby") == f"{ident}-t {ident}-d"
                # The text alternative gives every row, in the table's order, as the record has it.
                rows = [board[i] for i in order]
                words = [said(r, field, shown_name(r)) for r in rows]
                assert chart.desc == f"{title}. " + chart.desc.split(". ", 1)[1]
                at = [chart.desc.index(w) for w in words]
                assert at == sorted(at), (ident, chart.desc)
                assert chart.desc.count("no placement") == len(rows)
                # A dot and a bar per row, the place column a dash: this board places no one.
                assert len(chart.svg.findall(f"{SVG}circle")) == len(rows)
                places = [t.text for t in chart.svg.findall(f"{SVG}text") if t.get("font-weight") == "600"]
                assert places == ["–"] * len(rows)
                # VS MARKET has the market's line at 0, dashed; CONFIDENCE has none.
                dashed = [e for e in chart.svg.findall(f"{SVG}line") if e.get("stroke-dasharray")]
                assert len(dashed) == (1 if field == "edge" else 0), ident
                # The re-check reads marked values back: the chart marks none.
                assert "data-table" not in chart.html
    assert drawn == 8 and len(charts) == 8
    # The card with the two gladiators of alpha's seat: each its own row, named as the table names it.
    calibration = charts["calibration-gladiator-sharp"].desc
    assert "Alpha 1: " in calibration or "Alpha 2: " in calibration
    assert 'href="data/leaderboard.parquet"' in section(html, "FIGHT")
    assert site_problems(built, RecordLayout(record_root).tables(FORECAST), SEATS) == []


def test_vs_market_s_zero_line_sits_at_zero(built: Path) -> None:
    html = (built / "index.html").read_text(encoding="utf-8")
    chart = figures(html)["fight-seat-edge"].svg
    [zero] = [e for e in chart.findall(f"{SVG}line") if e.get("stroke-dasharray")]
    # The axis's ticks are placed by the same scale: the zero line stands where a "0" tick would.
    ticks = {
        t.text: float(t.get("x") or 0)
        for t in chart.findall(f"{SVG}text")
        if t.get("text-anchor") == "middle"
    }
    numbers = {float(k.replace("−", "-")): x for k, x in ticks.items() if re.fullmatch(r"−?[0-9.]+", k or "")}
    (v0, x0), (v1, x1) = sorted(numbers.items())[:2]
    expected = x0 + (0 - v0) / (v1 - v0) * (x1 - x0)
    assert abs(float(zero.get("x1") or 0) - expected) < 0.02


def test_a_hostile_seat_and_model_stay_text_in_the_charts(tmp_path: Path) -> None:
    hostile = 'Beta <b>"bold"</b> ]]> <!-- \u202e\u200b\x00 end'
    seats = tuple(dataclasses.replace(s, company=hostile) if s.id == BETA else s for s in SEATS)
    tables = make_hostile_record(tmp_path / "data")  # beta's model is beta-\u202e1\u200b
    out = tmp_path / "site"
    build_site(tables, out, seats=seats, built_at=BUILT_AT)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert not [c for c in HOSTILE if c in html] and hidden_in(unescape(html)) == []
    assert html.count("<figure") == html.count("</figure>") and html.count("<svg") == html.count("</svg>")
    charts = figures(html)
    seat_chart, model_chart = charts["fight-seat-sharp"], charts["fight-gladiator-edge"]
    drawn = {e.tag.removeprefix(SVG) for chart in charts.values() for e in chart.svg.iter()}
    assert drawn <= {"svg", "title", "desc", "rect", "line", "text", "circle"}  # no label became markup
    # The label reads as its text, each hidden code point shown as its escape.
    shown = 'Beta <b>"bold"</b> ]]> <!-- U+202EU+200BU+0000 end small'
    assert f"{shown}: " in seat_chart.desc
    assert shown in [t.findtext(f"{SVG}title") for t in seat_chart.svg.iter(f"{SVG}text")]
    assert "Beta U+202E1U+200B: " in model_chart.desc  # the model read as a name, its escapes kept
    assert "Beta &lt;b&gt;&quot;bold&quot;&lt;/b&gt; ]]&gt; &lt;!-- U+202E" in seat_chart.html
    assert site_problems(out, tables, seats) == []


def _private(record_root: Path, tmp_path: Path) -> RecordTables:
    shutil.copytree(record_root, tmp_path / "data")
    return RecordLayout(tmp_path / "data").tables(FORECAST)


def test_a_board_whose_only_card_settled_void_says_nothing_is_scored(
    record_root: Path, tmp_path: Path
) -> None:
    tables = _private(record_root, tmp_path)
    _score(tables, CARD_A, [None, None, None])  # card A settled 50-50 throughout: counted, never scored
    _rebuild_boards(tables)
    fight = [r for r in board_rows(tables).values() if r["kind"] == "FIGHT"]
    assert fight and all(r["sharp"] is None and r["edge_low"] is None for r in fight)
    build_site(tables, tmp_path / "out", seats=SEATS, built_at=BUILT_AT)
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    part = section(html, "FIGHT")
    assert part.count("Nothing is scored yet on this board") == 2  # under the seats' and gladiators' tables
    charts = figures(html)
    for entrant_type in ("seat", "gladiator"):
        for field in ("sharp", "edge"):
            chart = charts[f"fight-{entrant_type}-{field}"]
            rows = [r for r in fight if r["entrant_type"] == entrant_type]
            for row in rows:
                assert f"{shown_name(row)}: nothing counted, no placement" in chart.desc
            assert not chart.svg.findall(f"{SVG}circle")
            assert [t.text for t in chart.svg.iter(f"{SVG}text")].count("nothing counted") == len(rows)
    assert "Nothing is scored yet" not in section(html, "CALIBRATION")  # card B is scored
    assert site_problems(tmp_path / "out", tables, SEATS) == []


def test_a_board_with_no_card_of_a_kind_says_it_has_no_chart_yet(record_root: Path, tmp_path: Path) -> None:
    tables = _private(record_root, tmp_path)
    for table in ("packet", "sweeps", "card_questions", "ranked_candidates", "answers", "answer_lines"):
        shutil.rmtree(tables.path(table, CARD_A).parent)
    for table in ("answer_signatures", "public_keys", "settlements", "settlement_reviews", "scores"):
        shutil.rmtree(tables.path(table, CARD_A).parent)
    _rebuild_boards(tables)
    build_site(tables, tmp_path / "out", seats=SEATS, built_at=BUILT_AT)
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    part = section(html, "FIGHT")
    assert "No CONFIDENCE or VS MARKET chart yet: nothing is scored on this board." in part
    assert "<figure" not in part
    assert {ident for ident in figures(html)} == {
        f"calibration-{t}-{f}" for t in ("seat", "gladiator") for f in ("sharp", "edge")
    }
    assert site_problems(tmp_path / "out", tables, SEATS) == []


def test_two_rows_that_read_alike_are_told_apart_by_their_ids(record_root: Path) -> None:
    from colosseum_core.forecast.site import pages

    rows = [
        r
        for r in board_rows(RecordLayout(record_root).tables(FORECAST)).values()
        if (r["kind"], r["entrant_type"]) == ("FIGHT", "gladiator")
    ]
    # Two model ids the board reads as one name, "GPT-5", and a third with its own.
    renamed = [{**r, "entrant": m} for r, m in zip(rows, ("gpt-5", "gpt_5"), strict=True)]
    renamed.append({**rows[0], "id": "other", "entrant": "claude-opus-4-1"})
    html = pages.interval_charts(renamed, kind="FIGHT", entrant_type="gladiator", ident="t", seat_names={})
    desc = figures(html)["t-sharp"].desc
    assert "GPT-5 (gpt-5): " in desc and "GPT-5 (gpt_5): " in desc
    assert "Claude Opus 4.1: " in desc and "claude-opus-4-1" not in desc
