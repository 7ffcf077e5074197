"""The multi-event arena's Dagster wiring: each event a partition (its chess games, its standings)."""
