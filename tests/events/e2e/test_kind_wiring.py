"""The events' one Dagster factory (``colosseum_dagster.events.wiring``) builds a kind's assets and
jobs from its wiring: the built-in kinds' are as they were wired by hand, and a kind defined only
under ``tests/`` (``event_kind_toy``, wired in ``event_kind_toy_wiring``) freezes, runs, seals, gets
its standings, a board page and a passing verify once registered by the test itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from colosseum_core.events.kinds import KINDS
from colosseum_dagster.events.kinds import WIRINGS, wiring_of, wirings_of
from colosseum_dagster.events.manifests import key, op_name
from colosseum_dagster.events.wiring import Asking, kind_assets, kind_jobs
from tests.support import REPO, run_colosseum
from tests.support.event_kind_toy import KIND as TOY
from tests.support.event_kind_toy_wiring import WIRING as TOY_WIRING


def test_every_registered_kind_is_wired_by_the_factory_and_the_toy_too() -> None:
    assert [w.kind for w in WIRINGS] == list(KINDS)
    assert [w.prefix for w in WIRINGS] == ["chess", "soo", "challenge"]
    assert wiring_of(TOY) is TOY_WIRING
    assets = kind_assets(TOY_WIRING)
    assert [a.key for a in assets] == [key("toy_rounds"), key("toy_standings")]
    assert [a.node_def.name for a in assets] == [op_name("toy_rounds"), op_name("toy_standings")]
    assert [j.name for j in kind_jobs(TOY_WIRING)] == ["toy_freeze_job", "toy_event_job"]
    assert TOY_WIRING.step_words[op_name("toy_standings")] == "ranking and sealing"
    # The challenge's seal is named for its sealing table, as when it was wired by hand.
    assert WIRINGS[2].step_words[op_name("challenge_standings")] == "scoring and sealing the event"


def test_a_wiring_that_is_not_its_kinds_is_refused() -> None:
    import dataclasses

    with pytest.raises(ValueError, match=r"its wiring's steps \[\] are not its steps \['rounds'\]"):
        dataclasses.replace(TOY_WIRING, steps=())
    step = dataclasses.replace(TOY_WIRING.steps[0], reads=("toy_standings",))
    with pytest.raises(ValueError, match=r"a step reads \['toy_standings'\], not written before it"):
        dataclasses.replace(TOY_WIRING, steps=(step,))
    with pytest.raises(
        TypeError, match=r"event kind toy: colosseum_dagster\.events\.chess\.WIRING is not its"
    ):
        wirings_of((*KINDS, dataclasses.replace(TOY, wiring="colosseum_dagster.events.chess")))


def test_the_asking_settings_are_one_value_handed_whole() -> None:
    asking = Asking(
        sparring_url="http://127.0.0.1:1", environ={}, clock=lambda: None, concurrency=2, per_provider=3
    )  # type: ignore[arg-type,return-value]
    assert set(asking.keywords()) == {"sparring_url", "environ", "clock", "concurrency", "per_provider"}


SCRIPT = """
import datetime as dt, json, sys
from pathlib import Path
from colosseum_core.arenas import AUDITS, PUBLIC_SITE
from colosseum_core.events.arena import EVENTS
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import publish_site
from colosseum_core.trust.keys import KeyStore
from colosseum_core.verify import verify_record, verify_site

root = Path(sys.argv[1])
seen = {"sealed": Record(root).seals(EVENTS).get("toy-1") is not None}
seen["bundle"] = Record(root).tables(EVENTS).exists("event_bundles", "toy-1")
report = verify_record(root, AUDITS, workers=1)
seen["verify"] = [report.ok(), report.problems, report.checked.get("toy_rounds")]
site = publish_site(PUBLIC_SITE, Record(root), KeyStore.for_data(root), root.parent / "site",
                    built_at=dt.datetime.now(dt.UTC)).site
seen["page"] = (site / "events" / "toy-1" / "index.html").read_text()
site_report = verify_site(site, AUDITS, workers=1)
seen["site"] = [site_report.ok(), site_report.problems]
print(json.dumps(seen))
"""


def _parquet_bytes(data: Path) -> list[tuple[str, bytes]]:
    return sorted((str(p.relative_to(data)), p.read_bytes()) for p in (data / "events").rglob("*.parquet"))


def test_a_kind_defined_only_under_tests_freezes_runs_seals_and_is_published_and_verified(
    tmp_path: Path,
) -> None:
    """Registered by this test alone (``COLOSSEUM_EVENT_KINDS``), the toy kind gets the shared
    commands (``colosseum events toy event freeze|run``, ``standings``), its jobs from the factory,
    its seal, a board page and a record and a site that verify."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env["COLOSSEUM_EVENT_KINDS"] = "tests.support.event_kind_toy"
    env["DAGSTER_HOME"] = str(tmp_path / "dagster_home")
    (tmp_path / "dagster_home").mkdir()
    data = tmp_path / "data"

    def colosseum(*words: str) -> subprocess.CompletedProcess[str]:
        return run_colosseum(*words, env=env, timeout=300)

    assert "colosseum events toy event freeze toy-1" in colosseum("events", "toy", "--help").stdout
    only = ("--contender", "ann", "--contender", "bob", "--contender", "cy")
    frozen = colosseum("events", "toy", "event", "freeze", "toy-1", *only, "--seed", "5", "--data", str(data))
    assert frozen.returncode == 0, frozen.stderr[-3000:]
    assert "next: colosseum events toy event run toy-1" in frozen.stdout
    ran = colosseum("events", "toy", "event", "run", "toy-1", "--json", "--data", str(data))
    assert ran.returncode == 0, ran.stderr[-3000:]
    standings = json.loads(ran.stdout)["standings"]
    assert sorted(r["contender"] for r in standings) == ["ann", "bob", "cy"]
    first = _parquet_bytes(data)
    # Run again, the event is read back as recorded: not a byte changes.
    assert colosseum("events", "toy", "event", "run", "toy-1", "--data", str(data)).returncode == 0
    assert _parquet_bytes(data) == first
    shown = colosseum("events", "toy", "standings", "toy-1", "--data", str(data))
    assert shown.returncode == 0 and "event toy-1: standings" in shown.stdout
    refrozen = colosseum("events", "toy", "event", "freeze", "toy-1", "--data", str(data))
    assert refrozen.returncode == 2 and "frozen already" in refrozen.stderr

    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(data)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["sealed"] and seen["bundle"]
    assert seen["verify"][:2] == [True, []] and seen["verify"][2] == 3
    assert "Rounds" in seen["page"] and "ann" in seen["page"]
    assert seen["site"] == [True, []], seen["site"]


def test_the_definitions_hold_the_toy_only_when_a_test_registers_it() -> None:
    from colosseum_dagster.board import board_defs
    from colosseum_dagster.events.definitions import BOARD_INPUTS, events_definitions
    from colosseum_dagster.platform_definitions import platform_defs

    with_toy = dg.Definitions.merge(
        platform_defs(), board_defs(after=BOARD_INPUTS), events_definitions((*WIRINGS, TOY_WIRING))
    )
    jobs = {j.name for j in with_toy.jobs or ()}
    assert {"toy_freeze_job", "toy_event_job", "chess_event_job"} <= jobs
    graph = with_toy.resolve_asset_graph()
    assert key("toy_standings") in graph.get(key("event_bundles")).parent_keys
    assert dg.AssetKey(["events", "toy_rounds"]) not in {
        k
        for k in __import__("colosseum_dagster.definitions")
        .definitions.defs.resolve_asset_graph()
        .get_all_asset_keys()
    }
