"""The record: content-addressed receipts, row identifiers, Parquet tables and the DuckDB catalog."""

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
