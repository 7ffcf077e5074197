"""The forecast's part of a model maker's trial (COLOSSEUM-TRIAL-1): a trial seat answers the latest
answered card's packet, the very bytes the card's seats got, and is scored as they are once the
card's questions settle, on a board of its own (COLOSSEUM-FORECAST-TRIAL-1).

The trial seat is a unit of its own, ``trial=<card>-<trial id>`` in the ``forecast_trials`` record
(``arena.FORECAST_TRIALS``): its answers journal, its answers and answer lines (written once), and at
its seal, once every question of the card has settled or voided, its scores and its board. Nothing of
it enters the card's seats, the card's seal or any board of the arena; its answers are CALIBRATION.

- Asking: the card's seats' rules (``answering.asking``: one user message, the equal settings, a
  refusal asked once more, a silence never) through the card's own journal mechanism
  (``answering.answers.AnswerJournal``), so a trial run again asks nothing twice.
- Reading and scoring: ``answer_tables`` and ``score_card``, the functions that read and score the
  seats, under the versions the seats' rows name.
- The board: the card's seats' scores, derived from the card's answers and settlements with the same
  ``score_card``, and the trial seat's, as one CALIBRATION board built by ``build_boards`` (the same
  question-clustered bootstrap, seed and replicates); its seat rows only, since a trial model may be
  the same model id as a house gladiator. The standing is SHARP and EDGE with their 95 % intervals and
  the trial seat's rank among the card's seats.
- A trial keeps to the card it began on: its first run picks the latest card with answers; every
  later run (or ``read``) finds that unit again and picks up the card's settlements.

Imported by: the arenas' registry (``arenas.TRIAL_PARTS``), the forecast's audit (the trial unit's
checks), the tests.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.forecast.answering.answers import AnswerJournal, answer_tables, ask_every_seat
from colosseum_core.forecast.answering.seats import SeatAssignment
from colosseum_core.forecast.arena import FORECAST, FORECAST_TRIALS, TRIAL_ANSWER_TABLES
from colosseum_core.forecast.board.leaderboard import build_boards
from colosseum_core.forecast.rules import COLOSSEUM_READING
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.sealing.card import CALIBRATION
from colosseum_core.forecast.settlement.scoring import score_card
from colosseum_core.interrupts import run_async
from colosseum_core.providers import CallSettings
from colosseum_core.providers.models import ModelRef
from colosseum_core.providers.usage import receipt_seconds, receipt_tokens
from colosseum_core.record import with_ids
from colosseum_core.record.journal import Journal
from colosseum_core.record.layout import Record
from colosseum_core.record.locks import partition_lock
from colosseum_core.record.receipts import format_receipt_time
from colosseum_core.record.sealed_step import seal_then_write, write_sealed
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.trial import PartReport, Standing, TrialError, TrialRequest

FORECAST_TRIAL: Final = "COLOSSEUM-FORECAST-TRIAL-1"
ARENA: Final = "forecast"
PART: Final = "forecast"
TRIAL_SEAT: Final = "trial"
ANSWERS_JOURNAL: Final = "answers"
# A card's key is its seal in New York wall time, YYYY-MM-DD-HHMM: the unit's key begins with it.
_CARD_KEY_LENGTH: Final = len("2026-11-29-1000")
# What a trial's board ranks by: (measure, column, higher is better).
MEASURES: Final = (("SHARP", "sharp", True), ("EDGE", "edge", True))


def unit_key(card: str, trial: str) -> str:
    """The trial unit's partition key: the card it answers, then the trial's id."""
    return f"{card}-{trial}"


def unit_card(unit: str) -> str:
    """The card a trial unit answers (ValueError if ``unit`` does not begin with a card's key)."""
    card = unit[:_CARD_KEY_LENGTH]
    card_from_key(card)
    if unit[_CARD_KEY_LENGTH : _CARD_KEY_LENGTH + 1] != "-" or len(unit) == _CARD_KEY_LENGTH + 1:
        raise ValueError(f"trial unit {unit!r} is not <card>-<trial id>")
    return card


def trial_units(record: Record, trial: str) -> list[str]:
    """The units of ``trial`` the record holds a trace of (a journal, a table or a seal), in card order."""
    suffix = f"-{trial}"
    found: set[str] = set()
    journal_dir = record.journal_path(FORECAST_TRIALS, ANSWERS_JOURNAL, "unit").parent
    if journal_dir.is_dir():
        prefix = f"{FORECAST_TRIALS.partition}="
        found |= {p.name.removeprefix(prefix).removesuffix(".jsonl") for p in journal_dir.glob(f"{prefix}*")}
    tables = record.tables(FORECAST_TRIALS)
    for table in TRIAL_ANSWER_TABLES:
        found |= set(tables.partitions(table))
    found |= {s.partition for s in record.seals(FORECAST_TRIALS).seals()}
    return sorted(u for u in found if u.endswith(suffix) and len(u) == _CARD_KEY_LENGTH + len(suffix))


def latest_answered_card(record: Record) -> str | None:
    """The latest card whose packet was sealed and whose seats answered, or None."""
    tables = record.tables(FORECAST)
    answered = set(tables.partitions("answers")) & set(tables.partitions("packet"))
    # Keys are New York wall times written YYYY-MM-DD-HHMM: their order is the seals' order.
    return max(answered) if answered else None


def trial_assignment(model: ModelRef, environ: Mapping[str, str], sparring_url: str) -> SeatAssignment:
    """The trial seat: the model as given, asked by its own protocol at its own URL with its own key."""
    base_url = sparring_url.rstrip("/") if model.house else model.base_url
    return SeatAssignment(TRIAL_SEAT, model.protocol, model.model, base_url, model.key(environ), house=False)


@dataclasses.dataclass(frozen=True)
class CardFacts:
    """What the trial reads of its card: the packet's row and bytes, the questions, the seats'
    answers and lines, and the settlements so far (None before any)."""

    card: str
    packet: Mapping[str, Any]
    packet_bytes: bytes
    questions: pl.DataFrame
    answers: pl.DataFrame
    lines: pl.DataFrame
    settlements: pl.DataFrame | None

    @property
    def packet_id(self) -> str:
        return str(self.packet["packet_id"])

    @property
    def card_date(self) -> dt.date:
        return card_from_key(self.card).new_york_date

    def settled(self) -> bool:
        """Whether every question has settled or voided (the trial can then be scored and sealed)."""
        if self.settlements is None:
            return False
        return set(self.questions["market_id"].to_list()) <= set(self.settlements["market_id"].to_list())


def card_facts(record: Record, card: str) -> CardFacts:
    """The card's facts from the record, each file read against its ledger entry."""
    tables = record.tables(FORECAST)
    needed = ("packet", "card_questions", "answers", "answer_lines")
    missing = [t for t in needed if not tables.exists(t, card)]
    if missing:
        raise TrialError(f"forecast trial: card {card} has no {', '.join(missing)} table in {tables.root}")
    packet = tables.read_checked("packet", card).row(0, named=True)
    settlements = tables.read_checked("settlements", card) if tables.exists("settlements", card) else None
    return CardFacts(
        card=card,
        packet=packet,
        packet_bytes=str(packet["packet_text"]).encode("utf-8"),
        questions=tables.read_checked("card_questions", card),
        answers=tables.read_checked("answers", card),
        lines=tables.read_checked("answer_lines", card),
        settlements=settlements,
    )


def trial_answer_tables(
    facts: CardFacts,
    assignment: SeatAssignment,
    result: Any,
    *,
    reading_rules: str = COLOSSEUM_READING,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The trial seat's answers row and answer lines, read as the seats' are; always CALIBRATION."""
    return answer_tables(
        facts.card,
        facts.card_date,
        facts.packet_id,
        facts.questions,
        [assignment],
        {assignment.seat: result},
        CALIBRATION,
        packet=facts.packet_bytes,
        reading_rules=reading_rules,
    )


def trial_scores(facts: CardFacts, answers: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
    """The trial seat's scores, by the seats' formula, against the card's settlements."""
    assert facts.settlements is not None
    return score_card(lines, answers, facts.questions, facts.settlements)


def trial_board(facts: CardFacts, scores: pl.DataFrame) -> pl.DataFrame:
    """The trial's own board: the card's seats and the trial seat, one CALIBRATION board (seat rows)."""
    assert facts.settlements is not None
    seats = score_card(facts.lines, facts.answers, facts.questions, facts.settlements)
    field = pl.concat([seats.with_columns(kind=pl.lit(CALIBRATION)), scores.select(seats.columns)])
    board = build_boards(field).leaderboard.filter(pl.col("entrant_type") == "seat")
    return with_ids(board)


def standings(board: pl.DataFrame) -> tuple[Standing, ...]:
    """The trial seat's SHARP and EDGE with their intervals, and its rank among the card's seats."""
    mine = board.filter(pl.col("entrant") == TRIAL_SEAT)
    if mine.is_empty():
        return ()
    row = mine.row(0, named=True)
    out = []
    for measure, column, higher in MEASURES:
        value = row[column]
        others = board.filter(pl.col("entrant") != TRIAL_SEAT)[column].drop_nulls().to_list()
        rank = None if value is None else 1 + sum(1 for v in others if (v > value if higher else v < value))
        out.append(
            Standing(
                measure=measure,
                value=value,
                low=row[f"{column}_low"],
                high=row[f"{column}_high"],
                rank=rank,
                field=board.height,
                higher_is_better=higher,
            )
        )
    return tuple(out)


def format_failures(answers: pl.DataFrame, lines: pl.DataFrame) -> dict[str, int]:
    """The trial seat's failures in the reading's own classes: each recovery step that read an answer
    (``recovered: <step>``), each reason a question bound nothing (``unbound: <reason>``), and
    ``bad_formatting`` as the board counts it."""
    counts: collections.Counter[str] = collections.Counter()
    for row in lines.filter(pl.col("status") != "answered").iter_rows(named=True):
        if row["status"] == "recovered":
            counts[f"recovered: {row['step']}"] += 1
        else:
            counts[f"unbound: {row['reason']}"] += 1
    counts["bad_formatting"] = int(answers["bad_formatting"].sum())
    return {k: v for k, v in sorted(counts.items()) if v}


@dataclasses.dataclass(frozen=True)
class Cost:
    calls: int
    refusals: int
    tokens_in: int | None
    tokens_out: int | None
    seconds: float
    transcripts: tuple[str, ...]


def cost(record: Record, unit: str, protocol: str, receipt_ids: Iterable[str]) -> Cost:
    """What the trial seat's call cost, from its journal and its receipts alone: requests made, HTTP
    refusals, tokens where the replies say, seconds on the wire, and the transcripts' paths."""
    journal = record.journal_path(FORECAST_TRIALS, ANSWERS_JOURNAL, unit)
    calls = sum(1 for e in Journal(journal).entries() if e.get("event") == "ask")
    refusals, seconds, tokens = 0, 0.0, []
    paths = [journal.relative_to(record.root).as_posix()]
    for receipt_id in receipt_ids:
        receipt = record.receipts.get(receipt_id)
        paths.append(record.receipts.path_for(receipt_id).relative_to(record.root).as_posix())
        refusals += receipt.status is not None and receipt.status >= 400
        seconds += receipt_seconds(receipt)
        used_in, used_out = receipt_tokens(receipt, protocol)
        if used_in is not None or used_out is not None:
            tokens.append((used_in or 0, used_out or 0))
    tables = record.tables(FORECAST_TRIALS)
    paths += [
        tables.path(t, unit).relative_to(record.root).as_posix()
        for t in FORECAST_TRIALS.sealing.sealed_tables
        if tables.exists(t, unit)
    ]
    return Cost(
        calls=calls,
        refusals=refusals,
        tokens_in=sum(t[0] for t in tokens) if tokens else None,
        tokens_out=sum(t[1] for t in tokens) if tokens else None,
        seconds=round(seconds, 3),
        transcripts=tuple(paths),
    )


def _report(record: Record, unit: str, *, state: str, note: str) -> PartReport:
    """The part's report on ``unit`` from what the record holds of it."""
    tables = record.tables(FORECAST_TRIALS)
    answers = tables.read_if_present("trial_answers", unit)
    if answers is None:
        return PartReport(ARENA, PART, unit, "waiting", note=note)  # type: ignore[arg-type]
    lines = tables.read("trial_answer_lines", unit)
    row = answers.row(0, named=True)
    note = f"{_answered_note(answers, lines['label'].n_unique())}; {note}"
    spent = cost(record, unit, row["protocol"], row["receipt_ids"] or [])
    board = tables.read_if_present("trial_board", unit)
    if board is None and state == "waiting":
        facts = card_facts(record, unit_card(unit))
        if facts.settled():
            board = trial_board(facts, trial_scores(facts, answers, lines))
            note += "; every question has settled: the next run seals the trial's scores"
    return PartReport(
        arena=ARENA,
        part=PART,
        unit=unit,
        state=state,  # type: ignore[arg-type]
        standings=standings(board) if board is not None else (),
        format_failures=format_failures(answers, lines),
        refusals=spent.refusals,
        calls=spent.calls,
        tokens_in=spent.tokens_in,
        tokens_out=spent.tokens_out,
        seconds=spent.seconds,
        transcripts=spent.transcripts,
        note=note,
    )


def _answered_note(answers: pl.DataFrame, questions: int) -> str:
    row = answers.row(0, named=True)
    return (
        f"{row['status']}: {row['answered'] + row['recovered']} of {questions} questions bound "
        f"({row['recovered']} recovered, {row['unbound']} unbound), {row['attempts']} attempt(s)"
    )


def _unsettled(facts: CardFacts) -> int:
    return facts.questions.height - (0 if facts.settlements is None else facts.settlements.height)


def _waiting_note(facts: CardFacts) -> str:
    return (
        f"waiting for {_unsettled(facts)} of {facts.questions.height} questions to settle "
        "(`colosseum forecast settle`, then run the trial again)"
    )


@dataclasses.dataclass(frozen=True)
class ForecastTrial:
    """The forecast's :class:`~colosseum_core.trial.TrialPart`.

    ``timeout_s``: the trial seat's reply timeout (the seats' default). With no card answered yet the
    part is ``skipped`` and says which command seals one (the trial command's wiring runs it, then
    asks the part again: ``trial.prepared``).
    """

    timeout_s: float = CallSettings().timeout_s
    arena: str = ARENA
    part: str = PART

    def run(self, request: TrialRequest) -> PartReport:
        record = Record(request.data_dir)
        units = trial_units(record, request.trial)
        if units:
            unit = units[-1]
        else:
            card = latest_answered_card(record)
            if card is None:
                return PartReport(
                    ARENA,
                    PART,
                    "",
                    "skipped",
                    note=f"no card has been answered in {request.data_dir} yet: run "
                    "`colosseum forecast card run latest` first (the offline default seals one)",
                )
            unit = unit_key(card, request.trial)
        lock = partition_lock(FORECAST_TRIALS.partition, unit)
        with record.locks.hold(lock, owner=f"trial {unit}", purpose="forecast trial"):
            return self._run_unit(record, unit, request)

    def _run_unit(self, record: Record, unit: str, request: TrialRequest) -> PartReport:
        seals = record.seals(FORECAST_TRIALS)
        if seals.get(unit) is not None and record.tables(FORECAST_TRIALS).exists("trial_board", unit):
            request.progress(f"forecast: trial unit {unit} is sealed: read from the record")
            return _report(record, unit, state="sealed", note=f"sealed ({FORECAST_TRIAL})")
        facts = card_facts(record, unit_card(unit))
        answers, lines = self._answers(record, unit, facts, request)
        if not facts.settled():
            request.progress(f"forecast: card {facts.card}: {_unsettled(facts)} question(s) still to settle")
            return _report(record, unit, state="waiting", note=_waiting_note(facts))
        scores = trial_scores(facts, answers, lines)
        board = trial_board(facts, scores)
        tables, seals = record.tables(FORECAST_TRIALS), record.seals(FORECAST_TRIALS)
        vouched = {t: hashlib.sha256(tables.read_bytes(t, unit)).hexdigest() for t in TRIAL_ANSWER_TABLES}
        seal_then_write(
            tables,
            seals,
            unit,
            outputs={"trial_scores": parquet_bytes(scores), "trial_board": parquet_bytes(board)},
            vouched=vouched,
            kind=CALIBRATION,
            content_id=facts.packet_id,
            sealed_at=format_receipt_time(request.clock()),
        )
        request.progress(f"forecast: card {facts.card} settled: the trial seat scored and sealed")
        return _report(record, unit, state="sealed", note=f"sealed ({FORECAST_TRIAL})")

    def _answers(
        self, record: Record, unit: str, facts: CardFacts, request: TrialRequest
    ) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The trial seat's answers: read from the record, or asked (resuming its journal) and written."""
        tables = record.tables(FORECAST_TRIALS)
        if tables.exists("trial_answers", unit):
            return tables.read_checked("trial_answers", unit), tables.read_checked("trial_answer_lines", unit)
        assignment = trial_assignment(request.model, request.environ, request.sparring_url)
        journal = AnswerJournal(
            Journal(record.journal_path(FORECAST_TRIALS, ANSWERS_JOURNAL, unit)),
            facts.card,
            facts.packet_id,
            request.clock,
        )
        asked = bool(journal.entries)
        request.progress(
            f"forecast: asking {request.model.name} card {facts.card}'s packet "
            f"({facts.questions.height} questions){' (resumed from its journal)' if asked else ''}"
        )
        results = run_async(
            ask_every_seat(
                facts.packet_bytes,
                [assignment],
                record.receipts,
                settings=CallSettings(timeout_s=self.timeout_s),
                clock=request.clock,
                journal=journal,
            )
        )
        answers, lines = trial_answer_tables(facts, assignment, results[TRIAL_SEAT])
        write_sealed(
            tables,
            record.seals(FORECAST_TRIALS),
            unit,
            {"trial_answers": parquet_bytes(answers), "trial_answer_lines": parquet_bytes(lines)},
        )
        return answers, lines

    def read(self, data_dir: Path, trial: str) -> PartReport | None:
        record = Record(data_dir)
        units = trial_units(record, trial)
        if not units:
            return None
        unit = units[-1]
        if record.seals(FORECAST_TRIALS).get(unit) is not None:
            return _report(record, unit, state="sealed", note=f"sealed ({FORECAST_TRIAL})")
        if not record.tables(FORECAST_TRIALS).exists("trial_answers", unit):
            return PartReport(
                ARENA, PART, unit, "waiting", note="asked, not finished: run the trial again to finish it"
            )
        facts = card_facts(record, unit_card(unit))
        # The same words as the run that left it waiting, so a report rebuilt reads as the one printed.
        note = "answered; not sealed yet" if facts.settled() else _waiting_note(facts)
        return _report(record, unit, state="waiting", note=note)


def trial_parts() -> tuple[ForecastTrial, ...]:
    """The forecast's parts of a trial, for the arenas' registry."""
    return (ForecastTrial(),)
