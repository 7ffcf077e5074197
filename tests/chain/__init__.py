"""The chain's ledger readers and the local ledger."""
