"""colosseum verify's engine (colosseum_core/verify)."""
