"""The shared site engine (colosseum_core/site)."""
