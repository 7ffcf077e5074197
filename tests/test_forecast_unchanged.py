"""The forecasting arena records what it recorded before the platform re-layout, byte for byte.

``tests/fixtures/forecast_record_620f091`` is one sealed, answered card recorded by the code of commit
620f091, before the shared layers were made arena-neutral (``tests/fixtures/build_forecast_record.py``
built it). Running that card again through today's Definitions re-derives everything from the recorded
receipts (the copy, the selection, the packet, the answers read back) and, a card being sealed, must
reproduce every recorded file byte for byte or refuse; and ``verify`` must pass on it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
from pathlib import Path

import dagster as dg
import pytest

from colosseum_core.verify import verify_record
from colosseum_dagster.definitions import defs

FIXTURE = Path(__file__).parent / "fixtures" / "forecast_record_620f091"
_builder = importlib.util.spec_from_file_location(
    "build_forecast_record", FIXTURE.parent / "build_forecast_record.py"
)
assert _builder is not None and _builder.loader is not None
build_forecast_record = importlib.util.module_from_spec(_builder)
_builder.loader.exec_module(build_forecast_record)


def _file_digests(root: Path) -> dict[str, str]:
    """Every recorded file but the receipts (content-addressed, so their names are their digests)."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "receipts" not in path.relative_to(root).parts[:1] and path.parts[-2] != "locks"
    }


@pytest.fixture
def replayed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dg.ExecuteInProcessResult]:
    for variable, value in build_forecast_record.pinned_key_environment().items():
        monkeypatch.setenv(variable, value)
    root = tmp_path / "data"
    shutil.copytree(FIXTURE / "data", root)
    config = {
        "resources": {
            "record": {"config": {"data_dir": str(root)}},
            "io_manager": {"config": {"data_dir": str(root)}},
            # A sealed card is never swept again: nothing listens here, and nothing must ask.
            "exchange": {"config": {"gamma_url": "http://127.0.0.1:9"}},
            "gladiators": {"config": {"sparring_url": "http://127.0.0.1:9", "timeout_s": 1.0}},
            "clock": {"config": {"fixed_instant": build_forecast_record.CLOCK}},
        }
    }
    with dg.instance_for_test() as instance:
        result = defs.resolve_job_def("card_job").execute_in_process(
            partition_key=build_forecast_record.CARD,
            run_config=config,
            instance=instance,
            raise_on_error=False,
        )
    return root, result


def test_the_card_recorded_before_the_re_layout_replays_byte_for_byte(replayed):
    root, result = replayed
    assert result.success, [e.message for e in result.all_events if e.is_failure]
    assert _file_digests(root) == _file_digests(FIXTURE / "data")


def test_verify_passes_on_the_replayed_record(replayed):
    root, result = replayed
    assert result.success
    report = verify_record(root)
    assert report.ok(), report.problems[:5]
    assert report.checked["cards"] == 1 and report.checked["signatures"] == 26
