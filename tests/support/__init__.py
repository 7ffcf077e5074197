"""What the tests share: the repository's root and the committed fixtures, the CLI in a process of its
own, the local servers' and tools' skips (chess, sandbox, postgres), the crash harness, the debate
arena's and the events' end-to-end steps, a page reader, verbatim market rows, the fixture records'
builders and digests, and the toy event kind registered by the tests alone."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


def run_colosseum(
    *argv: str, env: Mapping[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``colosseum *argv`` in a process of its own, from the repository's root, as a user runs it; its
    exit code and its output as text. ``env`` is the process's whole environment (the test's own when
    None)."""
    return subprocess.run(
        [sys.executable, "-m", "colosseum_dagster.cli", *argv],
        env=None if env is None else dict(env),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
