"""The debate arena (colosseum_core/debate), its rules as pure functions."""
