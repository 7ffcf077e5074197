"""COLOSSEUM-CHESS-CONTENDERS-1 and the CLI's answers to bad input: FIGHT or CALIBRATION, never mixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from colosseum_core.events.chess.contenders import (
    CALIBRATION,
    DEFAULT_CONTENDERS,
    FIGHT,
    ContendersError,
    resolve_contenders,
)
from colosseum_dagster.cli import main

KEYS = {"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-2", "GEMINI_API_KEY": "sk-3"}


def test_every_key_set_is_a_fight_of_the_models_and_the_engines_only() -> None:
    resolved = resolve_contenders(DEFAULT_CONTENDERS, KEYS)
    assert resolved["class"] == FIGHT and resolved["missing_keys"] == []
    kinds = {c["id"]: (c["kind"], c.get("model"), c.get("base_url")) for c in resolved["contenders"]}
    assert kinds["openai-frontier"] == ("model", "gpt-5.1", "https://api.openai.com")
    assert "house-illegal" not in kinds and "house-silent" not in kinds  # house players calibrate only
    assert "sk-1" not in repr(resolved)  # the variable's name is recorded, never the secret


def test_a_missing_key_makes_the_whole_event_calibration_with_house_stand_ins() -> None:
    resolved = resolve_contenders(DEFAULT_CONTENDERS, {"OPENAI_API_KEY": "sk-1"})
    assert resolved["class"] == CALIBRATION
    assert resolved["missing_keys"] == ["ANTHROPIC_API_KEY", "GEMINI_API_KEY"]
    models = [c for c in resolved["contenders"] if c["kind"] == "model"]
    assert all(c["base_url"] == "sparring" and c["model"].startswith("house-chess") for c in models)
    openai = next(c for c in models if c["id"] == "openai-frontier")
    assert openai["stands_in_for"] == "gpt-5.1"  # the keyed model does not play beside stand-ins
    silent = next(c for c in models if c["id"] == "house-silent")
    assert silent["settings"]["timeout_s"] == 1.0


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[[model]]\nid = 'x'\n", "x field model: expected a model's name"),
        ("[[model]]\nid = 'x'\nmodel = 'acme/x'\nhouse = 'h'\n", "x: .*provider 'acme' is not one of"),
        ("[[model]]\nid = 'x'\nmodel = 'gpt-5'\nhouse = 'h'\n", "'gpt-5' is not provider/model"),
        (
            "[[model]]\nid = 'x'\nmodel = 'openai/x'\nbase_url = 'ftp://h'\nhouse = 'h'\n",
            "base_url 'ftp://h'",
        ),
        ("[[house]]\nid = 'h'\nmodel = 'openai/gpt-5'\n", "'openai/gpt-5' is not a house player"),
        ("[nonsense]\n", "unknown sections"),
        ("[[engine]]\nid = 'a'\nnodes = 0\n[[engine]]\nid = 'b'\nnodes = 1\n", "nodes is 0"),
        ("[[engine]]\nid = 'a'\nnodes = 1\n[[engine]]\nid = 'a'\nnodes = 2\n", "ids repeat: a"),
        ("[[engine]]\nid = 'a'\nnodes = 1\n", "at least two contenders"),
        ("[[house]]\nid = 'h'\nprotocol = 'smoke'\nmodel = 'm'\n", "protocol 'smoke'"),
        ("[settings]\ntimeout_s = -1\n", "timeout_s must be positive"),
        ("not toml = = =", "not TOML"),
        ("[[engine]]\nid = 'Bad Id'\nnodes = 1\n", "is not lower-case"),
    ],
)
def test_a_bad_registry_is_refused_naming_the_file_and_field(
    tmp_path: Path, text: str, said: str | None
) -> None:
    path = tmp_path / "chess.toml"
    path.write_text(text)
    if said is None:  # engine ids are not screened by the id rule today: two distinct ids still need two
        with pytest.raises(ContendersError, match="at least two"):
            resolve_contenders(path, {})
        return
    with pytest.raises(ContendersError, match=said) as caught:
        resolve_contenders(path, {})
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["events", "chess", "event", "freeze", "Bad_Name"], "lower-case letters"),
        (["events", "chess", "event", "run", "never-frozen"], "is not frozen"),
        (["events", "chess", "standings", "never-run"], "has no standings yet"),
        (["events", "chess", "event", "freeze", "e1", "--contenders", "/nonexistent"], "no such file"),
        (["events", "chess", "suite", "check", "--suite", "/etc/hostname"], "not JSON"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*argv, *(["--data", str(tmp_path)] if "suite" not in argv else [])])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and said in err and "Traceback" not in err
    assert err.startswith("colosseum events chess ")


def test_a_fight_event_asks_the_keyed_models_at_their_own_endpoints(tmp_path: Path) -> None:
    """A FIGHT event end to end in the core: the models at their base URLs with their keys (here the
    sparring server posing as two providers), the manifest naming the key variables, the replay clean."""
    import datetime as dt

    from colosseum_core.arenas import sparring_houses
    from colosseum_core.events.chess.audit import check_games
    from colosseum_core.events.chess.run import freeze_event, frozen_manifest, play_frozen_event
    from colosseum_core.record.layout import Record
    from colosseum_core.trust.keys import KeyStore
    from colosseum_core.verify.report import Outcome
    from colosseum_standins.sparring import running_sparring

    now = dt.datetime(2026, 12, 2, 6, tzinfo=dt.UTC)
    record = Record(tmp_path / "data")
    with running_sparring(houses=sparring_houses()) as url:
        registry = tmp_path / "chess.toml"
        registry.write_text(
            f"""[[model]]
id = "alpha"
model = "openai/house-chess-greedy"
base_url = "{url}"
key_env = "OPENAI_API_KEY"
house = "house-chess"

[[model]]
id = "beta"
model = "anthropic/house-chess-sloppy-san"
base_url = "{url}"
key_env = "ANTHROPIC_API_KEY"
house = "house-chess"

[[house]]
id = "never-plays-in-a-fight"
model = "house/house-chess-illegal"
"""
        )
        keys = {"OPENAI_API_KEY": "sk-test-1", "ANTHROPIC_API_KEY": "sk-test-2"}
        from colosseum_core.events.chess.suite import DEFAULT_SUITE

        frozen, frame = freeze_event(
            event="fight-1",
            contenders_path=registry,
            environ=keys,
            suite_path=DEFAULT_SUITE,
            lines=1,
            seed=3,
            stockfish=None,
            keys=KeyStore.for_data(record.root),
            now=now,
            replicates=9,
        )
        assert frozen.document["class"] == FIGHT
        assert [c["id"] for c in frozen.document["contenders"]] == ["alpha", "beta"]
        assert "sk-test" not in frozen.body.decode()
        frames = play_frozen_event(
            frozen_manifest(frame, "fight-1"),
            record=record,
            sparring_url="http://unused",
            environ=keys,
            stockfish=None,
            clock=lambda: now,
        )
    moves = frames["chess_moves"]
    assert set(moves["model"]) == {"house-chess-greedy", "house-chess-sloppy-san"}
    assert set(moves.filter(moves["contender"] == "beta")["failure"].drop_nulls()) == {"non_canonical"}
    out = Outcome()
    check_games(out, frozen, frames["chess_games"], moves, record.receipts)
    assert out.problems == [] and out.checked["chess_games"] == 2
