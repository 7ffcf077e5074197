"""The DuckDB catalog: ``colosseum.duckdb`` holds only views over the Parquet globs, one schema per arena.

Parquet is the system of record. Each arena's tables are views in a schema named for it
(``forecast.scores``, ``forecast.cards``), with the names its analysts know some of them by. The
catalog is rebuilt into a temp file and moved over the old one in a single rename, so a rebuild
never needs a lock that an analyst's open session (read-only or not) or another run could hold:
open sessions keep reading the old file, new ones see the new. Views use absolute globs because
DuckDB resolves relative paths against the reader's directory.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

import duckdb

from colosseum_core.record.atomic import temp_path_for
from colosseum_core.record.layout import CATALOG_NAME, ArenaRecord, Record
from colosseum_core.record.tables import RecordTables


def _quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def view_sql(tables: RecordTables, table: str, schema: str) -> str:
    partitioned = bool(tables.partitions(table))
    source = tables.glob(table) if partitioned else str(tables.path(table).resolve())
    return (
        f'CREATE OR REPLACE VIEW "{schema}"."{table}" AS SELECT * FROM read_parquet('
        f"{_quote_literal(source)}, hive_partitioning={str(partitioned).lower()}, union_by_name=true)"
    )


def expected_views(record: Record, arenas: Sequence[ArenaRecord]) -> list[str]:
    """The views (``schema.name``) a catalog of ``record`` holds: every table with files, and aliases."""
    views = []
    for arena in arenas:
        names = record.tables(arena).tables()
        views += [f"{arena.schema}.{table}" for table in names]
        views += [f"{arena.schema}.{alias}" for alias, table in arena.views.items() if table in names]
    return sorted(views)


def refresh_catalog(record: Record, arenas: Sequence[ArenaRecord]) -> list[str]:
    """Rebuild ``record``'s catalog with one schema per arena and one view per table that has files
    (two records of one arena, such as the debate's epochs and topic rotations, share its schema)."""
    db_path = record.catalog_path
    db_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_for(db_path)
    try:
        con = duckdb.connect(str(tmp))
        try:
            for arena in arenas:
                tables = record.tables(arena)
                names = tables.tables()
                con.execute(f'CREATE SCHEMA IF NOT EXISTS "{arena.schema}"')
                for table in names:
                    con.execute(view_sql(tables, table, arena.schema))
                for alias, table in arena.views.items():
                    if table in names:
                        con.execute(
                            f'CREATE OR REPLACE VIEW "{arena.schema}"."{alias}" AS '
                            f'SELECT * FROM "{arena.schema}"."{table}"'
                        )
            con.execute("CHECKPOINT")
        finally:
            con.close()
        tmp.replace(db_path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        with contextlib.suppress(FileNotFoundError):
            tmp.with_name(tmp.name + ".wal").unlink()
    return expected_views(record, arenas)


def catalog_views(db_path: Path) -> list[str]:
    """The views a catalog holds (``schema.name``), read without taking a write lock."""
    if not db_path.exists():
        return []
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        rows = con.execute(
            "SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1"
        ).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]


__all__ = ["CATALOG_NAME", "catalog_views", "expected_views", "refresh_catalog", "view_sql"]
