"""The forecasting arena records what it recorded before the platform re-layout, byte for byte.

``tests/fixtures/forecast_record_620f091`` is one sealed, answered card recorded by the code of commit
620f091, before the shared layers were made arena-neutral (``tests/fixtures/build_forecast_record.py``
built it), in the record layout of then (``warehouse/<table>/…``). Today's code refuses that layout
with a message saying how to move it; ``colosseum record migrate`` moves it by renames alone; and
running the card again through today's Definitions re-derives everything from the recorded receipts
(the copy, the selection, the packet, the answers read back) and, a card being sealed, must reproduce
every recorded file byte for byte or refuse. ``verify`` passes on it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dagster as dg
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.verify import verify_record
from colosseum_dagster.cli import main
from colosseum_dagster.definitions import defs
from tests.support import FIXTURES
from tests.support.fixture_records import NOWHERE, file_digests, fixture_builder

FIXTURE = FIXTURES / "forecast_record_620f091"
build_forecast_record = fixture_builder("build_forecast_record")
# Where each legacy folder moved: the one arena of then is the forecast.
# The receipts are content-addressed: their names are their digests.
RECEIPTS_AND_LOCKS = ("receipts", "locks")
MOVED = {"warehouse": "warehouse/forecast", "seals": "seals/forecast", "journal": "journal/forecast"}


def _moved(relative: str) -> str:
    top, rest = relative.split("/", 1)
    return f"{MOVED[top]}/{rest}"


def _run_card(root: Path) -> dg.ExecuteInProcessResult:
    config = {
        "resources": {
            "record": {"config": {"data_dir": str(root)}},
            "io_manager": {"config": {"data_dir": str(root)}},
            # A sealed card is never swept again: nothing listens here, and nothing must ask.
            "exchange": {"config": {"gamma_url": NOWHERE}},
            "gladiators": {"config": {"sparring_url": NOWHERE, "timeout_s": 1.0}},
            "clock": {"config": {"fixed_instant": build_forecast_record.CLOCK}},
        }
    }
    with dg.instance_for_test() as instance:
        return defs.resolve_job_def("card_job").execute_in_process(
            partition_key=build_forecast_record.CARD,
            run_config=config,
            instance=instance,
            raise_on_error=False,
        )


@pytest.fixture
def legacy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for variable, value in build_forecast_record.pinned_key_environment().items():
        monkeypatch.setenv(variable, value)
    return Path(shutil.copytree(FIXTURE / "data", tmp_path / "data"))


def test_a_record_in_the_old_layout_is_refused_with_how_to_move_it(legacy, capsys):
    before = file_digests(legacy, leave_out=RECEIPTS_AND_LOCKS)
    result = _run_card(legacy)
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "RESOURCE_INIT_FAILURE")
    assert "colosseum record migrate" in failure.event_specific_data.error.message
    with pytest.raises(ValueError, match="before arenas had folders"):
        verify_record(legacy, AUDITS)
    with pytest.raises(SystemExit) as exited:
        main(["forecast", "card", "show", build_forecast_record.CARD, "--data", str(legacy)])
    assert exited.value.code == 2 and "colosseum record migrate" in capsys.readouterr().err
    assert file_digests(legacy, leave_out=RECEIPTS_AND_LOCKS) == before  # refused, and nothing written


def test_migrated_the_card_replays_byte_for_byte_and_verifies(legacy, capsys):
    before = file_digests(legacy, leave_out=RECEIPTS_AND_LOCKS)
    with pytest.raises(SystemExit) as exited:
        main(["record", "migrate", "--data", str(legacy), "--json"])
    assert exited.value.code == 0
    report = json.loads(capsys.readouterr().out)
    assert {m["source"] for m in report["moved"]} >= {"warehouse/packet", "seals/card=2026-11-20-0500.json"}
    assert "forecast.cards" in report["views"]
    moved = {_moved(relative): digest for relative, digest in before.items()}
    assert file_digests(legacy, leave_out=RECEIPTS_AND_LOCKS) == moved  # renames only

    result = _run_card(legacy)
    assert result.success, [e.message for e in result.all_events if e.is_failure]
    assert file_digests(legacy, leave_out=RECEIPTS_AND_LOCKS) == moved

    report = verify_record(legacy, AUDITS)
    assert report.ok(), report.problems[:5]
    assert report.checked["cards"] == 1 and report.checked["signatures"] == 26

    with pytest.raises(SystemExit) as again:
        main(["record", "migrate", "--data", str(legacy)])
    assert again.value.code == 0 and "nothing to move" in capsys.readouterr().out
