"""The local sparring server: the three provider protocols, answered by deterministic house players.

The forecast's gladiators: :mod:`colosseum_standins.sparring.house`; the debate's intent
panelists, debaters and judges: ``intent_house`` and ``debate_house``; a live-search model with
citations: ``search_house``; protocols, error envelopes and the provider quota:
:mod:`colosseum_standins.sparring.server`.
"""

from colosseum_core.providers.house_models import BEHAVIOURS, GLADIATORS, parse_model
from colosseum_standins.sparring.house import Forecast, read_packet, render
from colosseum_standins.sparring.server import SPARRING_HEADER, build_app, running_sparring, serve

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
