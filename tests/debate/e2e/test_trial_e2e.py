"""The debate's part of a model maker's trial end to end: a sealed rotation drawn through the real
Definitions, then the trial run through the real stack (the sparring server on loopback, every call a
receipt), sealed, read back from the record alone, and re-derived by ``colosseum verify``.

The model is ``openai/house-generalist`` named as a non-house model (its base URL the sparring
server's, its key in a variable): the one house family that answers both roles, debating when it
reads the debater prompt and judging when it reads the judge prompt, as a model maker's model is asked.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import dagster as dg
import httpx
import polars as pl
import pytest

from colosseum_core.arenas import ARENAS, AUDITS, TRIAL_PARTS, sparring_houses
from colosseum_core.debate.arena import DEBATE, DEBATE_TRIALS, TRIAL_TABLES
from colosseum_core.debate.topics.rotation import rotation_key
from colosseum_core.debate.trial import DebateTrialPart
from colosseum_core.debate.trial.plan import HOUSE_STRATEGIES, MODEL_SEAT, TRIAL_MOTIONS
from colosseum_core.providers.models import parse_model
from colosseum_core.record.catalog import refresh_catalog
from colosseum_core.record.identifiers import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import write_recorded
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.trial import PartReport, TrialRequest, trial_id
from colosseum_core.verify import verify_record
from colosseum_dagster.definitions import defs
from colosseum_standins.simulated_exchange.server import running_exchange
from colosseum_standins.sparring.server import running_sparring
from tests.support.debate import debate_resources

NOW = dt.datetime(2026, 12, 1, 9, 30, 17, tzinfo=dt.UTC)
KEY_ENV = "TRIAL_TEST_KEY"
GAMES = TRIAL_MOTIONS * 2 * len(HOUSE_STRATEGIES)


@dataclasses.dataclass(frozen=True)
class Servers:
    sparring: str
    rotated: Path  # a record holding one sealed rotation and nothing else


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    data = tmp_path_factory.mktemp("rotated") / "data"
    with (
        running_sparring(houses=sparring_houses(), clock=lambda: NOW) as sparring_url,
        running_exchange(clock=lambda: NOW) as exchange_url,
    ):
        resources = debate_resources(data, "http://127.0.0.1:9", sparring_url, exchange_url, NOW)
        result = defs.resolve_job_def("debate_topics_job").execute_in_process(
            partition_key=rotation_key(NOW), run_config={"resources": resources},
            instance=dg.DagsterInstance.ephemeral(),
        )  # fmt: skip
        assert result.success
        yield Servers(sparring_url, data)


def _record(servers: Servers, tmp_path: Path, name: str = "data") -> Path:
    data = tmp_path / name
    shutil.copytree(servers.rotated, data)
    return data


def _request(
    servers: Servers,
    data: Path,
    model: str = "openai/house-generalist",
    progress: Callable[[str], None] = print,
) -> TrialRequest:
    ref = parse_model(model, base_url=servers.sparring, key_env=KEY_ENV)
    return TrialRequest(
        model=ref, trial=trial_id(ref), data_dir=data, sparring_url=servers.sparring,
        environ={KEY_ENV: "any non-empty key"}, clock=lambda: NOW, progress=progress,
    )  # fmt: skip


def _requests(servers: Servers) -> int:
    return httpx.get(f"{servers.sparring}/status", timeout=10).json()["requests"]


@dataclasses.dataclass(frozen=True)
class Trial:
    data: Path
    request: TrialRequest
    report: PartReport
    lines: list[str]


@pytest.fixture(scope="module")
def trial(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Trial:
    data = _record(servers, tmp_path_factory.mktemp("trial"))
    lines: list[str] = []
    request = _request(servers, data, progress=lines.append)
    (part,) = TRIAL_PARTS[DEBATE.name]()
    return Trial(data, request, part.run(request), lines)


def test_the_trial_plays_both_sides_judges_beside_the_panel_and_seals(trial: Trial) -> None:
    report = trial.report
    assert report.state == "sealed" and report.arena == "debate"
    tables = Record(trial.data).tables(DEBATE_TRIALS)
    games = tables.read("trial_games", trial.request.trial)
    plan = tables.read("trial_plan", trial.request.trial)
    assert games.height == GAMES == plan.height
    # Both sides of every motion under every strategy: the model Pro in half the games, Con in the rest.
    assert games.filter(pl.col("pro_hotkey") == MODEL_SEAT).height == GAMES // 2
    assert plan.group_by("motion_id", "strategy_name").len()["len"].to_list() == [2] * (GAMES // 2)
    assert set(games["kind"]) == {"CALIBRATION"} and games["pro_rating_key"].null_count() == GAMES
    turns = tables.read("trial_turns", trial.request.trial)
    models = set(turns.filter(pl.col("hotkey") == MODEL_SEAT)["model"])
    assert models == {"house-generalist"}
    assert set(turns.filter(pl.col("hotkey") != MODEL_SEAT)["model"]) <= {"house-debater", "house-debater-s1"}
    # The model votes on every game the panel judged; its votes never enter the panel's calls.
    judged = set(tables.read("trial_judge_calls", trial.request.trial)["game_id"])
    votes = tables.read("trial_model_votes", trial.request.trial)
    assert judged and set(votes["game_id"]) == judged and set(votes["slot"]) == {"trial-model"}
    win, agreement, pro = report.standings
    assert win.field == 2 and win.rank in (1, 2) and win.low <= win.value <= win.high
    assert agreement.value is not None and agreement.low <= agreement.value <= agreement.high
    assert agreement.field == 3 and pro.value is not None
    assert report.calls == turns.filter(pl.col("hotkey") == MODEL_SEAT).height + votes.height
    assert report.tokens_in and report.tokens_out and report.seconds == 0.0  # the clock is fixed
    assert all((trial.data / p).exists() for p in report.transcripts)
    assert any(line.startswith(f"debate: game 1/{GAMES} ") for line in trial.lines)
    # Nothing of the epochs: no board, crown or rating reads a trial.
    assert not Record(trial.data).tables(DEBATE).tables()
    # read() from the record alone gives the same report.
    assert DebateTrialPart().read(trial.data, trial.request.trial) == report
    # The catalog shows the trial beside the epochs and rotations, in the debate schema.
    views = refresh_catalog(Record(trial.data), ARENAS)
    assert {f"debate.{t}" for t in ("trial_plan", *TRIAL_TABLES)} <= set(views), views


def test_no_sealed_rotation_skips_and_an_unset_key_fails_before_anything_is_frozen(
    servers: Servers, tmp_path: Path
) -> None:
    before = _requests(servers)
    skipped = DebateTrialPart().run(_request(servers, tmp_path / "empty"))
    assert skipped.state == "skipped" and "colosseum debate topics current" in skipped.note
    data = _record(servers, tmp_path)
    unset = dataclasses.replace(_request(servers, data), environ={})
    failed = DebateTrialPart().run(unset)
    assert failed.state == "failed" and failed.note == f"openai/house-generalist: ${KEY_ENV} is not set"
    for root in (tmp_path / "empty", data):
        assert not Record(root).tables(DEBATE_TRIALS).tables()
    assert _requests(servers) == before


def test_verify_rederives_the_trial_and_catches_a_tampered_row(trial: Trial, tmp_path: Path) -> None:
    report = verify_record(trial.data, AUDITS, workers=1)
    assert report.ok(), report.problems
    assert report.checked["trials"] == 1 and report.checked["trial_games"] == GAMES
    tampered = tmp_path / "tampered"
    shutil.copytree(trial.data, tampered)
    tables = Record(tampered).tables(DEBATE_TRIALS)
    games = tables.read("trial_games", trial.request.trial)
    flipped = games.drop("id").with_columns(
        winner=pl.when(pl.arange(0, games.height) == 0)
        .then(pl.when(pl.col("winner") == "Pro").then(pl.lit("Con")).otherwise(pl.lit("Pro")))
        .otherwise(pl.col("winner"))
    )
    # Rewritten through the file ledger, as a writer would: only the trial's own checks can tell.
    write_recorded(tables.path("trial_games", trial.request.trial), parquet_bytes(with_ids(flipped)))
    problems = verify_record(tampered, AUDITS, workers=1).problems
    mine = [p for p in problems if f"trial_games trial {trial.request.trial}" in p]
    assert mine, problems


def test_a_rerun_of_a_sealed_trial_asks_nothing(trial: Trial, servers: Servers) -> None:
    before = _requests(servers)
    again = DebateTrialPart().run(trial.request)
    assert again == trial.report and _requests(servers) == before


class Stop(Exception):
    pass


def test_an_interrupted_trial_resumes_without_asking_anything_twice(
    trial: Trial, servers: Servers, tmp_path: Path
) -> None:
    data = _record(servers, tmp_path)
    seen: list[str] = []

    def stop_after_five_games(line: str) -> None:
        seen.append(line)
        if line.startswith("debate: game 5/"):
            raise Stop(line)

    with pytest.raises(Stop):
        DebateTrialPart().run(_request(servers, data, progress=stop_after_five_games))
    assert DebateTrialPart().read(data, trial.request.trial).state == "waiting"
    report = DebateTrialPart().run(_request(servers, data, progress=lambda _: None))
    assert report == dataclasses.replace(trial.report)
    # Every call asked once: as many receipts as the uninterrupted trial's, and the same tables but
    # for the receipts' ids (a receipt keeps the instants of its exchange).
    assert _receipts(data) == _receipts(trial.data)
    for table in TRIAL_TABLES:
        mine, theirs = (
            Record(d).tables(DEBATE_TRIALS).read(table, trial.request.trial) for d in (data, trial.data)
        )
        drop = [c for c in ("id", "receipt_ids") if c in mine.columns]
        assert mine.drop(drop).equals(theirs.drop(drop)), table


def _receipts(root: Path) -> int:
    return sum(1 for p in (root / "receipts").rglob("*") if p.is_file())


@pytest.mark.parametrize(
    ("behaviours", "expected"),
    [
        # Injection aimed at the judges, banned words and dashes in every turn; votes in French.
        (
            "inject-banned-foreign",
            {"turn_written_to_judges", "turn_banned_word", "turn_dash", "vote_malformed"},
        ),
        # Nothing to say, and hedged votes.
        ("empty-hedge-always", {"turn_empty", "vote_hedge"}),
        # A model that refuses every request: every game it opens or answers is void.
        ("declines", {"turn_not_given"}),
    ],
)
def test_hostile_replies_are_counted_in_their_classes(
    servers: Servers, tmp_path: Path, behaviours: str, expected: set[str]
) -> None:
    data = _record(servers, tmp_path)
    report = DebateTrialPart().run(
        _request(servers, data, f"openai/house-generalist-{behaviours}", lambda _: None)
    )
    assert report.state == "sealed"
    assert set(report.format_failures) >= expected, report.format_failures
    tables = Record(data).tables(DEBATE_TRIALS)
    turns = tables.read("trial_turns", report.unit.split("=", 1)[1]).filter(pl.col("hotkey") == MODEL_SEAT)
    if behaviours == "declines":
        assert report.refusals == turns.height and report.standings[0].value is None
        assert report.format_failures["turn_not_given"] == turns.height
    else:
        assert report.refusals == 0
    assert verify_record(data, AUDITS, workers=1).ok()
