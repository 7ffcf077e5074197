"""End to end: the board the real Definitions publish verifies, and the audit names what was tampered with."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from pathlib import Path

import dagster as dg
import polars as pl

from colosseum_core.arenas import AUDITS, PUBLIC_SITE
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.trust.bundle import ENVELOPE_NAME, MANIFEST_NAME
from colosseum_core.verify import verify_path
from colosseum_dagster.definitions import defs
from tests.conftest import PUBLISHED_CARDS, Record, check_results
from tests.support import run_colosseum


def colosseum(*args: str) -> subprocess.CompletedProcess[str]:
    return run_colosseum(*args)


def test_the_published_site_and_its_record_verify(published: Record) -> None:
    site = published.root / "site"
    assert (site / "index.html").exists() and (site / ENVELOPE_NAME).exists()
    assert (site / "forecast" / "index.html").exists() and not (site / "data").exists()
    for path, kind in ((site, "site"), (published.root, "record")):
        report = verify_path(path, AUDITS, workers=1, public_site=PUBLIC_SITE)
        assert report.kind == kind and report.ok(), report.problems[:5]
        assert report.checked["signatures"] > 0 and report.checked["scores"] > 0
    done = colosseum("verify", str(site), "--json", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["ok"] is True


def test_a_flipped_byte_in_a_page_or_the_manifest_is_named(published: Record, tmp_path: Path) -> None:
    for name in ("index.html", MANIFEST_NAME):
        copy = tmp_path / name / "site"
        shutil.copytree(published.root / "site", copy)
        data = bytearray((copy / name).read_bytes())
        data[len(data) // 2] ^= 0x01
        (copy / name).write_bytes(bytes(data))
        done = colosseum("verify", str(copy), "--quiet")
        assert done.returncode == 1
        assert any(line.startswith("PROBLEM") and name in line for line in done.stdout.splitlines()), (
            done.stdout
        )


def test_a_card_with_a_seat_still_pending_is_not_released_and_its_arena_is_held(
    published: Record, tmp_path: Path
) -> None:
    record = Record(tmp_path / "data")
    shutil.copytree(published.root, record.root)
    card = PUBLISHED_CARDS[-1]
    tables = RecordLayout(record.root).tables(FORECAST)
    answers = tables.read("answers", card)
    pending = answers.with_columns(
        status=pl.when(pl.col("seat") == "xai-flagship").then(pl.lit("pending")).otherwise(pl.col("status"))
    )
    tables.write("answers", with_ids(pending), card)

    done = colosseum("board", "build", str(tmp_path / "site"), "--data", str(record.root))
    assert done.returncode == 2
    assert f"card {card}" in done.stderr and "xai-flagship" in done.stderr
    assert not (tmp_path / "site").exists()

    # Through Dagster: the board is still built (another arena's pages would be rebuilt), the forecast is
    # held at the pages it had, with a notice naming the card and the seat, and its check fails.
    before = {
        p.relative_to(record.root / "site").as_posix(): p.read_bytes()
        for p in (record.root / "site" / "forecast").rglob("*.html")
    }
    with dg.instance_for_test() as instance:
        result = defs.resolve_job_def("leaderboard_job").execute_in_process(
            run_config=record.run_config(), instance=instance, raise_on_error=False
        )
    assert result.success
    checks = check_results(result)
    assert checks["forecast_published"] is False and checks["kinds_never_mix"] is True
    [evaluation] = [e for e in result.get_asset_check_evaluations() if e.check_name == "forecast_published"]
    first = evaluation.metadata["first"].value
    assert f"card {card}" in first and "xai-flagship" in first
    after = {
        p.relative_to(record.root / "site").as_posix(): p.read_text()
        for p in (record.root / "site" / "forecast").rglob("*.html")
    }
    assert set(after) == set(before)  # the pending card was not released: no page was added
    # The landing page shows the forecast held with its notice, and still reads its kept pages' leaders.
    landing = (record.root / "site" / "index.html").read_text()
    section = landing[landing.index('id="arena-forecast"') : landing.index('id="arena-debate"')]
    assert "Forecasting is held" in section and f"card {card}" in section and "xai-flagship" in section
    assert "Top seat by FC SCORE" in section
    for name, page in after.items():
        assert f"card {card}" in page and "xai-flagship" in page, name
        start = page.index('<p class="notice held"')
        assert page[:start] + page[page.index("</p>\n", start) + 5 :] == before[name].decode(), name


def test_board_build_cli_signs_and_rechecks(published: Record, tmp_path: Path) -> None:
    out = tmp_path / "board"
    at = dt.datetime(2026, 12, 31, tzinfo=dt.UTC).isoformat()
    done = colosseum("board", "build", str(out), "--data", str(published.root), "--at", at, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["problems"] == [] and report["arenas"]["forecast"]["released"] == len(PUBLISHED_CARDS)
    assert (out / "MANIFEST.json.dsse").exists()
    again = colosseum("board", "build", str(out), "--data", str(published.root), "--at", at, "--json")
    assert json.loads(again.stdout)["manifest_sha256"] == report["manifest_sha256"]  # same record, same bytes


def test_verify_refuses_a_path_that_is_neither(tmp_path) -> None:
    done = colosseum("verify", str(tmp_path))
    assert done.returncode == 2 and "neither a record" in done.stderr
    done = colosseum("verify", str(tmp_path / "nonexistent"))
    assert done.returncode == 2 and "does not exist" in done.stderr


def test_a_site_built_before_any_score_verifies(record: Record, instance: dg.DagsterInstance) -> None:
    """A first card sealed and answered, nothing settled yet: its board's leaderboard has no rows, and
    the site still verifies (an empty data/leaderboard.json once read as a table with no columns)."""
    from colosseum_core.site.publish import publish_site
    from colosseum_core.trust.keys import KeyStore
    from colosseum_standins.simulated_exchange import running_exchange
    from tests.conftest import run_card

    with running_exchange(seed=5, markets=400) as exchange_url:
        assert run_card(PUBLISHED_CARDS[0], record, exchange_url, instance).success
    site = record.root / "site"
    publish_site(
        PUBLIC_SITE,
        RecordLayout(record.root),
        KeyStore.for_data(record.root),
        site,
        built_at=dt.datetime(2026, 12, 1, tzinfo=dt.UTC),
    )
    assert json.loads((site / "forecast" / "data" / "leaderboard.json").read_text())["rows"] == []
    landing = (site / "index.html").read_text()
    assert landing.count('<p class="empty">no FIGHT records yet</p>') == 1
    report = verify_path(site, AUDITS, workers=1, public_site=PUBLIC_SITE)
    assert report.ok(), report.problems[:5]
