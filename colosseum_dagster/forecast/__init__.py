"""The forecasting arena's wiring: card partitions, assets, checks, jobs, the schedule and sensors.

Every asset key of this arena is prefixed ``forecast/`` (``keys.key``), so arenas never collide in the
merged Definitions; ``definitions.defs`` is the arena's own Definitions, merged by the top level.

Imported by: the merged Definitions (``colosseum_dagster.definitions``; a command's through
``arena_definitions.PARTS``), the forecast's commands (``cli.forecast``), the benchmarks and the
tests; never by the platform's wiring nor another arena's (``.importlinter``).
"""
