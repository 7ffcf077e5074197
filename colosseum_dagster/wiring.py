"""What every arena's Dagster wiring shares: its names, its tables as assets, its jobs, and the rule
that a step written once is read back, never run again.

An arena's asset keys are ``<arena>/<table>`` and its ops ``<arena>__<name>`` (``ArenaNames``), so op
names stay unique across arenas in the merged Definitions. Every table a step writes is a Polars frame
stored as Parquet under its arena's prefix, tagged with the rule version that made it (``table_out``).
A step whose tables are all recorded reads them back, their bytes checked (``recorded``).
"""

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg
import polars as pl

from colosseum_core.record import RecordTables
from colosseum_dagster.resources import ARENA_TAG

# The tag naming the versioned rule a table was made under.
RULES_TAG = "colosseum/rules"
TABLE_KINDS = frozenset({"polars", "parquet"})


@dataclasses.dataclass(frozen=True)
class ArenaNames:
    """An arena's names in Dagster: its tables' asset keys and its steps' op names."""

    arena: str

    def key(self, table: str) -> dg.AssetKey:
        return dg.AssetKey([self.arena, table])

    def op_name(self, name: str) -> str:
        """A step's name: Dagster names a prefixed asset's op ``<arena>__<name>``; every op is named
        alike, so op names stay unique across arenas in the merged Definitions."""
        return f"{self.arena}__{name}"


def table_out(prefix: str, description: str, *, rules: str | None = None, **more: Any) -> dg.AssetOut:
    """A table a step writes, as an output of its asset: under ``prefix``, stored as Parquet, tagged
    with ``rules`` (the versioned rule that made it) when one did."""
    tags = {"tags": {RULES_TAG: rules}} if rules is not None else {}
    return dg.AssetOut(key_prefix=prefix, description=description, kinds=set(TABLE_KINDS), **tags, **more)


def recorded(tables: RecordTables, partition: str, names: Sequence[str]) -> dict[str, pl.DataFrame] | None:
    """The partition's tables ``names`` as recorded (their bytes checked), or None unless every one is:
    a step is written once, and a run of it again re-reads what it wrote instead of asking anyone."""
    if all(tables.exists(name, partition) for name in names):
        return {name: tables.read_checked(name, partition) for name in names}
    return None


def arena_job(
    name: str,
    arena: str,
    selection: dg.AssetSelection,
    description: str,
    tags: Mapping[str, str] | None = None,
) -> Any:
    """A job of ``arena`` over ``selection``, tagged with its arena so a run takes its partition lock."""
    return dg.define_asset_job(
        name, selection=selection, description=description, tags={**(tags or {}), ARENA_TAG: arena}
    )
