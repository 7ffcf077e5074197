"""The multi-event arena's Dagster wiring: each event a partition; its manifest, seal and bundle
(``manifests``); one factory (``wiring``) building each kind's assets and jobs from its wiring
(``chess``, ``solve_or_object``, ``challenges``; ``kinds`` lists them); the board sensor; their
resources.

Imported by: the merged Definitions (``colosseum_dagster.definitions``; a command's through
``arena_definitions.PARTS``), the events' commands (``cli.events``) and the tests; never by the
platform's wiring nor another arena's. The shared wiring reaches a kind only through ``kinds``, and
the kinds' wiring never import each other (``.importlinter``).
"""
