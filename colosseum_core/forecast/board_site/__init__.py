"""The static public board: HTML, JSON and Parquet built from the record, released by method §11.

``build_site`` writes the board (refusing while any card carries answers that may not be published
yet), ``release_problems`` names what blocks it, and ``site_problems`` re-reads a built site from
disk and compares every published value with the record.
"""

from colosseum_core.forecast.board_site.build import SiteReport, build_site
from colosseum_core.forecast.board_site.release import ReleaseError, release_problems
from colosseum_core.forecast.board_site.site_check import site_problems

__all__ = ["ReleaseError", "SiteReport", "build_site", "release_problems", "site_problems"]
