"""The debate arena records what it recorded before the platform re-layout, byte for byte.

``tests/fixtures/debate_record_9b5eb0b`` holds one sealed topic rotation and one complete epoch of five
miners (four entered, one held pending by the intent panel; three Swiss rounds; the close: ratings,
crown, weights sealed and set on the chain), recorded by the code of commit 9b5eb0b, the last before
issue 40's re-layout (``tests/fixtures/build_debate_record.py`` built it). Today's Definitions run
the rotation's and the epoch's jobs again with nothing listening where the chain, the exchanges and
the house players were: first with every table removed but the three only the chain can give again,
so that today's rules derive the motions, games, ratings, crown and weights again from the recorded
journals and receipts, then on the whole record, where a sealed rotation and epoch are re-read.
Every recorded file, receipts and journals included, keeps its bytes and no file is added;
``verify`` re-derives all of it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.debate.topics.rotation import rotation_key
from colosseum_core.verify import verify_record
from colosseum_dagster.definitions import defs
from tests.support import FIXTURES
from tests.support.fixture_records import NOWHERE, file_digests, fixture_builder

FIXTURE = FIXTURES / "debate_record_9b5eb0b"
build_debate_record = fixture_builder("build_debate_record")
ROTATION = rotation_key(build_debate_record.START)
EPOCH = "0000060"  # the local ledger's epoch at START, as the builder printed it
JOBS = (("debate_topics_job", ROTATION), ("debate_epoch_job", EPOCH))
# The epoch's tables that only the chain can give again: its entries step reads the miners'
# commitments from it (and writes the intent panel's calls beside the entries), and weight_sets is
# its answer to setting the weights. Every other table is derived again from journals and receipts.
ANSWERED_BY_THE_CHAIN = ("entries", "panel_calls", "weight_sets")


def _run(root: Path, job: str, key: str) -> dg.ExecuteInProcessResult:
    resources = build_debate_record.resources(
        root, ledger_url=NOWHERE, sparring_url=NOWHERE, exchange_url=NOWHERE
    )
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("debate_epochs", [EPOCH])
        return defs.resolve_job_def(job).execute_in_process(
            partition_key=key, run_config={"resources": resources}, instance=instance, raise_on_error=False
        )


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for variable, value in build_debate_record.pinned_key_environment().items():
        monkeypatch.setenv(variable, value)
    return Path(shutil.copytree(FIXTURE / "data", tmp_path / "data"))


def test_the_rotation_and_the_epoch_derived_again_and_run_again_sealed_keep_every_byte(
    recorded: Path,
) -> None:
    before = file_digests(recorded)
    seals = {f"seals/debate/epoch={EPOCH}.json", f"seals/debate_topics/rotation={ROTATION}.json"}
    assert seals <= set(before)
    derived = [
        *(recorded / "warehouse" / "debate_topics").glob(f"*/rotation={ROTATION}"),
        *(
            path
            for path in (recorded / "warehouse" / "debate").glob(f"*/epoch={EPOCH}")
            if path.parent.name not in ANSWERED_BY_THE_CHAIN
        ),
    ]
    assert len(derived) >= 15
    for path in derived:
        shutil.rmtree(path)
    for job, key in JOBS:
        result = _run(recorded, job, key)
        assert result.success, (job, [e.message for e in result.all_events if e.is_failure])
    assert file_digests(recorded) == before

    for job, key in JOBS:  # sealed: re-read
        result = _run(recorded, job, key)
        assert result.success, (job, [e.message for e in result.all_events if e.is_failure])
        assert file_digests(recorded) == before, job


def test_verify_rederives_the_rotation_and_the_epoch(recorded: Path) -> None:
    report = verify_record(recorded, AUDITS)
    assert report.ok(), report.problems[:5]
    expected = {"seals": 2, "rotations": 1, "motions": 12, "epochs": 1, "entries": 5, "panel_calls": 15,
                "games": 6, "closes": 1, "tables": 19, "files": 19, "rows": 287, "receipts": 89,
                "journals": 2, "journal_entries": 7}  # fmt: skip
    assert {name: report.checked[name] for name in expected} == expected
