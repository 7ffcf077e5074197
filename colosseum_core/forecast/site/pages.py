"""The forecasting board's HTML pages, written in the shared shell (``colosseum_core.site.shell``, which
describes the markup: marked values, compact tables, escapes) with the forecast's fields
(``fields``), tooltips (``glossary``) and navigation.

Each card page states its card's status, ``data-partition-status="sealed"`` or ``"missed"``, on an element
outside any compact table: a missed card's page (``missed_card_body``) is never read as a sealed
card's, nor the reverse.

The board and each card page open with a plain-language key; the method's public names (CONFIDENCE,
VS MARKET, FC SCORE) stand beside the recorded ones (SHARP, EDGE, CROWN), and seats and gladiators
show readable names (``names``) beside their ids, which stay the marked values.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from colosseum_core.forecast.site import glossary, names, plots
from colosseum_core.forecast.site.documents import (
    CONFLICTING_IDS,
    COPIED,
    CUT_CONTEXT,
    FIELD_ERRORS,
    PAGE_ERRORS,
    REPEATS,
    SWEEP_ACCOUNTING,
    VERDICT_SUMMARY,
)
from colosseum_core.forecast.site.fields import FORECAST_FIELDS, MISSED, SEALED, format_field
from colosseum_core.site.formats import NULL, STATUS_ATTR
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.shell import Col, Shell, attr, column_head, key_html, marks

Row = Mapping[str, Any]

NAV: Final = (
    ("index.html", "Board"),
    ("cards/index.html", "Cards"),
    ("calibration.html", "Calibration"),
    ("seats.html", "Seats"),
    ("keys.html", "Keys"),
    ("rules.html", "Rules"),
    ("downloads.html", "Downloads"),
)
# The shared shell (colosseum_core.site.shell) with the forecast's fields, tooltips and navigation.
SHELL: Final = Shell(
    brand="Frontier Colosseum",
    nav=NAV,
    fields=FORECAST_FIELDS,
    tips=glossary.tip,
    footer_links=(("downloads.html", "Downloads"), ("rules.html", "Rules")),
    notice="Every number on this board is re-derivable from the downloads. Frontier Colosseum is provided "
    "for evaluation and research purposes.",
)
span: Final = SHELL.span
cell: Final = SHELL.cell
table_html: Final = SHELL.table_html
layout: Final = SHELL.layout
KINDS: Final = ("FIGHT", "CALIBRATION")
GRID_FIELDS: Final = "call confidence"
BIDI_OVERRIDE: Final = "\u202e"  # the packet's note shows what an escape looks like with this one
AWAITING: Final = "awaiting answers"
MISSED_STATEMENT: Final = "MISSED — never sealed, never sent to any seat"


def kind_badge(kind: str | None) -> str:
    name = kind or NULL
    return f'<span class="badge kind-{attr(name.lower())}">{esc(name)}</span>'


def card_href(card: str, depth: int) -> str:
    return ("" if depth else "cards/") + f"{card}.html"


# --- the board -----------------------------------------------------------------------------------


def _board_order(rows: Iterable[Row]) -> list[Row]:
    """Standing order: CROWN, then SHARP, then name; a board is read top down."""
    return sorted(
        rows,
        key=lambda r: (-(r["crown"] or 0), -(r["sharp"] if r["sharp"] is not None else -1e9), r["entrant"]),
    )


def _interval(table: str, row: Row, low: str, high: str) -> str:
    return f'<td class="num interval">{span(table, row, low)} to {span(table, row, high)}</td>'


# The board's columns: (header, the line under it, tooltip). Public names first (method §10), the
# recorded name under each, so a reader of the downloads finds the same number by either.
BOARD_HEADS: Final = (
    ("RECORD", "wins − losses", glossary.RECORD_TIP),
    ("W", "wins", "Wins: calls that matched the settlement"),
    ("L", "losses", "Losses: wrong calls and forfeits"),
    ("CONFIDENCE", "SHARP, 0–100", glossary.SHARP_TIP),
    ("95% range", "of CONFIDENCE", "The 95% range of CONFIDENCE from resampling the questions (note below)"),
    ("VS MARKET", "EDGE", glossary.EDGE_TIP),
    ("95% range", "of VS MARKET", "The 95% range of VS MARKET from resampling the questions (note below)"),
    ("FC SCORE", "CROWN", glossary.CROWN_TIP),
    ("n", "settled", glossary.N_TIP),
    ("EARLY", "n < 30", glossary.EARLY_TIP),
    ("Forfeits", "no answer", "Questions without a binding answer, each scored as a loss at confidence 1"),
    ("BAD FORMATTING", "recovered", glossary.BAD_FORMATTING_TIP),
    ("Voids", "settled 50-50", "Questions Polymarket settled 50-50: counted, never scored"),
    ("Cards", "answered", "Cards with a scored answer from this entrant"),
)
ENTRANT_TIPS: Final = {
    "seat": "The seat: a company's model line. It owns the record; the id below is the record's.",
    "gladiator": "The gladiator: the model that answered, by a name read from its model id (below).",
}


def _two_line_head(top: str, under: str, tip: str) -> str:
    return (
        f'<th scope="col" title="{attr(tip)}"><span class="head">{esc(top)}</span>'
        f'<span class="under">{esc(under)}</span></th>'
    )


def entrant_name(entrant: str, entrant_type: str, seat_names: Mapping[str, str]) -> str:
    """The name the board shows for an entrant: a seat's company and line, a gladiator's model read."""
    return seat_names.get(entrant, entrant) if entrant_type == "seat" else names.gladiator_name(entrant)


def entrant_cell(row: Row, entrant_type: str, depth: int, seat_names: Mapping[str, str]) -> str:
    """The entrant's readable name (a link to its seat, for a seat) over its record id, the marked value."""
    entrant = str(row["entrant"])
    marked = f'<span {marks("leaderboard", row, "entrant")} class="id">{esc(entrant)}</span>'
    name = esc(entrant_name(entrant, entrant_type, seat_names))
    if entrant_type == "seat":
        shown = f'<a href="{attr("../" * depth + "seats.html#seat-" + entrant)}">{name}</a>'
    else:
        shown = f'<span class="name">{name}</span>'
    return f'<th scope="row" class="entrant">{shown}{marked}</th>'


def leaderboard_table(
    rows: Sequence[Row],
    *,
    kind: str,
    entrant_type: str,
    depth: int,
    formula: str | None = None,
    seat_names: Mapping[str, str] | None = None,
) -> str:
    table = "leaderboard"
    body = []
    for row in _board_order(rows):
        cells = [
            entrant_cell(row, entrant_type, depth, seat_names or {}),
            cell(table, row, "record"),
            cell(table, row, "wins"),
            cell(table, row, "losses"),
            cell(table, row, "sharp", cls="strong"),
            _interval(table, row, "sharp_low", "sharp_high"),
            cell(table, row, "edge", cls="strong"),
            _interval(table, row, "edge_low", "edge_high"),
            cell(table, row, "crown", cls="strong"),
            cell(table, row, "n"),
            cell(table, row, "early", cls="flag"),
            cell(table, row, "forfeits"),
            cell(table, row, "bad_formatting"),
            cell(table, row, "voids"),
            cell(table, row, "cards"),
        ]
        body.append("<tr>" + "".join(cells) + "</tr>")
    first = ("Seat", "and its id") if entrant_type == "seat" else ("Gladiator", "and its model id")
    head = _two_line_head(*first, ENTRANT_TIPS[entrant_type]) + "".join(
        _two_line_head(*h) for h in BOARD_HEADS
    )
    caption = f"{kind} · by {entrant_type}" + (f" · {formula}" if formula else "")
    return (
        f'<div class="table-wrap"><table class="board">\n<caption>{esc(caption)}</caption>\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody></table></div>"
    )


def bootstrap_note(row: Row) -> str:
    """What the 95% ranges are, in words, with the recorded recipe behind a ``<details>``."""
    t = "leaderboard"
    return (
        '<div class="note interval-note"><p><strong>The 95% ranges.</strong> CONFIDENCE and VS MARKET '
        "come from a limited number of questions; other questions would have given somewhat different "
        "numbers. The 95% range shows how much: the "
        f"{span(t, row, 'bootstrap_clusters')} settled questions of this board were drawn again at "
        "random, with replacement, "
        f"{span(t, row, 'bootstrap_replicates')} times, the same draws for every row; each draw "
        "recomputes every number, and the range keeps the middle 95% of the results. The draws come "
        f"from a random generator started at the recorded seed {span(t, row, 'bootstrap_seed')}, so "
        "anyone who replays them from the downloads gets the same ranges to the last digit. Rows with "
        "n under 30 are flagged EARLY.</p>"
        "<details><summary>The exact recipe</summary>"
        f"<p>Method: {span(t, row, 'bootstrap_method')}.</p>"
        f"<p>Generator: {span(t, row, 'bootstrap_generator')}, seed {span(t, row, 'bootstrap_seed')}, "
        f"{span(t, row, 'bootstrap_replicates')} replicates over {span(t, row, 'bootstrap_clusters')} "
        f"questions, numpy {span(t, row, 'numpy_version')}. Formula {span(t, row, 'formula')}. Every "
        'row of <a href="data/leaderboard.parquet">data/leaderboard.parquet</a> carries these columns.'
        "</p></details></div>"
    )


def interval_charts(
    rows: Sequence[Row], *, kind: str, entrant_type: str, ident: str, seat_names: Mapping[str, str]
) -> str:
    """The table's CONFIDENCE and VS MARKET drawn beside it (``plots.interval_charts``): its rows in its
    order, each by the name the table shows (with its id where two rows share a name)."""
    ordered = _board_order(rows)
    entrants = [str(row["entrant"]) for row in ordered]
    shown = [entrant_name(entrant, entrant_type, seat_names) for entrant in entrants]
    labels = [
        name if shown.count(name) == 1 or name == entrant else f"{name} ({entrant})"
        for name, entrant in zip(shown, entrants, strict=True)
    ]
    figures = plots.interval_charts(ordered, labels, kind=kind, by=entrant_type, ident=ident)
    if any(row["sharp"] is not None for row in ordered):
        said = (
            f"The table above drawn, row for row in its order: each {entrant_type}'s CONFIDENCE and VS "
            "MARKET as a dot, its 95% range as a bar (sharp, edge and their _low and _high in "
            '<a href="data/leaderboard.parquet">data/leaderboard.parquet</a>). In VS MARKET the dashed '
            "line at 0 is the market: right of it, better than the price. The board places no one, so "
            "the place column shows a dash."
        )
    else:
        said = (
            "Nothing is scored yet on this board: no row has a CONFIDENCE or a VS MARKET to draw, so "
            "each row of the charts says nothing counted."
        )
    return f'<p class="note">{said}</p>\n<div class="charts">\n' + "\n".join(figures) + "\n</div>"


Plot = tuple[str, int, int]  # an image's path and its width and height


def _standing_figure(kind: str, plot: Plot) -> str:
    src, width, height = plot
    return (
        f'<figure class="standing"><img src="{attr(src)}" width="{width}" height="{height}" '
        f'alt="FC SCORE (CROWN) of each seat on {kind} cards, cumulative in card order: one small panel '
        "per seat, named, with the other seats in grey behind\"><figcaption>Standing: each seat's "
        f"cumulative FC SCORE (recorded as CROWN) across settled {kind} cards, one panel per seat in "
        "the board's order, every panel on the same scale; the grey lines are the other seats, and a "
        "panel says when a seat's line is the same as others'.</figcaption></figure>"
    )


def index_body(
    *,
    board: Sequence[Row],
    cards: Sequence[tuple[str, str, bool]],
    formula: str,
    plots: Mapping[str, Plot],
    missed: Sequence[Row] = (),
    seat_names: Mapping[str, str] | None = None,
) -> str:
    """The leaderboards, FIGHT and CALIBRATION each in its own section, never mixed; then every card,
    sealed (``cards``: key, kind, released) or missed (``missed``: their card_status rows)."""
    parts = [
        "<h1>The board</h1>",
        '<p class="lede">Thirteen seats forecast Polymarket questions, three cards a day. FIGHT records '
        "are official; CALIBRATION records are practice. The two never share a board, a row or a "
        f"bootstrap. Scores follow {esc(formula)}; every number links back to the record "
        '(see <a href="downloads.html">downloads</a> and <a href="rules.html">rules</a>).</p>',
        '<nav class="toc" aria-label="On this page"><ul><li><a href="#key">How to read the board</a></li>'
        + "".join(f'<li><a href="#{k.lower()}">{k}</a></li>' for k in KINDS)
        + '<li><a href="#cards">Cards</a></li></ul></nav>',
        key_html(glossary.BOARD_KEY, heading="How to read the board"),
    ]
    for kind in KINDS:
        rows = [r for r in board if r["kind"] == kind]
        parts.append(f'<section id="{kind.lower()}" class="kind kind-{kind.lower()}" data-kind="{kind}">')
        parts.append(f"<h2>{kind_badge(kind)} {kind} board</h2>")
        if not rows:
            parts.append(f'<p class="empty">no {kind} records yet</p>')
            parts.append(
                '<p class="empty">No CONFIDENCE or VS MARKET chart yet: nothing is scored on this board.</p>'
            )
        else:
            # A later formula adds rows under its own version; each version is its own board.
            formulas = sorted({str(r["formula"]) for r in rows}, key=lambda f: (f != formula, f))
            for version in formulas:
                for entrant_type in ("seat", "gladiator"):
                    chosen = [
                        r for r in rows if r["entrant_type"] == entrant_type and r["formula"] == version
                    ]
                    if chosen:
                        parts.append(
                            leaderboard_table(
                                chosen,
                                kind=kind,
                                entrant_type=entrant_type,
                                depth=0,
                                formula=version if len(formulas) > 1 else None,
                                seat_names=seat_names,
                            )
                        )
                        ident = f"{kind.lower()}-{entrant_type}" + (
                            "-" + re.sub(r"[^a-z0-9]+", "-", version.lower()) if len(formulas) > 1 else ""
                        )
                        parts.append(
                            interval_charts(
                                chosen,
                                kind=kind,
                                entrant_type=entrant_type,
                                ident=ident,
                                seat_names=seat_names or {},
                            )
                        )
                mine = [r for r in rows if r["formula"] == version]
                parts.append(bootstrap_note(sorted(mine, key=lambda r: (r["entrant_type"], r["entrant"]))[0]))
            parts.append(_standing_figure(kind, plots[kind]))
            parts.append(
                f'<p class="note">Calibration plots per seat: <a href="calibration.html#{kind.lower()}">'
                "calibration</a>.</p>"
            )
        parts.append("</section>")
    parts.append('<section id="cards"><h2>Cards</h2>')
    if cards or missed:
        waiting = f' <span class="badge status-awaiting">{AWAITING}</span>'
        items = [
            (
                c,
                f'<li><a href="cards/{attr(c)}.html">{esc(c)}</a> {kind_badge(kind)}'
                f"{'' if released else waiting}</li>",
            )
            for c, kind, released in cards
        ]
        # A missed card's entry is its card_status row's values, so the check reads them like any other.
        items += [
            (
                str(row["card"]),
                f'<li class="missed"><a href="{attr(card_href(str(row["card"]), 0))}">'
                f"{span('card_status', row, 'card')}</a> {kind_badge(row.get('kind'))} "
                f"{span('card_status', row, 'status', cls='badge status-missed')}</li>",
            )
            for row in missed
        ]
        listed = "".join(item for _, item in sorted(items, key=lambda item: item[0], reverse=True))
        parts.append(
            f'<p><a href="cards/index.html">All cards</a>, newest first:</p><ul class="cards">{listed}</ul>'
        )
    else:
        parts.append('<p class="empty">no cards sealed yet</p>')
    parts.append(
        '<p>Also: <a href="seats.html">the seats</a> · <a href="keys.html">the public keys</a> · '
        '<a href="rules.html">the rules</a> · <a href="calibration.html">the plots</a> · '
        '<a href="downloads.html">the downloads</a>.</p></section>'
    )
    return "\n".join(parts)


# --- cards -------------------------------------------------------------------------------------------


def card_status(released: bool) -> str:
    return "released" if released else AWAITING


def cards_index_body(
    packets: Sequence[Row],
    released: set[str],
    missed: Sequence[Row] = (),
    on_site: frozenset[str] = frozenset(),
) -> str:
    """The sealed cards (their packet rows) and the missed ones (their card_status rows), newest first;
    ``on_site``: the cards with a page here, which an "overtaken by" links to."""
    rows = list(reversed(packets))
    cols = [
        Col("card", "Card", href=lambda r: f"{r['card']}.html"),
        Col("slot", "Slot"),
        Col("seal", "Sealed", cls="nowrap"),
        Col("kind", "Kind"),
        Col("questions", "Questions"),
        Col("total_doubt_bits", "Total doubt (bits)"),
        Col("sweep_complete", "Sweep"),
        Col("sweep_reason", "Why partial"),
        Col(
            None,
            "Answers",
            text=lambda r: card_status(r["card"] in released),
            tip="released once every seat answered or forfeited (method §11); awaiting answers until then",
        ),
        Col(
            None,
            "Ranked list",
            href=lambda r: ranked_href(r["card"]),
            text=lambda r: "all verdicts",
            tip="Every swept question's verdict, rule and number, on its own page",
        ),
        _card_json_col("The card page's rows as JSON"),
    ]
    table = table_html(
        "packet",
        rows,
        cols,
        caption="Sealed cards, newest first",
        empty="no cards sealed yet",
        row_class=lambda r: "" if r["card"] in released else "awaiting",
    )
    return "\n".join(
        ["<h1>Cards</h1>", '<h2 id="sealed">Sealed cards</h2>', table, missed_table(missed, on_site)]
    )


def _card_json_col(tip: str) -> Col:
    """The cards index's link from a card's row to ``data/cards/<key>.json``."""
    return Col(None, "Data", href=lambda r: f"../data/cards/{r['card']}.json", text=lambda r: "JSON", tip=tip)


def _overtaker_href(row: Row, on_site: frozenset[str], depth: int = 1) -> str | None:
    """The page of the card that overtook ``row``'s card, if that card is on the site."""
    later = row.get("overtaken_by")
    return card_href(later, depth) if isinstance(later, str) and later in on_site else None


def missed_table(missed: Sequence[Row], on_site: frozenset[str]) -> str:
    """``cards/index.html``'s missed cards: their card_status rows, newest first."""
    table = table_html(
        "card_status",
        sorted(missed, key=lambda r: str(r["card"]), reverse=True),
        [
            Col("card", "Card", href=lambda r: card_href(str(r["card"]), 1)),
            Col("kind", "Kind"),
            Col("overtaken_by", "Overtaken by", href=lambda r: _overtaker_href(r, on_site)),
            Col("reason", "Why", cls="text"),
            Col("rules", "Rules"),
            _card_json_col("The missed card's rows as JSON"),
        ],
        caption="Missed cards, newest first",
        empty="no card was missed",
        row_class=lambda r: MISSED,
    )
    return (
        '<section id="missed"><h2>Missed cards</h2>\n'
        '<p class="note">A missed card never sealed and was never sent to any seat: a later card of its '
        "kind sealed first, and cards of one kind seal in time order. It has no questions, packet or "
        "answers, and never will; its sweep is kept as it was recorded.</p>\n" + table + "\n</section>"
    )


def ranked_href(card: str) -> str:
    """The full ranked list's page, relative to ``cards/``."""
    return f"{card}/ranked.html"


@dataclasses.dataclass(frozen=True)
class CardView:
    """One card's rows, as the card page shows them.

    ``ranked`` is the ranked list around the cut (``documents.around_the_cut``), ``ranked_total`` the
    number of verdicts on the full list's own page, ``verdicts`` the count per verdict and rule;
    ``downloads`` the per-card Parquet directories published for it ("ranked", "scores").
    """

    key: str
    released: bool
    packet: Row
    sweeps: Sequence[Row]
    questions: Sequence[Row]
    verdicts: Sequence[Row]
    ranked: Sequence[Row]
    ranked_total: int
    settlements: Sequence[Row]
    reviews: Sequence[Row]
    answers: Sequence[Row]
    lines: Sequence[Row]
    signatures: Sequence[Row]
    scores: Sequence[Row]
    downloads: frozenset[str] = frozenset()
    status: Sequence[Row] = ()  # card_status rows (none for a card sealed before the table existed)
    accounting: Sequence[Row] = ()  # sweep_accounting rows (none if a table it is counted from is missing)


def _parquet_link(key: str, directory: str, downloads: frozenset[str], depth: int = 1) -> str:
    if directory not in downloads:
        return ""
    file = f"data/{directory}/{key}.parquet"
    return f'Also as Parquet: <a href="{"../" * depth}{attr(file)}">{esc(file)}</a>.'


RANKED_COLS: Final = (
    Col("rank", "Rank"),
    Col("place", "Place"),
    Col("market_id", "Market"),
    Col("question", "Question", cls="text"),
    Col("verdict", "Verdict"),
    Col("rule", "Rule"),
    Col("value", "Number"),
    Col("doubt_bits", "Doubt"),
    Col("price", "Price"),
    Col("interest", "Interest"),
)


def _selected(row: Row) -> str:
    return "selected" if row["verdict"] == "selected" else ""


def _dl(table: str, row: Row, items: Sequence[tuple[str, str]]) -> str:
    return (
        '<dl class="facts">'
        + "".join(
            f"<dt>{esc(label)}</dt><dd>{span(table, row, field)}</dd>"
            for label, field in items
            if field.split(".", 1)[0] in row
        )
        + "</dl>"
    )


_SETTINGS_ORDER: Final = ("temperature", "top_p", "max_tokens", "timeout_s", "seed")


def _settings_keys(answers: Sequence[Row]) -> list[str]:
    keys: set[str] = set()
    for row in answers:
        if row.get("settings"):
            document = json.loads(row["settings"])
            if isinstance(document, dict):
                keys |= set(document)
    return [k for k in _SETTINGS_ORDER if k in keys] + sorted(keys - set(_SETTINGS_ORDER))


def _grid_tip(answer: Row) -> str:
    model = str(answer.get("model"))
    return (
        f"Seat {answer['seat']}, answered by {names.gladiator_name(model)} ({model}): its call and "
        "confidence (1–10) on each question; * read by a recovery step; unbound: a forfeit"
    )


def answers_grid(questions: Sequence[Row], answers: Sequence[Row], lines: Sequence[Row]) -> str:
    """Call and confidence per question (rows) and seat (columns), as a compact ``answer_lines`` table.

    Each cell names its own line (``data-id``) and fields: "call confidence" for a binding answer,
    "status" for one that binds nothing. The row and column heads are single marked values.
    """
    by_key = {(r["label"], r["seat"]): r for r in lines}
    # <wbr> lets long seat names break at their hyphens; the marked text stays the seat's id. Split
    # before escaping: an escape's own markup has hyphens too.
    head = '<th scope="col" title="The question\'s label on the card, M01…">Question</th>' + "".join(
        f'<th scope="col" {marks("answers", r, "seat")} title="{attr(_grid_tip(r))}">'
        + "-<wbr>".join(esc(part) for part in str(r["seat"]).split("-"))
        + "</th>"
        for r in answers
    )
    body = []
    for question in questions:
        label = question["label"]
        cells = [cell("card_questions", question, "label", tag="th")]
        for seat in (r["seat"] for r in answers):
            line = by_key.get((label, seat))
            if line is None:
                cells.append('<td class="missing">—</td>')
                continue
            ident = f'data-id="{attr(line["id"])}"'
            if line["binding"]:
                call = attr(str(line["call"]).lower())
                # The recovery marker is drawn by the stylesheet, so the cell's text stays the value.
                look = (
                    f'class="{call} rec" title="read by a recovery step"'
                    if line["step"]
                    else f'class="{call}"'
                )
                text = esc(format_field("answer_lines", GRID_FIELDS, line))
                cells.append(f'<td {ident} data-field="{GRID_FIELDS}" {look}>{text}</td>')
            else:
                text = esc(format_field("answer_lines", "status", line))
                cells.append(f'<td {ident} data-field="status" class="unbound">{text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        '<div class="table-wrap"><table data-table="answer_lines" class="grid">\n<caption>Answers: call and '
        "confidence per seat (* read by a recovery step: BAD FORMATTING; unbound: a forfeit)</caption>\n"
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody></table></div>"
    )


def _answers_section(view: CardView) -> str:
    parts = ['<section id="answers"><h2>Answers</h2>']
    parts.append(
        '<p class="note">Released: every seat on this card answered or forfeited (method §11). Each '
        'answers row is signed by its seat and countersigned by the arena (see <a href="#signatures">'
        'signatures</a> and <a href="../keys.html">keys</a>).</p>'
    )
    parts.append(
        table_html(
            "answers",
            view.answers,
            [
                Col("seat", "Seat", href=lambda r: f"../seats.html#seat-{r['seat']}", cls="nowrap"),
                Col(
                    None,
                    "Gladiator",
                    text=lambda r: names.gladiator_name(str(r["model"])),
                    tip="The gladiator that answered, by a name read from its model id (next column)",
                ),
                Col("model", "Model id"),
                Col("house", "House gladiator"),
                Col("kind", "Kind"),
                Col("status", "Status"),
                Col("attempts", "Attempts"),
                Col("error", "Error"),
            ],
            caption="Seats and how each call ended",
        )
    )
    keys = _settings_keys(view.answers)
    parts.append(
        table_html(
            "answers",
            view.answers,
            [Col("seat", "Seat", cls="nowrap"), *(Col(f"settings.{k}", k) for k in keys)],
            caption="Settings record per call (a setting the provider refused is OMITTED)",
        )
    )
    parts.append(
        table_html(
            "answers",
            view.answers,
            [
                Col("seat", "Seat", cls="nowrap"),
                Col("bad_formatting", "BAD FORMATTING"),
                Col("answered", "Strict"),
                Col("recovered", "Recovered"),
                Col("unbound", "Unbound"),
                Col("unmatched", "Unmatched lines"),
                Col("format_record.steps_used", "Recovery steps used"),
                Col("format_record.unbound_reasons", "Why unbound"),
                Col("format_record.notes", "Notes"),
                Col("format_record.truncated", "Truncated"),
                Col("format_record.not_utf8", "Not UTF-8"),
            ],
            caption=f"Format record ({', '.join(sorted({str(r['rules']) for r in view.answers}))})",
        )
    )
    parts.append(answers_grid(view.questions, view.answers, view.lines))
    notes = [r for r in view.lines if r["step"] is not None or not r["binding"]]
    parts.append(
        table_html(
            "answer_lines",
            notes,
            [
                Col("seat", "Seat", cls="nowrap"),
                Col("label", "Question"),
                Col("status", "Status"),
                Col("step", "Recovery step"),
                Col("reason", "Why it binds nothing"),
            ],
            caption="How each answer that was not strict was read "
            f"({', '.join(sorted({str(r['rules']) for r in notes}))})",
            empty="every answer was read strictly",
            scroll=True,
        )
    )
    parts.append('<h3 id="signatures">Signatures</h3>')
    parts.append(
        table_html(
            "answer_signatures",
            view.signatures,
            [
                Col("seat", "Seat", cls="nowrap"),
                Col("record_id", "Answers row id", cls="code"),
                Col("signing_scheme", "Scheme"),
                Col("seat_key_id", "Seat key id", cls="code"),
                Col("seat_signature", "Seat signature", cls="code"),
                Col("arena_key_id", "Arena key id", cls="code"),
                Col("arena_signature", "Arena countersignature", cls="code"),
            ],
            caption="Each answers row signed twice (COLOSSEUM-SIGNING-1)",
        )
    )
    parts.append("</section>")
    return "\n".join(parts)


def _scores_section(view: CardView) -> str:
    # Each row's kind is its seat's (see the answers table) and a card is scored by one formula version:
    # both are shown once, not on every row.
    first: dict[str, Row] = {}
    for row in view.scores:
        first.setdefault(str(row.get("formula")), row)
    formulas = ", ".join(span("scores", row, "formula") for row in first.values() if "formula" in row)
    note = " ".join(
        n
        for n in (
            f"Scored by {formulas}." if formulas else "",
            _parquet_link(view.key, "scores", view.downloads),
        )
        if n
    )
    return (
        '<section id="scores"><h2>Scores</h2>\n'
        + (f'<p class="note">{note}</p>\n' if note else "")
        + table_html(
            "scores",
            view.scores,
            [
                Col("seat", "Seat", cls="nowrap"),
                Col("gladiator", "Gladiator (model id)"),
                Col("label", "Question"),
                Col("result", "Result"),
                Col("call", "Call"),
                Col("confidence", "Confidence (stake)"),
                Col("p", "p"),
                Col("brier", "Brier"),
                Col("market_price", "Seal price"),
                Col("market_brier", "Market Brier"),
                Col("edge", glossary.public("EDGE")),
                Col("crown", glossary.public("CROWN")),
                Col("forfeit", "Forfeit"),
                Col("bad_formatting", "BAD FORMATTING"),
            ],
            caption="Every scored answer (forfeits as NO 1 / YES 1 against the settlement; voids unscored)",
            empty="nothing settled yet",
            scroll=True,
            row_class=lambda r: "void" if r["result"] == "void" else "",
        )
        + "\n</section>"
    )


SWEEP_FACTS: Final = (
    ("Sweep window from", "window_start"),
    ("to", "window_end"),
    ("Complete", "complete"),
    ("Reason", "reason"),
    ("Pages", "pages"),
    ("Requests", "requests"),
    ("Receipts", "receipts"),
    ("Market listings received", "markets"),
    ("Started", "started_at"),
    ("Ended", "ended_at"),
)


def sweep_facts(sweeps: Sequence[Row]) -> list[str]:
    """A card's sweep, sealed or missed: complete or partial and why, pages, requests, markets."""
    return [part for sweep in sweeps for part in ("<h3>Sweep</h3>", _dl("sweeps", sweep, SWEEP_FACTS))]


def _plural(row: Row, one: str, many: str) -> str:
    return one if row.get("count") == 1 else many


def sweep_accounting_note(packet: Row, sweeps: Sequence[Row], accounting: Sequence[Row]) -> str:
    """Why the sweep's market listings and the card's swept markets can differ, with the card's counts.

    ``accounting``: the card's sweep_accounting rows (``documents.sweep_accounting``); none if the
    record lacks a table it is counted from, and then the note says what each count means, only.
    """
    lead = (
        "<strong>Market listings</strong> counts every market on every page the sweep received; "
        "<strong>Swept</strong> counts the distinct markets copied from those pages, each of which got "
        "a verdict."
    )
    by = {str(r["id"]): r for r in accounting}
    if len(sweeps) != 1 or COPIED not in by:
        return f'<h3 id="listings">How the sweep\'s listings add up</h3><p class="note">{lead}</p>'
    t = SWEEP_ACCOUNTING
    listed = span("sweeps", sweeps[0], "markets")
    copied, repeats = by[COPIED], by[REPEATS]
    quarantined = [by[k] for k in (FIELD_ERRORS, CONFLICTING_IDS, PAGE_ERRORS) if k in by]
    if not quarantined and repeats["count"] == 0:
        told = (
            f"Here they agree: all {listed} listings were copied ({span(t, copied, 'count')} markets, "
            f"Swept {span('packet', packet, 'swept')}), {span(t, repeats, 'count')} were repeats and "
            "nothing was quarantined."
        )
    else:
        said = [
            f"Of the {listed} listings, {span(t, copied, 'count')} were copied "
            f"(Swept {span('packet', packet, 'swept')})."
        ]
        if FIELD_ERRORS in by:
            row = by[FIELD_ERRORS]
            said.append(
                f"{span(t, row, 'count')} {_plural(row, 'listing', 'listings')} could not be copied "
                "because a field was not as Gamma publishes it (a value of the wrong type, a required key "
                "missing, or no parent event); each is quarantined in the record's copy_errors table "
                "with its receipt, market, field and value."
            )
        if CONFLICTING_IDS in by:
            row = by[CONFLICTING_IDS]
            said.append(
                f"{span(t, row, 'count')} market {_plural(row, 'id was', 'ids were')} published with "
                "different contents in different listings, so none of their listings was copied; each "
                "id is quarantined in copy_errors."
            )
        if PAGE_ERRORS in by:
            row = by[PAGE_ERRORS]
            said.append(
                f"{span(t, row, 'count')} {_plural(row, 'page', 'pages')} could not be read by the copy "
                "(quarantined in copy_errors)."
            )
        boundary = (
            "the sweep asks Gamma for end-date slices whose neighbours share their boundary instant "
            "(both bounds are inclusive, so no market falls between two slices), and a market ending "
            "exactly on a boundary is listed by both"
        )
        if repeats["count"] == 0:
            said.append(f"No market was listed twice ({span(t, repeats, 'count')} repeats).")
        elif CONFLICTING_IDS in by:
            said.append(
                f"The other {span(t, repeats, 'count')} are further listings of markets listed more than "
                f"once: identical repeats, copied once ({boundary}), and the listings of the ids above, "
                "none copied."
            )
        else:
            said.append(
                f"The other {span(t, repeats, 'count')} repeat a market already copied: {boundary}; "
                "identical listings are copied once."
            )
        told = " ".join(said)
    return (
        f'<h3 id="listings">How the sweep\'s listings add up</h3><p class="note">{lead} {told} The '
        "sweep's verbatim_markets and copy_errors tables are in the record, where "
        "<code>colosseum verify</code> re-reads them against the receipts.</p>"
    )


def card_body(view: CardView) -> str:
    p = view.packet
    status = card_status(view.released)
    ranked_page = ranked_href(view.key)
    parts = [
        f"<h1>Card {esc(view.key)} {kind_badge(p.get('kind'))} "
        f'<span class="badge status-{status.split()[0]}" {STATUS_ATTR}="{SEALED}">{status}</span></h1>',
        '<nav class="toc" aria-label="On this page"><ul>'
        '<li><a href="#summary">Summary</a></li><li><a href="#verdicts">Verdicts</a></li>'
        '<li><a href="#questions">Questions</a></li>'
        '<li><a href="#answers">Answers</a></li><li><a href="#settlements">Settlements</a></li>'
        '<li><a href="#scores">Scores</a></li><li><a href="#packet">Packet</a></li>'
        '<li><a href="#ranked">Around the cut</a></li>'
        f'<li><a href="{attr(ranked_page)}">The full ranked list</a></li>'
        '<li><a href="#key">How to read this card</a></li></ul></nav>',
        key_html(glossary.CARD_KEY, heading="How to read this card"),
        '<section id="summary"><h2>Summary</h2>',
        _dl(
            "packet",
            p,
            [
                ("Kind", "kind"),
                ("Slot", "slot"),
                ("Sealed", "seal"),
                ("Questions", "questions"),
                ("Total doubt (bits)", "total_doubt_bits"),
                ("Sweep", "sweep_complete"),
                ("Why partial", "sweep_reason"),
                ("Swept: distinct markets copied, each judged", "swept"),
                ("Ranked by doubt", "ranked"),
                ("Exchange", "exchange"),
                ("Selection rules", "rules"),
                ("Packet format", "packet_format"),
                ("Packet identifier (SHA-256)", "packet_id"),
            ],
        ),
        f'<p class="note">This card as JSON: <a href="../data/cards/{attr(view.key)}.json">'
        f"data/cards/{esc(view.key)}.json</a>.</p>",
    ]
    for row in view.status:
        parts.append(_dl("card_status", row, [("Status", "status"), ("Seal order", "rules")]))
    parts += sweep_facts(view.sweeps)
    parts.append(sweep_accounting_note(p, view.sweeps, view.accounting))
    parts.append("</section>")
    parts.append('<section id="verdicts"><h2>Verdicts</h2>')
    parts.append(
        table_html(
            VERDICT_SUMMARY,
            view.verdicts,
            [
                Col("verdict", "Verdict"),
                Col("rule", "First rule that excluded it"),
                Col("count", "Questions"),
            ],
            caption=f"Every swept question's verdict ({view.ranked_total} in all), by verdict and rule",
            empty="no verdicts recorded",
        )
    )
    parts.append(
        "<p>Every verdict, with its rule and number: "
        f'<a href="{attr(ranked_page)}">the full ranked list</a>. '
        f"{_parquet_link(view.key, 'ranked', view.downloads)}</p></section>"
    )
    parts.append('<section id="questions"><h2>Questions</h2>')
    parts.append(
        table_html(
            "card_questions",
            view.questions,
            [
                Col("label", "Label"),
                Col("question", "Question", cls="text"),
                Col("market_id", "Market"),
                Col("price", "Seal price"),
                Col("price_source", "Price source"),
                Col("doubt_bits", "Doubt (bits)"),
                Col("interest", "Interest"),
                Col("end_date", "Scheduled end", cls="nowrap"),
                Col("place", "Place"),
                Col("rank", "Rank"),
            ],
            caption="The sealed card, in label order after the daily rotation",
        )
    )
    parts.append("</section>")
    if view.released:
        parts.append(_answers_section(view))
    else:
        parts.append(
            '<section id="answers"><h2>Answers</h2><p class="awaiting" data-status="awaiting">'
            "Awaiting answers: no answer is published while any seat on the card has yet to respond "
            "(method §11).</p></section>"
        )
    parts.append('<section id="settlements"><h2>Settlements</h2>')
    parts.append(
        table_html(
            "settlements",
            view.settlements,
            [
                Col("label", "Question"),
                Col("market_id", "Market"),
                Col("status", "Status"),
                Col("outcome", "Outcome"),
                Col("winner", "Winner"),
                Col("outcome_prices", "Outcome prices"),
                Col("uma_resolution_status", "Resolution"),
                Col("closed_time", "Closed", cls="nowrap"),
                Col("observed_at", "Observed", cls="nowrap"),
                Col("receipt_id", "Receipt", cls="code"),
                Col("rules", "Rules"),
            ],
            caption="Settled and void questions (voids are counted, never scored)",
            empty="nothing settled yet",
            row_class=lambda r: "void" if r["status"] == "void" else "",
        )
    )
    if view.reviews:
        parts.append(
            table_html(
                "settlement_reviews",
                view.reviews,
                [
                    Col("label", "Question"),
                    Col("problem", "Problem"),
                    Col("settled_status", "Settled as"),
                    Col("settled_outcome", "Settled outcome"),
                    Col("observed_state", "Observed"),
                    Col("observed_outcome", "Observed outcome"),
                    Col("observed_detail", "Detail"),
                    Col("observed_at", "At", cls="nowrap"),
                    Col("receipt_id", "Receipt", cls="code"),
                ],
                caption="Flagged for review: observations that contradict a recorded settlement "
                "(the first settlement stands)",
            )
        )
    parts.append("</section>")
    if view.released:
        parts.append(_scores_section(view))
    else:
        parts.append(f'<section id="scores"><h2>Scores</h2><p class="awaiting">{AWAITING}</p></section>')
    parts.append(
        '<section id="packet"><h2>Packet</h2><p class="note">The packet every seat received, '
        "byte-identical, verbatim. A code point that draws nothing or changes how the text around it "
        "runs (a control, a bidirectional or zero-width character) is shown boxed as its code point, "
        f"like {esc(BIDI_OVERRIDE)}; the bytes themselves are in "
        f'<a href="../data/packet.parquet">data/packet.parquet</a> and '
        f'<a href="../data/cards/{attr(view.key)}.json">this card\'s JSON</a>. '
        f"Identifier (SHA-256 of its UTF-8 bytes): <code>{span('packet', p, 'packet_id')}</code></p>"
        f'<pre class="packet" {marks("packet", p, "packet_text")}>\n{esc(p["packet_text"])}</pre></section>'
    )
    parts.append('<section id="ranked"><h2>The ranked list around the cut</h2>')
    parts.append(
        f'<p class="note">The selected places and the {CUT_CONTEXT} best-ranked excluded questions. '
        f"All {view.ranked_total} verdicts, each with its rule and number: "
        f'<a href="{attr(ranked_page)}">the full ranked list</a>.</p>'
    )
    parts.append(
        table_html(
            "ranked_candidates",
            view.ranked,
            RANKED_COLS,
            caption="Selected and best-ranked excluded questions, in ranked order",
            empty="no question was ranked",
            row_class=_selected,
        )
    )
    parts.append("</section>")
    return "\n".join(parts)


@dataclasses.dataclass(frozen=True)
class MissedView:
    """A missed card's rows: its card_status rows (one, as the record writes it) and its sweep."""

    key: str
    status: Sequence[Row]
    sweeps: Sequence[Row]
    on_site: frozenset[str] = frozenset()


def _missed_facts(row: Row, on_site: frozenset[str]) -> str:
    later = span("card_status", row, "overtaken_by")
    href = _overtaker_href(row, on_site)
    items = [
        ("Status", span("card_status", row, "status")),
        ("Kind", span("card_status", row, "kind")),
        ("Overtaken by", f'<a href="{attr(href)}">{later}</a>' if href else later),
        ("Why", span("card_status", row, "reason")),
        ("Seal order", span("card_status", row, "rules")),
    ]
    return '<dl class="facts">' + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


def missed_card_body(view: MissedView) -> str:
    """``cards/<key>.html`` of a missed card: that it never sealed, what overtook it and why, its sweep."""
    kind = next((row.get("kind") for row in view.status), None)
    parts = [
        f"<h1>Card {esc(view.key)} {kind_badge(kind)} "
        f'<span class="badge status-{MISSED}" {STATUS_ATTR}="{MISSED}">{MISSED}</span></h1>',
        f'<p class="missed"><strong>{esc(MISSED_STATEMENT)}.</strong> A later card of its kind sealed '
        "first, and cards of one kind seal in time order, so this card can never seal. It has no "
        "verdicts, questions, packet or answers, and never will; its sweep is kept as it was recorded.</p>",
        '<section id="summary"><h2>Summary</h2>',
        *(_missed_facts(row, view.on_site) for row in view.status),
        f'<p class="note">This card as JSON: <a href="../data/cards/{attr(view.key)}.json">'
        f"data/cards/{esc(view.key)}.json</a>; every card's status: "
        '<a href="../data/card_status.parquet">data/card_status.parquet</a>. The requests, receipts and '
        "copied markets of its sweep stay in the record (raw_sweep, verbatim_markets, copy_errors), where "
        "<code>colosseum verify</code> checks them.</p>",
        *sweep_facts(view.sweeps),
        "</section>",
    ]
    return "\n".join(parts)


def ranked_body(key: str, packet: Row, ranked: Sequence[Row], downloads: frozenset[str]) -> str:
    """``cards/<key>/ranked.html``: every swept question's verdict, in the record's (ranked) order."""
    return "\n".join(
        [
            f"<h1>Card {esc(key)} {kind_badge(packet.get('kind'))}: the full ranked list</h1>",
            f'<p class="lede">Every question swept for <a href="../{attr(key)}.html">card {esc(key)}</a>, '
            f"with its verdict (SLATE-LAWS, method §4–§5): selected with its rank and place, or excluded "
            f"with the first rule that excluded it and the number that did. "
            f"{_parquet_link(key, 'ranked', downloads, depth=2)}</p>",
            table_html(
                "ranked_candidates",
                ranked,
                RANKED_COLS,
                caption=f"All {len(ranked)} verdicts, in ranked order (unranked questions last)",
                empty="no question was swept",
                row_class=_selected,
            ),
        ]
    )


# --- seats, keys, rules, calibration, downloads -------------------------------------------------------


SEAT_HEADS: Final = (
    ("Seat", "The seat's id: one of the thirteen permanent seats; it owns the record"),
    ("Company", "The company whose model line holds the seat"),
    ("Line", "flagship or small: which of the company's model lines"),
    ("First day", "The seat's first day in the arena"),
    (
        "House gladiator",
        "Who answers when the seat's provider key is not set: a house gladiator on the sparring server "
        "(its answers are CALIBRATION); its name read from the model id, and the id",
    ),
    (
        "Gladiators (date each took the seat)",
        "Each model that took the seat, with the date; a name read from the model id (see the note), "
        "the id, and the protocol it is called by",
    ),
)


def seats_body(seats_doc: Mapping[str, Any]) -> str:
    rows = []
    for seat in seats_doc["seats"]:
        gladiators = "".join(
            f"<li>since {span('gladiators', g, 'since')}: {esc(names.gladiator_name(str(g['model'])))} "
            f'<span class="id">{span("gladiators", g, "model")}</span> '
            f"({span('gladiators', g, 'protocol')})</li>"
            for g in seat["gladiators"]
        )
        house = str(seat["house"])
        rows.append(
            f'<tr id="seat-{attr(seat["id"])}">'
            + cell("seats", seat, "id", tag="th")
            + cell("seats", seat, "company")
            + cell("seats", seat, "line")
            + cell("seats", seat, "first_day")
            + f"<td>{esc(names.gladiator_name(house))} "
            + f'<span class="id">{span("seats", seat, "house")}</span></td>'
            + f'<td><ul class="plain">{gladiators}</ul></td></tr>'
        )
    head = "".join(column_head(h, tip) for h, tip in SEAT_HEADS)
    return (
        "<h1>The seats</h1>\n"
        '<p class="lede">Thirteen permanent seats, each a company\'s model line. The seat '
        "owns the record; when a company replaces its model, a new gladiator takes the seat on a published "
        f"date and the record continues ({esc(seats_doc['registry'])}). A seat without its provider's key "
        "is filled by its house gladiator, and those answers are CALIBRATION.</p>\n"
        '<p class="note">The registry names a gladiator by its model id only; the readable name beside '
        "each id is read from it by fixed rules: an organisation prefix before / dropped, words split at "
        "hyphens and capitalised (GPT, DeepSeek and mixed words such as K2 or 17B in capitals), one-digit "
        "runs joined as a version (4-1 is 4.1); a house gladiator's name says its kind, its seed (#7 for "
        "-s7) and its behaviours.</p>\n"
        '<div class="table-wrap"><table>\n<caption>Seats and gladiators</caption>\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table></div>"
    )


def keys_body(keys: Sequence[Row]) -> str:
    return (
        '<h1>Public keys</h1>\n<p class="lede">Every answer is signed by its seat\'s Ed25519 key and '
        "countersigned by the arena's key (method §9). Each key is valid from the date shown. Key id: "
        "SHA-256 of the raw public key.</p>\n"
        + table_html(
            "public_keys",
            keys,
            [
                Col("name", "Name"),
                Col("algorithm", "Algorithm"),
                Col("public_key", "Public key (base64url)", cls="code"),
                Col("key_id", "Key id", cls="code"),
                Col("valid_from", "Valid from"),
            ],
            caption="Public keys in the record",
            empty="no keys recorded yet",
        )
    )


def rules_body(doc: Mapping[str, Any]) -> str:
    return "\n".join(
        [
            "<h1>Rules and versions</h1>",
            '<p class="lede">Every rule is automatic, published and versioned. A change of rule changes its '
            "version; past results keep their original version and history is never re-scored.</p>",
            table_html(
                "rule_versions",
                doc["versions"],
                [
                    Col("id", "Name", cls="code"),
                    Col("version", "Version"),
                    Col("governs", "What it governs", cls="text"),
                    Col("method", "Method", cls="text"),
                    Col("defined_in", "Defined in", cls="code"),
                ],
                caption="Rule and formula versions",
            ),
            "<h2>Selection rules, in the order applied</h2>",
            table_html(
                "selection_rules",
                doc["selection_rules"],
                [Col("order", "#"), Col("id", "Rule", cls="code"), Col("description", "Rule", cls="text")],
                caption="An excluded question names the first rule that excluded it and the number that did",
            ),
            "<h2>Reading the answers: recovery steps</h2>",
            table_html(
                "recovery_steps",
                doc["recovery_steps"],
                [
                    Col("order", "#"),
                    Col("id", "Step", cls="code"),
                    Col("description", "What it reads", cls="text"),
                ],
                caption="An answer read by any step is scored at full value and marked BAD FORMATTING",
            ),
            "<h2>Formulas</h2>",
            table_html(
                "formulas",
                doc["formulas"],
                [Col("id", "Name", cls="code"), Col("formula", "Formula", cls="text")],
                caption="The formulas of the scoring version",
            ),
            table_html(
                "parameters",
                doc["parameters"],
                [
                    Col("id", "Parameter", cls="code"),
                    Col("value", "Value"),
                    Col("defined_in", "Defined in", cls="code"),
                ],
                caption="Parameters",
            ),
        ]
    )


def calibration_body(
    rows: Sequence[Row],
    seats: Sequence[str],
    plot_of: Callable[[str, str], str],
    standing: Mapping[str, Plot],
    seat_names: Mapping[str, str] | None = None,
) -> str:
    parts = [
        "<h1>Calibration and standing</h1>",
        '<p class="lede">Is confidence 9 right 95% of the time? For each seat, every stated confidence '
        "(probability 0.5 + s/20) against the share of its calls that were right. Forfeits state no "
        "confidence and are left out.</p>",
    ]
    for kind in KINDS:
        mine = [r for r in rows if r["kind"] == kind and r["entrant_type"] == "seat"]
        parts.append(f'<section id="{kind.lower()}" class="kind kind-{kind.lower()}" data-kind="{kind}">')
        parts.append(f"<h2>{kind_badge(kind)} {kind}</h2>")
        if not any(r["n"] for r in mine):
            parts.append(f'<p class="empty">no {kind} records yet</p></section>')
            continue
        parts.append(_standing_figure(kind, standing[kind]))
        parts.append('<div class="plots">')
        for seat in seats:
            seat_rows = sorted((r for r in mine if r["entrant"] == seat), key=lambda r: r["confidence"])
            parts.append(
                f'<figure class="plot"><img src="{attr(plot_of(kind, seat))}" width="360" height="320" '
                f'alt="Calibration of seat {attr(seat)} on {kind} cards: stated probability against '
                'hit rate">'
                f"<figcaption>{esc((seat_names or {}).get(seat, seat))} "
                f'<span class="id">{esc(seat)}</span></figcaption>'
            )
            if any(r["n"] for r in seat_rows):
                parts.append(
                    table_html(
                        "calibration",
                        [r for r in seat_rows if r["n"]],
                        [
                            Col("confidence", "Confidence (stake)"),
                            Col("stated", "Stated"),
                            Col("n", "n"),
                            Col("hits", "Hits"),
                            Col("hit_rate", "Hit rate"),
                            Col("gap", "Gap"),
                        ],
                        caption=f"{seat} · {kind}",
                    )
                )
            parts.append("</figure>")
        parts.append("</div></section>")
    return "\n".join(parts)


def downloads_body(
    downloads: Sequence[tuple[str, str]],
    json_files: Sequence[tuple[str, str]],
    per_card: Sequence[tuple[str, str]],
) -> str:
    def listing(items: Sequence[tuple[str, str]], *, link: bool = True) -> str:
        def name(f: str) -> str:
            return f'<a href="{attr(f)}">{esc(f)}</a>' if link else f"<code>{esc(f)}</code>"

        return (
            '<div class="table-wrap"><table><thead><tr>'
            + column_head("File", "The file's path in this site")
            + column_head("What it holds", "What the file holds, and for which cards")
            + "</tr></thead><tbody>"
            + "".join(f"<tr><td>{name(f)}</td><td>{esc(d)}</td></tr>" for f, d in items)
            + "</tbody></table></div>"
        )

    return "\n".join(
        [
            "<h1>Downloads</h1>",
            '<p class="lede">The record behind this board. Parquet files keep the record\'s columns and '
            "row identifiers unchanged: each row's <code>id</code> is the SHA-256 of its RFC 8785 JSON "
            "without <code>id</code>, so anyone can recompute it. Answers, answer lines, signatures and "
            "scores are included only for released cards. A missed card, which never sealed, has its "
            "card_status and sweeps rows and nothing else.</p>",
            "<h2>Parquet</h2>",
            listing(downloads),
            "<h2>JSON</h2>",
            listing(json_files),
            "<h2>Per card</h2>",
            '<p>Each card\'s files, linked from <a href="cards/index.html">the cards</a> and from each '
            "card's page (<code>&lt;key&gt;</code> is the card, e.g. 2026-11-20-0500):</p>",
            listing(per_card, link=False),
            '<p class="note">The site is signed: <code>MANIFEST.json</code> lists every file with its '
            "SHA-256, and <code>MANIFEST.json.dsse</code> is the arena key's signature over it.</p>",
        ]
    )
