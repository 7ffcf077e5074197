"""Frontier Colosseum's Dagster wiring: assets, jobs, schedules, sensors and resources around the rules
of ``colosseum_core``, and the ``colosseum`` command line (``cli``). It only wires.

``definitions`` is what the UI and the daemon load: the platform's (``platform_definitions``) merged
with the catalog, the public ``board`` and every arena's own (``forecast``, ``debate``, ``events``);
``arena_definitions`` is the platform with one arena, for a command. The platform's wiring
(``resources``, ``catalog``, ``board``, ``progress``) never imports an arena's.

Imported by: nothing of the project's packages (it is their top): Dagster loads ``definitions``, the
``colosseum`` script runs ``cli``; and the benchmarks and the tests.
"""
