"""The entry checks, COMPELLE-ENTRY-1: who of the registered miners plays this epoch.

Applied in the spec's order every epoch (``names.RULE_ORDER``), each a small pure screen over the
resolved entries (``resolve.resolve_entries``) in a module named for it; a miner stopped by several
carries the first. ``entries`` gives every miner its status (entered, rejected or pending), the rule
that stopped it and the value that did; ``admitted_to_panel`` says who the intent panel is asked
about (those the first two checks let through). ``epoch_entries`` applies them to an epoch: the
chain read, the checks run and the intent panel asked (``intent_panel``, COMPELLE-INTENT-1), its
verdicts kept across epochs (``kept``).

Imported by: the rating key, the games, the close (``crown``), the pages (``site``), verify
(``audit``), the debate's wiring and the tests. It imports only the layers below it: the models
document, the prompts, the rules and the strategy.
"""

from __future__ import annotations

import dataclasses
from typing import Final

import polars as pl

from colosseum_core.debate.entry.intent import intent_panel_screen, intent_undecided_screen, panel_verdict
from colosseum_core.debate.entry.names import ENTERED, RULE_ORDER, STATUS_OF_RULE
from colosseum_core.debate.entry.pinned import pinned_revision_screen, revision_unavailable_screen
from colosseum_core.debate.entry.resolve import ENTRY_SCHEMA, resolve_entries
from colosseum_core.debate.entry.window import registration_window_screen
from colosseum_core.debate.rules import COMPELLE_ENTRY
from colosseum_core.screens import Screen, first_rule, rule_value

PANEL_COLUMNS: Final[dict[str, pl.DataType]] = {
    "panel_valid": pl.Int64(),
    "panel_bad": pl.Int64(),
    "is_king": pl.Boolean(),
    "king_demoted": pl.Boolean(),
}


def strategy_screens() -> tuple[Screen, ...]:
    """Checks 1 and 2: what stands before the panel is asked."""
    return (registration_window_screen(), pinned_revision_screen(), revision_unavailable_screen())


def screens() -> tuple[Screen, ...]:
    return (*strategy_screens(), intent_panel_screen(), intent_undecided_screen())


def admitted_to_panel(resolved: pl.DataFrame) -> pl.DataFrame:
    """The resolved entries that checks 1 and 2 let through: the ones the intent panel is asked about."""
    return resolved.filter(first_rule(strategy_screens()).is_null())


@dataclasses.dataclass(frozen=True)
class EntryCounts:
    entered: int
    by_rule: dict[str, int]


def entries(resolved: pl.DataFrame) -> pl.DataFrame:
    """Every miner's entry: ``status``, the first ``rule`` that stopped it and its ``value``, the
    panel's ``verdict``, under ``rules`` = COMPELLE-ENTRY-1. ``resolved`` holds ``ENTRY_SCHEMA``
    and, where the panel was asked, ``PANEL_COLUMNS`` (absent columns read as not asked)."""
    frame = resolved.with_columns(
        [
            pl.lit(None, dtype).alias(name)
            for name, dtype in PANEL_COLUMNS.items()
            if name not in resolved.columns
        ]
    )
    ordered = screens()
    status = pl.col("rule").replace_strict(STATUS_OF_RULE, default=None, return_dtype=pl.String)
    return (
        frame.with_columns(rule=first_rule(ordered))
        .with_columns(
            value=rule_value(ordered), status=pl.coalesce(status, pl.lit(ENTERED)), verdict=panel_verdict()
        )
        .with_columns(rules=pl.lit(COMPELLE_ENTRY))
        .select(*ENTRY_SCHEMA, *PANEL_COLUMNS, "verdict", "status", "rule", "value", "rules")
    )


def entry_counts(judged: pl.DataFrame) -> EntryCounts:
    counts = judged.filter(pl.col("rule").is_not_null())["rule"].value_counts()
    tally = dict(zip(counts["rule"].to_list(), counts["count"].to_list(), strict=True))
    return EntryCounts(
        entered=int((judged["status"] == ENTERED).sum()),
        by_rule={r: int(tally.get(r, 0)) for r in RULE_ORDER},
    )


__all__ = [
    "ENTRY_SCHEMA",
    "PANEL_COLUMNS",
    "RULE_ORDER",
    "EntryCounts",
    "admitted_to_panel",
    "entries",
    "entry_counts",
    "resolve_entries",
    "screens",
]
