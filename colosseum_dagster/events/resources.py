"""The multi-event arena's resources: where each event's players are."""

import os

import dagster as dg
from pydantic import Field

from colosseum_core.settings import LOCAL_SPARRING_URL, SPARRING_URL_ENV

STOCKFISH_ENV = "COLOSSEUM_STOCKFISH"


def _sparring(configured: str | None) -> str:
    return (configured or os.environ.get(SPARRING_URL_ENV) or LOCAL_SPARRING_URL).rstrip("/")


class ChessResource(dg.ConfigurableResource):
    """Where the chess event's players are: the sparring server for house players, and Stockfish."""

    sparring_url: str | None = Field(
        default=None,
        description=f"The sparring server; default ${SPARRING_URL_ENV}, else {LOCAL_SPARRING_URL}",
    )
    stockfish: str | None = Field(
        default=None,
        description=f"Stockfish's path or name; default ${STOCKFISH_ENV}, else stockfish on PATH",
    )
    concurrency: int = Field(default=8, ge=1, description="Games played at once")
    engines: int = Field(default=2, ge=1, description="Stockfish processes (one search each at a time)")
    per_provider: int = Field(default=8, ge=1, description="Requests at once to one provider (the pool)")

    def sparring(self) -> str:
        return _sparring(self.sparring_url)

    def stockfish_name(self) -> str | None:
        return self.stockfish or os.environ.get(STOCKFISH_ENV)


class SolveOrObjectResource(dg.ConfigurableResource):
    """Where the Solve-or-Object event's contenders are: the sparring server for house solvers; and how
    many of them are asked at once."""

    sparring_url: str | None = Field(
        default=None,
        description=f"The sparring server; default ${SPARRING_URL_ENV}, else {LOCAL_SPARRING_URL}",
    )
    concurrency: int = Field(default=8, ge=1, description="Items asked at once")
    per_provider: int = Field(default=8, ge=1, description="Requests at once to one provider (the pool)")

    def sparring(self) -> str:
        return _sparring(self.sparring_url)
