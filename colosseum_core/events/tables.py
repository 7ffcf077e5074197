"""A step's tables as it hands them over: each its rows under its schema, with their ids
(``record.with_ids``), by table name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from colosseum_core.record import with_ids

Rows = Sequence[Mapping[str, Any]]


def id_tables(**tables: tuple[Rows, Mapping[str, pl.DataType]]) -> dict[str, pl.DataFrame]:
    """Each table's ``(rows, schema)`` as its frame, with ids, in the order given."""
    return {
        name: with_ids(pl.DataFrame(rows, schema=dict(schema))) for name, (rows, schema) in tables.items()
    }
