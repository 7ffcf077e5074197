"""The platform's sealing step (``record.sealed_step``): seal first, then write; a re-run re-reads a
whole seal, finishes one a crash left without some of its tables, or refuses naming the table and both
hashes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.sealed_step import COMPLETED, RE_READ, SEALED, Derived, run_sealed_step
from colosseum_core.record.seals import SealError, SealingPolicy
from colosseum_core.record.tables import parquet_bytes

ARENA = ArenaRecord(
    name="toy",
    partition="round",
    sealing=SealingPolicy(
        sealed_tables=("moves", "standings", "prizes"),
        sealing_tables=("standings",),
        selection_tables=("standings", "prizes"),
        write_once_tables=("moves",),
        content_id_field="round_id",
        content_noun="round",
    ),
)


class Step:
    """A toy sealing step: standings and prizes derived from the recorded moves, counting its calls."""

    def __init__(self, root: Path, bonus: int = 0) -> None:
        self.record = Record(root)
        self.tables, self.seals = self.record.tables(ARENA), self.record.seals(ARENA)
        self.bonus, self.derived = bonus, 0

    def derive(self, _seal: object) -> Derived:
        self.derived += 1
        moves = self.tables.read_checked("moves", "r1")
        standings = moves.group_by("who").agg(points=pl.col("points").sum() + self.bonus).sort("who")
        prizes = standings.filter(pl.col("points") == pl.col("points").max()).select("who")
        return Derived({"standings": standings, "prizes": prizes}, kind="CALIBRATION", content_id="round-1")

    def run(self):  # type: ignore[no-untyped-def]
        return run_sealed_step(
            self.tables,
            self.seals,
            "r1",
            outputs=("standings", "prizes"),
            vouched=("moves",),
            derive=self.derive,
            sealed_at=lambda: "2026-12-04T00:00:00Z",
        )


@pytest.fixture
def step(tmp_path: Path) -> Step:
    made = Step(tmp_path / "data")
    moves = pl.DataFrame({"who": ["ann", "bob", "ann"], "points": [1, 0, 1]})
    made.tables.write("moves", moves, "r1")
    return made


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_the_seal_names_every_table_and_is_written_before_them(step: Step) -> None:
    done = step.run()
    assert done.outcome == SEALED and done.written == ("standings", "prizes")
    seal = step.seals.get("r1")
    assert seal is not None
    assert set(seal.tables) == {"moves", "standings", "prizes"}
    for table in seal.tables:
        assert _sha(step.tables.read_bytes(table, "r1")) == seal.tables[table]


def test_a_whole_seal_is_re_read_without_deriving_anything(step: Step) -> None:
    step.run()
    again = step.run()
    assert again.outcome == RE_READ and again.written == () and step.derived == 1
    assert again.frames["prizes"]["who"].to_list() == ["ann"]


@pytest.mark.parametrize("lost", [("prizes",), ("standings",), ("standings", "prizes")])
def test_a_seal_a_crash_left_without_its_tables_is_finished_byte_for_byte(
    step: Step, lost: tuple[str, ...]
) -> None:
    step.run()
    seal = step.seals.get("r1")
    assert seal is not None
    for table in lost:
        path = step.tables.path(table, "r1")
        path.unlink()
        path.with_name(path.name + ".sha256").unlink()
    again = step.run()
    assert again.outcome == COMPLETED and again.written == lost
    for table in ("standings", "prizes"):
        assert _sha(step.tables.read_bytes(table, "r1")) == seal.tables[table]
    assert "re-derived and written, byte for byte as sealed" in again.describe()


def test_a_re_derivation_that_differs_from_the_seal_is_refused_naming_the_table_and_both_hashes(
    step: Step, tmp_path: Path
) -> None:
    step.run()
    seal = step.seals.get("r1")
    assert seal is not None
    path = step.tables.path("standings", "r1")
    path.unlink()
    path.with_name(path.name + ".sha256").unlink()
    changed = Step(tmp_path / "data", bonus=1)
    with pytest.raises(SealError) as refused:
        changed.run()
    message = str(refused.value)
    assert "round r1 is sealed" in message and "standings table (sealed sha256 " in message
    assert seal.tables["standings"][:12] in message
    assert not changed.tables.exists("standings", "r1")


def test_a_vouched_table_changed_after_the_seal_is_refused(step: Step) -> None:
    step.run()
    step.tables.path("prizes", "r1").unlink()
    forced = parquet_bytes(pl.DataFrame({"who": ["bob"], "points": [9]}))
    with pytest.raises(SealError, match="a sealed round's record is immutable"):
        step.seals.check_write("moves", "r1", forced)  # what every writer asks first
    # Forced past the writer (as by hand): the re-run names the moves table and writes nothing.
    step.tables.path("moves", "r1").write_bytes(forced)
    step.tables.path("moves", "r1").with_name("data.parquet.sha256").unlink()
    with pytest.raises(SealError, match=r"moves table \(sealed sha256 "):
        step.run()
    assert not step.tables.exists("prizes", "r1")


def test_a_step_must_derive_exactly_its_outputs(step: Step) -> None:
    def wrong(_seal: object) -> Derived:
        return Derived({"standings": pl.DataFrame({"who": ["ann"]})}, kind="CALIBRATION", content_id="x")

    with pytest.raises(ValueError, match="not its outputs"):
        run_sealed_step(
            step.tables,
            step.seals,
            "r1",
            outputs=("standings", "prizes"),
            vouched=("moves",),
            derive=wrong,
            sealed_at=lambda: "2026-12-04T00:00:00Z",
        )
    assert step.seals.get("r1") is None
