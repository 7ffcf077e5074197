"""The trials' pages of the public site (COLOSSEUM-TRIAL-PAGE-1): one page per model trial the record
holds (``trials/<trial id>.html``), listing its parts' reports as each part reads them from the record
(``TrialPart.read``, through ``trial.report.rebuild_report``), with a plain-language key; an index of
them (``trials/index.html``) and ``trials/trials.json``, from which the landing page lists the trials
(written from the site's files alone, so ``colosseum verify`` of a site writes it again).

The site engine knows no arena: the parts are handed in (``colosseum_core.arenas.trial_parts``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from colosseum_core.record.layout import Record
from colosseum_core.site.check import page_problems
from colosseum_core.site.formats import FieldFormats
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.page_parse import read_page
from colosseum_core.site.shell import Shell, attr, key_html
from colosseum_core.site.writer import json_bytes
from colosseum_core.trial.entries import trials_in
from colosseum_core.trial.part import TRIAL, PartReport, TrialPart
from colosseum_core.trial.report import (
    TrialReport,
    failures_text,
    rebuild_report,
    standing_text,
    tokens_text,
)

TRIAL_PAGES: Final = "COLOSSEUM-TRIAL-PAGE-1"
TRIALS_FOLDER: Final = "trials"
TRIALS_DOCUMENT: Final = f"{TRIALS_FOLDER}/trials.json"
TRIALS_INDEX: Final = f"{TRIALS_FOLDER}/index.html"

_SHELL: Final = Shell(
    brand="Colosseum",
    nav=(("index.html", "Arenas"), (TRIALS_INDEX, "Trials")),
    fields=FieldFormats(by_field={}),
    tips=lambda table, field: "",
    notice="Every number re-derives from the signed record: colosseum verify checks it.",
)

KEY: Final = (
    (
        "Trial",
        "One model tried in every arena at once by colosseum trial, as a CALIBRATION contender: "
        "practice against the house players, never on a FIGHT board.",
    ),
    (
        "Part",
        "One arena's share of the trial: an ordinary card, epoch or event of that arena, with its "
        "own seal, which colosseum verify checks like any other.",
    ),
    (
        "State",
        "sealed: the part's unit is finished and sealed; waiting: it is sealed but waits for the "
        "world (questions to settle); skipped: the arena had nothing to try the model on; failed: the part "
        "stopped, for the reason shown.",
    ),
    (
        "Standing",
        "The model's measure in that part, with its 95 % interval in brackets, and its rank "
        "among the house field (1st is best; the field counts the model too).",
    ),
    ("Format failures", "Replies the arena could not read as an answer, counted by what went wrong."),
    ("Refusals", "Requests the model declined or its server refused."),
    ("Cost", "Calls made to the model, the tokens its server reported (in / out), and the time taken."),
    (
        "Transcripts",
        "Where the part's exchanges with the model are kept in the record (its receipts and "
        "tables), relative to the record's root.",
    ),
)


def _standing_cells(part: PartReport) -> str:
    if part.state == "failed":
        return f"failed: {esc(part.note)}"
    said = "<br>".join(esc(standing_text(s)) for s in part.standings) or "no standing yet"
    return said + (f"<br><small>{esc(part.note)}</small>" if part.note and part.standings else "")


def trial_body(report: TrialReport) -> str:
    model = report.model
    rows = "\n".join(
        "<tr>"
        f"<td>{esc(p.arena)} / {esc(p.part)}</td>"
        f"<td><code>{esc(p.unit or '—')}</code></td>"
        f"<td>{esc(p.state)}</td>"
        f"<td>{_standing_cells(p)}</td>"
        f"<td>{esc(failures_text(p))}</td>"
        f'<td class="r">{p.refusals}</td>'
        f"<td>{p.calls} call(s), {esc(tokens_text(p))}, {p.seconds:.1f} s</td>"
        "</tr>"
        for p in report.parts
    )
    transcripts = "".join(
        f"<li>{esc(p.arena)} / {esc(p.part)}<ul>"
        + "".join(f"<li><code>{esc(t)}</code></li>" for t in p.transcripts)
        + "</ul></li>"
        for p in report.parts
        if p.transcripts
    )
    failed = len(report.failed)
    return (
        f"<h1>Trial of {esc(model.get('name', '?'))}</h1>"
        f'<p class="lede">{esc(model.get("name", "?"))} was tried as a CALIBRATION contender against the '
        f"house players in {len(report.parts)} part(s) of the arenas"
        + (f"; {failed} part(s) failed" if failed else "")
        + f". It was reached over the {esc(model.get('protocol', '?'))} protocol as model "
        f"<code>{esc(model.get('model', '?'))}</code>. Trial <code>{esc(report.trial)}</code>, run "
        f"{report.runs} time(s); <code>colosseum trial report {esc(report.trial)}</code> shows this "
        "report from the record.</p>"
        '<div class="table-wrap"><table><caption>The model in each part</caption>'
        "<thead><tr>"
        + "".join(
            f'<th scope="col">{h}</th>'
            for h in ("Part", "Unit", "State", "Standing", "Format failures", "Refusals", "Cost")
        )
        + f"</tr></thead>\n<tbody>\n{rows}\n</tbody></table></div>"
        + (f"<h2>Transcripts</h2><ul>{transcripts}</ul>" if transcripts else "")
        + key_html(KEY, heading="What the columns mean")
    )


def _page(title: str, relative: str, body: str, built_at: str) -> bytes:
    return _SHELL.layout(
        title=title,
        depth=relative.count("/"),
        active=relative,
        body=body,
        built_at=built_at,
        versions=f"{TRIAL_PAGES} · {TRIAL}",
    ).encode()


def trial_page_name(trial: str) -> str:
    return f"{TRIALS_FOLDER}/{trial}.html"


class TrialPages:
    """The trials' pages of a site, from the record and the parts offered (``parts``, asked when built)."""

    def __init__(self, parts: Callable[[], Sequence[TrialPart]]) -> None:
        self.parts = parts

    def files(self, record: Record, built_at: str) -> dict[str, bytes]:
        """Every file of ``trials/`` (none when the record holds no trial)."""
        trials = trials_in(record.root)
        if not trials:
            return {}
        parts = tuple(self.parts())
        reports = [r for t in trials if (r := rebuild_report(Path(record.root), t, parts)) is not None]
        files = {
            trial_page_name(r.trial): _page(
                f"Trial of {r.model.get('name', '?')}", trial_page_name(r.trial), trial_body(r), built_at
            )
            for r in reports
        }
        listed = [
            {
                "trial": r.trial,
                "model": str(r.model.get("name", "?")),
                "parts": len(r.parts),
                "failed": len(r.failed),
            }
            for r in reports
        ]
        items = "".join(
            f'<li><a href="{attr(t["trial"])}.html">{esc(t["model"])}</a>: {t["parts"]} part(s)'
            + (f", {t['failed']} failed" if t["failed"] else "")
            + "</li>"
            for t in listed
        )
        index = (
            '<h1>Model trials</h1><p class="lede">Models tried in every arena at once by '
            "<code>colosseum trial</code>, each against the house players as a CALIBRATION contender.</p>"
            f"<ul>{items}</ul>" + key_html(KEY[:1], heading="What a trial is")
        )
        files[TRIALS_INDEX] = _page("Model trials", TRIALS_INDEX, index, built_at)
        files[TRIALS_DOCUMENT] = json_bytes({"pages": TRIAL_PAGES, "trials": listed})
        return files

    def problems(self, site: Path, record: Record, built_at: str, files: Collection[str]) -> list[str]:
        """The site's ``trials/`` against what the record gives: each file missing, extra or changed."""
        expected = self.files(record, built_at)
        found = {f for f in files if f.startswith(f"{TRIALS_FOLDER}/")}
        problems = [f"{name}: missing from the site" for name in sorted(set(expected) - found)]
        problems += [
            f"{name}: a trial page the record does not give" for name in sorted(found - set(expected))
        ]
        for name in sorted(set(expected) & found):
            body = (site / name).read_bytes()
            if body != expected[name]:
                problems.append(f"{name}: differs from the site the record gives")
            elif name.endswith(".html"):
                problems += page_problems(name, read_page(body.decode()), files)
        return problems


def listed_trials(site: Path, vouched: Collection[str] | None = None) -> list[dict[str, Any]]:
    """The trials ``trials/trials.json`` lists (none without it, or when the manifest does not vouch
    for it): what the landing page shows, read from the site alone."""
    if vouched is not None and TRIALS_DOCUMENT not in vouched:
        return []
    try:
        document = json.loads((site / TRIALS_DOCUMENT).read_text())
        return [
            {
                "trial": str(t["trial"]),
                "model": str(t["model"]),
                "parts": int(t["parts"]),
                "failed": int(t["failed"]),
            }
            for t in document["trials"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def landing_trials(trials: Sequence[Mapping[str, Any]]) -> str:
    """The landing page's section on the trials (nothing when there are none)."""
    if not trials:
        return ""
    items = "".join(
        f'<li><a href="{attr(trial_page_name(t["trial"]))}">{esc(t["model"])}</a>: {t["parts"]} part(s)'
        + (f", {t['failed']} failed" if t["failed"] else "")
        + "</li>"
        for t in trials
    )
    return (
        '<section id="trials" aria-labelledby="trials-h"><h2 id="trials-h">Model trials</h2>'
        "<p>Models brought by their makers and tried in every arena at once, as CALIBRATION contenders "
        f'against the house players (<a href="{TRIALS_INDEX}">all trials</a>).</p><ul>{items}</ul></section>'
    )
