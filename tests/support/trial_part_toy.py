"""A trial part that lives only in the tests (``tests/trial/``): a real unit through a real record.

Its arena, ``trial_toy``, asks three prompts of the tried model and of two house players over their
real protocols (receipts in the record), writes their answers as one Parquet table of its partition
and seals it through the record's own writer (``SealRegistry.seal``, ``RecordTables.write_bytes``), so
a trial run again reads the sealed unit back and asks nothing. Its measure is the share of prompts a
player answered with text, with a Wilson 95 % interval; format failures are replies without text,
classed by how the call ended. ``BrokenPart`` raises, as a part with a bug would.

No file outside ``tests/`` names it; a test offers it through ``COLOSSEUM_TRIAL_PARTS`` (this module's
``TRIAL_PARTS``), or directly.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
from pathlib import Path
from typing import Final

import polars as pl

from colosseum_core.providers.adapters import Message
from colosseum_core.providers.call import AskingPolicy, CallSettings, chat
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.seals import SealingPolicy
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.trial import PartReport, Standing, TrialRequest

TOY: Final = ArenaRecord(
    name="trial_toy",
    partition="round",
    sealing=SealingPolicy(
        sealed_tables=("toy_answers",),
        sealing_tables=("toy_answers",),
        selection_tables=("toy_answers",),
        write_once_tables=(),
        content_id_field="answers_sha256",
        content_noun="answers",
    ),
)
PROMPTS: Final = ("Will it rain in Paris tomorrow?", "Name a prime number.", "Say ready.")
FIELD: Final = ("house-hash", "house-coin")
# A variable a test sets to make the house field's second player decline, for the refusals' count.
DECLINING_VARIABLE: Final = "TRIAL_TOY_DECLINING"


def wilson(successes: int, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    z, p = 1.959964, successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


class ToyPart:
    arena = TOY.name
    part = "answers"

    def run(self, request: TrialRequest) -> PartReport:
        record = Record(request.data_dir)
        if record.seals(TOY).get(request.trial) is not None:
            request.progress(f"{self.arena}/{self.part}: round {request.trial} sealed already; read")
            report = self.read(request.data_dir, request.trial)
            assert report is not None
            return report
        model = request.model
        field = tuple(
            f"{h}-declines" if os.environ.get(DECLINING_VARIABLE) and h == FIELD[1] else h for h in FIELD
        )
        players = [
            (
                model.name,
                model.protocol,
                model.endpoint(request.sparring_url),
                model.model,
                model.key(request.environ),
            )
        ]
        players += [(h, "openai", request.sparring_url, h, "house") for h in field]
        rows = []
        for who, protocol, base_url, model_id, key in players:
            for number, prompt in enumerate(PROMPTS, start=1):
                result = asyncio.run(
                    chat(
                        protocol,
                        base_url=base_url,
                        model=model_id,
                        api_key=key,
                        messages=[Message("user", prompt)],
                        receipts=record.receipts,
                        policy=AskingPolicy(max_asks=1, replies="COLOSSEUM-REPLY-2"),
                        settings=CallSettings(max_tokens=64, timeout_s=30),
                        clock=request.clock,
                    )
                )
                rows.append(
                    {
                        "round": request.trial,
                        "player": who,
                        "tried": who == model.name,
                        "prompt": number,
                        "status": result.status,
                        "stop": result.stop,
                        "text": result.text,
                        "receipt_id": result.receipt_ids[-1] if result.receipt_ids else None,
                    }
                )
            request.progress(f"{self.arena}/{self.part}: {who} answered {len(PROMPTS)} prompt(s)")
        data = parquet_bytes(pl.DataFrame(rows))
        digest = hashlib.sha256(data).hexdigest()
        record.seals(TOY).seal(
            request.trial,
            kind="trial",
            content_id=digest,
            sealed_at=request.clock().isoformat(timespec="seconds"),
            tables={"toy_answers": digest},
        )
        record.tables(TOY).write_bytes("toy_answers", data, request.trial)
        report = self.read(request.data_dir, request.trial)
        assert report is not None
        return report

    def read(self, data_dir: Path, trial: str) -> PartReport | None:
        record = Record(data_dir)
        if record.seals(TOY).get(trial) is None:
            return None
        answers = record.tables(TOY).read_checked("toy_answers", trial)
        scores = (
            answers.group_by("player", "tried")
            .agg(answered=(pl.col("status") == "answered").sum(), n=pl.len())
            .with_columns(share=pl.col("answered") / pl.col("n"))
            .sort("share", "player", descending=[True, False])
        )
        mine = scores.filter(pl.col("tried")).row(0, named=True)
        rank = 1 + scores.filter(pl.col("share") > mine["share"]).height
        low, high = wilson(mine["answered"], mine["n"])
        tried = answers.filter(pl.col("tried"))
        failures = tried.filter(pl.col("status") != "answered").group_by("status").len()
        receipts = tried["receipt_id"].drop_nulls().to_list()
        return PartReport(
            arena=self.arena,
            part=self.part,
            unit=f"round={trial}",
            state="sealed",
            standings=(Standing("answered share", mine["share"], low, high, rank, scores.height, True),),
            format_failures=dict(failures.iter_rows()),
            refusals=tried.filter(pl.col("status") == "refused").height,
            calls=tried.height,
            transcripts=tuple(f"receipts/sha256/{r[:2]}/{r[2:]}.json.gz" for r in receipts),
        )


class BrokenPart:
    """A part with a bug: its ``run`` raises; it never has a unit to read."""

    arena = TOY.name
    part = "broken"

    def run(self, request: TrialRequest) -> PartReport:
        raise RuntimeError("the broken toy part breaks\nover two lines")

    def read(self, data_dir: Path, trial: str) -> PartReport | None:
        return None


TRIAL_PARTS: Final = {TOY.name: lambda: (ToyPart(), BrokenPart())}
