"""A challenge event's pages on the events board, built from its record alone.

``index.html``: solving and authoring ranked apart, each on the Verified basis and with Reviewed
outcomes, each table with its interval chart above it (``events.site.pictures``), what the event
froze, the signed commitments and the downloads. ``tasks.html``: every submission (and why a failed
one failed) and, the event being sealed, every task revealed with its
salt, commitment, how it was shown defective, and every reply with its check or its review.
``prompts.html``: the authoring, solving and review prompts verbatim.

The tables recorded sealed before the reveal (CHALLENGE-COMMIT-2) are opened with the key the reveal
published (``challenge_key``), as anyone downloading them can.

The standings open with a key to every column; players and judges are named as every events page
names them (``events.site.glossary``): in a CALIBRATION event the house player first, with the
contender or judge's seat it stands in for beside it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from colosseum_core.events.challenges.event import open_tables, published_key, review_outcomes
from colosseum_core.events.manifest import placement_rule
from colosseum_core.events.site import glossary, pictures
from colosseum_core.events.site.glossary import Names
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.shell import key_html
from colosseum_core.statistics.placement import reading as placement_reading

Table = Callable[..., str]
_BASES = {"verified": "Verified outcomes only", "with_reviewed": "Verified and Reviewed outcomes"}


def _score(r: Mapping[str, Any]) -> tuple[str, str]:
    if r["score"] is None:
        return "–", "–"
    return f"{r['score']:+.3f}", f"[{r['low']:+.3f}, {r['high']:+.3f}]"


def event_page(
    event: str,
    manifest: Mapping[str, Any],
    frames: Mapping[str, pl.DataFrame],
    downloads: Sequence[str],
    table: Table,
    medals: Mapping[str, str],
) -> str:
    standings = frames["challenge_standings"]
    names = Names(manifest)
    sections = []
    for ranking in ("solving", "authoring"):
        for basis, label in _BASES.items():
            chosen = pictures.in_table_order(
                standings.filter((pl.col("ranking") == ranking) & (pl.col("basis") == basis)), "score"
            )
            rows = []
            for r in chosen.iter_rows(named=True):
                score, interval = _score(r)
                place = "–" if r["placement"] is None else str(r["placement"])
                rows.append(
                    [
                        esc(place) + (f" {esc(medals[r['medal']])}" if r["medal"] else ""),
                        f'<span class="nowrap">{esc(names.of(r["contender"]).played)}</span>',
                        esc(names.of(r["contender"]).beside),
                        esc(score),
                        esc(interval),
                        esc(f"{r['n']:,}"),
                        esc(f"{r['excluded']:,}"),
                        *([esc(f"{r['verified_slots']} of {r['slots']}")] if ranking == "authoring" else []),
                    ]
                )
            head = ["Place", "Player", "Plays as", "Score (mean)", "95 % interval", "Counted", "Excluded"]
            head += ["Verified slots"] if ranking == "authoring" else []
            sections.append(
                pictures.standings_chart(
                    f"{ranking}-{basis.replace('_', '-')}-chart",
                    f"{ranking.capitalize()}, {label.lower()}: mean score and 95 % interval of each player, "
                    f"in the table's order (challenge_standings where ranking is {ranking} and basis "
                    f"{basis}: score, low, high, placement; medals coloured)",
                    chosen,
                    names,
                    point="score",
                    axis=f"mean {ranking} score (−1 to +1)",
                    digits=3,
                    points_scale=True,
                )
            )
            sections.append(
                table(
                    f"{ranking.capitalize()}: {label}",
                    head,
                    rows,
                    numeric=(3, 5, 6),
                    tips=glossary.CHALLENGE_TIPS,
                )
            )
    commitments = frames["challenge_commitments"].row(0, named=True)
    links = "".join(
        f'<li><a href="{esc(d, attribute=True)}">{esc(d.rsplit("/", 1)[-1])}</a></li>' for d in downloads
    )
    cited = standings["manifest_sha256"][0]
    placed_by = esc(placement_reading(placement_rule(manifest)))
    return f"""<h1>{esc(event)}</h1>
<p>A challenge event, <strong>{esc(manifest["class"])}</strong>, frozen {esc(manifest["frozen_at"])}:
{len(manifest["contenders"])} contenders, each with {manifest["slots"]} authoring slots; objections no
mechanical check decides are reviewed, blinded, by {esc(names.listed([j["id"] for j in manifest["judges"]]))}.
Every result cites the manifest <code>{esc(cited)}</code> (<a href="manifest.json">manifest.json</a>,
its signature <a href="manifest.dsse.json">manifest.dsse.json</a>). Before anyone solved, the
{commitments["commitments"]} verified tasks were committed by salted SHA-256 in a document signed by the
arena key (SHA-256 <code>{esc(commitments["sha256"])}</code>); every task and salt is revealed below and
<code>colosseum verify</code> opens every commitment. Until the reveal the record kept every task, reply
and verdict sealed under the event's key; the reveal published it (<code>challenge_key</code>, its SHA-256
signed in the commitments), and the downloads are the tables as recorded, sealed fields included.</p>
<h2>Standings</h2>
<p>Solving: +1 a correct answer or an upheld objection, 0 an abstention, −1 a wrong answer, an
objection not upheld, an answer to a defective task, or no readable reply. Authoring, over every
registered slot: 0 a failed submission, −1 a task shown defective, else 0.25 + 0.75 × the share of
opponents who did not solve it; an authoring medal needs 80 % of the slots verified. 95 % intervals
from {manifest["standings"]["bootstrap_replicates"]:,} bootstrap replicates resampling tasks (seed
{manifest["seeds"]["bootstrap"]}). {placed_by} <em>Verified</em> outcomes were decided by a checker
or a sandboxed run, <em>Reviewed</em> ones by the two judges; <em>Unresolved</em> ones (the judges
split) are excluded and counted. <a href="#key">How to read the standings</a>.</p>
{"".join(sections)}
{key_html(glossary.CHALLENGE_KEY, heading="How to read the standings")}
<h2>More</h2>
<ul><li><a href="tasks.html">Every submission and task, with every reply</a></li>
<li><a href="prompts.html">The prompts, verbatim</a></li></ul>
<h2>Downloads</h2>
<ul>{links}</ul>
"""


def _said(r: Mapping[str, Any], review: str | None) -> str:
    if r["status"] != "answered":
        return "no reply"
    if r["verdict"] == "ANSWER":
        return f"answered {r['answer']} (the checker: {r['check']})"
    if r["verdict"] == "OBJECT":
        return f"objected: {r['defect']}, quoting “{r['span']}”; {r['reason'] or ''} (review: {review})"
    if r["verdict"] == "ABSTAIN":
        return "abstained"
    return f"unreadable ({r['failure']})"


def revealed_tables(
    manifest: Mapping[str, Any], frames: Mapping[str, pl.DataFrame]
) -> dict[str, pl.DataFrame]:
    """A revealed event's tables, every sealed one opened with the key its reveal published."""
    return open_tables(frames, published_key(manifest, frames.get("challenge_key")), manifest["event"])


def tasks_page(event: str, recorded: Mapping[str, pl.DataFrame], table: Table) -> str:
    manifest = json.loads(recorded["event_manifests"]["manifest"][0])
    frames = revealed_tables(manifest, recorded)
    names = Names(manifest)
    submissions = frames["challenge_submissions"].sort("author", "slot")
    reveals = {r["task_id"]: r for r in frames["challenge_reveals"].iter_rows(named=True)}
    replies, reviews = frames["challenge_replies"], frames["challenge_reviews"]
    outcomes = review_outcomes(reviews)
    scores = frames["challenge_scores"]
    rows = [
        [
            esc(names(s["author"])),
            esc(str(s["slot"])),
            esc(s["status"]),
            esc(s["detail"] or ""),
            esc((s["task_id"] or "–")[:16]),
        ]
        for s in submissions.iter_rows(named=True)
    ]
    parts = [
        table(
            "Submissions",
            ["Author", "Slot", "Status", "Why", "Task"],
            rows,
            numeric=(1,),
            tips=glossary.CHALLENGE_TIPS,
        )
    ]
    for s in submissions.filter(pl.col("status") == "verified").iter_rows(named=True):
        reveal = reveals[s["task_id"]]
        defect = (
            f"Shown defective ({esc(reveal['defect_evidence'])}): {esc(reveal['defect_reason'])}."
            if reveal["defective"]
            else "No defect shown."
        )
        solving = scores.filter((pl.col("ranking") == "solving") & (pl.col("task_id") == s["task_id"]))
        points = {r["contender"]: r for r in solving.iter_rows(named=True)}
        reply_rows = [
            [
                esc(names(r["solver"])),
                esc(_said(r, outcomes.get((r["solver"], r["task_id"])))),
                esc(f"{points[r['solver']]['units']:+d} ({points[r['solver']]['evidence']})"),
                esc(points[r["solver"]]["reason"]),
            ]
            for r in replies.filter(pl.col("task_id") == s["task_id"]).sort("solver").iter_rows(named=True)
        ]
        runs = pl.concat(
            [frames["challenge_checker_runs"], frames["challenge_solving_runs"]], how="vertical_relaxed"
        )
        run_rows = [
            [
                esc(r["phase"] + (f" ({names(r['solver'])})" if r["solver"] else "")),
                esc(r["step"] + ("" if r["case"] is None else f" {r['case']}")),
                esc(r["answer"] if r["answer"] is not None else "–"),
                esc(r["checker"]),
                esc(r["verdict"]),
                esc(r["reason"]),
                esc(r["sandbox_outcome"] or "–"),
            ]
            for r in runs.filter(pl.col("task_id") == s["task_id"]).iter_rows(named=True)
        ]
        votes = [
            [
                esc(names(v["judge"])),
                esc(names(v["solver"])),
                esc(v["vote"] or "no valid vote"),
                esc(v["vote_reason"]),
            ]
            for v in reviews.filter(pl.col("task_id") == s["task_id"])
            .sort("solver", "judge")
            .iter_rows(named=True)
        ]
        short = esc(s["task_id"][:16])
        parts.append(
            f'<h2 id="t-{short}">Task <code>{short}</code>: slot {s["slot"]} of '
            f"{esc(names(s['author']))}</h2>\n"
            f"<blockquote>{esc(s['statement'])}</blockquote>\n"
            f"<p>Answer type {esc(s['answer_type'])}; reference answer <code>{esc(s['reference'])}</code>. "
            f"{defect} Salt <code>{esc(reveal['salt'])}</code>, commitment "
            f"<code>{esc(reveal['commitment'])}</code>.</p>\n"
            "<details><summary>The task as submitted (canonical JSON)</summary>"
            f"<pre>{esc(s['task'])}</pre></details>\n"
            + table(
                f"Replies to {s['task_id'][:16]}",
                ["Solver", "Reply", "Points", "Why"],
                reply_rows,
                tips=glossary.CHALLENGE_TIPS,
            )
            + table(
                f"Checker runs of {s['task_id'][:16]}",
                ["Phase", "Step", "Answer", "Checker", "Verdict", "Why", "Sandbox"],
                run_rows,
                tips=glossary.CHALLENGE_TIPS,
            )
            + (
                table(
                    f"Review of the objections to {s['task_id'][:16]}",
                    ["Judge", "Objector", "Vote", "Why"],
                    votes,
                    tips=glossary.CHALLENGE_TIPS,
                )
                if votes
                else ""
            )
        )
    return f"<h1>{esc(event)}: every submission and task</h1>\n" + "\n".join(parts)


def prompts_page(event: str, manifest: Mapping[str, Any]) -> str:
    rules = manifest["rules"]
    return f"""<h1>{esc(event)}: the prompts, verbatim</h1>
<p>Authoring ({esc(rules["authoring"])}), once per slot; solving ({esc(rules["solving"])}), once per task,
the same bytes for every solver; review ({esc(rules["review"])}), blinded, once per objection and judge.</p>
<h2>Authoring</h2>
<pre>{esc(rules["authoring_prompt"])}</pre>
<h2>Solving</h2>
<pre>{esc(rules["solving_prompt"])}</pre>
<h2>Review</h2>
<pre>{esc(rules["review_prompt"])}</pre>
"""
