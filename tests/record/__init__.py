"""The record (colosseum_core/record): receipts, tables, seals, locks, object storage."""
