"""Every arena on the production profile, as the forecast's card is in
test_production_object_store_e2e.py: Dagster's instance in PostgreSQL on loopback (the profile of
deploy/dagster.yaml, whose database also holds the writers' locks) and the record in a bucket of an
S3-compatible server on loopback (moto), written and read through the record's one path type.

Through the real commands: the debate arena draws a rotation, checks an epoch's entries, plays a
round and seals the epoch; a chess event, a Solve-or-Object event and a challenge event are frozen
and run; the record verifies in the bucket; the public board is built and published there and
verifies. Nothing of the record is on this host's disk but its own files (catalog, keys, caches,
the site as built). Then a second host, whose disk holds only the keys, rebuilds the board through
the UI's job with the debate held, and keeps the debate's pages the bucket published; every run of
both hosts is in the one PostgreSQL instance."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from colosseum_core.arenas import sparring_houses
from colosseum_core.chain import LEDGER_URL_ENV
from colosseum_core.debate.arena import DEBATE
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.settings import (
    DATA_ENV,
    GAMMA_URL_ENV,
    KALSHI_URL_ENV,
    LOCAL_DIR_ENV,
    SPARRING_URL_ENV,
)
from colosseum_dagster.definitions import defs
from colosseum_standins.ledger import running_ledger
from colosseum_standins.ledger.house_miners import seed_house_miners
from colosseum_standins.simulated_exchange import running_exchange
from colosseum_standins.sparring import running_sparring
from tests.conftest import check_results, cli

ARENA_JOBS = {
    "debate_topics_job",
    "debate_entries_job",
    "debate_games_job",
    "debate_close_job",
    "chess_freeze_job",
    "chess_event_job",
    "soo_freeze_job",
    "soo_event_job",
    "challenge_freeze_job",
    "challenge_event_job",
}


@pytest.mark.slow
def test_the_debate_and_the_events_run_seal_publish_and_verify_with_their_record_in_a_bucket(
    profile: dict[str, str],
    bucket_root: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("duckdb_extension_httpfs", reason="duckdb-extension-httpfs, the [production] extra")
    local = tmp_path / "host"

    def colosseum(*argv: str) -> str:
        capsys.readouterr()
        code = cli(*argv)
        said = capsys.readouterr()
        if code != 0:  # pytest.fail, whose message is shown whole (an assertion's repr is cut)
            pytest.fail(f"colosseum {' '.join(argv)} exited {code}\n{said.out}\n{said.err[-4000:]}")
        return said.out

    with (
        running_exchange(seed=0, markets=200) as exchange,
        running_sparring(houses=sparring_houses()) as sparring,
        running_ledger() as (ledger_url, ledger),
    ):
        seed_house_miners(ledger)
        for name, value in {
            DATA_ENV: bucket_root,
            LOCAL_DIR_ENV: str(local),
            GAMMA_URL_ENV: exchange,
            KALSHI_URL_ENV: f"{exchange}/trade-api/v2",
            SPARRING_URL_ENV: sparring,
            LEDGER_URL_ENV: ledger_url,
        }.items():
            monkeypatch.setenv(name, value)

        colosseum("debate", "topics", "current")
        entries = json.loads(colosseum("debate", "entries", "current", "--json"))
        games = json.loads(colosseum("debate", "games", "current", "--rounds", "1", "--json"))
        closed = json.loads(colosseum("debate", "close", "current", "--json"))

        colosseum(
            "events", "chess", "event", "freeze", "chess-prod", "--lines", "1", "--replicates", "99",
            "--contender", "stockfish-n1", "--contender", "house-illegal",
        )  # fmt: skip
        chess = json.loads(colosseum("events", "chess", "event", "run", "chess-prod", "--json"))
        colosseum(
            "events", "solve-or-object", "event", "freeze", "soo-prod", "--pairs", "2", "--seed", "3",
            "--replicates", "99", "--contender", "house-paranoid", "--contender", "openai-frontier",
        )  # fmt: skip
        soo = json.loads(colosseum("events", "solve-or-object", "event", "run", "soo-prod", "--json"))
        colosseum(
            "events", "challenges", "event", "freeze", "ch-prod", "--slots", "1", "--seed", "5",
            "--replicates", "99", "--contender", "house-lazy", "--contender", "openai-frontier",
        )  # fmt: skip
        challenges = json.loads(colosseum("events", "challenges", "event", "run", "ch-prod", "--json"))

        # What a reader asks of it: the catalog over the bucket (DuckDB's httpfs), and each event's shows.
        played = colosseum("sql", "SELECT count(*) AS n FROM debate.games", "--json")
        [item] = json.loads(
            colosseum(
                "sql",
                "SELECT min(item_id) AS item FROM events.soo_replies WHERE event = 'soo-prod'",
                "--json",
            )
        )
        shown = [
            colosseum("events", "chess", "game", "show", "chess-prod", "L01-01v02-a"),
            colosseum("events", "solve-or-object", "item", "show", "soo-prod", item["item"]),
            colosseum("events", "challenges", "tasks", "ch-prod"),
        ]
        record_report = json.loads(colosseum("verify", bucket_root, "--json"))
        colosseum("board", "build", str(local / "site"))
        site_report = json.loads(colosseum("verify", f"{bucket_root}/site", "--json"))

    assert [e["status"] for e in entries["entries"]].count("entered") >= 2, entries
    assert games["games"] and all(g["status"] == "decided" for g in games["games"]), games
    assert closed["crown"]["event"] == "crowned" and closed["weights"], closed
    assert {s["contender"] for s in chess["standings"]} == {"stockfish-n1", "house-illegal"}
    assert {s["contender"] for s in soo["standings"]} == {"house-paranoid", "openai-frontier"}
    assert any(s["verified_slots"] for s in challenges["standings"]), challenges
    assert json.loads(played)[0]["n"] == len(games["games"])
    assert "1." in shown[0] and item["item"] in shown[1] and "house-lazy" in shown[2], shown
    assert record_report["ok"], record_report["problems"][:10]
    assert {"seals", "receipts", "journal_entries"} <= set(record_report["checked"]), record_report
    assert site_report["ok"] and site_report["kind"] == "site", site_report
    # The record is in the bucket; this host holds only its own files (the salts wait in its keys).
    assert {p.name for p in local.iterdir()} <= {"cache", "colosseum.duckdb", "keys", "site"}
    assert not (local / "warehouse").exists() and not (local / "receipts").exists()
    record = Record(bucket_root)
    crown_page = record.published_site / "debate" / "crown.html"
    published_crown = crown_page.read_text()
    assert (record.published_site / "events" / "ch-prod" / "index.html").exists()

    # Another host (a pod whose disk holds only the mounted keys) rebuilds the board through the UI's
    # job while the debate's record no longer verifies: the debate is held at the pages the bucket
    # published, not dropped from it because this host never built them.
    other = tmp_path / "other-host"
    shutil.copytree(local / "keys", other / "keys")
    monkeypatch.setenv(LOCAL_DIR_ENV, str(other))
    tables = record.tables(DEBATE)
    [epoch] = tables.partitions("weights")
    weights = tables.read("weights", epoch)
    tables.write("weights", with_ids(weights.with_columns(weight=pl.lit(0.5)).drop("id")), epoch)
    with dg.DagsterInstance.get() as instance:  # the profile's database, as the UI and the daemon use it
        board = defs.resolve_job_def("public_board_job").execute_in_process(
            run_config={"resources": {"record": {"config": {"data_dir": bucket_root}}}},
            instance=instance,
            raise_on_error=False,
        )
        assert board.success
        assert check_results(board) == {
            "site_matches_record": True,
            "forecast_published": True,
            "debate_published": False,
            "events_published": True,
        }
        kept = crown_page.read_text()
        assert 'class="notice held"' in kept and f"weights epoch {epoch}" in kept
        assert (record.published_site / "events" / "ch-prod" / "index.html").exists()
        runs = instance.get_runs()
    # Every run of every arena is in the one PostgreSQL instance, as the UI shows them.
    assert {r.job_name for r in runs} >= ARENA_JOBS | {"public_board_job"}
    assert {r.status for r in runs} == {dg.DagsterRunStatus.SUCCESS}, [(r.job_name, r.status) for r in runs]
    assert published_crown != kept
