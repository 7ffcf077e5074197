"""The statistics library (colosseum_core/statistics)."""
