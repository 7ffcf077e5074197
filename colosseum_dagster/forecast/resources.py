"""The forecast's own resource: who answers a card."""

import os

import dagster as dg
from pydantic import Field

from colosseum_core.settings import LOCAL_SPARRING_URL, SPARRING_URL_ENV


class GladiatorsResource(dg.ConfigurableResource):
    """Who answers: the seats registry, and the sparring server that hosts house gladiators."""

    sparring_url: str | None = Field(
        default=None,
        description=f"House gladiators' server; default ${SPARRING_URL_ENV}, else {LOCAL_SPARRING_URL}",
    )
    seats_path: str | None = Field(default=None, description="seats.toml; default the repository's")
    timeout_s: float = Field(default=300.0, description="Reply budget per call, in seconds")

    def sparring(self) -> str:
        return (self.sparring_url or os.environ.get(SPARRING_URL_ENV) or LOCAL_SPARRING_URL).rstrip("/")
