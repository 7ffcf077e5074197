"""The DuckDB catalog: ``colosseum.duckdb`` holds only views over the Parquet globs.

Parquet is the system of record. The catalog is rebuilt into a temp file and moved over the old
one in a single rename, so a rebuild never needs a lock that an analyst's open session (read-only
or not) or another run could hold: open sessions keep reading the old file, new ones see the new.
Views use absolute globs because DuckDB resolves relative paths against the reader's directory.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import duckdb

from colosseum_core.record.atomic import temp_path_for
from colosseum_core.record.tables import PARTITION_COLUMN, RecordTables

CATALOG_NAME = "colosseum.duckdb"
# The names DESIGN gives analysts, over the tables the asset graph names.
VIEW_ALIASES = {"verdicts": "ranked_candidates", "cards": "packet"}


def _quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def view_sql(tables: RecordTables, table: str) -> str:
    partitioned = bool(tables.partitions(table))
    source = tables.glob(table) if partitioned else str(tables.path(table).resolve())
    return (
        f'CREATE OR REPLACE VIEW "{table}" AS SELECT * FROM read_parquet('
        f"{_quote_literal(source)}, hive_partitioning={str(partitioned).lower()}, union_by_name=true)"
    )


def refresh_catalog(tables: RecordTables, db_path: Path) -> list[str]:
    """Rebuild the catalog at ``db_path`` with one view per table that has files; return the views."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_for(db_path)
    names = tables.tables()
    views = list(names)
    try:
        con = duckdb.connect(str(tmp))
        try:
            for table in names:
                con.execute(view_sql(tables, table))
            for alias, table in VIEW_ALIASES.items():
                if table in names:
                    con.execute(f'CREATE OR REPLACE VIEW "{alias}" AS SELECT * FROM "{table}"')
                    views.append(alias)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        tmp.replace(db_path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        with contextlib.suppress(FileNotFoundError):
            tmp.with_name(tmp.name + ".wal").unlink()
    return sorted(views)


def catalog_views(db_path: Path) -> list[str]:
    """The views a catalog holds, read without taking a write lock."""
    if not db_path.exists():
        return []
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        rows = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]


__all__ = ["CATALOG_NAME", "PARTITION_COLUMN", "catalog_views", "refresh_catalog", "view_sql"]
