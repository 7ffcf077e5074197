"""The local ledger (the chain and gists, offline) and the HTTP readers of the ledger interface."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import httpx
import pytest

from colosseum_core.chain.http import HttpGists, HttpLedger
from colosseum_core.chain.ledger import (
    BLOCK_SECONDS,
    GistNotFound,
    GistUnavailable,
    LedgerError,
    block_at,
    block_start,
)
from colosseum_core.record.receipts import ReceiptStore
from colosseum_standins.ledger import LedgerRefused, LocalLedger, running_ledger
from colosseum_standins.ledger.state import GIST_TRUNCATION_BYTES, MAX_COMMITMENT_BYTES
from tests.support import FIXTURES

GENESIS = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
NOW = GENESIS + dt.timedelta(seconds=1000 * BLOCK_SECONDS + 5)


def _ledger(log: Path | None = None) -> LocalLedger:
    return LocalLedger(log, genesis=GENESIS, now=lambda: NOW)


def test_blocks_are_twelve_seconds_from_genesis() -> None:
    assert block_at(NOW, GENESIS) == 1000 and block_start(1000, GENESIS) == NOW - dt.timedelta(seconds=5)
    with pytest.raises(ValueError, match="before the chain's genesis"):
        block_at(GENESIS - dt.timedelta(seconds=1), GENESIS)
    with pytest.raises(ValueError, match="aware"):
        block_at(dt.datetime(2026, 1, 2), GENESIS)


def test_the_chain_keeps_the_latest_commitment_and_the_block_of_registration(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path / "ledger.jsonl")
    alice = ledger.register("alice")
    assert (alice.uid, alice.block_at_registration) == (0, 1000)
    ledger.advance(150)
    first = ledger.commit("alice", "argue plainly")
    ledger.advance(100)
    later = ledger.commit("alice", "argue loudly")
    assert (first.block, later.block) == (1150, 1250)
    assert ledger.commitments() == {"alice": later}  # only the latest is kept, with its block
    bob = ledger.register("bob")
    assert bob.uid == 1 and bob.block_at_registration == 1250
    ledger.deregister("alice")
    assert "alice" not in ledger.commitments() and [n.hotkey for n in ledger.neurons()] == ["bob"]
    again = ledger.register("alice")
    assert again.uid == 0 and again.block_at_registration == 1250 and "alice" not in ledger.commitments()
    ledger.set_weights("bob", {0: 3, 1: 1})
    assert ledger.weights()[-1].weights == {0: 0.75, 1: 0.25}

    replayed = _ledger(tmp_path / "ledger.jsonl")
    assert replayed.neurons() == ledger.neurons() and replayed.commitments() == ledger.commitments()
    assert replayed.weights() == ledger.weights()
    # The advanced clock is part of the chain: a restarted ledger is at the same block, not back at 1000.
    assert replayed.current_block() == ledger.current_block() == 1250


def test_a_restarted_ledger_never_goes_back_a_block_even_when_the_hosts_clock_does(tmp_path: Path) -> None:
    log = tmp_path / "ledger.jsonl"
    ledger = _ledger(log)
    ledger.register("alice")
    ledger.advance(40)
    ledger.commit("alice", "argue plainly")
    assert ledger.current_block() == 1040
    earlier = LocalLedger(log, genesis=GENESIS, now=lambda: NOW - dt.timedelta(hours=1))
    assert earlier.current_block() == 1040  # the host's clock went back an hour; the chain did not
    assert earlier.commit("alice", "argue loudly").block == 1040
    later = LocalLedger(log, genesis=GENESIS, now=lambda: NOW + dt.timedelta(seconds=12 * 5))
    assert later.current_block() == 1045


def test_refused_writes_name_the_hotkey_and_record_nothing(tmp_path: Path) -> None:
    log = tmp_path / "ledger.jsonl"
    ledger = _ledger(log)
    ledger.register("alice")
    before = log.read_bytes()
    with pytest.raises(LedgerRefused, match="alice is already registered as uid 0"):
        ledger.register("alice")
    with pytest.raises(LedgerRefused, match="'mallory' is not registered"):
        ledger.commit("mallory", "x")
    with pytest.raises(LedgerRefused, match=f"at most {MAX_COMMITMENT_BYTES}"):
        ledger.commit("alice", "x" * (MAX_COMMITMENT_BYTES + 1))
    with pytest.raises(LedgerRefused, match="uid 7 is not registered"):
        ledger.set_weights("alice", {7: 1.0})
    with pytest.raises(LedgerRefused, match="printable"):
        ledger.register("has space")
    with pytest.raises(LedgerRefused, match="blocks must be a whole number"):
        ledger.advance(-1)
    assert log.read_bytes() == before


def test_a_damaged_log_is_named_with_its_line(tmp_path: Path) -> None:
    log = tmp_path / "ledger.jsonl"
    _ledger(log).register("alice")
    log.write_text(log.read_text() + "{not json\n")
    with pytest.raises(LedgerError, match=r"ledger\.jsonl line 2: not a ledger event"):
        _ledger(log)


def test_the_readers_speak_the_local_ledger_and_keep_every_answer_as_a_receipt(tmp_path: Path) -> None:
    receipts = ReceiptStore(tmp_path / "receipts")
    with running_ledger(now=lambda: NOW) as (url, ledger):
        ledger.register("alice")
        ledger.advance(10)
        ledger.commit("alice", "gist:abc@def")
        reader = HttpLedger(url, receipts=receipts)
        assert reader.current_block() == ledger.current_block() == 1010
        assert reader.neurons() == ledger.neurons()
        assert reader.commitments() == ledger.commitments()
        assert len(reader.receipt_ids) == 3 and all(r in receipts for r in reader.receipt_ids)

        revision = ledger.put_gist({"strategy.md": "Argue from first principles."})
        gists = HttpGists(url, receipts=receipts)
        read = gists.revision(revision.gist_id, revision.sha)
        assert read == revision and read.files[0].content == "Argue from first principles."
        newer = ledger.put_gist({"strategy.md": "Changed."}, gist_id=revision.gist_id)
        assert newer.sha != revision.sha
        assert (
            gists.revision(revision.gist_id, revision.sha).files[0].content == "Argue from first principles."
        )
        with pytest.raises(GistNotFound, match="not found"):
            gists.revision(revision.gist_id, "0" * 40)

        ledger.unavailable[revision.gist_id] = 1
        with pytest.raises(GistUnavailable, match="HTTP 503"):
            gists.revision(revision.gist_id, revision.sha)
        assert gists.revision(revision.gist_id, revision.sha) == revision  # the next try answers

        big = ledger.put_gist({"strategy.md": "y" * (GIST_TRUNCATION_BYTES + 10)})
        file = gists.revision(big.gist_id, big.sha).files[0]
        assert (
            file.truncated
            and len(file.content) == GIST_TRUNCATION_BYTES
            and file.size > GIST_TRUNCATION_BYTES
        )

        # Writes over HTTP, as a miner's tooling makes them; a refused one is a 400 naming why.
        registered = httpx.post(f"{url}/chain/register", json={"hotkey": "bob"}).json()
        assert registered["uid"] == 1
        refused = httpx.post(f"{url}/chain/commit", json={"hotkey": "nobody", "data": "x"})
        assert refused.status_code == 400 and "'nobody' is not registered" in refused.json()["error"]
        assert httpx.post(f"{url}/clock/advance", json={"blocks": 5}).json() == {"block": 1015}


def _mocked(body: object, status: int = 200) -> httpx.Client:
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Client(
        transport=httpx.MockTransport(lambda request: httpx.Response(status, content=payload))
    )


def test_a_malformed_answer_names_the_route_the_field_and_the_value() -> None:
    with pytest.raises(
        LedgerError,
        match=r"/chain/neurons\[0\] field block_at_registration: expected a whole number, got '7'",
    ):
        HttpLedger(
            "http://ledger", client=_mocked([{"uid": 0, "hotkey": "a", "block_at_registration": "7"}])
        ).neurons()
    with pytest.raises(LedgerError, match="hotkey a field data: expected text"):
        HttpLedger("http://ledger", client=_mocked({"a": {"block": 1, "data": 5}})).commitments()
    with pytest.raises(LedgerError, match="not JSON"):
        HttpLedger("http://ledger", client=_mocked(b"<html>")).current_block()
    with pytest.raises(LedgerError, match="HTTP 500"):
        HttpLedger("http://ledger", client=_mocked({"error": "x"}, 500)).current_block()
    with pytest.raises(GistUnavailable, match="HTTP 429"):
        HttpGists("http://gists", client=_mocked({"message": "rate limited"}, 429)).revision("g", "s")
    with pytest.raises(LedgerError, match=r"file a\.md field content: expected text"):
        HttpGists("http://gists", client=_mocked({"files": {"a.md": {"size": 1}}})).revision("g", "s")


def test_no_answer_at_all_is_a_transient_gist_failure_with_its_receipt(tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    receipts = ReceiptStore(tmp_path / "receipts")
    gists = HttpGists(
        "http://gists", client=httpx.Client(transport=httpx.MockTransport(refuse)), receipts=receipts
    )
    with pytest.raises(GistUnavailable, match="no answer"):
        gists.revision("g", "s")
    assert len(gists.receipt_ids) == 1 and gists.receipt_ids[0] in receipts


def test_the_ledger_command_serves_and_its_log_survives_a_restart(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys
    import time

    def free_port() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    def serve(port: int) -> subprocess.Popen[bytes]:
        argv = [
            sys.executable,
            "-m",
            "colosseum_dagster.cli",
            "debate",
            "ledger",
            "serve",
            "--port",
            str(port),
        ]
        return subprocess.Popen([*argv, "--log", str(tmp_path / "chain.jsonl")], stderr=subprocess.PIPE)

    def wait(url: str) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(url + "/status").status_code == 200:
                    return
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the ledger did not come up"
                time.sleep(0.1)

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    child = serve(port)
    try:
        wait(url)
        assert httpx.post(f"{url}/chain/register", json={"hotkey": "miner-1"}).json()["uid"] == 0
    finally:
        child.terminate()
        _, said = child.communicate(timeout=15)
    assert b"local ledger" in said
    child = serve(port)
    try:
        wait(url)
        assert [n.hotkey for n in HttpLedger(url).neurons()] == ["miner-1"]
    finally:
        child.terminate()
        child.communicate(timeout=15)


def test_the_bittensor_adapter_reads_the_sdks_answers_into_the_ledger_interface() -> None:
    from types import SimpleNamespace

    from colosseum_core.chain.bittensor import BittensorLedger

    recorded = json.loads((FIXTURES / "bittensor" / "subnet82.json").read_text())
    metagraph = SimpleNamespace(
        block=recorded["metagraph"]["block"],
        neurons=[SimpleNamespace(**n) for n in recorded["metagraph"]["neurons"]],
    )
    subtensor = SimpleNamespace(
        block=recorded["block"],
        subnets=SimpleNamespace(
            metagraph=lambda netuid: metagraph if netuid == 82 else None,
            commitments=lambda netuid: {k: SimpleNamespace(**v) for k, v in recorded["commitments"].items()},
        ),
        weights=SimpleNamespace(
            weights=lambda netuid: {
                int(k): {int(u): w for u, w in row.items()} for k, row in recorded["weights"].items()
            }
        ),
    )
    chain = BittensorLedger(subtensor, 82)
    assert chain.current_block() == 5415900
    neurons = chain.neurons()
    assert [(n.uid, n.block_at_registration) for n in neurons] == [(0, 5410000), (1, 5415600), (2, 5415800)]
    commitments = chain.commitments()
    assert len(commitments) == 2  # the sealed one has no text to read yet
    assert commitments[neurons[0].hotkey].block == 5410150
    assert commitments[neurons[1].hotkey].data.startswith("gist:")
    weights = chain.weights()
    assert len(weights) == 1 and weights[0].validator == neurons[0].hotkey and weights[0].weights == {0: 1.0}
    with pytest.raises(LedgerError, match="subnet 7: the chain has no metagraph"):
        BittensorLedger(subtensor, 7).neurons()
