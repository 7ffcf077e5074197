"""Check 3, the intent panel: is the strategy trying to win the debate, or to break the game?

Three models (``models.PANEL_SIZE``) each vote GOOD or BAD (a vote that is neither is not valid).
The bar is lopsided on purpose: **BAD** (``intent_panel``, locked out) only when every valid vote is
BAD and at least two votes are valid; **GOOD** when at least two votes are valid and none is BAD;
anything else is **PENDING** (``intent_undecided``): the miner sits the epoch out, keeps its rating,
and is asked again next epoch. The sitting king is never locked out by one verdict: BAD on the king
makes it PENDING for that epoch, and BAD again on the next epoch's retry locks it out.

The columns read: ``panel_valid`` and ``panel_bad`` (counts of the valid votes and the BAD ones),
``is_king`` and ``king_demoted`` (the king was demoted to PENDING by a BAD verdict last epoch).
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.debate.entry.names import INTENT_PANEL, INTENT_UNDECIDED
from colosseum_core.screens import Screen

GOOD, BAD, UNDECIDED = "GOOD", "BAD", "PENDING"
MIN_VALID: Final = 2


def panel_verdict() -> pl.Expr:
    """GOOD, BAD or PENDING from the counts of valid and BAD votes (null when the panel was not asked)."""
    valid, bad = pl.col("panel_valid"), pl.col("panel_bad")
    return (
        pl.when(valid.is_null())
        .then(None)
        .when((valid >= MIN_VALID) & (bad == valid))
        .then(pl.lit(BAD))
        .when((valid >= MIN_VALID) & (bad == 0))
        .then(pl.lit(GOOD))
        .otherwise(pl.lit(UNDECIDED))
    )


def _exempt() -> pl.Expr:
    return pl.col("is_king").fill_null(False) & ~pl.col("king_demoted").fill_null(False)


def _tally() -> pl.Expr:
    return pl.format("{} of {} valid votes BAD", "panel_bad", "panel_valid")


def intent_panel_screen() -> Screen:
    return Screen(
        rule=INTENT_PANEL,
        excludes=(panel_verdict().eq_missing(BAD) & ~_exempt()),
        value=pl.format("BAD: {}", _tally()),
    )


def intent_undecided_screen() -> Screen:
    verdict = panel_verdict()
    king = verdict.eq_missing(BAD) & _exempt()
    return Screen(
        rule=INTENT_UNDECIDED,
        excludes=verdict.eq_missing(UNDECIDED) | king | pl.col("panel_valid").is_null(),
        value=pl.when(king)
        .then(
            pl.format(
                "the sitting king: BAD ({}) makes it PENDING this epoch; BAD again locks it out", _tally()
            )
        )
        .when(pl.col("panel_valid").is_null())
        .then(pl.lit("the panel was not asked"))
        .otherwise(pl.format("PENDING: {}", _tally())),
    )
