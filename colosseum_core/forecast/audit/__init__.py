"""The forecasting arena's part of ``colosseum verify`` (the audit protocol of ``colosseum_core.verify``).

Per card, in worker processes (``record.check_cards``): what its seal or missed record means (its
status and packet; the documents and the tables they name are the runner's seal check's), every
receipt its rows name, both signatures of every answer, every reply re-read from its receipt,
every settlement, every score and every verdict re-derived from the receipts (``rederive``). Once:
the leaderboard and calibration board re-derived from every card's scores (``record.check_board``).
Of a built site: each card's answers, signatures and scores, and the board (``site``).

Imported by: the registry (``colosseum_core.arenas.AUDITS``) and the tests. The last stage: it may
import every other, and nothing of the forecast imports it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.audit.record import (
    ANSWERS_CALL,
    ANSWERS_JOURNAL,
    check_board,
    check_cards,
    published_arena_keys,
)
from colosseum_core.forecast.audit.site import check_site_board, check_site_cards
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.workers import Task, batches, in_part

# Cards per task: enough that per-task costs vanish, few enough that progress moves and work balances.
MAX_CARDS_PER_TASK = 400
# A card with a sweep re-derives its verdicts from hundreds of KB of receipts: ~1 s each.
MAX_SWEPT_CARDS_PER_TASK = 4
MAX_SITE_CARDS_PER_TASK = 2_000


def _size(count: int, workers: int, cap: int) -> int:
    return max(1, min(cap, math.ceil(count / (workers * 4)) if count else 1))


@dataclasses.dataclass(frozen=True)
class ForecastAudit:
    arena: ArenaRecord = FORECAST
    record_counts: tuple[str, ...] = (
        "signatures",
        "cards",
        "replies_reread",
        "verdicts",
        "settlements",
        "scores",
        "board_rows",
        "receipt_references",
    )
    site_counts: tuple[str, ...] = ("signatures", "cards", "scores", "board_rows")
    site_downloads_checked_by_partition: tuple[str, ...] = ("data/answers.parquet",)
    # A batch of cards reads each table's files in one call, checking each file's bytes and rows.
    checks_partition_files: bool = True
    journals: Mapping[str, tuple[str, ...]] = dataclasses.field(
        default_factory=lambda: {ANSWERS_JOURNAL: ANSWERS_CALL}
    )

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        per_card = scan.partitions
        root = str(scan.root)
        cards = sorted(set().union(*per_card.values(), scan.decided)) if per_card or scan.decided else []
        tasks: list[Task] = []
        if "scores" in per_card or Record(scan.root).tables(self.arena).exists("leaderboard"):
            tasks.append(Task("board", 1, check_board, (root,)))
        swept = per_card.get("raw_sweep", frozenset())
        size = _size(len(cards), scan.workers, MAX_CARDS_PER_TASK)
        table_names = tuple(sorted(per_card))
        for batch in batches(cards, size, heavy=swept.__contains__, heavy_limit=MAX_SWEPT_CARDS_PER_TASK):
            arguments = (root, batch, table_names, scan.has_receipts)
            tasks.append(Task("cards", len(batch), check_cards, arguments))
        return tasks

    def site_tasks(self, scan: SiteScan) -> list[Task]:
        # The forecasting board's part of the site (forecast/, or the root of a site from before the
        # landing page): its files named from its own root, its problems from the site's.
        folder = scan.folder(self.arena)
        part = scan.part(folder)
        cards: set[str] = set()
        for file in ("data/answers.parquet", "data/scores.parquet"):
            if file in part.readable:
                found = pl.scan_parquet(part.site / file, hive_partitioning=False).select("card").unique()
                cards |= set(found.collect()["card"].to_list())
        ordered = sorted(str(c) for c in cards)
        size = _size(len(ordered), scan.workers, MAX_SITE_CARDS_PER_TASK)
        tasks = [
            Task(
                "cards", len(batch), in_part, (folder, check_site_cards, str(part.site), batch, part.verified)
            )
            for batch in batches(ordered, size)
        ]
        if "data/scores.parquet" in part.readable or "data/leaderboard.json" in part.verified:
            tasks.append(Task("board", 1, in_part, (folder, check_site_board, str(part.site), part.verified)))
        return tasks

    def published_arena_keys(self, root: Path) -> list[str]:
        """The arena keys the cards' ``public_keys`` publish."""
        return published_arena_keys(root)


FORECAST_AUDIT = ForecastAudit()
