"""The Solve-or-Object event: sound problems and their minimally edited defective twins.

The bank and its pairs (``bank``), the draw, the prompt, the event's steps (``event``, ``run``),
``scoring`` and ``standings``, the house solvers (``house``), its part of verify (``audit``), its
pages and downloads, and the kind the registry lists (``kind``); its rules' versions in ``rules``.

Imported by: the registry of kinds (``colosseum_core.events.kinds``, by name), its own wiring and
commands (``colosseum_dagster.events.solve_or_object``,
``colosseum_dagster.cli.events.solve_or_object``) and the tests; never by another kind nor by the
arena's shared modules (``.importlinter``).
"""
