"""The debate arena's wiring: epoch and rotation partitions, the entries, games, close and topics
assets, their jobs, the topics schedule, the epoch and board sensors, and the chain, models and
Kalshi resources.

Every asset key of this arena is prefixed ``debate/`` (``keys.key``); ``definitions.debate_defs`` is
the arena's own Definitions, merged by the top level.

Imported by: the merged Definitions (``colosseum_dagster.definitions``; a command's through
``arena_definitions.PARTS``), the debate's commands (``cli.debate``), the benchmarks and the tests;
never by the platform's wiring nor another arena's (``.importlinter``).
"""
