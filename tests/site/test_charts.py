"""The shared chart engine (COLOSSEUM-CHARTS-1): well-formed inline SVG, a text alternative that holds
every value drawn, the same bytes for the same data, and labels a contender controls kept as text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from colosseum_core.site.charts import (
    CalibrationPoint,
    Cell,
    Interval,
    Line,
    Segment,
    calibration_chart,
    interval_chart,
    line_chart,
    matrix_chart,
    nice_ticks,
    tick_text,
)

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = 'evil</text><script>alert(1)</script>]]>\u202egnp.exe\u200b\x00"'


def _svg(figure: str) -> ET.Element:
    """The figure's SVG, parsed as XML: a chart a browser shows is one an XML parser reads."""
    assert figure.startswith('<figure class="chart"') and figure.endswith("</figure>")
    [svg] = re.findall(r"<svg .*</svg>", figure, flags=re.S)
    return ET.fromstring(svg)


def _desc(root: ET.Element) -> str:
    desc = root.find(f"{SVG}desc")
    assert desc is not None and desc.text
    return desc.text


def _points(root: ET.Element) -> list[tuple[float, float]]:
    return [(float(c.get("cx", "nan")), float(c.get("cy", "nan"))) for c in root.iter(f"{SVG}circle")]


FIELD = [
    Interval("stockfish-n10000", 1512.3, 1401.0, 1650.5, "1", "gold"),
    Interval(
        "house-chess-greedy, standing in for openai-frontier (gpt-5.1)", 1210.0, 1002.0, 1355.0, "2", "silver"
    ),
    Interval("house-illegal", 801.0, 610.0, 950.0, "3", "bronze"),
    Interval("silent", None, None, None, ""),
]


def test_an_interval_chart_draws_each_row_in_order_and_says_every_value_in_its_text_alternative() -> None:
    figure = interval_chart("ratings", "Ratings with their 95 % intervals", FIELD, axis="Elo")
    root = _svg(figure)
    assert root.get("role") == "img" and root.get("aria-labelledby") == "ratings-t ratings-d"
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == "Ratings with their 95 % intervals"
    desc = _desc(root)
    assert "stockfish-n10000: 1512.3 [1401.0, 1650.5], placement 1, gold" in desc
    assert "house-illegal: 801.0 [610.0, 950.0], placement 3, bronze" in desc
    assert "silent: nothing counted, no placement" in desc
    # One dot per counted row, top to bottom in the order given, left to right by the point.
    dots = _points(root)
    assert len(dots) == 3
    assert [y for _, y in dots] == sorted(y for _, y in dots)
    assert dots[0][0] > dots[1][0] > dots[2][0]
    # Medals coloured; the place written in the first column.
    fills = [c.get("fill") for c in root.iter(f"{SVG}circle")]
    assert fills == ["#c9a227", "#8a8f98", "#b0703c"]
    # A place without a medal (the debate's, or an authoring place short of its slots) is not coloured.
    plain = _svg(interval_chart("p", "t", [Interval("a", 1.0, 0.0, 2.0, "1")], axis="x"))
    assert [c.get("fill") for c in plain.iter(f"{SVG}circle")] == ["#2b59c3"]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert [t for t in texts if t in {"1", "2", "3", "–"}][:4] == ["1", "2", "3", "–"]


def test_a_reference_line_is_drawn_named_and_said() -> None:
    rows = [Interval("a", 0.02, -0.01, 0.05, ""), Interval("b", -0.03, -0.06, 0.0, "")]
    root = _svg(
        interval_chart("edge", "VS MARKET", rows, axis="Brier", reference=0.0, reference_label="market")
    )
    dashed = [line for line in root.iter(f"{SVG}line") if line.get("stroke-dasharray")]
    assert len(dashed) == 1
    assert "market" in [t.text for t in root.iter(f"{SVG}text")]
    assert _desc(root).endswith("the dashed line: market, at 0.")


def test_the_same_data_gives_the_same_bytes_and_other_data_other_bytes() -> None:
    once = interval_chart("a", "t", FIELD, axis="Elo")
    assert once == interval_chart("a", "t", FIELD, axis="Elo")
    moved = [FIELD[0], Interval(FIELD[1].label, 1211.0, 1002.0, 1355.0, "2"), *FIELD[2:]]
    assert once != interval_chart("a", "t", moved, axis="Elo")


@pytest.mark.parametrize(
    "draw",
    [
        lambda label: interval_chart("x", label, [Interval(label, 1.0, 0.0, 2.0, "1")], axis=label),
        lambda label: line_chart(
            "x", label, [label, "b"], [Line(label, [1.0, 2.0], [0.5, 1.5], [1.5, 2.5])], axis=label,
            strip=[Segment(label, 0, 1)], markers=[(1, label)], references=[(1.5, label)],
        ),
        lambda label: matrix_chart("x", label, [label, "b"], {(0, 1): Cell(0.75, 4), (1, 0): Cell(0.25, 4)}),
        lambda label: calibration_chart(
            "x", label, [CalibrationPoint(0.5, 0.5, 3)], x_axis=label, y_axis="y"
        ),
    ],
    ids=["interval", "line", "matrix", "calibration"],
)  # fmt: skip
def test_a_hostile_label_stays_text_in_every_chart(draw: object) -> None:
    figure = draw(HOSTILE)  # type: ignore[operator]
    assert "<script>" not in figure and "]]>" not in figure and "\x00" not in figure
    assert "\u202e" not in figure and "\u200b" not in figure
    root = _svg(figure)
    assert "U+202E" in _desc(root) and "U+200B" in _desc(root)
    assert not list(root.iter(f"{SVG}script"))


def test_a_line_chart_bands_its_interval_marks_its_events_and_names_the_strip() -> None:
    epochs = [f"2026-11-{d:02d}" for d in range(1, 13)]
    lead = [None, 50.0, 120.0, 210.0, 230.0, 260.0, 190.0, 220.0, 240.0, 250.0, 260.0, 300.0]
    figure = line_chart(
        "crown",
        "The crown",
        epochs,
        [Line("leading challenger's lead", lead)],
        axis="Elo above the king",
        references=[(200.0, "the 200 line")],
        strip=[Segment("alice", 0, 5), Segment("", 6, 11)],
        markers=[(6, "title fight: crowned")],
    )
    root = _svg(figure)
    desc = _desc(root)
    assert "alice from 2026-11-01 to 2026-11-06; nobody from 2026-11-07 to 2026-11-12" in desc
    assert "title fight: crowned at 2026-11-07" in desc and "the 200 line at 200" in desc
    assert "2026-11-02 50.0" in desc and "2026-11-01" not in desc.split("lead: ")[1].split(",")[0]
    assert len(_points(root)) == 11  # the epoch with no challenger draws nothing
    band = line_chart("b", "t", ["e1", "e2"], [Line("BT", [1.0, 2.0], [0.5, 1.0], [1.5, 3.0])], axis="r")
    band_root = _svg(band)
    assert len(list(band_root.iter(f"{SVG}polygon"))) == 1
    assert "e1 1.0 [0.5, 1.5], e2 2.0 [1.0, 3.0]" in _desc(band_root)


def test_a_single_epoch_and_an_empty_chart_draw_without_dividing_by_zero() -> None:
    one = _svg(line_chart("one", "t", ["e1"], [Line("Elo", [1000.0], [990.0], [1010.0])], axis="Elo"))
    assert len(_points(one)) == 1
    flat = _svg(interval_chart("flat", "t", [Interval("a", 0.0, 0.0, 0.0, "1")], axis="score"))
    assert len(_points(flat)) == 1
    empty = _svg(interval_chart("none", "t", [], axis="score"))
    assert _desc(empty).startswith("t. score")
    assert "nothing stated yet" in calibration_chart("c", "t", [], x_axis="x", y_axis="y")


def test_a_head_to_head_matrix_says_every_cell_and_leaves_the_diagonal_and_unplayed_pairs_blank() -> None:
    labels = ["a", "b", "c"]
    cells = {(0, 1): Cell(0.75, 8), (1, 0): Cell(0.25, 8), (0, 2): Cell(0.5, 4), (2, 0): Cell(0.5, 4)}
    root = _svg(matrix_chart("h2h", "Head to head", labels, cells))
    desc = _desc(root)
    assert "a against b: 0.75 in 8 games" in desc and "b against a: 0.25 in 8 games" in desc
    assert "b against c" not in desc
    fills = [r.get("fill") for r in root.iter(f"{SVG}rect")][1:]  # the ground first
    assert fills.count("#f0f0f0") == 9 - 4
    assert "#2b59c3" not in fills  # 0.75 is between white and the full blue of 1.0


def test_calibration_dots_sit_at_their_stated_probability_and_share() -> None:
    root = _svg(
        calibration_chart(
            "cal",
            "t",
            [CalibrationPoint(0.0, 0.0, 10), CalibrationPoint(1.0, 1.0, 10)],
            x_axis="x",
            y_axis="y",
        )
    )
    (x0, y0), (x1, y1) = _points(root)
    assert x0 < x1 and y0 > y1  # bottom left, top right
    assert "stated 0.00: 0.00 of 10; stated 1.00: 1.00 of 10" in _desc(root)


def test_ticks_fall_on_round_steps_and_read_with_a_true_minus() -> None:
    assert nice_ticks(0, 100) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(-1.05, 1.05) == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert nice_ticks(3, 3) == [3]
    assert [tick_text(t) for t in (-0.5, 0.0, 1500.0, 0.25)] == ["−0.5", "0", "1500", "0.25"]
