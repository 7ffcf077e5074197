"""The forecasting board as a plug-in of the shared site engine (``colosseum_core.site.plugin``)."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from colosseum_core.forecast.answering.answers import answer_signature_problems, unsigned_lines
from colosseum_core.forecast.answering.seats import DEFAULT_REGISTRY, Seat, load_seats
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.site.build import build_site
from colosseum_core.forecast.site.front import forecast_front
from colosseum_core.forecast.site.site_check import site_problems
from colosseum_core.record import RecordTables
from colosseum_core.record.layout import ArenaRecord
from colosseum_core.record.ledger import check_file
from colosseum_core.site.front import Front, PartFiles
from colosseum_core.site.plugin import ALONE, BuildReport, Neighbours
from colosseum_core.trust.keys import ARENA


class ForecastSite:
    """The board of the seats in ``registry`` (the seat registry in force by default), or of ``seats``."""

    arena: ArenaRecord = FORECAST

    def __init__(self, registry: Path = DEFAULT_REGISTRY, *, seats: Sequence[Seat] | None = None) -> None:
        self._registry = registry
        self._given = None if seats is None else list(seats)

    @functools.cached_property
    def seats(self) -> list[Seat]:
        return self._given if self._given is not None else load_seats(self._registry)

    def publishing_problems(self, tables: RecordTables) -> list[str]:
        """Every file the board reads must be the bytes its ledger records, and every card's answers
        must carry seat signatures and arena countersignatures that verify."""
        root = tables.root
        if not root.is_dir():
            return [f"{root.parent} is not a record: it has no {root.name}/ directory"]
        problems: list[str] = []
        for table in tables.tables():
            partitions = tables.partitions(table)
            paths = [tables.path(table, p) for p in partitions] if partitions else [tables.path(table)]
            for path in paths:
                check = check_file(path, path.relative_to(root.parent).as_posix())
                if check.problem:
                    problems.append(check.problem)
        if problems:
            return problems  # nothing below can be trusted to decode
        for card in tables.partitions("answers"):
            keys = tables.read_if_present("public_keys", card)
            if keys is None:
                problems.append(
                    f"answers card {card}: it has no public_keys, so its signatures cannot be verified"
                )
                continue
            seats = sorted(set(keys.filter(pl.col("name") != ARENA)["name"].to_list()))
            answers = tables.read("answers", card)
            problems += answer_signature_problems(
                answers,
                keys,
                signatures=tables.read_if_present("answer_signatures", card),
                expected_seats=seats,
            )
            lines = tables.read_if_present("answer_lines", card)
            if lines is not None:
                problems += unsigned_lines(answers, lines, "answer_lines")
        return problems

    def key_valid_from(self, tables: RecordTables) -> dt.date:
        # The arena's key dates from the first seat's first day, as when answers are signed.
        return min(seat.first_day for seat in self.seats)

    def build(
        self, tables: RecordTables, out: Path, *, built_at: str, neighbours: Neighbours = ALONE
    ) -> BuildReport:
        report = build_site(tables, out, seats=self.seats, built_at=built_at, arenas=neighbours.arenas)
        return BuildReport(
            files=report.files,
            bytes=report.bytes,
            summary={
                "cards": report.cards,
                "released": report.released,
                "awaiting_answers": report.awaiting_answers,
                "missed": report.missed,
            },
            headline=f"{report.cards} cards ({report.released} released)",
        )

    def arena_key_ids(self, tables: RecordTables) -> list[str]:
        if not tables.partitions("public_keys"):
            return []
        keys = tables.scan("public_keys")
        assert keys is not None
        return keys.filter(name=ARENA).select("key_id").unique().collect()["key_id"].to_list()

    def site_problems(self, site: Path, tables: RecordTables, *, neighbours: Neighbours = ALONE) -> list[str]:
        return site_problems(site, tables, self.seats, neighbours=neighbours)

    def front(self, files: PartFiles) -> Front:
        return forecast_front(files)


FORECAST_SITE = ForecastSite()
