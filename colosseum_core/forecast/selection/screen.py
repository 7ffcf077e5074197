"""A screening rule as data: which questions it excludes, and what the record says about each.

The two halves are kept apart on purpose. Whether a rule excludes a question is a cheap test run
over every question at once; the value text (a formatted instant, a list, a dollar amount) is built
only for the questions the rule is the first to exclude, so a sweep of 50,000 questions does not
format 50,000 texts per rule only to throw almost all of them away.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import polars as pl


@dataclasses.dataclass(frozen=True)
class Screen:
    """One of the rules that judge each question on its own published fields."""

    rule: str
    excludes: pl.Expr  # Boolean, never null: true when this rule excludes the question
    value: pl.Expr  # String: the field and number that excluded it, read where ``excludes`` holds


def first_rule(screens: Sequence[Screen]) -> pl.Expr:
    """The name of the first screen, in the given order, that excludes each question (null: none)."""
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


def reason(screen: Screen) -> pl.Expr:
    """The screen's value where it excludes a question, null elsewhere (for one rule on its own)."""
    return pl.when(screen.excludes).then(screen.value).otherwise(None).cast(pl.String)
