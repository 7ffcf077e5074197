"""The committed records of older code (``tests/fixtures/<arena>_record_<commit>``) as their replays
read them: the builder that wrote each, loaded by path (it is a script, not a module of the tests), and
a record's files by digest."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Final

from tests.support import FIXTURES

# Nothing listens on the discard port: a sealed partition that asked anything again would fail its run.
NOWHERE: Final = "http://127.0.0.1:9"


def fixture_builder(name: str) -> ModuleType:
    """``tests/fixtures/<name>.py``, the script that built a fixture record, with its pinned settings."""
    spec = importlib.util.spec_from_file_location(name, FIXTURES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    return builder


def file_digests(root: Path, *, leave_out: tuple[str, ...] = ("locks",)) -> dict[str, str]:
    """Every recorded file's SHA-256 by its path under ``root``, but the top folders ``leave_out`` (the
    locks are the host's, not the record's) and the DuckDB catalog (the host's too)."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and path.relative_to(root).parts[0] not in leave_out
        and path.name != "colosseum.duckdb"
    }
