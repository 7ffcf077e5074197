"""The Dagster wiring (colosseum_dagster): Definitions, resources, instance, CLI."""
