"""The chess event: python-chess (GPL-3.0-or-later) is imported only inside this package.

The rules and versions (``rules``), the prompt and its strict reading, a game, the round robin
(``schedule``), the contenders and the players (models, Stockfish), the house players, the suite and
its builder, the event's steps (``event``, ``run``), the standings, the replay audit, its pages and
downloads, and the kind the registry lists (``kind``).

Imported by: the registry of kinds (``colosseum_core.events.kinds``, by name, lazily: chess is an
optional extra), its own wiring and commands (``colosseum_dagster.events.chess``,
``colosseum_dagster.cli.events.chess``), the benchmarks and the tests; never by another kind nor by
the arena's shared modules (``.importlinter``).
"""
