"""Shared fixtures: a Dagster instance, a temporary record, and card runs through the real Definitions."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from colosseum_core.arenas import sparring_houses
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record import ReceiptStore, RecordTables
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.record.seals import SealRegistry
from colosseum_dagster.definitions import defs
from colosseum_standins.sparring import running_sparring

_SESSION_HOME = pytest.StashKey[tuple[Path, str | None]]()

try:  # python-chess is the [chess] extra (GPL-3.0-or-later): without it the chess tests are not collected
    import chess  # noqa: F401
except ImportError:
    collect_ignore_glob = ["events/chess/*", "events/e2e/test_chess_*.py"]

TESTS = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    """Every command the tests run records its runs on a Dagster instance of this session (of this
    xdist worker), never in the checkout's .dagster_home/ nor in an operator's $DAGSTER_HOME; a test
    that wants one of its own sets DAGSTER_HOME itself."""
    home = Path(tempfile.mkdtemp(prefix="colosseum-dagster-home-"))
    config.stash[_SESSION_HOME] = (home, os.environ.get("DAGSTER_HOME"))
    os.environ["DAGSTER_HOME"] = str(home)


def pytest_unconfigure(config: pytest.Config) -> None:
    home, before = config.stash.get(_SESSION_HOME, (None, None))
    if home is None:
        return
    shutil.rmtree(home, ignore_errors=True)
    if before is None:
        os.environ.pop("DAGSTER_HOME", None)
    else:
        os.environ["DAGSTER_HOME"] = before


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test under an ``e2e/`` folder is marked ``e2e``: ``pytest -m "not e2e"`` runs the unit tests
    alone."""
    for item in items:
        if "e2e" in item.path.resolve().relative_to(TESTS).parts[:-1]:
            item.add_marker(pytest.mark.e2e)


def pytest_report_header() -> str | None:
    if "collect_ignore_glob" in globals():
        return "python-chess (the [chess] extra) is not installed: the chess event's tests are not collected"
    return None


@dataclasses.dataclass(frozen=True)
class Record:
    root: Path
    sparring_url: str | None = None

    @property
    def layout(self) -> RecordLayout:
        return RecordLayout(self.root)

    @property
    def tables(self) -> RecordTables:
        """The forecast's tables: every card run here writes them."""
        return self.layout.tables(FORECAST)

    @property
    def receipts(self) -> ReceiptStore:
        return self.layout.receipts

    @property
    def seals(self) -> SealRegistry:
        return self.layout.seals(FORECAST)

    @property
    def catalog(self) -> Path:
        return self.layout.catalog_path

    def run_config(self, gamma_url: str | None = None, sparring_url: str | None = None) -> dict[str, Any]:
        resources: dict[str, Any] = {
            "record": {"config": {"data_dir": str(self.root)}},
            "io_manager": {"config": {"data_dir": str(self.root)}},
        }
        if gamma_url:
            resources["exchange"] = {"config": {"gamma_url": gamma_url}}
        sparring_url = sparring_url or self.sparring_url
        if sparring_url:
            resources["gladiators"] = {"config": {"sparring_url": sparring_url, "timeout_s": 20.0}}
        return {"resources": resources}


@pytest.fixture(autouse=True)
def _a_command_s_instance_settings_end_with_its_test() -> Iterator[None]:
    """``colosseum --ephemeral-instance`` sets the process's instance choice for its command; in a test
    process the next test's command would inherit it (a catalog reported to one throw-away instance
    and read from another)."""
    from colosseum_dagster.cli import instance as cli_instance

    yield
    cli_instance.for_command("colosseum", ephemeral=False)


@pytest.fixture(scope="session")
def sparring_url() -> Iterator[str]:
    """The house gladiators' server, shared by every card run of the session."""
    with running_sparring(houses=sparring_houses()) as url:
        yield url


@pytest.fixture
def record(tmp_path: Path, sparring_url: str) -> Record:
    return Record(tmp_path / "data", sparring_url)


@pytest.fixture
def instance() -> Iterator[dg.DagsterInstance]:
    with dg.instance_for_test() as inst:
        yield inst


def run_card(
    key: str, record: Record, gamma_url: str, instance: dg.DagsterInstance
) -> dg.ExecuteInProcessResult:
    return defs.resolve_job_def("card_job").execute_in_process(
        partition_key=key,
        run_config=record.run_config(gamma_url),
        instance=instance,
        raise_on_error=False,
    )


PUBLISHED_CARDS = ["2026-11-20-0500", "2026-11-20-1000"]


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory, sparring_url: str) -> Record:
    """Two cards run, settled by the real sensor, ranked and published by leaderboard_job (<data>/site)."""
    from colosseum_dagster.resources import ClockResource, ExchangeResource, RecordResource
    from colosseum_standins.simulated_exchange import running_exchange

    record = Record(tmp_path_factory.mktemp("published") / "data", sparring_url)
    with running_exchange(seed=11, markets=900) as exchange_url, dg.instance_for_test() as instance:
        for key in PUBLISHED_CARDS:
            assert run_card(key, record, exchange_url, instance).success
        context = dg.build_sensor_context(
            instance=instance,
            definitions=defs,
            resources={
                "record": RecordResource(data_dir=str(record.root)),
                "exchange": ExchangeResource(gamma_url=exchange_url),
                "clock": ClockResource(fixed_instant="2026-12-30T00:00:00+00:00"),
            },
        )
        for request in defs.resolve_sensor_def("settlement_sensor").evaluate_tick(context).run_requests:
            config = {**request.run_config, **record.run_config()}
            assert (
                defs.resolve_job_def("settlement_job")
                .execute_in_process(partition_key=request.partition_key, run_config=config, instance=instance)
                .success
            )
        boards = defs.resolve_job_def("leaderboard_job").execute_in_process(
            run_config=record.run_config(), instance=instance
        )
        assert boards.success and all(check_results(boards).values()), check_results(boards)
    return record


def run_catalog(record: Record, instance: dg.DagsterInstance) -> dg.ExecuteInProcessResult:
    return defs.resolve_job_def("catalog_job").execute_in_process(
        run_config=record.run_config(), instance=instance
    )


def cli(*argv: str) -> int:
    """``colosseum *argv`` in this process (the real command, as a user runs it); its exit code."""
    from colosseum_dagster.cli import main

    try:
        main(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def check_results(result: dg.ExecuteInProcessResult) -> dict[str, bool]:
    return {e.check_name: e.passed for e in result.get_asset_check_evaluations()}


CARD_CHECKS = frozenset(
    {
        "every_seat_has_a_status",
        "signatures_verify",
        "every_seat_got_the_sealed_packet",
        "verbatim_matches_receipts",
        "one_verdict_per_swept_question",
        "selection_obeys_rules",
        "verdicts_schema",
        "packet_hash_matches",
        "card_schema",
    }
)


def all_checks_pass(result: dg.ExecuteInProcessResult) -> bool:
    """Every check of a card ran, and passed."""
    checks = check_results(result)
    return set(checks) == CARD_CHECKS and all(checks.values())


@pytest.fixture(scope="module")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A real PostgreSQL server on loopback (tests/support/postgres.py), one per module."""
    pytest.importorskip(
        "dagster_postgres", reason="dagster-postgres, the [production] extra, is not installed"
    )
    from tests.support.postgres import postgres_server

    with postgres_server(tmp_path_factory) as server:
        yield server


@pytest.fixture
def profile(postgres: Any, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The production profile's environment, with a database of the test's own, set here too."""
    from tests.support.postgres import production_profile

    with production_profile(postgres, tmp_path) as env:
        yield env


@pytest.fixture(scope="module")
def object_store() -> Iterator[Any]:
    """An S3-compatible server on loopback (moto's server mode, the [dev] extra), one per module."""
    pytest.importorskip("moto.server", reason="moto[server], the [dev] extra, is not installed")
    pytest.importorskip("obstore", reason="obstore, the [production] extra, is not installed")
    from colosseum_core.record.storage import _release_clients
    from colosseum_standins.object_store import running_object_store

    with running_object_store() as store:
        yield store
    # fsspec caches a filesystem per set of options, not per endpoint: the next module's server is
    # on another port, and a client of this one would still be handed out.
    _release_clients()


@pytest.fixture
def bucket_root(object_store: Any, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A record root of the test's own in the bucket, with the environment pointing every client at it."""
    for name, value in object_store.environment().items():
        monkeypatch.setenv(name, value)
    return object_store.url(f"t/{request.node.name}")
