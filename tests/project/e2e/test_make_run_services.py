"""make run's servers shared: `colosseum dev` announces them on its instance, and a command run beside
it uses them (saying which) instead of starting its own or failing on a taken port."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from colosseum_core.arenas import sparring_houses
from colosseum_dagster.cli import instance as shared
from colosseum_dagster.cli.instance import announce_services, make_run_services, withdraw_services
from colosseum_standins.ledger import running_ledger
from colosseum_standins.simulated_exchange import running_exchange
from colosseum_standins.sparring import running_sparring
from tests.conftest import cli


@pytest.fixture
def make_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Real servers, announced on a fresh instance as `colosseum dev` announces its own."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    for name in ("COLOSSEUM_GAMMA_URL", "COLOSSEUM_SPARRING_URL", "COLOSSEUM_LEDGER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(shared, "_announced", set())
    with (
        running_exchange(seed=0, markets=300) as exchange,
        running_sparring(houses=sparring_houses()) as sparring,
        running_ledger() as (ledger, _state),
    ):
        urls = {"exchange": exchange, "sparring": sparring, "ledger": ledger}
        path = announce_services(
            home,
            {
                "exchange": {"url": exchange, "pid": os.getpid(), "seed": 0, "markets": 300},
                "sparring": {"url": sparring, "pid": os.getpid()},
                "ledger": {"url": ledger, "pid": os.getpid(), "house_miners": True},
            },
        )
        yield home, urls
        withdraw_services(path)
        assert not path.exists()


def test_a_card_run_beside_make_run_uses_its_exchange_and_sparring_server_and_says_so(
    make_run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _home, urls = make_run
    assert cli("forecast", "card", "run", "2026-11-29-0500", "--data", str(tmp_path / "data")) == 0
    err = capsys.readouterr().err
    assert f"using make run's simulated exchange at {urls['exchange']}\n" in err
    assert f"using make run's sparring server at {urls['sparring']}\n" in err
    assert f"running card_job against {urls['exchange']}" in err


@pytest.mark.usefixtures("make_run")
def test_environment_variables_still_win_over_make_runs_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_sparring(houses=sparring_houses()) as other:
        monkeypatch.setenv("COLOSSEUM_SPARRING_URL", other)
        assert cli("forecast", "card", "run", "2026-11-29-0500", "--data", str(tmp_path / "data")) == 0
    err = capsys.readouterr().err
    assert "make run's sparring server" not in err and "make run's simulated exchange" in err


def test_a_debate_command_beside_make_run_reads_its_ledger(
    make_run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _home, urls = make_run
    # An epoch number too large is refused after the ledger is chosen, before anything runs.
    assert cli("debate", "entries", "99999999", "--data", str(tmp_path / "data")) == 2
    assert f"using make run's local ledger at {urls['ledger']}\n" in capsys.readouterr().err


def _serve(home: Path, *argv: str) -> subprocess.Popen[str]:
    env = dict(os.environ) | {"DAGSTER_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-m", "colosseum_dagster.cli", *argv], env=env, stderr=subprocess.PIPE, text=True
    )


def test_serve_on_make_runs_port_uses_its_server_and_waits_to_be_stopped(make_run) -> None:
    home, urls = make_run
    for name, argv in (
        ("exchange", ["exchange", "serve", "--markets", "300"]),
        ("ledger", ["debate", "ledger", "serve", "--house-miners"]),
    ):
        port = str(urlsplit(urls[name]).port)
        proc = _serve(home, *argv, "--port", port)
        assert proc.stderr is not None
        said = proc.stderr.readline()
        assert f"already serves {urls[name]}: using it" in said, said
        assert proc.poll() is None  # it stays, as a server started in the background does
        proc.send_signal(signal.SIGTERM)  # a script's `kill $EXCHANGE`
        assert proc.wait(timeout=20) == 0
    # Asked for another board than make run's, it is the taken port it was.
    port = str(urlsplit(urls["exchange"]).port)
    other = _serve(home, "exchange", "serve", "--port", port, "--markets", "300", "--seed", "7")
    _out, err = other.communicate(timeout=60)
    assert other.returncode == 2 and "cannot serve on" in err, err


def test_an_announcement_left_by_a_killed_make_run_names_nothing(tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = int(gone.stdout)
    path = announce_services(home, {"exchange": {"url": "http://127.0.0.1:9", "pid": os.getpid()}})
    assert set(make_run_services()) == {"exchange"}
    doc = json.loads(path.read_text())
    path.write_text(json.dumps(doc | {"pid": dead}))
    assert make_run_services() == {}
    withdraw_services(path)  # not this process's any more: left alone
    assert path.exists()
