"""What the trials' tests share: a published site holding one trial of a guest model (the committed
forecast fixture record, moved to the arena layout, with the toy part's trial run into it)."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from colosseum_core.providers.models import parse_model
from colosseum_core.record.layout import Record
from colosseum_core.site.public import PublicSite, SitePart
from colosseum_core.site.publish import publish_site
from colosseum_core.site.trials import TrialPages
from colosseum_core.trial import TrialRequest, trial_id
from colosseum_core.trial.report import run_trial
from colosseum_core.trust.keys import KeyStore
from colosseum_standins.guest import build_app, config_of
from colosseum_standins.loopback import running_app
from tests.support import FIXTURES
from tests.support.trial_part_toy import BrokenPart, ToyPart

BUILT = dt.datetime(2026, 12, 5, 12, tzinfo=dt.UTC)
HOSTILE = "openai/acme\u202e<b>7b"


def fixture_record(data: Path) -> None:
    """The committed forecast record, moved to the arena layout (it predates it)."""
    from colosseum_core.forecast.arena import FORECAST
    from colosseum_core.record.migrate import migrate_to_arena_folders

    shutil.copytree(FIXTURES / "forecast_record_620f091" / "data", data)
    migrate_to_arena_folders(data, FORECAST)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, sparring_url: str) -> Iterator[tuple[Record, Path, str]]:
    from colosseum_core.forecast.site import FORECAST_SITE

    root = tmp_path_factory.mktemp("trial-page")
    data = root / "data"
    fixture_record(data)
    with running_app(build_app(config_of("acme-7b", [], "house-hash", sparring_url))) as guest:
        model = parse_model("openai/acme-7b", base_url=f"{guest}/v1")
        # The model's name is the operator's, but it reaches a page: a hostile one must be shown escaped.
        model = type(model)(HOSTILE, model.protocol, model.model, model.base_url, model.key_env)
        request = TrialRequest(
            model=model,
            trial=trial_id(model),
            data_dir=data,
            sparring_url=sparring_url,
            environ={},
            clock=lambda: dt.datetime(2026, 12, 5, tzinfo=dt.UTC),
            progress=lambda line: None,
        )
        run_trial((ToyPart(), BrokenPart()), request)
    site = PublicSite(
        (SitePart(FORECAST_SITE, "forecast", "Forecasting"),),
        trials=TrialPages(lambda: (ToyPart(), BrokenPart())),
    )
    record = Record(data)
    out = root / "site"
    publish_site(site, record, KeyStore.for_data(data), out, built_at=BUILT)
    yield record, out, request.trial
