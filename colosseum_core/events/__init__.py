"""The multi-event arena: chess, challenge construction, Solve or Object; each event its own standings.

Its shared modules: the record (``arena``: by event), the frozen manifest (``manifest``), the asking
journal (``asking``), the contenders, the bundle, its part of verify (``audit``) and its pages
(``site``); what a kind of event gives them (``kind``) and the registry of kinds (``kinds``), which
imports each kind's module by name. Each kind is a sub-package (``chess``, ``solve_or_object``,
``challenges``); ``tasks`` is what the two task events share.

Imported by: the registry (``colosseum_core.arenas``), the arena's wiring and commands
(``colosseum_dagster.events``, ``colosseum_dagster.cli.events``), the benchmarks and the tests;
never by the platform nor another arena. Its shared modules never import a kind of event, and the
kinds never import each other (``.importlinter``).
"""
