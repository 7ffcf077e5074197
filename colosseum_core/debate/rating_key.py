"""Whose rating a game moves (COMPELLE-STRATEGY-1, as docs/decisions.md reads it): a rating belongs
to a strategy as one registration of one hotkey committed it.

The key is the hotkey, the block it registered at and the SHA-256 of the resolved strategy, so a
new commitment (a new hash) or a re-registration (a new block) starts at 1000, two hotkeys playing
the same copied text are rated apart, and a deregistered hotkey, whose registration no longer
stands, takes its rating with it: whoever registers on its UID next holds a key of its own.
"""

from __future__ import annotations

import polars as pl

from colosseum_core.debate.entry.names import ENTERED


def rating_key(hotkey: str, block_at_registration: int, strategy_hash: str) -> str:
    if not hotkey or block_at_registration < 0 or len(strategy_hash) != 64:
        raise ValueError(
            f"rating key of hotkey {hotkey!r}: block {block_at_registration!r} and strategy hash "
            f"{strategy_hash!r} do not name one registration's strategy"
        )
    return f"{hotkey}@{block_at_registration}:{strategy_hash}"


def entered_keys(entries: pl.DataFrame) -> pl.DataFrame:
    """The entered miners of an epoch's ``entries``, each with its rating key (``hotkey``,
    ``rating_key``)."""
    rows = (
        entries.filter(pl.col("status") == ENTERED)
        .select("hotkey", "block_at_registration", "strategy_hash")
        .iter_rows()
    )
    return pl.DataFrame(
        [{"hotkey": h, "rating_key": rating_key(h, block, strategy)} for h, block, strategy in rows],
        schema={"hotkey": pl.String(), "rating_key": pl.String()},
    )
