"""The forecast trials' part of ``colosseum verify``: every trial unit (``forecast/trial.py``) re-derived.

Per unit: it names a card the record holds; its one row is the trial seat's, CALIBRATION, for the
card's packet; every request it made carried exactly the card's sealed packet bytes; its call is
replayed from its receipts against its answers journal and its reply read again with the function
that read it (``rederive.answer_problems``, as a card's seats are); once sealed, its seal vouches for
the card's packet, and its scores and its board are re-derived from its answers and the card's
settlements by the seats' formula and board. The tables' bytes against the ledger, the seal against
the tables it names, and the journal's chain are the runner's checks.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from colosseum_core.forecast.answering.answers import sent_packet_problems
from colosseum_core.forecast.answering.seats import SeatAssignment
from colosseum_core.forecast.arena import FORECAST_TRIALS
from colosseum_core.forecast.audit.record import ANSWERS_CALL
from colosseum_core.forecast.audit.rederive import (
    ENVIRONMENT_COLUMNS,
    answer_problems,
    compare_rows,
    score_problems,
)
from colosseum_core.forecast.sealing.card import CALIBRATION
from colosseum_core.forecast.trial import (
    ANSWERS_JOURNAL,
    TRIAL_SEAT,
    card_facts,
    trial_board,
    trial_scores,
    unit_card,
)
from colosseum_core.providers import CallResult
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.journal import JournalError, read_journal
from colosseum_core.record.layout import ArenaRecord
from colosseum_core.trial import TrialError
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.reading import audit_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, guarded


def unit_problems(root: str, unit: str, out: Outcome) -> None:
    """Everything about one trial unit, appended to ``out``."""
    record = audit_record(root)
    what = f"trial {unit}"
    try:
        card = unit_card(unit)
        facts = card_facts(record, card)
    except (ValueError, TrialError) as exc:
        out.problems.append(f"{what}: its card cannot be read ({exc})")
        return
    tables = record.tables(FORECAST_TRIALS)
    seal = record.seals(FORECAST_TRIALS).get(unit)
    if not tables.exists("trial_answers", unit):
        if seal is not None:
            out.problems.append(f"{what}: sealed, but it has no trial_answers")
        return
    answers = tables.read_checked("trial_answers", unit)
    has_lines = tables.exists("trial_answer_lines", unit)
    lines = tables.read_checked("trial_answer_lines", unit) if has_lines else None
    out.count("trial_units")
    if answers["seat"].to_list() != [TRIAL_SEAT]:
        seats = answers["seat"].to_list()
        out.problems.append(f"trial_answers {what}: rows for seats {seats}, not one {TRIAL_SEAT}")
        return
    row = answers.row(0, named=True)
    for field, expected in (("kind", CALIBRATION), ("packet_id", facts.packet_id), ("card", card)):
        if row[field] != expected:
            out.problems.append(f"trial_answers {what}: {field} is {row[field]!r}, not {expected!r}")
    journal_path = record.journal_path(FORECAST_TRIALS, ANSWERS_JOURNAL, unit)
    try:
        journal, _ = read_journal(journal_path, journal_path.relative_to(record.root).as_posix())
    except JournalError:
        out.problems.append(f"{what}: not replayed, because its journal is not as written")
        return
    # The trial seat is read as the seats are, always CALIBRATION, against the card's own packet.
    packet = pl.DataFrame([{**facts.packet, "kind": CALIBRATION}])
    problems = answer_problems(
        card, answers, lines, facts.questions, packet, journal or None, record.receipts, facts.card_date
    )
    out.problems += [f"{what}: {p}" for p in problems]
    out.count("trial_replies_reread")
    assignment = SeatAssignment(TRIAL_SEAT, row["protocol"], row["model"], "", None, False)
    sent = CallResult(
        status=row["status"] if row["status"] in ("answered", "refused") else "no_response",
        text=None,
        receipt_ids=tuple(row["receipt_ids"] or ()),
        attempts=row["attempts"],
        settings_record=json.loads(row["settings"]),
        error=None,
        model=row["model"],
        protocol=row["protocol"],
    )
    out.problems += [
        f"{what}: {p}"
        for p in sent_packet_problems(facts.packet_bytes, [assignment], {TRIAL_SEAT: sent}, record.receipts)
    ]
    if seal is None:
        return
    if seal.content_id != facts.packet_id:
        out.problems.append(
            f"{what} seal: vouches for packet {seal.content_id}, its card's is {facts.packet_id}"
        )
    if facts.settlements is None or lines is None:
        out.problems.append(f"{what}: sealed, but its card has no settlements to score it against")
        return
    scores = tables.read_checked("trial_scores", unit) if tables.exists("trial_scores", unit) else None
    board = tables.read_checked("trial_board", unit) if tables.exists("trial_board", unit) else None
    if scores is None or board is None:
        return  # a sealed table that is missing is named by the runner's seal check
    out.count("trial_scores", scores.height)
    problems = score_problems(card, scores, lines, answers, facts.questions, facts.settlements)
    out.problems += [f"trial_scores {what}: {p}" for p in problems]
    derived = trial_board(facts, trial_scores(facts, answers, lines))
    out.problems += compare_rows(
        f"trial_board {what}",
        board,
        derived,
        ("kind", "entrant_type", "entrant"),
        ignore=(ID_FIELD, *ENVIRONMENT_COLUMNS),
    )


def _check_unit(root: str, unit: str) -> Outcome:
    out = Outcome()
    guarded(out, f"trial {unit}", lambda: unit_problems(root, unit, out))
    return out


@dataclasses.dataclass(frozen=True)
class TrialAudit:
    arena: ArenaRecord = FORECAST_TRIALS
    record_counts: tuple[str, ...] = ("trial_units", "trial_replies_reread", "trial_scores")
    site_counts: tuple[str, ...] = ()
    site_downloads_checked_by_partition: tuple[str, ...] = ()
    checks_partition_files: bool = False
    journals: Mapping[str, tuple[str, ...]] = dataclasses.field(
        default_factory=lambda: {ANSWERS_JOURNAL: ANSWERS_CALL}
    )

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        units = set().union(*scan.partitions.values()) if scan.partitions else set()
        units |= scan.decided
        return [Task("trial_units", 1, _check_unit, (str(scan.root), u)) for u in sorted(units)]

    def site_tasks(self, scan: SiteScan) -> list[Task]:
        return []

    def published_arena_keys(self, root: Path) -> list[str]:
        return []


TRIAL_AUDIT = TrialAudit()
