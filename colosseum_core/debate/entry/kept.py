"""Intent-panel verdicts kept across epochs (COMPELLE-ENTRY-1, as docs/decisions.md reads it).

A verdict is kept per (strategy hash, models document): the panel is asked about a strategy once
per panel revision, and a later epoch reuses a GOOD or a BAD it cast, naming the epoch whose panel
calls hold the votes. PENDING is not kept (it is asked again next epoch, which is what PENDING
means), nor is the sitting king's verdict (its retry asks the panel again, the normal path), and a
new models document re-judges every strategy.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.debate.entry.intent import BAD, GOOD

KEPT_COLUMNS: Final[dict[str, pl.DataType]] = {
    "strategy_hash": pl.String(),
    "panel_valid": pl.Int64(),
    "panel_bad": pl.Int64(),
    "panel_epoch": pl.String(),
}


def kept_verdicts(earlier: pl.DataFrame | None, models_sha256: str) -> pl.DataFrame:
    """The decided verdicts of ``earlier`` epochs' entries under ``models_sha256``, one per strategy:
    the counts the panel gave and the epoch it gave them in (the first such epoch)."""
    if earlier is None or earlier.height == 0 or "verdict" not in earlier.columns:
        return pl.DataFrame(schema=KEPT_COLUMNS)
    panel_epoch = (
        pl.coalesce(pl.col("panel_epoch"), pl.col("epoch"))
        if "panel_epoch" in earlier.columns
        else pl.col("epoch")
    )
    return (
        earlier.filter((pl.col("models_sha256") == models_sha256) & pl.col("verdict").is_in([GOOD, BAD]))
        .with_columns(panel_epoch=panel_epoch)
        .sort("panel_epoch", "strategy_hash")
        .unique("strategy_hash", keep="first", maintain_order=True)
        .select([pl.col(name).cast(dtype) for name, dtype in KEPT_COLUMNS.items()])
    )
