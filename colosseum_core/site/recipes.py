"""A board's ``recipes`` download: one row a rule version that a published number was made under, with
its title, what it governs and the recipe that re-derives the number from the downloads."""

from __future__ import annotations

from typing import Final

import polars as pl

RECIPE_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rule": pl.String(),
    "title": pl.String(),
    "governs": pl.String(),
    "recipe": pl.String(),
    "downloads": pl.String(),
}


class RecipeMissing(ValueError):
    """A published number made under a rule version the board has no recipe for."""
