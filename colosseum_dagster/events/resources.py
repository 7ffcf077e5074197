"""The multi-event arena's resources: where each event's players are, and how many are asked at once."""

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import dagster as dg
from pydantic import Field

from colosseum_core.events.asking import asked_pools
from colosseum_core.settings import LOCAL_SPARRING_URL, SPARRING_URL_ENV
from colosseum_dagster.provider_pools import provider_slots

STOCKFISH_ENV = "COLOSSEUM_STOCKFISH"


class AskingResource(dg.ConfigurableResource):
    """The sparring server for house players, and each provider's share of requests at once."""

    sparring_url: str | None = Field(
        default=None,
        description=f"The sparring server; default ${SPARRING_URL_ENV}, else {LOCAL_SPARRING_URL}",
    )
    per_provider: int = Field(default=8, ge=1, description="Requests at once to one provider (the pool)")
    # Each kind's resource says what it runs at once (games, items); a step's Asking carries it.
    concurrency: int = Field(default=8, ge=1, description="Asked at once")

    def sparring(self) -> str:
        return (self.sparring_url or os.environ.get(SPARRING_URL_ENV) or LOCAL_SPARRING_URL).rstrip("/")

    @contextlib.contextmanager
    def provider_slots(
        self, context: dg.AssetExecutionContext, asked: Sequence[Mapping[str, Any]]
    ) -> Iterator[dict[str, int]]:
        """Slots of the pool of every provider that asking ``asked`` (contenders or judges) uses, held
        for the block: the ``per_provider`` limits to ask them with."""
        pools = asked_pools(asked, sparring_url=self.sparring())
        with provider_slots(context, pools, self.per_provider) as held:
            yield held


class ChessResource(AskingResource):
    """Where the chess event's players are: the sparring server for house players, and Stockfish."""

    stockfish: str | None = Field(
        default=None,
        description=f"Stockfish's path or name; default ${STOCKFISH_ENV}, else stockfish on PATH",
    )
    concurrency: int = Field(default=8, ge=1, description="Games played at once")
    engines: int = Field(default=2, ge=1, description="Stockfish processes (one search each at a time)")

    def stockfish_name(self) -> str | None:
        return self.stockfish or os.environ.get(STOCKFISH_ENV)


class SolveOrObjectResource(AskingResource):
    """Where the task events' contenders and judges are: the sparring server for house players; and
    how many of them are asked at once."""

    concurrency: int = Field(default=8, ge=1, description="Items asked at once")
