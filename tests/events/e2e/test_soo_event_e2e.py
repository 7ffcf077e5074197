"""A Solve-or-Object event of house solvers end to end through the real Definitions (the CLI's freeze and
run jobs), then ``colosseum verify``: re-read, re-scored, re-ranked, and every tampered byte named."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.events.arena import EVENTS
from colosseum_core.record.layout import Record
from tests.conftest import cli
from tests.support import events_e2e as e2e
from tests.support.sandbox import need_sandbox

KIND = "solve-or-object"
EVENT = "soo-e2e"

FREEZE = ("--pairs", "6", "--seed", "11", "--replicates", "499")


def freeze(data: Path, event: str, *extra: str) -> None:
    e2e.freeze(KIND, data, event, *FREEZE, *extra)


played = e2e.played_fixture(KIND, EVENT, *FREEZE, need=need_sandbox)


def test_the_event_is_frozen_asked_scored_and_sealed(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = Record(played).tables(EVENTS)
    manifest = e2e.manifest(played, EVENT)
    assert manifest["kind"] == "solve-or-object" and manifest["class"] == "CALIBRATION"
    assert len(manifest["bank"]["pairs"]) == 6 and len(manifest["bank"]["items"]) == 12
    assert "PROBLEM {nonce}" in manifest["rules"]["prompt_template"]
    replies = tables.read("soo_replies", EVENT)
    assert replies.height == 6 * 12 and set(replies["evidence"]) == {"verified"}
    by = {c: replies.filter(pl.col("contender") == c) for c in replies["contender"].unique()}
    assert set(by["house-silent"]["outcome"]) == {"no_response"}
    assert set(by["house-garbled"]["outcome"]) == {"unreadable"}
    credulous = by["google-frontier"]  # never objects: every sound item solved, every defect missed
    assert set(credulous.filter(pl.col("role") == "sound")["outcome"]) == {"solved"}
    assert set(credulous.filter(pl.col("role") == "twin")["outcome"]) == {"missed_defect"}
    assert {"substantiated", "solved"} <= set(by["openai-frontier"]["outcome"])
    assert "invented_objection" in set(by["house-paranoid"]["outcome"])
    standings = tables.read("soo_standings", EVENT)
    top = standings.filter(pl.col("contender") == "openai-frontier").row(0, named=True)
    assert top["placement"] == 1 and top["medal"] == "gold" and top["low"] <= top["score"] <= top["high"]
    google = standings.filter(pl.col("contender") == "google-frontier").row(0, named=True)
    assert (google["score"], google["low"], google["high"]) == (0.0, 0.0, 0.0)  # +1 and -1 in every pair
    silent = standings.filter(pl.col("contender") == "house-silent").row(0, named=True)
    assert (silent["score"], silent["brier"], silent["medal"]) == (-1.0, 1.0, None)
    assert Record(played).seals(EVENTS).get(EVENT) is not None
    report = e2e.verified(played)
    assert report.checked["soo_replies"] == 6 * 12 and report.checked["standings"] == 1
    bundle = json.loads(tables.read("event_bundles", EVENT)["document"][0])
    seal = Record(played).seals(EVENTS).get(EVENT)
    assert seal is not None and {a["table"]: a["sha256"] for a in bundle["artifacts"]} == seal.tables
    assert report.checked["bundles"] == 1
    capsys.readouterr()
    twin = next(i for i in manifest["bank"]["items"] if i.endswith("/twin"))
    assert cli("events", "solve-or-object", "item", "show", EVENT, twin, "--data", str(played)) == 0
    shown = capsys.readouterr().out
    assert "missed_defect" in shown and "no reply" in shown
    assert cli("events", "solve-or-object", "standings", EVENT, "--json", "--data", str(played)) == 0
    assert json.loads(capsys.readouterr().out)["standings"][0]["medal"] == "gold"


def test_a_sealed_event_runs_again_to_the_same_bytes_and_a_frozen_one_is_never_refrozen(played: Path) -> None:
    e2e.check_runs_again_to_the_same_bytes(
        KIND, played, EVENT, ("event_manifests", "soo_replies", "soo_standings")
    )


@pytest.mark.parametrize(
    ("table", "change", "named"),
    [
        (
            "soo_replies",
            lambda f: f.with_columns(
                text=pl.when((pl.col("contender") == "anthropic-frontier") & (pl.col("verdict") == "ANSWER"))
                .then(pl.lit("VERDICT: ABSTAIN\nP_DEFECTIVE: 50"))
                .otherwise("text")
            ),
            "field text: not the reply its receipt",
        ),
        (
            "soo_replies",
            lambda f: f.with_columns(
                points=pl.when(pl.col("outcome") == "missed_defect").then(pl.lit(1)).otherwise("points")
            ),
            "field points",
        ),
        ("soo_standings", lambda f: f.with_columns(score=pl.col("score") + 0.01), "field score"),
        (
            "event_bundles",
            lambda f: f.with_columns(
                document=pl.col("document").str.replace('"sha256":"', '"sha256":"0', literal=True)
            ),
            "event_bundles event",
        ),
        (
            "soo_replies",
            lambda f: f.with_columns(
                receipt_ids=pl.when(pl.col("contender") == "openai-frontier")
                .then(pl.col("receipt_ids").shift(1))
                .otherwise("receipt_ids")
            ),
            "does not carry the prompt the rules give",
        ),
    ],
)
def test_a_tampered_reply_score_or_standing_is_named(
    played: Path, tmp_path: Path, table: str, change: e2e.Change, named: str
) -> None:
    e2e.check_named(e2e.tampered(played, tmp_path, EVENT, table, change), EVENT, named)


@pytest.mark.slow
def test_a_request_in_flight_when_the_arena_died_is_asked_again(played: Path, tmp_path: Path) -> None:
    """COLOSSEUM-EVENT-ASKING-2: a run killed right after an item's request is journalled (before it is
    sent) resumes by recording that request interrupted and asking the item again; every reply and score
    is as in the uncrashed event, and verify accepts the interrupted request."""
    need_sandbox()
    data = tmp_path / "data"
    freeze(data, "soo-crash")
    victim = ("anthropic-frontier", e2e.manifest(data, "soo-crash")["bank"]["items"][5])
    with e2e.stalling_sparring() as url:
        run = e2e.run_argv(KIND, data, "soo-crash")
        e2e.killed_then_resumed(run, sparring_url=url, kill_at="event-ask:{}:{}".format(*victim))
    entries = e2e.journal_entries(Record(data).journal_path(EVENTS, "soo_replies", "soo-crash"))
    e2e.check_asked_again(entries, ("contender", "item"), victim)
    assert len({(e["contender"], e["item"]) for e in entries}) == 6 * 12
    same = ["contender", "item_id", "status", "text", "verdict", "answer", "outcome", "points", "brier_units"]
    replies = {
        d: Record(d).tables(EVENTS).read("soo_replies", e).select(same)
        for d, e in ((data, "soo-crash"), (played, EVENT))
    }
    assert replies[data].to_dicts() == replies[played].to_dicts()
    assert replies[data].filter((pl.col("contender") == victim[0]) & (pl.col("item_id") == victim[1]))[
        "status"
    ].to_list() == ["answered"]
    e2e.verified(data)


def test_bad_input_is_one_clear_line(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["event", "run", "no-such-event"], "is not frozen"),
        (["event", "freeze", "Bad Name"], "lower-case letters"),
        (["event", "freeze", "x1", "--pairs", "0"], "at least one pair"),
        (["event", "freeze", "x2", "--pairs", "999"], "1 to 50 pairs"),
        (["event", "freeze", "x3", "--bank", "/nonexistent.json"], "no such file"),
        (["event", "freeze", "x4", "--contender", "nobody"], "no contender nobody"),
        (["item", "show", EVENT, "soo-999/twin"], "has no item"),
        (["standings", "never-run"], "has no Solve-or-Object standings"),
    ]
    for argv, message in cases:
        capsys.readouterr()
        code = cli("events", KIND, *argv, "--data", str(played))
        captured = capsys.readouterr()
        assert code in (1, 2), (argv, code)
        assert message in captured.err + captured.out, (argv, captured.err, captured.out)
        assert "Traceback" not in captured.err


def test_the_public_site_shows_the_event_and_verify_reads_it_back(played: Path, tmp_path: Path) -> None:
    from colosseum_core.arenas import AUDITS, PUBLIC_SITE
    from colosseum_core.site.publish import published_problems
    from colosseum_core.verify import verify_site

    site = e2e.published(played, tmp_path / "site")
    page = site / "events" / EVENT
    standings = (page / "index.html").read_text()
    assert "gold" in standings and "95 % interval" in standings and "Brier" in standings
    assert "soo_replies.parquet" in standings and "manifest.dsse.json" in standings
    assert (
        "bundle.dsse.json" in standings and json.loads((page / "bundle.json").read_text())["event"] == EVENT
    )
    items = (page / "items.html").read_text()
    assert items.count("<h2 id=") == 12 and "missed defect" in items and "substantiated" in items
    assert "PROBLEM" in (page / "prompts.html").read_text()
    index = (site / "events" / "index.html").read_text()
    assert EVENT in index and "solve-or-object" in index
    assert published_problems(PUBLIC_SITE, site, Record(played)) == []
    report = verify_site(site, AUDITS)
    assert report.ok(), report.problems
    assert report.checked["events_downloads"] == 6  # the 3 tables, the recipes, the bank and the items
    # A standing changed on the page is named by the re-check.
    (page / "index.html").write_text(standings.replace("+0.", "+9.", 1))
    assert any("index.html" in p for p in published_problems(PUBLIC_SITE, site, Record(played)))
