"""A Solve-or-Object event's pages on the events board, built from its record alone.

``index.html``: the standings (mean points with their 95 % intervals, placements and medals, the
outcome counts, the Brier score with its interval) with their interval chart, each contender's
calibration plot (``events.site.pictures``), what the event froze, and the downloads.
``items.html``: every item after the event closed: its statement, for a twin the edit, its class and
why it is defective, and every contender's reply read (verdict, answer or objection, P(defective)),
its outcome, points and the reason. ``prompts.html``: the prompt verbatim, with an example.

The standings open with a key to every column; players are named as every events page names them
(``events.site.glossary``): in a CALIBRATION event the house player first, with the contender it
stands in for beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from colosseum_core.events.manifest import placement_rule
from colosseum_core.events.site import glossary, pictures
from colosseum_core.events.site.glossary import Names
from colosseum_core.events.solve_or_object.bank import Bank, Item
from colosseum_core.events.solve_or_object.prompt import item_prompt
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.shell import key_html
from colosseum_core.statistics.placement import reading as placement_reading

Table = Callable[..., str]


def _points(value: float) -> str:
    return f"{value:+.3f}"


def _interval(low: float, high: float) -> str:
    return f"[{low:+.3f}, {high:+.3f}]"


def event_page(
    event: str,
    manifest: Mapping[str, Any],
    standings: pl.DataFrame,
    replies: pl.DataFrame,
    downloads: Sequence[str],
    table: Table,
    medals: Mapping[str, str],
) -> str:
    """The standings page: the interval chart above the table, the calibration plots below it."""
    names = Names(manifest)
    ordered = pictures.in_table_order(standings, "score")
    rows = [
        [
            esc("–" if r["placement"] is None else str(r["placement"]))
            + (f" {esc(medals[r['medal']])}" if r["medal"] else ""),
            f'<span class="nowrap">{esc(names.of(r["contender"]).played)}</span>',
            esc(names.of(r["contender"]).beside),
            esc(_points(r["score"])),
            esc(_interval(r["low"], r["high"])),
            esc(f"{r['items']:,}"),
            esc(f"{r['solved']:,}"),
            esc(f"{r['substantiated']:,}"),
            esc(f"{r['abstained']:,}"),
            esc(f"{r['penalised']:,}"),
            esc(f"{r['unreadable']:,}"),
            esc(f"{r['brier']:.3f} [{r['brier_low']:.3f}, {r['brier_high']:.3f}]"),
        ]
        for r in ordered.iter_rows(named=True)
    ]
    head = [
        "Place",
        "Player",
        "Plays as",
        "Points (mean)",
        "95 % interval",
        "Items",
        "Solved",
        "Objections upheld",
        "Abstained",
        "Penalised",
        "Unreadable or silent",
        "Brier [95 %]",
    ]
    bank = manifest["bank"]
    cited = standings["manifest_sha256"][0]
    links = "".join(
        f'<li><a href="{esc(d, attribute=True)}">{esc(d.rsplit("/", 1)[-1])}</a></li>' for d in downloads
    )
    replicates = manifest["standings"]["bootstrap_replicates"]
    placed_by = esc(placement_reading(placement_rule(manifest)))
    chart = pictures.standings_chart(
        "soo-standings-chart",
        "Mean points per item and 95 % interval of each contender, in the table's order (soo_standings: "
        "score, low, high, placement; medals coloured)",
        ordered,
        names,
        point="score",
        axis="mean points per item (−1 to +1)",
        digits=3,
        points_scale=True,
    )
    return f"""<h1>{esc(event)}</h1>
<p>A Solve-or-Object event, <strong>{esc(manifest["class"])}</strong>, frozen {esc(manifest["frozen_at"])}:
{len(manifest["contenders"])} contenders, {len(bank["pairs"])} pairs drawn from {esc(bank["name"])}
(SHA-256 <code>{esc(bank["sha256"])}</code>) with seed {manifest["seeds"]["draw"]}: each pair's sound problem
and its minimally edited defective twin, {len(bank["items"])} items, each asked in a conversation of its
own. Every result cites the manifest <code>{esc(cited)}</code> (<a href="manifest.json">manifest.json</a>,
its signature <a href="manifest.dsse.json">manifest.dsse.json</a>).</p>
<h2>Standings</h2>
<p>Points per item: +1 a correct answer to a sound problem or an objection that names a defective one's
class and quotes words overlapping its edit (or proves several answers with a witness); 0 an
abstention; −1 anything else. The score is the mean over every item, with a 95 % interval from
{replicates:,} bootstrap replicates that resample pairs (a twin and its original are one cluster;
seed {manifest["seeds"]["bootstrap"]}). {placed_by} The Brier score of each contender's P(defective)
is beside it (lower is better) and ranks nothing. Every outcome is evidence <em>Verified</em>: the
exact checker, the edit's recorded place or a sandboxed run of the twin's checking program decided it.
<a href="#key">How to read the standings</a>.</p>
{chart}
{table("Standings", head, rows, numeric=(3, 5, 6, 7, 8, 9, 10), tips=glossary.SOO_TIPS)}
{key_html(glossary.SOO_KEY, heading="How to read the standings")}
<h2>Calibration</h2>
<p>How well each contender's stated P(defective) matched what the items were, from
<code>soo_replies</code> (<code>p_defective</code>, and <code>role</code>: a twin is defective, its
sound original is not): its replies are grouped by the tenth of the probability they stated (0–9 %,
10–19 %, …, 90–100 %); each dot is one group, at the mean probability stated and the share of its
items that were defective, sized by how many. On the dashed diagonal the stated chances came true
as often as they said; a reply with no readable P(defective) states nothing and is left out.</p>
{pictures.calibration_charts(replies, ordered, names)}
<h2>More</h2>
<ul><li><a href="items.html">Every item, with every reply</a></li>
<li><a href="prompts.html">The prompt, verbatim</a></li></ul>
<h2>Downloads</h2>
<ul>{links}</ul>
"""


def _said(r: Mapping[str, Any]) -> str:
    if r["verdict"] == "ANSWER":
        return f"answered {r['answer']}"
    if r["verdict"] == "OBJECT":
        witness = " with a witness" if r["witness"] else ""
        return f"objected: {r['defect']}, quoting “{r['span']}”{witness}"
    if r["verdict"] == "ABSTAIN":
        return "abstained"
    return "no reply" if r["outcome"] == "no_response" else f"unreadable ({r['failure']})"


def _edit(item: Item, bank: Bank) -> str:
    pair = bank.pair(item.pair_id)
    twin = pair.twin
    assert twin.edit_start is not None and twin.edit_end is not None
    inserted = twin.statement[twin.edit_start : twin.edit_end]
    return (
        f"<p>The edit: the words at {twin.edit_start}–{twin.edit_end} of this statement "
        f"(“{esc(inserted) or '(a removal)'}”). Defect class: <strong>{esc(item.defect_class)}</strong>. "
        f"{esc(pair.explanation)}</p>"
    )


def items_page(
    event: str, items: Sequence[Item], bank: Bank, replies: pl.DataFrame, table: Table, names: Names
) -> str:
    """``names``: how the event's players are named."""
    sections = []
    for item in items:
        mine = replies.filter(pl.col("item_id") == item.item_id).sort("contender")
        rows = [
            [
                esc(names(r["contender"])),
                esc(_said(r)),
                esc("–" if r["p_defective"] is None else f"{r['p_defective']} %"),
                esc(r["outcome"].replace("_", " ")),
                esc(f"{r['points']:+d}"),
                esc(r["reason"]),
            ]
            for r in mine.iter_rows(named=True)
        ]
        kind = "defective twin" if item.defective else f"sound; the answer is {item.answer}"
        detail = _edit(item, bank) if item.defective else ""
        anchor = esc(item.item_id.replace("/", "-"), attribute=True)
        sections.append(
            f'<h2 id="{anchor}">{esc(item.item_id)} ({esc(kind)})</h2>\n'
            f"<p>Answer type: {esc(item.answer_type)}.</p>\n"
            f"<blockquote>{esc(item.statement)}</blockquote>\n{detail}\n"
            + table(
                f"Replies to {item.item_id}",
                ["Player", "Reply", "P(defective)", "Outcome", "Points", "Why"],
                rows,
                numeric=(2, 4),
                tips=glossary.SOO_TIPS,
            )
        )
    return (
        f"<h1>{esc(event)}: every item</h1>\n<p>Revealed after the event closed, in the order asked.</p>\n"
        + "\n".join(sections)
    )


def prompts_page(event: str, manifest: Mapping[str, Any], example: Item) -> str:
    rules = manifest["rules"]
    return f"""<h1>{esc(event)}: the prompt, verbatim</h1>
<p>{esc(rules["prompt"])}: one user message per item, the same bytes for every contender; the problem is
fenced between two lines that carry a mark made from its statement, so no statement can close its
own fence. The reply is read by {esc(rules["reading"])} and scored by {esc(rules["scoring"])}.</p>
<h2>The template</h2>
<pre>{esc(rules["prompt_template"])}</pre>
<h2>An example: the first item asked</h2>
<pre>{esc(item_prompt(example))}</pre>
"""
