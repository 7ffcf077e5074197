"""What the tests share: the repository's root and the committed fixtures, the local servers' and
tools' skips (chess, sandbox, postgres), the crash harness, the events' end-to-end steps, a page
reader, verbatim market rows, and the toy event kind registered by the tests alone."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
