"""A chess event of house players and Stockfish end to end through the real Definitions (the CLI's
freeze and run jobs), then ``colosseum verify``: replayed, re-fitted, and every tampered byte named."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.events.arena import EVENTS
from colosseum_core.record.layout import Record
from colosseum_dagster.events.resources import ChessResource
from tests.conftest import cli
from tests.support import events_e2e as e2e
from tests.support.chess import need_stockfish

KIND = "chess"
CONTENDERS = ["openai-frontier", "google-frontier", "house-illegal", "house-silent", "stockfish-n1"]


def freeze(data: Path, event: str, *extra: str) -> None:
    e2e.freeze(KIND, data, event, "--lines", "1", "--seed", "7", *e2e.contenders(CONTENDERS), *extra)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need_stockfish()
    data = tmp_path_factory.mktemp("chess") / "data"
    freeze(data, "chess-e2e")
    # On a persistent instance, as `make run` keeps one: the providers' pools are the instance's.
    home = tmp_path_factory.mktemp("dagster_home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DAGSTER_HOME", str(home))
        e2e.run(KIND, data, "chess-e2e")
        with dg.DagsterInstance.get() as instance:
            storage = instance.event_log_storage
            pools = {p.name: p.limit for p in storage.get_pool_limits() if p.name.startswith("provider/")}
            # The house players' protocols at the sparring server; Stockfish is in no pool.
            assert sorted(pool.split("/")[1] for pool in pools) == ["gemini", "openai"]
            assert set(pools.values()) == {ChessResource().per_provider}
            assert not any(storage.get_concurrency_info(pool).claimed_slots for pool in pools)
    return data


def test_the_event_is_frozen_signed_played_and_sealed(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = Record(played).tables(EVENTS)
    manifest = e2e.manifest(played, "chess-e2e")
    assert manifest["class"] == "CALIBRATION" and [c["id"] for c in manifest["contenders"]] == CONTENDERS
    assert manifest["rules"]["game"] == "CHESS-GAME-1" and manifest["suite"]["sha256"]
    games = tables.read("chess_games", "chess-e2e")
    assert games.height == 10 * 2 and set(games["evidence"]) == {"verified_to_specification"}
    assert (
        games.filter(pl.col("forfeited_by") == "house-silent").height >= 4
    )  # silent as White forfeits at once
    moves = tables.read("chess_moves", "chess-e2e")
    assert {"no_response", "illegal", "non_canonical"} <= set(moves["failure"].drop_nulls())
    standings = tables.read("chess_standings", "chess-e2e")
    assert standings["rating"].is_not_null().all() and "gold" in set(standings["medal"].drop_nulls())
    assert Record(played).seals(EVENTS).get("chess-e2e") is not None
    report = e2e.verified(played)
    assert report.checked["chess_games"] == 20 and report.checked["standings"] == 5
    capsys.readouterr()
    assert cli("events", "chess", "game", "show", "chess-e2e", "L01-01v04-b", "--data", str(played)) == 0
    shown = capsys.readouterr().out
    assert '[Termination "rules infraction"]' in shown and "no_response" in shown


def test_a_sealed_event_runs_again_to_the_same_bytes_and_a_frozen_one_is_never_refrozen(played: Path) -> None:
    names = ("event_manifests", "chess_games", "chess_moves", "chess_standings", "chess_fit")
    e2e.check_runs_again_to_the_same_bytes(KIND, played, "chess-e2e", names)


@pytest.mark.parametrize(
    ("table", "change", "named"),
    [
        (
            "chess_moves",
            lambda f: f.with_columns(
                text=pl.when(pl.col("accepted") & (pl.col("kind") == "model"))
                .then(pl.lit("MOVE: Kh9"))
                .otherwise("text")
            ),
            "field text",
        ),
        (
            "chess_games",
            lambda f: f.with_columns(result=pl.lit("1-0"), white_score=pl.lit(1.0)),
            "field result",
        ),
        ("chess_standings", lambda f: f.with_columns(rating=pl.col("rating") + 25), "field rating"),
        (
            "chess_moves",
            lambda f: f.with_columns(
                receipt_ids=pl.when(pl.col("kind") == "model")
                .then(pl.col("receipt_ids").shift(2))
                .otherwise("receipt_ids")
            ),
            "is not the conversation the rules give",
        ),
    ],
)
def test_a_tampered_reply_result_or_rating_is_named(
    played: Path, tmp_path: Path, table: str, change: e2e.Change, named: str
) -> None:
    e2e.check_named(e2e.tampered(played, tmp_path, "chess-e2e", table, change), "chess-e2e", named)


@pytest.mark.slow
def test_a_request_in_flight_when_the_arena_died_is_asked_again(played: Path, tmp_path: Path) -> None:
    """COLOSSEUM-EVENT-ASKING-2: a run killed right after a move's request is journalled (before it is
    sent) resumes by recording that request interrupted and asking for the move again, as do the other
    requests the kill caught in flight; no contender loses an attempt to the arena's crash, so every
    game ends as in the uncrashed event, and verify accepts the interrupted requests."""
    need_stockfish()
    data = tmp_path / "data"
    freeze(data, "chess-crash")
    victim = ("L01-01v02-b", 9, 1)
    with e2e.stalling_sparring() as url:
        run = e2e.run_argv(KIND, data, "chess-crash")
        e2e.killed_then_resumed(run, sparring_url=url, kill_at="chess-ask:{}:{}:{}".format(*victim))
    entries = e2e.journal_entries(Record(data).journal_path(EVENTS, "chess_moves", "chess-crash"))
    interrupted = e2e.check_asked_again(entries, ("game", "ply", "attempt"), victim)
    moves = Record(data).tables(EVENTS).read("chess_moves", "chess-crash")
    for game, ply, attempt in interrupted:  # each interrupted attempt is its re-asked request's reply
        row = moves.filter(
            (pl.col("game_id") == game) & (pl.col("ply") == ply) & (pl.col("attempt") == attempt)
        )
        assert row.height == 1 and row["receipt_ids"][0].len() == 1, (game, ply, attempt)
    assert moves.filter(
        (pl.col("game_id") == victim[0]) & (pl.col("ply") == victim[1]) & (pl.col("attempt") == 1)
    )["status"].to_list() == ["answered"]
    same = [
        "game_id",
        "white",
        "black",
        "result",
        "ended_by",
        "termination",
        "plies",
        "forfeited_by",
        "moves",
    ]
    tables = {d: Record(d).tables(EVENTS) for d in (data, played)}
    assert (
        tables[data].read("chess_games", "chess-crash").select(same).to_dicts()
        == tables[played].read("chess_games", "chess-e2e").select(same).to_dicts()
    )
    attempts = [
        "game_id",
        "ply",
        "attempt",
        "contender",
        "status",
        "token",
        "failure",
        "accepted",
        "fen_after",
    ]
    assert (
        moves.select(attempts).to_dicts()
        == tables[played].read("chess_moves", "chess-e2e").select(attempts).to_dicts()
    )
    e2e.verified(data)


def test_the_public_site_shows_the_event_and_verify_reads_it_back(played: Path, tmp_path: Path) -> None:
    import re

    from colosseum_core.arenas import PUBLIC_SITE
    from colosseum_core.record.layout import Record as Layout
    from colosseum_core.site.publish import published_problems
    from colosseum_core.verify import verify_site

    site = e2e.published(played, tmp_path / "site")
    event = site / "events" / "chess-e2e"
    standings = (event / "index.html").read_text()
    assert "gold" in standings and "95 % interval" in standings and "manifest.dsse.json" in standings
    assert (event / "manifest.json").read_bytes() == Record(played).tables(EVENTS).read(
        "event_manifests", "chess-e2e"
    )["manifest"][0].encode()
    games = Record(played).tables(EVENTS).read("chess_games", "chess-e2e")
    game = games.filter(pl.col("forfeited_by").is_null()).row(0, named=True)
    page = (event / "games" / f"{game['game_id']}.html").read_text()
    line_plies = (
        len(game["moves"].split())
        - Record(played)
        .tables(EVENTS)
        .read("chess_moves", "chess-e2e")
        .filter((pl.col("game_id") == game["game_id"]) & pl.col("accepted"))
        .height
    )
    boards = len(re.findall(r'<svg [^>]*role="img"', page))
    assert boards == game["plies"] - line_plies + 1  # after the line, then after every move played
    import html

    assert game["pgn"].split("\n")[0] in html.unescape(page) and "Every attempt" in page
    assert "MOVE: &lt;SAN&gt;" in (event / "prompts.html").read_text()
    report = verify_site(site, AUDITS)
    assert report.ok(), report.problems
    assert report.checked["events_downloads"] == 7  # the 5 tables, the recipes and White's clusters
    assert published_problems(PUBLIC_SITE, site, Layout(played)) == []
    # A standing changed on the page is named by the re-read against the record.
    (event / "index.html").write_text(standings.replace("gold", "silver", 1))
    problems = published_problems(PUBLIC_SITE, site, Layout(played))
    assert any("chess-e2e/index.html" in p for p in problems), problems
