"""verify's workers see the environment of the audit, not the forkserver's: a record's bucket
credentials set after the process's first audit reached no worker, and every read of the bucket went
looking for an instance metadata server (403) instead."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from colosseum_core.verify import workers


def test_a_worker_started_after_the_forkserver_sees_the_environment_of_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context = workers._mp_context()
    monkeypatch.delenv("COLOSSEUM_SET_LATE", raising=False)
    # The forkserver starts now (if no earlier audit in this process started it), without the variable.
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        assert pool.submit(os.getenv, "COLOSSEUM_SET_LATE").result() is None
    monkeypatch.setenv("COLOSSEUM_SET_LATE", "yes")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        # What a worker forked from the forkserver sees by itself: the forkserver's environment.
        assert pool.submit(os.getenv, "COLOSSEUM_SET_LATE").result() is None
    with ProcessPoolExecutor(
        1, mp_context=context, initializer=workers.init_worker, initargs=(None, None, False, dict(os.environ))
    ) as pool:
        assert pool.submit(os.getenv, "COLOSSEUM_SET_LATE").result() == "yes"
