"""The event kinds are plug-ins of the multi-event arena (``events.kind``, ``events.kinds``): the
registry lists chess, Solve or Object and challenges with their tables, steps and journals; the
arena's sealing policy, its audit, its board and the sparring server's house players are read from
the registry, so a kind defined only here (``event_kind_toy``) appears in each once registered."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.arenas import sparring_houses
from colosseum_core.events import kinds as registry
from colosseum_core.events.arena import EVENTS, sealing_policy
from colosseum_core.events.audit import EVENTS_AUDIT, EventsAudit
from colosseum_core.events.challenges import event as challenge_event
from colosseum_core.events.challenges import run as challenge_run
from colosseum_core.events.kind import Step
from colosseum_core.events.kinds import KINDS, check_kinds, kind_named, load_kinds
from colosseum_core.events.manifest import freeze, manifest_frame
from colosseum_core.events.site.build import DOWNLOADED
from colosseum_core.events.solve_or_object import event as soo_event
from colosseum_core.events.solve_or_object import run as soo_run
from colosseum_core.providers.house_models import parse_model
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.trust.keys import SigningKey
from colosseum_core.verify.audit import RecordScan
from tests.support import REPO
from tests.support.event_kind_toy import KIND as TOY


def test_the_registry_lists_the_three_kinds_with_their_steps_and_tables() -> None:
    assert [k.name for k in KINDS] == ["chess", "solve-or-object", "challenge"]
    chess, soo, challenge = KINDS
    assert chess.steps == (Step("games", ("chess_games", "chess_moves")),)
    assert (chess.standings, chess.sealing) == (("chess_standings", "chess_fit"), "chess_standings")
    assert soo.tables == ("soo_replies", "soo_standings") and soo.sealing == "soo_standings"
    assert [s.name for s in challenge.steps] == [
        "authoring",
        "admission",
        "commitments",
        "solving",
        "review",
        "reveal",
    ]
    assert challenge.written[-2:] == ("challenge_reveals", "challenge_key")
    assert (challenge.standings, challenge.sealing) == (
        ("challenge_scores", "challenge_standings"),
        "challenge_standings",
    )
    # Each kind's journal is the one its run writes, keyed by the fields it asks with.
    assert soo.journals == {soo_run.REPLIES_JOURNAL: soo_event.JOURNAL_FIELDS}
    assert challenge.journals == {challenge_run.JOURNAL: challenge_event.JOURNAL_FIELDS}
    assert kind_named("solve-or-object") is soo and kind_named("go") is None


def test_the_arenas_sealing_policy_is_the_registrys_and_as_before() -> None:
    assert EVENTS.sealing == sealing_policy(KINDS)
    # The policy every recorded event was sealed under, table for table and in order.
    assert EVENTS.sealing.sealing_tables == ("chess_standings", "soo_standings", "challenge_standings")
    assert EVENTS.sealing.selection_tables == (
        "chess_standings",
        "chess_fit",
        "soo_standings",
        "challenge_scores",
        "challenge_standings",
    )
    assert EVENTS.sealing.write_once_tables == (
        "event_manifests",
        "chess_games",
        "chess_moves",
        "soo_replies",
        "challenge_authored",
        "challenge_submissions",
        "challenge_checker_runs",
        "challenge_commitments",
        "challenge_replies",
        "challenge_solving_runs",
        "challenge_reviews",
        "challenge_reveals",
        "challenge_key",
        "event_bundles",
    )
    assert EVENTS.sealing.sealed_tables == (
        "event_manifests",
        *(t for k in KINDS for t in (*k.written, *k.standings)),
    )
    assert EVENTS_AUDIT.record_counts == (
        "events",
        "chess_games",
        "chess_attempts",
        "soo_replies",
        "challenge_calls",
        "standings",
        "bundles",
    )
    assert dict(EVENTS_AUDIT.journals) == {
        "chess_moves": ("game", "ply", "attempt"),
        "soo_replies": ("contender", "item"),
        "challenges": ("phase", "who", "subject"),
    }


def test_the_house_players_are_the_kinds() -> None:
    houses = sparring_houses()
    for kind in KINDS:
        assert set(kind.houses()) <= set(houses)
    assert {"house-solver", "house-author", "house-reviewer"} <= set(houses)
    # Every family brought is a model name of its own, with its behaviours.
    for kind in KINDS:
        for name in kind.houses():
            assert parse_model(name, houses.values()) is not None, name
            for behaviour in kind.house_behaviours:
                persona = parse_model(f"{name}-{behaviour}", houses.values())
                assert persona is not None and persona.behaviours == {behaviour}, (name, behaviour)


def test_a_test_kind_joins_the_sealing_policy_and_the_audit() -> None:
    kinds = (*KINDS, TOY)
    policy = sealing_policy(kinds)
    assert "toy_standings" in policy.sealing_tables and "toy_rounds" in policy.write_once_tables
    assert policy.write_once_tables[-1] == "event_bundles"
    audit = EventsAudit(kinds=kinds)
    assert audit.record_counts[-3:] == ("toy_rounds", "standings", "bundles")
    assert audit.journals["toy_calls"] == ("contender", "round")


def _toy_record(root: Path, event: str, contenders: list[str]) -> None:
    key = SigningKey.from_seed("events-test", bytes(range(32)), dt.date(2026, 1, 1))
    frozen = freeze(
        {
            "event": event,
            "kind": "toy",
            "frozen_at": "2026-12-01T00:00:00Z",
            "contenders": [{"id": "a"}, {"id": "b"}],
        },
        key,
    )
    tables = Record(root).tables(EVENTS)
    tables.write("event_manifests", manifest_frame(frozen), event)
    rounds = pl.DataFrame(
        {
            "event": [event] * len(contenders),
            "contender": contenders,
            "points": [1] * len(contenders),
            "manifest_sha256": [frozen.sha256] * len(contenders),
        }
    )
    tables.write("toy_rounds", with_ids(rounds), event)


def _audited(root: Path, audit: EventsAudit, event: str):
    scan = RecordScan(
        root=root,
        partitions={"event_manifests": frozenset({event})},
        decided=frozenset(),
        has_receipts=False,
        workers=1,
    )
    [task] = audit.record_tasks(scan)
    return task.function(*task.args)


def test_the_audit_hands_an_event_to_its_kind(tmp_path: Path) -> None:
    _toy_record(tmp_path, "toy-1", ["a", "b"])
    with_toy = EventsAudit(kinds=(*KINDS, TOY))
    found = _audited(tmp_path, with_toy, "toy-1")
    assert found.problems == [] and found.checked["toy_rounds"] == 2
    # Without the kind registered, its tables are not even read: nothing of it is checked.
    assert _audited(tmp_path, EVENTS_AUDIT, "toy-1").checked["toy_rounds"] == 0
    # A hostile row: the kind's own check names it.
    _toy_record(tmp_path / "bad", "toy-2", ["a", "mallory"])
    bad = _audited(tmp_path / "bad", with_toy, "toy-2")
    assert bad.problems == ["toy_rounds event toy-2 contender mallory: not in the manifest"]


def test_a_kind_named_only_under_tests_is_registered_by_the_variable() -> None:
    """The whole arena in a fresh process, with the toy kind named in COLOSSEUM_EVENT_KINDS: its
    tables seal, the audit counts and journals it, the board publishes it, its house plays."""
    script = """
import json
from colosseum_core.arenas import AUDITS, sparring_houses
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.site.build import DOWNLOADED
from colosseum_core.events.site.downloads import event_kind
audit = AUDITS[-1]
print(json.dumps({
    "sealing": EVENTS.sealing.sealing_tables,
    "write_once": EVENTS.sealing.write_once_tables,
    "counts": audit.record_counts,
    "journals": sorted(audit.journals),
    "downloaded": DOWNLOADED.get("toy"),
    "derived": event_kind({"event": "toy-1", "kind": "toy"}).derived,
    "houses": sorted(sparring_houses()),
}))
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env[registry.EXTRA_KINDS_VARIABLE] = " tests.support.event_kind_toy ,"
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["sealing"] == ["chess_standings", "soo_standings", "challenge_standings", "toy_standings"]
    assert seen["write_once"][-2:] == ["toy_rounds", "event_bundles"]
    assert "toy_rounds" in seen["counts"] and "toy_calls" in seen["journals"]
    assert seen["downloaded"] == ["event_manifests", "toy_rounds", "toy_standings"]
    assert seen["derived"] == ["toy_moves.parquet"]
    assert "house-toy" in seen["houses"]


def test_the_registry_refuses_a_kind_that_clashes_or_is_not_one() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        check_kinds((*KINDS, KINDS[0]))
    thief = dataclasses.replace(TOY, name="thief", steps=(Step("rounds", ("soo_replies",)),))
    with pytest.raises(
        ValueError, match="event kinds solve-or-object and thief: both have the table 'soo_replies'"
    ):
        check_kinds((*KINDS, thief))
    with pytest.raises(ValueError, match="sealing table 'toy_rounds' is not among its standings"):
        dataclasses.replace(TOY, sealing="toy_rounds")
    with pytest.raises(TypeError, match=r"event kind module tests\.events\.test_kinds: KIND is NoneType"):
        load_kinds(("tests.events.test_kinds",))
    assert load_kinds(("tests.support.event_kind_toy",)) == (TOY,)
    assert registry.kind_modules({registry.EXTRA_KINDS_VARIABLE: "tests.support.event_kind_toy"})[-1] == (
        "tests.support.event_kind_toy"
    )
    assert DOWNLOADED["challenge"][0] == "event_manifests"
