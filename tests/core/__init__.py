"""colosseum_core's own top-level modules."""
