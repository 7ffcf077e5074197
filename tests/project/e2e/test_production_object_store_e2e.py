"""The record on object storage, end to end: a card run by the CLI on the production profile
(PostgreSQL on loopback for the instance and the writers' locks) with its record in a bucket of an
S3-compatible server on loopback (moto), then settled, scored, ranked and published; the record and
the published site verified where they are, in the bucket; the catalog queried through DuckDB's
httpfs. Nothing of the record is on this host's disk but its own files (catalog, keys, the site as
built)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from colosseum_core.arenas import sparring_houses
from colosseum_core.record.layout import Record
from colosseum_core.settings import DATA_ENV, GAMMA_URL_ENV, LOCAL_DIR_ENV, SPARRING_URL_ENV
from colosseum_standins.simulated_exchange import running_exchange
from colosseum_standins.sparring import running_sparring
from tests.support import run_colosseum

CARD = "2026-11-29-1000"


@pytest.mark.slow
def test_a_card_runs_settles_publishes_and_verifies_with_its_record_in_a_bucket(
    profile: dict[str, str], object_store: Any, tmp_path: Path
) -> None:
    pytest.importorskip("duckdb_extension_httpfs", reason="duckdb-extension-httpfs, the [production] extra")
    root = object_store.url("record")
    local = tmp_path / "host"
    with (
        running_exchange(seed=0, markets=800) as exchange,
        running_sparring(houses=sparring_houses()) as sparring,
    ):
        env = {
            **os.environ,
            **profile,
            **object_store.environment(),
            DATA_ENV: root,
            LOCAL_DIR_ENV: str(local),
            GAMMA_URL_ENV: exchange,
            SPARRING_URL_ENV: sparring,
        }

        def colosseum(*argv: str) -> subprocess.CompletedProcess[str]:
            done = run_colosseum(*argv, env=env)
            assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-3000:])
            return done

        ran = colosseum("forecast", "card", "run", CARD, "--exchange", exchange, "--json")
        report = json.loads(ran.stdout)
        assert [c["status"] for c in report["cards"]] == ["sealed"] and report["catalog"], report
        settled = colosseum("forecast", "settle")
        assert "leaderboard: recomputed" in settled.stdout
        record_report = json.loads(colosseum("verify", root, "--json").stdout)
        site_report = json.loads(colosseum("verify", f"{root}/site", "--json").stdout)
        # A process that used obstore's clients once aborted at exit, after its work, 1 time in 10:
        # several refreshes, each of which must exit 0.
        for _ in range(4):
            colosseum("catalog", "refresh")
        counted = colosseum("sql", f"SELECT count(*) AS n FROM forecast.scores WHERE card='{CARD}'", "--json")

    assert record_report["ok"] and record_report["checked"]["seals"] == 1, record_report
    assert record_report["checked"]["receipts"] > 0 and record_report["checked"]["journal_entries"] > 0
    assert site_report["ok"] and site_report["kind"] == "site", site_report
    assert json.loads(counted.stdout)[0]["n"] > 0
    # The record is in the bucket; this host holds only its own files.
    os.environ.update(object_store.environment())
    record = Record(root)
    assert (record.root / "seals" / "forecast" / f"card={CARD}.json").exists()
    assert (record.published_site / "MANIFEST.json.dsse").exists()
    assert sorted(p.name for p in local.iterdir()) == ["cache", "colosseum.duckdb", "keys", "site"]
    assert not (local / "warehouse").exists() and not (local / "receipts").exists()
