"""The multi-event arena records what it recorded before the platform re-layout, byte for byte.

``tests/fixtures/events_record_9b5eb0b`` holds one small event of each kind (chess, Solve or Object,
challenges), each frozen, run and sealed by the code of commit 9b5eb0b, the last before issue 40's
re-layout (``tests/fixtures/build_events_record.py`` built it). Today's Definitions run each event
again with nothing listening where its house players were: first with every table but its manifest
removed, so that today's rules derive the games, replies, scores, standings and bundle again from the
recorded journals and receipts (Stockfish plays its moves again), then on the whole record, where a
frozen event is never frozen again and a sealed one is re-read. Every recorded file, receipts and
journals included, keeps its bytes and no file is added; ``verify`` re-derives all of it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.verify import verify_record
from colosseum_dagster.definitions import defs
from colosseum_dagster.resources import PROVIDER_KEY_VARIABLES
from tests.support import FIXTURES
from tests.support.fixture_records import NOWHERE, file_digests, fixture_builder
from tests.support.sandbox import need_sandbox

FIXTURE = FIXTURES / "events_record_9b5eb0b"
build_events_record = fixture_builder("build_events_record")


def _run(root: Path, event: str, job: str, stockfish: str) -> dg.ExecuteInProcessResult:
    spec = build_events_record.EVENTS[event]
    resources = build_events_record.resources(root, NOWHERE)
    resources["chess"]["config"]["stockfish"] = stockfish
    ops = {"events__event_manifests": {"config": spec["freeze"]}} if job == "freeze" else {}
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("events", [event])
        return defs.resolve_job_def(f"{spec['prefix']}_{job}_job").execute_in_process(
            partition_key=event,
            run_config={"resources": resources, "ops": ops},
            instance=instance,
            raise_on_error=False,
        )


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    need_sandbox()
    for variable, value in build_events_record.pinned_key_environment().items():
        monkeypatch.setenv(variable, value)
    for variable in PROVIDER_KEY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return Path(shutil.copytree(FIXTURE / "data", tmp_path / "data"))


@pytest.mark.parametrize("event", list(build_events_record.EVENTS))
def test_an_event_derived_again_from_its_journals_and_run_again_sealed_keeps_every_byte(
    recorded: Path, event: str
) -> None:
    stockfish = str(recorded / "no-stockfish-here")
    if build_events_record.EVENTS[event]["freeze"]["kind"] == "chess":
        from tests.support.chess import need_stockfish

        stockfish = need_stockfish()
    before = file_digests(recorded)
    assert f"seals/events/event={event}.json" in before
    derived = [
        path
        for path in (recorded / "warehouse" / "events").glob(f"*/event={event}")
        if path.parent.name != "event_manifests"
    ]
    assert len(derived) >= 3
    for path in derived:
        shutil.rmtree(path)
    result = _run(recorded, event, "event", stockfish)
    assert result.success, [e.message for e in result.all_events if e.is_failure]
    assert file_digests(recorded) == before

    # Frozen: never frozen again; sealed: re-read, and without Stockfish.
    for job in ("freeze", "event"):
        result = _run(recorded, event, job, str(recorded / "no-stockfish-here"))
        assert result.success, (job, [e.message for e in result.all_events if e.is_failure])
        assert file_digests(recorded) == before, job


def test_verify_rederives_every_event(recorded: Path) -> None:
    pytest.importorskip("chess", reason="python-chess, the [chess] extra, is not installed")
    report = verify_record(recorded, AUDITS)
    assert report.ok(), report.problems[:5]
    expected = {"seals": 3, "events": 3, "bundles": 3, "standings": 4, "tables": 19, "files": 23,
                "receipts": 47, "journals": 3, "journal_entries": 94, "chess_games": 2,
                "chess_attempts": 53, "soo_replies": 12, "challenge_calls": 9}  # fmt: skip
    assert {name: report.checked[name] for name in expected} == expected
