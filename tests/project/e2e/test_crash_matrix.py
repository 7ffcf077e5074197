"""The crash matrix: every sealing step of every arena killed at every write, and at random instants,
then run again. Each time the next run finishes the step (its seal's tables written byte for byte as
sealed), the arena goes on to its next unit, and ``colosseum verify`` passes.

The killed run is a process of its own (``tests.support.crash``) that dies by SIGKILL at a crash point
(``COLOSSEUM_KILL_AT``) or at a drawn instant; nothing of it is cleaned up, as after a power cut. The
forecast's cards have their own matrix (``tests/forecast/e2e/test_record_integrity_e2e.py``); here
are the debate arena's topic rotations and epoch closes, and the events' standings of each kind.
"""

from __future__ import annotations

import datetime as dt
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from colosseum_core.arenas import AUDITS, sparring_houses
from colosseum_core.debate.arena import DEBATE, DEBATE_TOPICS, SELECTION_TABLES, TOPIC_TABLES
from colosseum_core.debate.epochs import epoch_key, epoch_of
from colosseum_core.debate.topics.rotation import rotation_key
from colosseum_core.events.arena import EVENTS
from colosseum_core.events.challenges.kind import KIND as CHALLENGE
from colosseum_core.events.chess.kind import KIND as CHESS
from colosseum_core.events.solve_or_object.kind import KIND as SOLVE_OR_OBJECT
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.ledger import file_sha256
from colosseum_core.verify import verify_record
from colosseum_standins.ledger import DEFAULT_GENESIS
from colosseum_standins.sparring.server import running_sparring
from tests.conftest import cli
from tests.support.crash import run_job, run_killed, run_killed_after, timed
from tests.support.debate import debate_resources, debate_servers, enter
from tests.support.sandbox import need_sandbox

pytestmark = pytest.mark.slow

START = DEFAULT_GENESIS + dt.timedelta(days=3, seconds=7)
STRATEGIES = (
    "Answer the strongest claim first, then build your own case in plain words.",
    "Take the opponent's best example and show what it actually proves.",
    "Stay calm and concrete; one clear reason per turn.",
    "Concede nothing without evidence; ask for the numbers behind every claim.",
)
# Instants drawn per sealing step, at which its run is killed whatever it is doing.
RANDOM_KILLS = 2


def _sealed_and_whole(data: Path, arena: ArenaRecord, partition: str) -> None:
    """The partition is sealed and every table its seal names has exactly the sealed bytes."""
    record = Record(data)
    seal = record.seals(arena).get(partition)
    assert seal is not None, f"{arena.name} {partition} is not sealed"
    tables = record.tables(arena)
    for table, sha in seal.tables.items():
        assert file_sha256(tables.path(table, partition)) == sha, (arena.name, partition, table)


def _verifies(data: Path) -> None:
    report = verify_record(data, AUDITS, workers=1)
    assert report.ok(), report.problems[:8]


def _points(arena_tables: tuple[str, ...], *extra: str) -> list[str]:
    return ["sealed", *(f"wrote:{t}" for t in arena_tables), *extra]


# --------------------------------------------------------------------------------------------
# The debate arena: a topic rotation, and an epoch's close.


class Debate:
    def __init__(self, ledger_url: str, ledger: Any, sparring: str, exchange: str) -> None:
        self.ledger_url, self.ledger, self.sparring, self.exchange = ledger_url, ledger, sparring, exchange

    def config(self, data: Path) -> dict[str, Any]:
        now = self.ledger.now()
        return {"resources": debate_resources(data, self.ledger_url, self.sparring, self.exchange, now)}

    def run(self, data: Path, job: str, key: str) -> None:
        assert run_job(job, key, self.config(data)) == []

    @property
    def epoch(self) -> str:
        return epoch_key(epoch_of(self.ledger.current_block()))

    @property
    def rotation(self) -> str:
        return rotation_key(self.ledger.now())


@pytest.fixture(scope="module")
def debate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Debate, Path, str]]:
    """A record with its rotation sealed and an epoch's entries and games played, not yet closed; the
    chain then moved on to the next epoch."""
    with debate_servers() as (ledger_url, ledger, sparring, exchange):
        enter(ledger, STRATEGIES, "miner")
        world = Debate(ledger_url, ledger, sparring, exchange)
        base = tmp_path_factory.mktemp("debate") / "data"
        world.run(base, "debate_topics_job", world.rotation)
        epoch = world.epoch
        world.run(base, "debate_entries_job", epoch)
        world.run(base, "debate_games_job", epoch)
        ledger.advance(360)
        yield world, base, epoch


def _copy(base: Path, tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(base, data, symlinks=True)
    return data


@pytest.mark.parametrize("point", ["journal:collected", *_points((*TOPIC_TABLES, "motions"))])
def test_a_topic_rotation_killed_at_any_write_is_finished_by_the_next_run(
    debate: tuple[Debate, Path, str], tmp_path: Path, point: str
) -> None:
    world, _, _ = debate
    data = tmp_path / "data"
    run_killed("debate_topics_job", world.rotation, world.config(data), point)
    world.run(data, "debate_topics_job", world.rotation)
    _sealed_and_whole(data, DEBATE_TOPICS, world.rotation)
    _verifies(data)


@pytest.mark.parametrize("point", _points(SELECTION_TABLES, "wrote:weight_sets"))
def test_an_epoch_close_killed_at_any_write_is_finished_and_the_next_epoch_plays(
    debate: tuple[Debate, Path, str], tmp_path: Path, point: str
) -> None:
    world, base, epoch = debate
    data = _copy(base, tmp_path)
    run_killed("debate_close_job", epoch, world.config(data), point)
    world.run(data, "debate_close_job", epoch)
    _sealed_and_whole(data, DEBATE, epoch)
    # The next epoch reads this one's crown: it enters, plays and closes.
    world.run(data, "debate_epoch_job", world.epoch)
    _sealed_and_whole(data, DEBATE, world.epoch)
    _verifies(data)


def test_debate_steps_killed_at_random_instants_are_finished_by_the_next_run(
    debate: tuple[Debate, Path, str], tmp_path: Path
) -> None:
    world, base, epoch = debate
    draw = random.Random(37)
    # A rotation is drawn on an empty record; a close runs on the record of its played epoch.
    for step, job, key, arena, start in (
        ("topics", "debate_topics_job", world.rotation, DEBATE_TOPICS, None),
        ("close", "debate_close_job", epoch, DEBATE, base),
    ):

        def fresh(name: str, start: Path | None = start, step: str = step) -> Path:
            return _copy(start, tmp_path / step / name) if start else tmp_path / step / name / "data"

        seconds = timed(job, key, world.config(fresh("timing")))
        for n in range(RANDOM_KILLS):
            data = fresh(f"kill-{n}")
            run_killed_after(job, key, world.config(data), draw.uniform(0.5, seconds))
            world.run(data, job, key)
            _sealed_and_whole(data, arena, key)
            _verifies(data)


# --------------------------------------------------------------------------------------------
# The events: each kind's standings seal its event.


EVENT_KINDS: dict[str, dict[str, Any]] = {
    "chess": {
        "freeze": ["events", "chess", "event", "freeze", "--lines", "1", "--seed", "7", "--replicates", "199"]
        + [a for c in ("openai-frontier", "house-illegal", "stockfish-n1") for a in ("--contender", c)],
        "job": "chess_event_job",
        "written": CHESS.written,
        "sealing": CHESS.standings,
    },
    "soo": {
        "freeze": [
            *("events", "solve-or-object", "event", "freeze"),
            *("--pairs", "3", "--seed", "11", "--replicates", "199"),
        ],
        "job": "soo_event_job",
        "written": SOLVE_OR_OBJECT.written,
        "sealing": SOLVE_OR_OBJECT.standings,
    },
    "challenge": {
        "freeze": [
            *("events", "challenges", "event", "freeze"),
            *("--slots", "1", "--seed", "5", "--replicates", "199"),
        ],
        "job": "challenge_event_job",
        "written": CHALLENGE.written,
        "sealing": CHALLENGE.standings,
    },
}


@pytest.fixture(scope="module")
def sparring_for_events() -> Iterator[str]:
    with running_sparring(houses=sparring_houses()) as url:
        yield url


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory, sparring_for_events: str) -> dict[str, Path]:
    """A record per kind with its event frozen and played up to its standings, not yet sealed."""
    from tests.support.chess import need_stockfish

    need_stockfish()
    need_sandbox()
    bases = {}
    for kind, spec in EVENT_KINDS.items():
        data = tmp_path_factory.mktemp(kind) / "data"
        freeze = list(spec["freeze"])
        freeze.insert(4, f"crash-{kind}")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("COLOSSEUM_SPARRING_URL", sparring_for_events)
            assert cli(*freeze, "--data", str(data)) == 0
            written = [f"events/{t}" for t in spec["written"]]
            assert (
                run_job(spec["job"], f"crash-{kind}", _event_config(data, sparring_for_events), written) == []
            )
        bases[kind] = data
    return bases


def _event_config(data: Path, sparring: str) -> dict[str, Any]:
    return {
        "resources": {
            "record": {"config": {"data_dir": str(data)}},
            "io_manager": {"config": {"data_dir": str(data)}},
            "chess": {"config": {"sparring_url": sparring}},
        }
    }


EVENT_POINTS = [
    (kind, point)
    for kind, spec in EVENT_KINDS.items()
    for point in _points(spec["sealing"], "wrote:event_bundles")
]


@pytest.mark.parametrize(("kind", "point"), EVENT_POINTS)
def test_an_event_killed_at_any_write_of_its_seal_is_finished_by_the_next_run(
    events: dict[str, Path], sparring_for_events: str, tmp_path: Path, kind: str, point: str
) -> None:
    data = _copy(events[kind], tmp_path)
    event, job = f"crash-{kind}", EVENT_KINDS[kind]["job"]
    config = _event_config(data, sparring_for_events)
    env = {"COLOSSEUM_SPARRING_URL": sparring_for_events}
    run_killed(job, event, config, point, env=env)
    assert run_job(job, event, config) == []
    _sealed_and_whole(data, EVENTS, event)
    # The event goes on to its last unit: its results bundle, signed over its seal.
    assert Record(data).tables(EVENTS).exists("event_bundles", event)
    _verifies(data)


def test_events_killed_at_random_instants_are_finished_by_the_next_run(
    events: dict[str, Path], sparring_for_events: str, tmp_path: Path
) -> None:
    draw = random.Random(3737)
    env = {"COLOSSEUM_SPARRING_URL": sparring_for_events}
    for kind, spec in EVENT_KINDS.items():
        event, job = f"crash-{kind}", spec["job"]
        timing = _copy(events[kind], tmp_path / kind / "timing")
        seconds = timed(job, event, _event_config(timing, sparring_for_events), env=env)
        for n in range(RANDOM_KILLS):
            data = _copy(events[kind], tmp_path / kind / f"kill-{n}")
            config = _event_config(data, sparring_for_events)
            run_killed_after(job, event, config, draw.uniform(0.5, seconds), env=env)
            assert run_job(job, event, config) == []
            _sealed_and_whole(data, EVENTS, event)
            _verifies(data)
