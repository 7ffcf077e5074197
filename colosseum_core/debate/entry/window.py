"""Check 1, ``registration_window``: the strategy is frozen at registration.

A commitment counts only if it was made within ``WINDOW_BLOCKS`` blocks (40 minutes of 12-second
blocks) of the hotkey's registration: ``commitment_block − block_at_registration ≤ 200``. The chain
keeps only a hotkey's latest commitment, so a later rewrite moves its block out of the window and
fails by itself. A registered hotkey that never committed has no strategy to enter with.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.debate.entry.names import REGISTRATION_WINDOW
from colosseum_core.screens import Screen

WINDOW_BLOCKS: Final = 200


def registration_window_screen() -> Screen:
    after = pl.col("commitment_block") - pl.col("block_at_registration")
    missing = pl.col("commitment_block").is_null()
    return Screen(
        rule=REGISTRATION_WINDOW,
        excludes=missing | (after > WINDOW_BLOCKS).fill_null(False),
        value=pl.when(missing)
        .then(pl.lit("no commitment"))
        .otherwise(
            pl.format(
                "committed at block {}, {} blocks after registering at block {} (window {})",
                "commitment_block",
                after,
                "block_at_registration",
                pl.lit(WINDOW_BLOCKS),
            )
        ),
    )
