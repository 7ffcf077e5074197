"""The events end to end: each kind frozen, run, sealed, published and verified through the CLI."""
