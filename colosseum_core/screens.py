"""A screening rule as data, for every arena: which rows it excludes, and what the record says about each.

Each arena's published rules that judge rows one at a time (the forecast's selection screens, the
debate's entry checks) are ``Screen``s run in their published order; the first that excludes a row
is the one the record names, with the number or field that did.

The two halves are kept apart on purpose. Whether a rule excludes a row is a cheap test run over
every row at once; the value text (a formatted instant, a list, a dollar amount) is built only for
the rows the rule is the first to exclude, so a sweep of 50,000 questions does not format 50,000
texts per rule only to throw almost all of them away.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import polars as pl


@dataclasses.dataclass(frozen=True)
class Screen:
    """One of the rules that judge each row on its own fields."""

    rule: str
    excludes: pl.Expr  # Boolean, never null: true when this rule excludes the row
    value: pl.Expr  # String: the field and number that excluded it, read where ``excludes`` holds


def first_rule(screens: Sequence[Screen]) -> pl.Expr:
    """The name of the first screen, in the given order, that excludes each row (null: none)."""
    chain: pl.When | pl.Then | None = None
    for screen in screens:
        literal = pl.lit(screen.rule)
        chain = (
            pl.when(screen.excludes).then(literal)
            if chain is None
            else chain.when(screen.excludes).then(literal)
        )
    if chain is None:
        return pl.lit(None, dtype=pl.String)
    return chain.otherwise(None).cast(pl.String)


def rule_value(screens: Sequence[Screen]) -> pl.Expr:
    """The value of the screen the ``rule`` column (``first_rule``'s) names, null where it names none."""
    chain: pl.When | pl.Then | None = None
    for screen in screens:
        test = pl.col("rule") == screen.rule
        chain = pl.when(test).then(screen.value) if chain is None else chain.when(test).then(screen.value)
    if chain is None:
        return pl.lit(None, dtype=pl.String)
    return chain.otherwise(None).cast(pl.String)


def reason(screen: Screen) -> pl.Expr:
    """The screen's value where it excludes a row, null elsewhere (for one rule on its own)."""
    return pl.when(screen.excludes).then(screen.value).otherwise(None).cast(pl.String)
