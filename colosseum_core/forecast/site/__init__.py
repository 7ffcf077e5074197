"""The forecasting arena's part of the public site (a plug-in of ``colosseum_core.site``): HTML, JSON and
Parquet built from the record, released by method §11.

``build_site`` writes the board (refusing while any card carries answers that may not be published
yet), ``release_problems`` names what blocks it, ``site_problems`` re-reads a built site from disk
and compares every published value with the record, and ``ForecastSite`` is what the shared engine
publishes.

Imported by: the registry (``colosseum_core.arenas.PUBLIC_SITE``), the arena's part of verify
(``audit``) and the tests; it imports the stages before it, never the wiring.
"""

from colosseum_core.forecast.site.build import SiteReport, build_site
from colosseum_core.forecast.site.plugin import FORECAST_SITE, ForecastSite
from colosseum_core.forecast.site.release import ReleaseError, release_problems
from colosseum_core.forecast.site.site_check import site_problems

__all__ = [
    "FORECAST_SITE",
    "ForecastSite",
    "ReleaseError",
    "SiteReport",
    "build_site",
    "release_problems",
    "site_problems",
]
