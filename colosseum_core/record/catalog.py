"""The DuckDB catalog: ``colosseum.duckdb`` holds only views over the Parquet globs, one schema per arena.

Parquet is the system of record. Each arena's tables are views in a schema named for it
(``forecast.scores``, ``forecast.cards``), with the names its analysts know some of them by. The
catalog is rebuilt into a temp file and moved over the old one in a single rename, so a rebuild
never needs a lock that an analyst's open session (read-only or not) or another run could hold:
open sessions keep reading the old file, new ones see the new. Views use absolute globs because
DuckDB resolves relative paths against the reader's directory.

A record on object storage (``storage.py``) has its catalog on this host and its views on the
bucket's ``s3://`` globs, read by DuckDB's httpfs extension. The extension comes from the package
index (``duckdb-extension-httpfs``, the [production] extra) and is loaded from its file: DuckDB is
never let to download an extension at run time. ``connect_catalog`` opens a catalog so: httpfs
loaded and a session secret made from the standard ``AWS_*`` variables.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

import duckdb

from colosseum_core.record.atomic import temp_path_for
from colosseum_core.record.layout import CATALOG_NAME, ArenaRecord, Record
from colosseum_core.record.storage import is_remote
from colosseum_core.record.tables import RecordTables


class CatalogError(RuntimeError):
    """The catalog cannot reach the record (DuckDB's httpfs extension is not installed)."""


def _quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def httpfs_extension() -> Path:
    """The httpfs extension's file for this DuckDB, from the ``duckdb-extension-httpfs`` package."""
    try:
        import duckdb_extension_httpfs
    except ImportError:
        raise CatalogError(
            "a record on object storage is read through DuckDB's httpfs extension: install the "
            "[production] extra (duckdb-extension-httpfs)"
        ) from None
    package = Path(duckdb_extension_httpfs.__file__).parent
    found = package / "extensions" / f"v{duckdb.__version__}" / "httpfs.duckdb_extension"
    if not found.is_file():
        shipped = sorted(p.parent.name for p in package.glob("extensions/*/httpfs.duckdb_extension"))
        raise CatalogError(
            f"duckdb-extension-httpfs has httpfs for DuckDB {', '.join(shipped) or 'no version'}, not for "
            f"the installed v{duckdb.__version__}: install the versions the [production] extra pins"
        )
    return found


def reach_object_store(con: duckdb.DuckDBPyConnection) -> None:
    """Load httpfs (from its package, never downloaded) and make a session secret for S3 from the
    ``AWS_*`` variables: endpoint, keys, region."""
    con.execute("SET autoinstall_known_extensions = false")
    con.execute(f"LOAD {_quote_literal(str(httpfs_extension()))}")
    settings = {"REGION": os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"}
    for name, env in (("KEY_ID", "AWS_ACCESS_KEY_ID"), ("SECRET", "AWS_SECRET_ACCESS_KEY"),
                      ("SESSION_TOKEN", "AWS_SESSION_TOKEN")):  # fmt: skip
        if os.environ.get(env):
            settings[name] = os.environ[env]
    endpoint = os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        parts = urlsplit(endpoint)
        settings["ENDPOINT"] = parts.netloc
        settings["URL_STYLE"] = "path"  # S3-compatible servers (MinIO, moto, R2) address buckets so
        settings["USE_SSL"] = "true" if parts.scheme == "https" else "false"
    body = ", ".join(
        f"{name} {value}" if name == "USE_SSL" else f"{name} {_quote_literal(value)}"
        for name, value in settings.items()
    )
    con.execute(f"CREATE OR REPLACE SECRET colosseum_record (TYPE s3, {body})")


def connect_catalog(record: Record, *, read_only: bool = True) -> duckdb.DuckDBPyConnection:
    """The record's catalog, opened so that its views can be read wherever the record is."""
    con = duckdb.connect(str(record.catalog_path), read_only=read_only)
    if record.on_object_store:
        try:
            reach_object_store(con)
        except BaseException:
            con.close()
            raise
    return con


def view_sql(tables: RecordTables, table: str, schema: str) -> str:
    partitioned = bool(tables.partitions(table))
    whole = tables.path(table)
    source = tables.glob(table) if partitioned else str(whole if is_remote(whole) else whole.resolve())
    return (
        f'CREATE OR REPLACE VIEW "{schema}"."{table}" AS SELECT * FROM read_parquet('
        f"{_quote_literal(source)}, hive_partitioning={str(partitioned).lower()}, union_by_name=true)"
    )


def expected_views(record: Record, arenas: Sequence[ArenaRecord]) -> list[str]:
    """The views (``schema.name``) a catalog of ``record`` holds: every table with files, and aliases."""
    return sorted(_view_statements(record, arenas))


def _view_statements(record: Record, arenas: Sequence[ArenaRecord]) -> dict[str, str]:
    """Every view a rebuild writes (``schema.name``), each with the statement that creates it, in the
    order it is created (a table's view before its aliases)."""
    statements: dict[str, str] = {}
    for arena in arenas:
        tables = record.tables(arena)
        names = tables.tables()
        for table in names:
            statements[f"{arena.schema}.{table}"] = view_sql(tables, table, arena.schema)
        for alias, table in arena.views.items():
            if table in names:
                statements[f"{arena.schema}.{alias}"] = (
                    f'CREATE OR REPLACE VIEW "{arena.schema}"."{alias}" AS '
                    f'SELECT * FROM "{arena.schema}"."{table}"'
                )
    return statements


def catalog_current(record: Record, arenas: Sequence[ArenaRecord]) -> bool:
    """Whether ``record``'s catalog holds exactly the views a rebuild would write now, each made by the
    same statement (the record's table set, each table's path or glob, the aliases): then a rebuild
    would change nothing. A view's statement is kept as its comment by ``refresh_catalog``; a catalog
    written before, or by hand, has none and is not current. New partitions and new columns of a known
    table need no rebuild: a view reads its glob, by name, when it is queried."""
    if not record.catalog_path.exists():
        return False
    try:
        con = duckdb.connect(str(record.catalog_path), read_only=True)
    except duckdb.Error:
        return False  # a session holds it for writing, or it is not a catalog: a rebuild replaces it
    try:
        rows = con.execute(
            "SELECT schema_name || '.' || view_name, comment FROM duckdb_views() WHERE NOT internal"
        ).fetchall()
    finally:
        con.close()
    return dict(rows) == _view_statements(record, arenas)


def refresh_catalog(record: Record, arenas: Sequence[ArenaRecord]) -> list[str]:
    """Rebuild ``record``'s catalog with one schema per arena and one view per table that has files
    (two records of one arena, such as the debate's epochs and topic rotations, share its schema)."""
    db_path = record.catalog_path
    db_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_for(db_path)
    try:
        con = duckdb.connect(str(tmp))
        try:
            if record.on_object_store:
                reach_object_store(con)
            for arena in arenas:
                con.execute(f'CREATE SCHEMA IF NOT EXISTS "{arena.schema}"')
            for view, statement in _view_statements(record, arenas).items():
                schema, name = view.split(".", 1)
                con.execute(statement)
                # Its own statement, so that catalog_current can tell a rebuild would change nothing.
                con.execute(f'COMMENT ON VIEW "{schema}"."{name}" IS {_quote_literal(statement)}')
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


__all__ = [
    "CATALOG_NAME",
    "catalog_current",
    "catalog_views",
    "connect_catalog",
    "expected_views",
    "reach_object_store",
    "refresh_catalog",
    "view_sql",
]
