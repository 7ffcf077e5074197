"""``colosseum export`` without its extra: one line saying what to install, and nothing written."""

from __future__ import annotations

import shutil
import sys

import pytest

from colosseum_dagster.cli import main
from tests.support import FIXTURES


def test_without_inspect_ai_the_command_says_what_to_install(tmp_path, monkeypatch, capsys):
    root = shutil.copytree(FIXTURES / "events_record_9b5eb0b" / "data", tmp_path / "data")
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # an import of it raises ImportError
    monkeypatch.delitem(sys.modules, "colosseum_core.exports.inspect_logs", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["export", "--data", str(root), "--out", str(tmp_path / "out"), "--format", "inspect"])
    err = capsys.readouterr().err.strip()
    assert exited.value.code == 2
    assert err == (
        "colosseum export: Inspect logs need inspect-ai: install the exports extra: "
        "pip install -e '.[exports]' (make install does)"
    )
    assert not (tmp_path / "out").exists()
