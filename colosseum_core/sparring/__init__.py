"""The local sparring server: the three provider protocols, answered by deterministic house gladiators.

Gladiators and behaviours: :mod:`colosseum_core.sparring.house`; protocols and error envelopes:
:mod:`colosseum_core.sparring.server`.
"""

from colosseum_core.sparring.house import BEHAVIOURS, GLADIATORS, Forecast, parse_model, read_packet, render
from colosseum_core.sparring.server import SPARRING_HEADER, build_app, running_sparring, serve

__all__ = [
    "BEHAVIOURS",
    "GLADIATORS",
    "SPARRING_HEADER",
    "Forecast",
    "build_app",
    "parse_model",
    "read_packet",
    "render",
    "running_sparring",
    "serve",
]
