"""The debate arena's resources: the chain (and where gists are read), and the models document; and
what a step that asks models is handed, as one value (``Asking``)."""

import dataclasses
import os
from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import Field

from colosseum_core.chain import GISTS_URL_ENV, LEDGER_URL_ENV, LOCAL_LEDGER_URL
from colosseum_core.chain.http import HttpGists, HttpLedger
from colosseum_core.debate.asking import Asker
from colosseum_core.debate.models import ModelsConfig, load_models
from colosseum_core.debate.settings import VALIDATOR_HOTKEY_ENV
from colosseum_core.record import ReceiptStore
from colosseum_core.settings import LOCAL_SPARRING_URL, SPARRING_URL_ENV
from colosseum_dagster.resources import ClockResource, ProviderKeysResource, RecordResource
from colosseum_standins.ledger.state import HOUSE_VALIDATOR_HOTKEY


class ChainResource(dg.ConfigurableResource):
    """The chain the miners commit to, read over HTTP, every answer a receipt."""

    ledger_url: str | None = Field(
        default=None, description=f"The ledger; default ${LEDGER_URL_ENV}, else {LOCAL_LEDGER_URL}"
    )
    gists_url: str | None = Field(
        default=None,
        description=f"Where gist revisions are read (https://api.github.com in production); default "
        f"${GISTS_URL_ENV}, else the ledger's URL (the local ledger serves GitHub's shape)",
    )

    validator_hotkey: str | None = Field(
        default=None,
        description=f"The hotkey that sets the validator's weights; default ${VALIDATOR_HOTKEY_ENV}, else "
        f"{HOUSE_VALIDATOR_HOTKEY} (the local ledger's)",
    )

    def validator(self) -> str:
        return self.validator_hotkey or os.environ.get(VALIDATOR_HOTKEY_ENV) or HOUSE_VALIDATOR_HOTKEY

    def ledger_base(self) -> str:
        return (self.ledger_url or os.environ.get(LEDGER_URL_ENV) or LOCAL_LEDGER_URL).rstrip("/")

    def ledger(self, receipts: ReceiptStore) -> HttpLedger:
        return HttpLedger(self.ledger_base(), receipts=receipts)

    def gists(self, receipts: ReceiptStore) -> HttpGists:
        return HttpGists(
            (self.gists_url or os.environ.get(GISTS_URL_ENV) or self.ledger_base()).rstrip("/"),
            receipts=receipts,
        )


class DebateModelsResource(dg.ConfigurableResource):
    """Which models sit on the intent panel (and later play and judge): one document, by hash."""

    models_path: str | None = Field(
        default=None, description="compelle-models/1 document; default the house models"
    )
    sparring_url: str | None = Field(
        default=None,
        description=f"House players' server; default ${SPARRING_URL_ENV}, else {LOCAL_SPARRING_URL}",
    )

    def models(self) -> ModelsConfig:
        return load_models(Path(self.models_path) if self.models_path else None)

    def sparring(self) -> str:
        return (self.sparring_url or os.environ.get(SPARRING_URL_ENV) or LOCAL_SPARRING_URL).rstrip("/")


# The resources ``Asking`` bundles: a step that asks models requires them.
ASKING = frozenset({"record", "debate_models", "provider_keys", "clock"})


@dataclasses.dataclass(frozen=True)
class Asking:
    """What a debate step that asks models is handed, as one value (as an event's step is): the
    record its receipts go to, the models document and its sparring server, the providers' keys and
    the clock."""

    record: RecordResource
    debate_models: DebateModelsResource
    provider_keys: ProviderKeysResource
    clock: ClockResource

    @classmethod
    def of(cls, context: dg.AssetExecutionContext) -> "Asking":
        resources = context.resources
        return cls(resources.record, resources.debate_models, resources.provider_keys, resources.clock)

    def models(self) -> ModelsConfig:
        """The models document, once every real model it would ask (its key set) answered one short
        request (``providers.check``); ``ModelsError`` in one line if one did not."""
        import time

        from colosseum_core.debate.models import check_models
        from colosseum_core.providers.check import require_entries_reachable

        keys = self.provider_keys.by_variable()

        def check(entries: list[dict[str, Any]]) -> object:
            return require_entries_reachable(
                entries,
                environ=keys,
                sparring_url=self.debate_models.sparring(),
                clock=self.clock.now,
                monotonic=time.monotonic,
            )

        return check_models(self.debate_models.models(), keys, check)

    def asker(self) -> Asker:
        """How a game's turns and judges are asked: every request and reply a receipt."""
        return Asker(
            sparring_url=self.debate_models.sparring(),
            keys=self.provider_keys.by_variable(),
            receipts=self.record.receipts,
            clock=self.clock.now,
        )
