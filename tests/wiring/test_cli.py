"""The command line: sweep, card run, catalog refresh, exchange serve, dev."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

import dagster as dg
import duckdb
import httpx
import pytest

from colosseum_core.record import ReceiptStore
from colosseum_dagster.cli import build_parser, main
from colosseum_standins.loopback import free_port, wait_until_answering
from colosseum_standins.simulated_exchange import running_exchange


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += _commands(child, (*prefix, name))
    return found


def test_every_command_has_help_with_an_example(capsys):
    parser = build_parser()
    commands = _commands(parser)
    assert ("forecast", "card", "run") in commands and ("catalog", "refresh") in commands
    assert ("forecast", "card") in commands and ("forecast",) in commands
    for command in commands:
        with pytest.raises(SystemExit):
            parser.parse_args([*command, "--help"])
        assert "example" in capsys.readouterr().out, command


def test_the_top_help_names_all_three_arenas(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "Today's arena" not in said
    for arena in ("forecasting arena (`forecast`)", "debate arena (`debate`)", "(`events`)"):
        assert arena in said, arena


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["forecast", "card", "run", "2026-13-01-0500"], "is not YYYY-MM-DD-HHMM"),
        (["forecast", "card", "run", "2026-11-30-0600"], "is not a seal time"),
        (["forecast", "card", "run", "2099-01-01-0500"], "nothing to run yet"),
        (
            ["forecast", "card", "run", "latest", "--exchange", "http://127.0.0.1:9"],
            "nothing is listening at http://127.0.0.1:9",
        ),
        (
            ["forecast", "card", "show", "2026-11-30-1000", "--data", "/nonexistent/record"],
            "no record at /nonexistent/record",
        ),
        (["forecast", "leaderboard", "--data", "/nonexistent/record"], "no record at"),
        (["forecast", "settle", "--data", "/nonexistent/record"], "no record at"),
        (["board", "build", "out", "--data", "/nonexistent/record"], "no record at"),
        (["catalog", "refresh", "--data", "/nonexistent/record"], "no record at"),
        (["verify", "/nonexistent/record"], "/nonexistent/record does not exist"),
        (
            ["forecast", "select", "--receipts", "/nonexistent/s", "--seal", "2026-11-29T15:00:00Z"],
            "does not exist",
        ),
        (["exchange", "serve", "--faults", "bogus:x"], "unknown kind 'bogus'"),
        (["forecast", "card", "run", "latest", "--data", __file__], "is a file, not a folder"),
        (["debate", "topics", "current", "--data", __file__], "is a file, not a folder"),
    ],
)
def test_a_user_error_is_one_line_and_exit_2(argv, said, capsys, monkeypatch):
    code, _out, err = _run(argv, capsys)
    assert code == 2, (code, err)
    assert said in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_showing_a_card_that_was_never_sealed_says_how_to_seal_it(tmp_path, capsys, monkeypatch):
    (tmp_path / "data" / "warehouse").mkdir(parents=True)
    code, _out, err = _run(
        ["forecast", "card", "show", "2026-11-30-1000", "--data", str(tmp_path / "data")], capsys
    )
    assert code == 2 and "is not sealed" in err and "colosseum forecast card run 2026-11-30-1000" in err, err
    assert len(err.strip().splitlines()) == 1


def test_verify_json_reports_a_missing_path_as_json(capsys):
    code, out, _err = _run(["verify", "/nonexistent/record", "--json"], capsys)
    assert code == 2 and json.loads(out) == {
        "path": "/nonexistent/record",
        "ok": False,
        "error": "/nonexistent/record does not exist",
    }


def test_a_card_whose_sweep_saw_nothing_is_not_sealed_and_the_summary_says_why(tmp_path, capsys, monkeypatch):
    data = tmp_path / "data"
    with running_exchange(seed=5, markets=300, faults="reset:always") as url:
        code, out, err = _run(
            ["forecast", "card", "run", "2026-11-29-1000", "--exchange", url, "--data", str(data), "--json"],
            capsys,
        )
    assert code == 1
    [card] = json.loads(out)["cards"]
    assert card["status"] == "failed" and not card["success"]
    assert any("sweep_received_pages: the sweep received no page of the board" in f for f in card["failures"])
    assert not (data / "seals").exists() or not list((data / "seals").iterdir())
    assert "DEBUG" not in err  # Dagster's event lines only with -v
    # The card stays re-runnable: with the exchange answering, it seals.
    with running_exchange(seed=5, markets=300) as url:
        code, out, err = _run(
            ["forecast", "card", "run", "2026-11-29-1000", "--exchange", url, "--data", str(data)], capsys
        )
    assert code == 0 and "sealed" in out, err


def test_sweep_writes_receipts_and_prints_a_json_summary(tmp_path, capsys):
    out = tmp_path / "sweep"
    with running_exchange(seed=5, markets=600) as url:
        code, stdout, stderr = _run(
            ["forecast", "sweep", "--base-url", url, "--at", "2026-11-29T15:00:00Z", "--out", str(out)],
            capsys,
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
            [
                "forecast",
                "sweep",
                "--base-url",
                url,
                "--at",
                "2026-11-29T15:00:00Z",
                "--out",
                str(tmp_path),
                "--quiet",
            ],
            capsys,
        )
    assert code == 3
    assert json.loads(stdout)["complete"] is False


def test_card_run_uses_the_real_definitions_and_refreshes_the_catalog(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COLOSSEUM_GAMMA_URL", raising=False)
    monkeypatch.setenv("COLOSSEUM_DATA", str(tmp_path / "data"))
    code, stdout, _ = _run(
        ["forecast", "card", "run", "2026-11-29-0500", "--markets", "500", "--json"], capsys
    )
    assert code == 0
    report = json.loads(stdout)
    [card] = report["cards"]
    assert card["card"] == "2026-11-29-0500" and card["success"] and card["complete"]
    assert card["verbatim_check"] is True and card["markets"] > 0
    con = duckdb.connect(str(tmp_path / "data" / "colosseum.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM forecast.verbatim_markets").fetchone()[0] == card["markets"]
    finally:
        con.close()
    # The same through `colosseum sql`, as scripts read it.
    code, stdout, _ = _run(["sql", "SELECT count(*) AS n FROM forecast.verbatim_markets", "--json"], capsys)
    assert code == 0 and json.loads(stdout) == [{"n": card["markets"]}]


def test_exchange_serve_answers_on_its_port():
    port = free_port()
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


@dg.op
def _an_op() -> None:
    pass


@dg.job
def _a_job() -> None:
    _an_op()


@pytest.mark.slow
def test_dev_starts_the_exchange_and_the_ui_together_and_ctrl_c_stops_both(tmp_path):
    ui_port, exchange_port, sparring_port, ledger_port = (free_port() for _ in range(4))
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
            "--sparring-port",
            str(sparring_port),
            "--ledger-port",
            str(ledger_port),
            "--markets",
            "300",
        ],
        env=env,
        start_new_session=True,
        stderr=(tmp_path / "dev.log").open("w"),  # a file: a pipe left unread would stall it
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
                ledger = httpx.get(f"http://127.0.0.1:{ledger_port}/chain/neurons", timeout=5)
                # dev says so itself once its own poll sees the UI: under load, later than ours.
                announced_ui = "the Dagster UI answers at" in (tmp_path / "dev.log").read_text()
                answering = (ui.status_code, exchange.status_code, ledger.status_code) == (200, 200, 200)
                if answering and announced_ui:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "UI or exchange did not come up within 120 s"
            time.sleep(1)
        # It announces its servers on its instance, for the commands run beside it.
        announced = json.loads((tmp_path / "home" / "services.json").read_text())
        assert announced["pid"] == proc.pid
        assert {name: s["url"] for name, s in announced["services"].items()} == {
            "exchange": f"http://127.0.0.1:{exchange_port}",
            "sparring": f"http://127.0.0.1:{sparring_port}",
            "ledger": f"http://127.0.0.1:{ledger_port}",
            "ui": f"http://127.0.0.1:{ui_port}",
        }
        # A run the daemon had launched, and one not yet started, when Ctrl-C came.
        with dg.DagsterInstance.from_config(str(tmp_path / "home")) as instance:
            running = instance.create_run_for_job(
                _a_job, status=dg.DagsterRunStatus.STARTED, tags={"dagster/partition": "2026-12-05-0500"}
            )
            queued = instance.create_run_for_job(_a_job, status=dg.DagsterRunStatus.NOT_STARTED)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    said = (tmp_path / "dev.log").read_text()
    assert f"run {running.run_id[:8]} of _a_job for 2026-12-05-0500: interrupted, marked canceled" in said
    assert f"run {queued.run_id[:8]} of _a_job: interrupted, marked canceled" in said
    # (Dagster's own children, a run worker caught starting, may still print their stack.)
    with dg.DagsterInstance.from_config(str(tmp_path / "home")) as instance:
        for run in (running, queued):
            assert instance.get_run_by_id(run.run_id).status == dg.DagsterRunStatus.CANCELED
        # The sensors' own runs (a topic rotation, an epoch) ended too, none of them as a failure.
        ended = {run.status for run in instance.get_runs()}
        assert ended <= {dg.DagsterRunStatus.CANCELED, dg.DagsterRunStatus.SUCCESS}, ended
    assert "the Dagster UI answers at" in said
    # Its servers, stopped with it, say so (an interruption's empty message was once the whole line).
    for server in ("exchange", "sparring", "debate ledger"):
        assert f"colosseum {server} serve: stopped" in said, said[-3000:]
    assert not re.search(r": $", said, re.MULTILINE), said[-3000:]
    assert not (tmp_path / "home" / "services.json").exists()  # withdrawn as it stopped
    # The local ledger came up seeded with the house miners.
    assert len(ledger.json()) == 9
    assert proc.returncode == 0  # Ctrl-C is how a newcomer stops it, not a failure
    for port in (exchange_port, ledger_port):
        with pytest.raises(httpx.TransportError):
            httpx.get(f"http://127.0.0.1:{port}/status", timeout=2)


def test_select_re_derives_a_sealed_card_from_receipts_alone(tmp_path, capsys, monkeypatch):
    """Sweep + select on the same board and instant reproduce the card a real run sealed."""
    import polars as pl

    key, seal = "2026-11-29-1000", "2026-11-29T15:00:00Z"
    monkeypatch.setenv("COLOSSEUM_DATA", str(tmp_path / "data"))
    with running_exchange(seed=5, markets=800) as url:
        code, stdout, _ = _run(["forecast", "card", "run", key, "--exchange", url, "--json"], capsys)
        assert code == 0, stdout
        code, _, _ = _run(
            ["forecast", "sweep", "--base-url", url, "--at", seal, "--out", str(tmp_path / "s"), "--quiet"],
            capsys,
        )
        assert code == 0
    code, stdout, _ = _run(["forecast", "select", "--receipts", str(tmp_path / "s"), "--seal", seal], capsys)
    assert code == 0
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert all({"market_id", "verdict", "rule", "value", "rank", "label"} <= set(r) for r in rows)
    derived = sorted((r["label"], r["market_id"]) for r in rows if r["verdict"] == "selected")

    sealed = pl.read_parquet(
        tmp_path / "data" / "warehouse" / "forecast" / "card_questions" / f"card={key}" / "data.parquet"
    )
    assert derived == sorted(zip(sealed["label"], sealed["market_id"], strict=True))
    verdicts = pl.read_parquet(
        tmp_path / "data" / "warehouse" / "forecast" / "ranked_candidates" / f"card={key}" / "data.parquet"
    )
    assert {(r["market_id"], r["verdict"], r["rule"], r["value"]) for r in rows} == set(
        verdicts.select("market_id", "verdict", "rule", "value").iter_rows()
    )

    code, stdout, _ = _run(["forecast", "card", "show", key], capsys)
    assert code == 0
    assert f"card {key}" in stdout and "M01" in stdout and "END OF CARD" in stdout
    code, stdout, _ = _run(["forecast", "card", "show", key, "--json"], capsys)
    assert json.loads(stdout)["packet"]["card"] == key


def test_a_failed_run_says_why_a_bug_with_its_class_a_refusal_without() -> None:
    import dagster as dg

    from colosseum_dagster.cli.common import failure_messages

    @dg.asset
    def buggy() -> None:
        raise AttributeError("'str' object has no attribute 'best_move'")

    @dg.asset
    def refusing() -> None:
        raise dg.Failure("event ev1: its manifest is not as frozen")

    for asset, said in (
        (buggy, "AttributeError: 'str' object has no attribute 'best_move'"),
        (refusing, "event ev1: its manifest is not as frozen"),
    ):
        result = dg.materialize([asset], instance=dg.DagsterInstance.ephemeral(), raise_on_error=False)
        assert failure_messages(result) == [said]


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    """`colosseum … | head`: the pipe's reader is gone before the command writes; no traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will ever read: every write to the pipe fails with EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "colosseum_dagster.cli", "events", "chess", "suite", "check"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr


def _a_record_with_a_table(data):
    """A record past "not a record yet" (one table written) that does not verify: what a check made
    before the build must refuse without reaching the build."""
    import polars as pl

    from colosseum_core.forecast.arena import FORECAST
    from colosseum_core.record.layout import Record

    Record(data).tables(FORECAST).write("cards", pl.DataFrame({"card": ["2026-11-30-1000"]}))
    return data


@pytest.mark.parametrize("folders", [(), ("forecast",), ("debate", "events/events")])
def test_an_empty_or_partial_record_is_not_a_record_yet_to_verify_and_to_board_build(
    tmp_path, capsys, folders
):
    """A warehouse/ with no table (empty, or only empty arena folders) once verified OK while board
    build refused it: both now say it is not a record yet, in the same line, with exit 2."""
    data = tmp_path / "data"
    (data / "warehouse").mkdir(parents=True)
    for folder in folders:
        (data / "warehouse" / folder).mkdir(parents=True)
    said = (
        f"{data} is not a record yet: its warehouse/ holds no table of any arena; run a card, an epoch "
        "or an event first (e.g. colosseum forecast card run latest)"
    )
    code, out, err = _run(["verify", str(data)], capsys)
    assert (code, out, err) == (2, "", f"colosseum verify: {said}\n")
    code, out, err = _run(["board", "build", str(tmp_path / "site"), "--data", str(data)], capsys)
    assert (code, out, err) == (2, "", f"colosseum board build: {said}\n")
    assert not (tmp_path / "site").exists()
    code, out, _err = _run(["verify", str(data), "--json"], capsys)
    assert code == 2 and json.loads(out) == {"path": str(data), "ok": False, "error": said}


def test_a_board_the_system_would_not_let_be_written_is_refused_before_the_build(tmp_path, capsys):
    """`board build /proc/nope` once verified the whole record (25 s on a real one) before failing on
    a temporary folder's name; it is refused at once, naming the board and the folder."""
    record = _a_record_with_a_table(tmp_path / "data")
    for out, folder in (("/proc/nope", "/proc"), ("/proc/nope/deeper", "/proc")):
        code, stdout, err = _run(["board", "build", out, "--data", str(record)], capsys)
        assert (code, stdout) == (2, ""), err
        assert (
            err == f"colosseum board build: cannot build the board at {out}: {folder} cannot be written in "
            "(No such file or directory)\n"
        )


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "/nonexistent"],
        ["verify", "{data}"],
        ["board", "build", "{tmp}/site", "--data", "{data}"],
        ["board", "build", "/proc/nope", "--data", "{record}"],
        ["debate", "games", "999999999", "--data", "{data}"],
    ],
)
def test_a_bad_path_or_number_is_refused_before_the_slow_imports(tmp_path, argv):
    """Checked in a fresh interpreter: neither Dagster nor the arenas' audits and builders (seconds of
    imports) are loaded before the one line and exit 2."""
    data = tmp_path / "data"
    (data / "warehouse").mkdir(parents=True)
    record = _a_record_with_a_table(tmp_path / "record")
    argv = [a.format(data=data, tmp=tmp_path, record=record) for a in argv]
    probe = (
        "import sys\nfrom colosseum_dagster.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit as exc:\n    code = exc.code\n"
        "print(code, sorted(m for m in ('dagster', 'colosseum_core.arenas', 'colosseum_core.verify') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "2 []", (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_help_loads_neither_dagster_nor_polars_nor_the_providers():
    """`colosseum --help` and every argument parser are built from light modules (the events' kinds
    registry included), so a command starts in a tenth of a second before its own work."""
    probe = (
        "import sys\nfrom colosseum_dagster.cli import build_parser\nbuild_parser()\n"
        "print(sorted(m for m in ('dagster', 'polars', 'httpx', 'colosseum_core.providers', "
        "'colosseum_core.record') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", (done.stdout, done.stderr)


def test_the_debate_commands_name_the_debate_arena_by_its_record_name():
    from colosseum_core.debate.arena import DEBATE
    from colosseum_dagster.cli.debate import DEBATE_ARENA

    assert DEBATE.name == DEBATE_ARENA


def test_a_path_the_system_refuses_is_one_line_and_exit_2(tmp_path, capsys):
    """A board asked for under a file, and a record folder the system refuses to write in."""
    record = _a_record_with_a_table(tmp_path / "data")
    code, _out, err = _run(["board", "build", f"{__file__}/site", "--data", str(record)], capsys)
    assert code == 2 and f"{__file__} is a file, not a folder" in err and "Traceback" not in err, err
    # A locks/ that is a file: the card's lock cannot be taken; the run's summary names the path.
    (record / "locks").write_text("not a folder")
    code, out, err = _run(["forecast", "card", "run", "latest", "--data", str(record)], capsys)
    assert code == 1 and "FAILED: FileExistsError" in out and str(record / "locks") in out, out
    assert "Traceback" not in out + err, err


@pytest.mark.parametrize(
    "argv",
    [
        ["exchange", "serve", "--port", "{port}"],
        ["sparring", "serve", "--port", "{port}"],
        ["debate", "ledger", "serve", "--port", "{port}"],
        ["dev", "--ledger-port", "{port}"],
    ],
)
def test_a_server_on_a_taken_port_is_refused_before_it_is_announced(argv, capsys):
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        code, _out, err = _run([a.format(port=port) for a in argv], capsys)
    assert code == 2 and f"cannot serve on 127.0.0.1:{port}" in err, err
    assert len(err.strip().splitlines()) == 1 and "Ctrl-C" not in err, err


@pytest.mark.parametrize("port", ["0", "65536", "http", "-1"])
def test_a_port_out_of_range_is_a_usage_error(port, capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["exchange", "serve", "--port", port])
    assert exit_.value.code == 2 and "is not a port number (1-65535)" in capsys.readouterr().err
