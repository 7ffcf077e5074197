"""The sandbox's tests need bubblewrap: skipped with the reason when it is missing, except where CI
says it must be there (COLOSSEUM_REQUIRE_SANDBOX=1, set by .ci/run after installing it)."""

from __future__ import annotations

import functools
import os

import pytest

from colosseum_core.sandbox.bubblewrap import unavailable_reason


@functools.cache
def _reason() -> str | None:
    return unavailable_reason()


def need_sandbox() -> None:
    reason = _reason()
    if reason is not None:
        if os.environ.get("COLOSSEUM_REQUIRE_SANDBOX") == "1":
            raise RuntimeError(f"COLOSSEUM_REQUIRE_SANDBOX=1 but {reason}")
        pytest.skip(f"the sandbox cannot run here: {reason}")
