"""The command line: sweep, card run, catalog refresh, exchange serve, dev."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import duckdb
import httpx
import pytest

from colosseum_core.loopback import wait_until_answering
from colosseum_core.record import ReceiptStore
from colosseum_core.simulated_exchange import running_exchange
from colosseum_dagster.cli import build_parser, main


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def test_every_command_has_help_with_an_example(capsys):
    parser = build_parser()
    for argv in (["--help"], ["sweep", "--help"], ["card", "run", "--help"], ["exchange", "serve", "--help"]):
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
        assert "example" in capsys.readouterr().out


def test_sweep_writes_receipts_and_prints_a_json_summary(tmp_path, capsys):
    out = tmp_path / "sweep"
    with running_exchange(seed=5, markets=600) as url:
        code, stdout, stderr = _run(
            ["sweep", "--base-url", url, "--at", "2026-11-29T15:00:00Z", "--out", str(out)], capsys
        )
    assert code == 0
    summary = json.loads(stdout)
    assert set(summary) >= {"complete", "reason", "pages", "requests", "markets", "receipts"}
    assert summary["complete"] is True and summary["markets"] > 50
    assert "pages" in stderr  # progress
    store = ReceiptStore(out)
    assert len(list(store.ids())) == summary["receipts"]
    manifest = json.loads((out / "sweep.json").read_text())
    assert len(manifest["page_receipt_ids"]) == summary["pages"]
    assert all(rid in store for rid in manifest["page_receipt_ids"])


def test_sweep_exits_3_when_partial(tmp_path, capsys):
    with running_exchange(seed=5, markets=600, faults="500:always") as url:
        code, stdout, _ = _run(
            ["sweep", "--base-url", url, "--at", "2026-11-29T15:00:00Z", "--out", str(tmp_path), "--quiet"],
            capsys,
        )
    assert code == 3
    assert json.loads(stdout)["complete"] is False


def test_card_run_uses_the_real_definitions_and_refreshes_the_catalog(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    monkeypatch.delenv("COLOSSEUM_GAMMA_URL", raising=False)
    monkeypatch.setenv("COLOSSEUM_DATA", str(tmp_path / "data"))
    code, stdout, _ = _run(["card", "run", "2026-11-29-0500", "--markets", "500", "--json"], capsys)
    assert code == 0
    report = json.loads(stdout)
    [card] = report["cards"]
    assert card["card"] == "2026-11-29-0500" and card["success"] and card["complete"]
    assert card["verbatim_check"] is True and card["markets"] > 0
    con = duckdb.connect(str(tmp_path / "data" / "colosseum.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM verbatim_markets").fetchone()[0] == card["markets"]
    finally:
        con.close()


def test_exchange_serve_answers_on_its_port():
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "colosseum_dagster.cli",
            "exchange",
            "serve",
            "--port",
            str(port),
            "--markets",
            "300",
        ],
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_answering(f"http://127.0.0.1:{port}/status", alive=lambda: proc.poll() is None)
        response = httpx.get(f"http://127.0.0.1:{port}/markets/keyset", params={"limit": 2}, timeout=5)
        assert response.status_code == 200 and len(response.json()["markets"]) == 2
        assert "colosseum-exchange" in response.headers["x-colosseum-simulator"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)


@pytest.mark.slow
def test_dev_starts_the_exchange_and_the_ui_together_and_ctrl_c_stops_both(tmp_path):
    ui_port, exchange_port = _free_port(), _free_port()
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path / "home"), "COLOSSEUM_DATA": str(tmp_path / "data")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "colosseum_dagster.cli",
            "dev",
            "--ui-port",
            str(ui_port),
            "--exchange-port",
            str(exchange_port),
            "--markets",
            "300",
        ],
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        query = {
            "query": '{ partitionSetsOrError(repositorySelector: {repositoryName: "__repository__", '
            'repositoryLocationName: "colosseum"}, pipelineName: "card_job") { __typename } }'
        }
        while True:
            try:
                ui = httpx.post(f"http://127.0.0.1:{ui_port}/graphql", json=query, timeout=5)
                exchange = httpx.get(f"http://127.0.0.1:{exchange_port}/status", timeout=5)
                if ui.status_code == 200 and exchange.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "UI or exchange did not come up within 120 s"
            time.sleep(1)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    assert proc.returncode == 0  # Ctrl-C is how a newcomer stops it, not a failure
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{exchange_port}/status", timeout=2)


def test_select_re_derives_a_sealed_card_from_receipts_alone(tmp_path, capsys, monkeypatch):
    """Sweep + select on the same board and instant reproduce the card a real run sealed."""
    import polars as pl

    key, seal = "2026-11-29-1000", "2026-11-29T15:00:00Z"
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    monkeypatch.setenv("COLOSSEUM_DATA", str(tmp_path / "data"))
    with running_exchange(seed=5, markets=800) as url:
        code, stdout, _ = _run(["card", "run", key, "--exchange", url, "--json"], capsys)
        assert code == 0, stdout
        code, _, _ = _run(
            ["sweep", "--base-url", url, "--at", seal, "--out", str(tmp_path / "s"), "--quiet"], capsys
        )
        assert code == 0
    code, stdout, _ = _run(["select", "--receipts", str(tmp_path / "s"), "--seal", seal], capsys)
    assert code == 0
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert all({"market_id", "verdict", "rule", "value", "rank", "label"} <= set(r) for r in rows)
    derived = sorted((r["label"], r["market_id"]) for r in rows if r["verdict"] == "selected")

    sealed = pl.read_parquet(
        tmp_path / "data" / "warehouse" / "card_questions" / f"card={key}" / "data.parquet"
    )
    assert derived == sorted(zip(sealed["label"], sealed["market_id"], strict=True))
    verdicts = pl.read_parquet(
        tmp_path / "data" / "warehouse" / "ranked_candidates" / f"card={key}" / "data.parquet"
    )
    assert {(r["market_id"], r["verdict"], r["rule"], r["value"]) for r in rows} == set(
        verdicts.select("market_id", "verdict", "rule", "value").iter_rows()
    )

    code, stdout, _ = _run(["card", "show", key], capsys)
    assert code == 0
    assert f"card {key}" in stdout and "M01" in stdout and "END OF CARD" in stdout
    code, stdout, _ = _run(["card", "show", key, "--json"], capsys)
    assert json.loads(stdout)["packet"]["card"] == key
