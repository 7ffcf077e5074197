"""The local sparring server: the three provider protocols, answered by the house players the arenas
bring (``colosseum_core.arenas.sparring_houses``, handed in by the wiring); protocols, error envelopes
and the provider quota: :mod:`colosseum_standins.sparring.server`.

Imported by: the commands (``colosseum sparring serve``, ``colosseum dev``), the benchmarks and the
tests.
"""

from colosseum_standins.sparring.server import BAD_KEY, SPARRING_HEADER, build_app, running_sparring, serve

__all__ = ["BAD_KEY", "SPARRING_HEADER", "build_app", "running_sparring", "serve"]
