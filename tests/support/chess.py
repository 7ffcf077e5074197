"""What the chess event's tests share: python-chess (an optional extra) and Stockfish, each skipped
with its reason when missing, except where CI says they must be there (COLOSSEUM_REQUIRE_STOCKFISH=1)."""

from __future__ import annotations

import os

import pytest

chess = pytest.importorskip("chess", reason="python-chess, the [chess] extra, is not installed")

from colosseum_core.events.chess.run import stockfish_path  # noqa: E402

STOCKFISH = stockfish_path(None)


def need_stockfish() -> str:
    """Stockfish's path; the test is skipped, saying why, when it is missing (a failure in CI)."""
    if STOCKFISH is None:
        if os.environ.get("COLOSSEUM_REQUIRE_STOCKFISH") == "1":
            raise RuntimeError("COLOSSEUM_REQUIRE_STOCKFISH=1 but no stockfish is installed")
        pytest.skip("Stockfish is not installed (apt-get install stockfish); this test plays it")
    return STOCKFISH
