"""What the production profile's tests share: a real PostgreSQL server from Debian's package on a free
loopback port, skipped with its reason when missing, except where CI says it must be there
(COLOSSEUM_REQUIRE_POSTGRES=1); and the profile's instance home. conftest.py makes them the fixtures
``postgres`` (one server per module) and ``profile`` (a database of the test's own)."""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from colosseum_core.settings import POSTGRES_URL_ENV
from colosseum_standins.postgres import PostgresServer, PostgresUnavailable, running_postgres

pytest.importorskip("dagster_postgres", reason="dagster-postgres, the [production] extra, is not installed")
import psycopg2

from tests.support import REPO

PROFILE = REPO / "deploy" / "dagster.yaml"


@contextlib.contextmanager
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """The server, or the test skipped saying why (a failure where CI requires it)."""
    try:
        with running_postgres(tmp_path_factory.mktemp("postgres")) as server:
            yield server
    except PostgresUnavailable as exc:
        if os.environ.get("COLOSSEUM_REQUIRE_POSTGRES") == "1":
            raise
        pytest.skip(f"{exc}; the production profile's tests need it")


def production_home(directory: Path) -> Path:
    """A DAGSTER_HOME holding the production profile, as an operator would set one up."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(PROFILE, directory / "dagster.yaml")
    return directory


def fresh_database(server: PostgresServer) -> str:
    """A new empty database on ``server``: its URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    connection = psycopg2.connect(server.url_for("postgres"))
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {name}")
    connection.close()
    return server.url_for(name)


@contextlib.contextmanager
def production_profile(postgres: PostgresServer, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The production profile's environment (DAGSTER_HOME, COLOSSEUM_POSTGRES_URL), set in this
    process too, with a database of its own."""
    env = {
        "DAGSTER_HOME": str(production_home(tmp_path / "dagster_home")),
        POSTGRES_URL_ENV: fresh_database(postgres),
    }
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        yield env
