"""The record: content-addressed receipts, row identifiers, Parquet tables and the DuckDB catalog.

``layout`` (one ``Record(root)`` owning every path), ``storage`` (a directory or a bucket, and the
record's root, ``data_dir``), ``receipts``, ``identifiers``, ``tables`` and their ``ledger``,
``atomic`` writes, ``seals`` by each arena's sealing policy, the writers' ``locks`` (and
``locks_postgres``), ``journal``, ``catalog``, ``archive``, ``migrate`` (from the layout before
arenas), ``sealed_step`` (seal first, then write: a crash finishes on the next run), ``crash`` (the
crash tests' kill switch) and ``http`` (an HTTP exchange as a receipt).

Imported by: every layer above it (trust, providers, the exchanges' and the chain's clients, the
site engine, verify), every arena, the registry, the wiring and commands, the benchmarks and the
tests. Of the project it imports only the platform's settings and ``json_values``; never an arena
(``.importlinter``).
"""

from colosseum_core.record.identifiers import canonical_json, row_id, with_ids
from colosseum_core.record.receipts import Receipt, ReceiptStore, RequestTrace
from colosseum_core.record.tables import RecordTables

__all__ = [
    "Receipt",
    "ReceiptStore",
    "RecordTables",
    "RequestTrace",
    "canonical_json",
    "row_id",
    "with_ids",
]
