"""The debate arena's wiring: epoch partitions, the entries asset, its job and the epoch sensor.

Every asset key of this arena is prefixed ``debate/`` (``keys.key``); ``definitions.debate_defs`` is
the arena's own Definitions, merged by the top level.
"""
