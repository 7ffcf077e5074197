"""Answers: the sealed packet sent byte-identical to every seat, each reply read, signed twice.

Per seat: the call's outcome (answered, forfeited when nothing binds, no_response, refused), the
settings record, the reading's format record, and the binding answers, signed by the seat's key
and countersigned by the arena's. Per seat and question: the call, confidence, whether it binds,
and the recovery step that read it. A question without a binding answer is a forfeit.

One reply per card, whatever happens to the run: before each request to a seat an *ask* entry goes
into the card's answers journal (``<data>/journal/forecast/answers/card=<key>.jsonl``, forced to disk), and
after its receipt is stored a *reply* entry names the receipt. A card whose answering was
interrupted is finished by running it again: a seat with a stored reply is read from its receipt,
a seat asked without a stored reply is ``no_response`` (it may have answered; it is never asked
again), and only seats never asked are asked.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import polars as pl

from colosseum_core.forecast.answering.asking import ask_seat
from colosseum_core.forecast.answering.reading import format_record, read_reply
from colosseum_core.forecast.answering.seats import SeatAssignment
from colosseum_core.forecast.rules import COLOSSEUM_READING
from colosseum_core.forecast.sealing.card import CALIBRATION, FIGHT
from colosseum_core.providers import CallResult, CallSettings
from colosseum_core.record import ReceiptStore, with_ids
from colosseum_core.record.crash import crash_point
from colosseum_core.record.journal import Journal
from colosseum_core.trust.keys import ARENA, KeyStore, public_keys_frame
from colosseum_core.trust.signing import RowSigning, sign_record, signatures_frame, verify_signed_rows

BINDING = ("answered", "recovered")
# A card's answers rows, as COLOSSEUM-SIGNING-1 signs them: each by its seat, dated by its card.
ANSWER_SIGNING = RowSigning(
    partition_column="card",
    signer_column="seat",
    date_column="card_date",
    noun="answer",
    signatures_table="answer_signatures",
    table="answers",
)
LINE_SCHEMA: dict[str, pl.DataType] = {
    "card": pl.String(),
    "seat": pl.String(),
    "label": pl.String(),
    "market_id": pl.String(),
    "call": pl.String(),
    "confidence": pl.Int64(),
    "status": pl.String(),
    "binding": pl.Boolean(),
    "step": pl.String(),
    "reason": pl.String(),
    "rules": pl.String(),
}
SEAT_SCHEMA: dict[str, pl.DataType] = {
    "card": pl.String(),
    "card_date": pl.String(),
    "seat": pl.String(),
    "protocol": pl.String(),
    "model": pl.String(),
    "house": pl.Boolean(),
    "kind": pl.String(),
    "packet_id": pl.String(),
    "status": pl.String(),
    "attempts": pl.Int64(),
    "receipt_ids": pl.List(pl.String()),
    "settings": pl.String(),
    "error": pl.String(),
    "bad_formatting": pl.Boolean(),
    "answered": pl.Int64(),
    "recovered": pl.Int64(),
    "unbound": pl.Int64(),
    "unmatched": pl.Int64(),
    "format_record": pl.String(),
    "binding_answers": pl.List(pl.String()),
    "rules": pl.String(),
}


@dataclasses.dataclass(frozen=True)
class AnsweredCard:
    seats: pl.DataFrame
    lines: pl.DataFrame
    signatures: pl.DataFrame
    public_keys: pl.DataFrame


def seat_calls(entries: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[int, str | None]]]:
    """Per seat, the requests the answers journal records, in order, each with its reply's receipt."""
    replies = {(e["seat"], e["request"]): e["receipt_id"] for e in entries if e.get("event") == "reply"}
    calls: dict[str, list[tuple[int, str | None]]] = {}
    for entry in entries:
        if entry.get("event") == "ask":
            seat, request = entry["seat"], entry["request"]
            calls.setdefault(seat, []).append((request, replies.get((seat, request))))
    return calls


class AnswerJournalError(Exception):
    """The card's answers journal does not fit this run: another packet, seat or gladiator was asked."""


class SeatJournal:
    """One seat's view of the card's answers journal (a ``providers.CallJournal``).

    ``settings`` are the ones the seat's call runs under: those of its first request if it was
    asked already (a resumed call is the same call), else the run's.
    """

    def __init__(self, card: AnswerJournal, assignment: SeatAssignment, settings: CallSettings) -> None:
        self._card = card
        self._assignment = assignment
        self.settings = settings

    def prior(self) -> list[tuple[int, str | None]]:
        return seat_calls(self._card.entries).get(self._assignment.seat, [])

    async def asked(self, request: int) -> None:
        a = self._assignment
        await self._card.append(
            {
                "event": "ask",
                "seat": a.seat,
                "request": request,
                "protocol": a.protocol,
                "model": a.model,
                "settings": dataclasses.asdict(self.settings),
            }
        )

    async def replied(self, request: int, receipt_id: str) -> None:
        await self._card.append(
            {"event": "reply", "seat": self._assignment.seat, "request": request, "receipt_id": receipt_id}
        )


class AnswerJournal:
    """A card's answers journal: what was asked of whom, and which receipt holds each reply."""

    def __init__(self, journal: Journal, card: str, packet_id: str, clock: Callable[[], dt.datetime]) -> None:
        self.journal = journal
        self.card = card
        self.packet_id = packet_id
        self._clock = clock
        self.entries = journal.entries()
        self.asked_now = 0
        for entry in self.entries:
            if entry.get("card") != card or entry.get("packet_id") != packet_id:
                raise AnswerJournalError(
                    f"{journal.path} entry {entry.get('seq')} is for card {entry.get('card')} packet "
                    f"{entry.get('packet_id')}, not card {card} packet {packet_id}"
                )

    def seat(self, assignment: SeatAssignment, settings: CallSettings) -> SeatJournal:
        """The seat's journal; refused if the seat was asked as another gladiator than ``assignment``."""
        for entry in self.entries:
            if entry["seat"] != assignment.seat or entry["event"] != "ask":
                continue
            if (entry["protocol"], entry["model"]) != (assignment.protocol, assignment.model):
                raise AnswerJournalError(
                    f"card {self.card} seat {assignment.seat} was asked as {entry['model']} "
                    f"({entry['protocol']}, journal entry {entry['seq']}); this run would ask "
                    f"{assignment.model} ({assignment.protocol}). One reply per card: finish the card "
                    "with the configuration it was begun with"
                )
            try:
                settings = CallSettings(**entry["settings"])
            except (KeyError, TypeError, ValueError) as exc:
                raise AnswerJournalError(
                    f"{self.journal.path} entry {entry['seq']}: its settings cannot be read ({exc})"
                ) from None
        return SeatJournal(self, assignment, settings)

    def check_seats(self, assignments: Sequence[SeatAssignment]) -> None:
        """Refuse a run that would leave out a seat the journal says was asked."""
        asking = {a.seat for a in assignments}
        left_out = sorted({e["seat"] for e in self.entries} - asking)
        if left_out:
            raise AnswerJournalError(
                f"card {self.card}: seats {', '.join(left_out)} were asked already, but this run does not "
                "ask them; finish the card with the seats it was begun with"
            )

    async def append(self, fields: Mapping[str, Any]) -> None:
        at = self._clock().astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
        entry = {"card": self.card, "packet_id": self.packet_id, "at": at, **fields}
        written = await asyncio.to_thread(self.journal.append, entry)
        if fields.get("event") == "ask":
            self.asked_now += 1
        crash_point(f"journal:{written['seq']}")


async def ask_every_seat(
    packet: bytes,
    assignments: Sequence[SeatAssignment],
    receipts: ReceiptStore,
    *,
    settings: CallSettings,
    clock: Callable[[], dt.datetime],
    journal: AnswerJournal | None = None,
) -> dict[str, CallResult]:
    """Every seat at once: the same bytes, the same settings, one reply each (resumed from ``journal``)."""
    if journal is not None:
        journal.check_seats(assignments)
    seats = [journal.seat(a, settings) if journal is not None else None for a in assignments]
    calls = [
        ask_seat(
            a.protocol,
            base_url=a.base_url,
            model=a.model,
            api_key=a.api_key,
            packet=packet,
            receipts=receipts,
            settings=seat.settings if seat is not None else settings,
            clock=clock,
            journal=seat,
        )
        for a, seat in zip(assignments, seats, strict=True)
    ]
    results = await asyncio.gather(*calls)
    return {a.seat: r for a, r in zip(assignments, results, strict=True)}


def _seat_status(result: CallResult, binding: int) -> str:
    if result.status != "answered":
        return result.status
    return "answered" if binding else "forfeited"


def answer_tables(
    card: str,
    card_date: dt.date,
    packet_id: str,
    questions: pl.DataFrame,
    assignments: Sequence[SeatAssignment],
    results: Mapping[str, CallResult],
    card_kind: str,
    *,
    packet: bytes,
    reading_rules: str = COLOSSEUM_READING,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The card's ``answers`` rows (with ids, not yet signed) and ``answer_lines``, from the calls' outcomes.

    ``packet``: the sealed packet's bytes (the reader sets aside what a reply quotes from it);
    ``reading_rules``: the reading's version (an old card is re-read with the one it was read with).
    Pure: the auditor re-derives both from the replayed receipts with this same function.
    """
    labels = questions["label"].to_list()
    market_of = dict(questions.select("label", "market_id").iter_rows())
    seat_rows: list[dict[str, Any]] = []
    line_rows: list[dict[str, Any]] = []
    for assignment in assignments:
        result = results[assignment.seat]
        reading = (
            read_reply(result.text or "", labels, packet=packet, rules=reading_rules)
            if result.status == "answered"
            else None
        )
        binding: list[str] = []
        for label in labels:
            answer = reading.answers[label] if reading else None
            status = answer.status if answer else "unbound"
            if status in BINDING and answer is not None:
                binding.append(f"{label} {answer.call} {answer.confidence}")
            line_rows.append(
                {
                    "card": card,
                    "seat": assignment.seat,
                    "label": label,
                    "market_id": market_of[label],
                    "call": answer.call if answer and status in BINDING else None,
                    "confidence": answer.confidence if answer and status in BINDING else None,
                    "status": status,
                    "binding": status in BINDING,
                    "step": answer.step if answer else None,
                    "reason": (answer.reason if answer else f"seat {result.status}")
                    if status not in BINDING
                    else None,
                    "rules": reading_rules,
                }
            )
        record = format_record(reading) if reading else {}
        seat_rows.append(
            {
                "card": card,
                "card_date": card_date.isoformat(),
                "seat": assignment.seat,
                "protocol": assignment.protocol,
                "model": assignment.model,
                "house": assignment.house,
                "kind": CALIBRATION if assignment.house or card_kind == CALIBRATION else FIGHT,
                "packet_id": packet_id,
                "status": _seat_status(result, len(binding)),
                "attempts": result.attempts,
                "receipt_ids": list(result.receipt_ids),
                "settings": json.dumps(result.settings_record, sort_keys=True),
                "error": result.error,
                "bad_formatting": bool(record.get("bad_formatting", False)),
                # The public format record: how each seat's reply read, in columns analysts can sum.
                "answered": record.get("answered", 0),
                "recovered": record.get("recovered", 0),
                "unbound": record.get("unbound", len(labels)),
                "unmatched": record.get("unmatched", 0),
                "format_record": json.dumps(record, sort_keys=True, default=str),
                "binding_answers": binding,
                "rules": reading_rules,
            }
        )
    seats = with_ids(pl.DataFrame(seat_rows, schema=SEAT_SCHEMA))
    return seats, with_ids(pl.DataFrame(line_rows, schema=LINE_SCHEMA))


def answer_card(
    card: str,
    card_date: dt.date,
    packet_id: str,
    questions: pl.DataFrame,
    assignments: Sequence[SeatAssignment],
    results: Mapping[str, CallResult],
    keys: KeyStore,
    first_days: Mapping[str, dt.date],
    card_kind: str,
    *,
    packet: bytes,
) -> AnsweredCard:
    """The card's answer tables, signed. House gladiators and practice cards make CALIBRATION answers."""
    seats, lines = answer_tables(
        card, card_date, packet_id, questions, assignments, results, card_kind, packet=packet
    )
    arena_first = min(first_days.values())
    keys.ensure_key(ARENA, arena_first)
    arena_key = keys.signing_key(ARENA, card_date)
    signed = []
    for row in seats.iter_rows(named=True):
        keys.ensure_key(row["seat"], first_days[row["seat"]])
        signed.append(sign_record(row, keys.signing_key(row["seat"], card_date), arena_key))
    public = keys.public_keys([ARENA, *(a.seat for a in assignments)])
    return AnsweredCard(
        seats=seats,
        lines=lines,
        signatures=signatures_frame(signed),
        public_keys=public_keys_frame(public),
    )


def unsigned_lines(seats: pl.DataFrame, lines: pl.DataFrame, where: str) -> list[str]:
    """Answer lines that say something their seat's signed row does not bind, or leave out what it does.

    Each ``answers`` row is signed and lists its binding answers ("M01 YES 7"); the lines are not
    signed, so a line is only believed where it is one of them. ``where`` names the files or card.
    """
    signed = {
        (row["card"], row["seat"], answer)
        for row in seats.select("card", "seat", "binding_answers").iter_rows(named=True)
        for answer in row["binding_answers"] or []
    }
    bound = lines.filter(pl.col("binding")).select(
        "card", "seat", pl.format("{} {} {}", "label", "call", "confidence").alias("answer"), "label"
    )
    stated = {(c, s, a) for c, s, a, _ in bound.iter_rows()}
    problems = [
        f"{where} card {card} seat {seat}: answer line {answer} is not an answer its signed answers row binds"
        for card, seat, answer in sorted(stated - signed)
    ]
    problems += [
        f"{where} card {card} seat {seat}: its signed answers row binds {answer}, which no answer line says"
        for card, seat, answer in sorted(signed - stated)
    ]
    return problems


def _sent_text(protocol: str, body: Mapping[str, Any]) -> str | None:
    """The user message a request carried, read from the request bytes the receipt holds."""
    try:
        if protocol == "gemini":
            [content] = body["contents"]
            return "".join(part["text"] for part in content["parts"])
        [message] = body["messages"]
        return message["content"] if isinstance(message["content"], str) else None
    except (KeyError, TypeError, ValueError):
        return None


def sent_packet_problems(
    packet: bytes,
    assignments: Sequence[SeatAssignment],
    results: Mapping[str, CallResult],
    receipts: ReceiptStore,
) -> list[str]:
    """Every request to every seat carried exactly the packet, as its only message, with no system prompt."""
    problems = []
    for assignment in assignments:
        for receipt_id in results[assignment.seat].receipt_ids:
            receipt = receipts.get(receipt_id)
            try:
                body = json.loads(receipt.request_body)
            except ValueError:
                problems.append(f"seat {assignment.seat}: receipt {receipt_id}: request body is not JSON")
                continue
            if "system" in body or "systemInstruction" in body or "tools" in body:
                problems.append(
                    f"seat {assignment.seat}: receipt {receipt_id}: request carries a system prompt or tools"
                )
            text = _sent_text(assignment.protocol, body)
            if text is None or text.encode("utf-8") != packet:
                problems.append(
                    f"seat {assignment.seat}: receipt {receipt_id}: the message sent is not the sealed packet"
                )
    return problems


def answer_signature_problems(
    answers: pl.DataFrame | Iterable[Mapping[str, Any]],
    public_keys: pl.DataFrame | Iterable[Mapping[str, Any]],
    *,
    signatures: pl.DataFrame | None = None,
    on_date: dt.date | None = None,
    expected_seats: Iterable[str] | None = None,
) -> list[str]:
    """Every signature of a card's answers that does not verify, and every expected seat without an
    answer ([] if none)."""
    return verify_signed_rows(
        answers,
        public_keys,
        ANSWER_SIGNING,
        signatures=signatures,
        on_date=on_date,
        expected_signers=expected_seats,
    )
