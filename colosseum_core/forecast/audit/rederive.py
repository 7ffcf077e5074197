"""Re-deriving a card's verdicts, answers, settlements and scores, and the boards, with the same code.

Each function takes the recorded tables of one card (or the whole ``scores`` table for the boards),
runs the same colosseum_core functions that produced them, and names every difference: the table,
the card, the row and the field, with the recorded and the re-derived value.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl

from colosseum_core.forecast.answering.answers import answer_tables, seat_calls
from colosseum_core.forecast.answering.asking import replay_seat
from colosseum_core.forecast.answering.seats import SeatAssignment
from colosseum_core.forecast.board.leaderboard import Boards, build_boards
from colosseum_core.forecast.rules import COLOSSEUM_SCORING
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.sealing.card import card_kind, rank_candidates, seal_card
from colosseum_core.forecast.sealing.packet import PACKET_FORMAT
from colosseum_core.forecast.selection import reading_for
from colosseum_core.forecast.settlement.resolution import observations
from colosseum_core.forecast.settlement.scoring import SCORE_KEY, rescoring_problems, score_card
from colosseum_core.forecast.sweep.copy import copy_markets
from colosseum_core.providers import OMITTED, CallResult, no_reply_error
from colosseum_core.providers.adapters import NEGOTIABLE
from colosseum_core.record import ReceiptStore
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.receipts import ReceiptError
from colosseum_core.trust.signing import SIGNATURE_COLUMNS
from colosseum_core.verify.report import capped

PAGE_OUTCOMES = ("page", "last_page")
# Columns that describe the computation's environment rather than its result: a different numpy
# on the auditor's machine draws the same frozen legacy stream, so it is noted, never a problem.
ENVIRONMENT_COLUMNS = ("numpy_version",)
HISTORY_COLUMNS = ("card", "kind", "market_id", "label", "question")


def same(a: Any, b: Any) -> bool:
    """Exact equality, with NaN equal to NaN (a recorded NaN re-derived as NaN is no difference)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, bool) != isinstance(b, bool):  # True == 1 in Python, but not in the record
        return False
    return bool(a == b)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else f"{text[:117]}…"


def _identical(
    recorded: pl.DataFrame, derived: pl.DataFrame, keys: Sequence[str], columns: list[str]
) -> bool:
    """The common case, decided in one vectorised pass: the same rows, values and types.

    Only ever a shortcut: equal after the same sort means equal as sets; anything else (duplicate
    keys, other types) goes to the row-by-row comparison.
    """
    if recorded.height != derived.height:
        return False
    try:
        a = recorded.select(columns).sort(list(keys), nulls_last=True, maintain_order=True)
        b = derived.select(columns).sort(list(keys), nulls_last=True, maintain_order=True)
        return a.equals(b, null_equal=True)
    except Exception:  # unsortable or mismatched types: the row-by-row comparison will say how
        return False


def compare_rows(
    what: str,
    recorded: pl.DataFrame,
    derived: pl.DataFrame,
    keys: Sequence[str],
    *,
    ignore: Iterable[str] = (ID_FIELD,),
) -> list[str]:
    """Every difference between two versions of one table, row by row on ``keys``, field by field.

    ``what`` names the table and card, e.g. ``"ranked_candidates card 2026-11-20-1000"``.
    """
    ignored = set(ignore)
    missing_keys = [k for k in keys if k not in recorded.columns]
    if missing_keys:
        return [f"{what}: the recorded table has no column {', '.join(missing_keys)}"]
    fields = [c for c in derived.columns if c not in ignored and c not in keys]
    lines: list[str] = []
    for field in sorted(set(recorded.columns) - set(derived.columns) - ignored - set(keys)):
        lines.append(f"{what}: column {field} is in the record but not in the re-derivation")
    for field in fields:
        if field not in recorded.columns:
            lines.append(f"{what}: column {field} is re-derived but missing from the record")
    fields = [f for f in fields if f in recorded.columns]
    if not lines and _identical(recorded, derived, keys, [*keys, *fields]):
        return []
    mine: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in recorded.iter_rows(named=True):
        key = tuple(row[k] for k in keys)
        if key in mine:
            lines.append(
                f"{what} row {row.get(ID_FIELD)}: a second row with the same {', '.join(keys)} {key}"
            )
        mine[key] = row
    theirs = {tuple(r[k] for k in keys): r for r in derived.iter_rows(named=True)}

    def name(key: tuple[Any, ...], row: Mapping[str, Any] | None) -> str:
        labelled = " ".join(f"{k} {v}" for k, v in zip(keys, key, strict=True))
        row_id = f"row {row.get(ID_FIELD)} " if row is not None and row.get(ID_FIELD) else ""
        return f"{what} {row_id}({labelled})"

    def differences() -> Iterable[str]:
        yield from lines
        for key in sorted(set(mine) | set(theirs), key=lambda k: tuple(str(v) for v in k)):
            old, new = mine.get(key), theirs.get(key)
            if new is None:
                yield f"{name(key, old)}: in the record but not re-derived"
            elif old is None:
                yield f"{name(key, None)}: re-derived but missing from the record"
            else:
                for field in fields:
                    if not same(old[field], new[field]):
                        yield (
                            f"{name(key, old)}: {field} is {_short(old[field])} in the record, "
                            f"re-derived {_short(new[field])}"
                        )

    return capped(differences(), what)


# --------------------------------------------------------------------------------------------
# Verdicts: sweep receipts → verbatim copy → selection with the history of earlier cards → seal


def history_before(history: pl.DataFrame | None, card: str, kind: str) -> pl.DataFrame | None:
    """Questions of every earlier card of ``kind``, as the card's selection saw them."""
    if history is None:
        return None
    return history.filter((pl.col("kind") == kind) & (pl.col("card") < card)).select(
        "card", "market_id", "label", "question"
    )


def verdict_problems(
    key: str, frames: Mapping[str, pl.DataFrame], receipts: ReceiptStore, history: pl.DataFrame | None
) -> tuple[list[str], int]:
    """The card's copy, verdicts, questions and packet re-derived from its sweep's receipts alone."""
    raw = frames["raw_sweep"]
    pages = raw.filter(pl.col("outcome").is_in(PAGE_OUTCOMES)).sort("shard", "page")
    card = card_from_key(key)
    copied = copy_markets(key, pages["receipt_id"].to_list(), receipts)
    problems: list[str] = []
    for table, derived, keys in (
        ("verbatim_markets", copied.markets, ["market_id"]),
        ("copy_errors", copied.errors, [ID_FIELD]),
    ):
        if table in frames:
            problems += compare_rows(f"{table} card {key}", frames[table], derived, keys, ignore=())
    if "sweeps" not in frames or frames["sweeps"].is_empty():
        return [*problems, f"sweeps card {key}: no sweep row; the card's verdicts cannot be re-derived"], 0
    sweep = frames["sweeps"].row(0, named=True)
    kind = card_kind(str(sweep["exchange"]))
    if not any(t in frames for t in ("ranked_candidates", "card_questions", "packet")):
        # Not sealed (missed, or stopped before its seal): its copy is all there is to re-derive. A
        # sealed card without its tables is named by the seal check.
        return problems, 0
    # Re-derived under the reading of one-of-a-kind the card was judged under (its values say which).
    reading = reading_for(frames.get("ranked_candidates"))
    ranked = rank_candidates(card, copied.markets, copied.errors, history_before(history, key, kind), reading)
    if "ranked_candidates" in frames:
        problems += compare_rows(
            f"ranked_candidates card {key}", frames["ranked_candidates"], ranked.verdicts, ["market_id"]
        )
    if "packet" in frames or "card_questions" in frames:
        recorded = frames.get("packet")
        layout = PACKET_FORMAT
        if recorded is not None and recorded.height:
            layout = str(recorded["packet_format"][0])
        sealed = seal_card(card, ranked.verdicts, copied.markets, sweep, layout)
        for table, derived in (("card_questions", sealed.questions), ("packet", sealed.packet)):
            if table in frames:
                problems += compare_rows(
                    f"{table} card {key}",
                    frames[table],
                    derived,
                    ["market_id"] if table == "card_questions" else ["card"],
                )
    return problems, ranked.verdicts.height


# --------------------------------------------------------------------------------------------
# Answers: each seat's call replayed from its receipts, its reply read again


def _settings_problems(
    where: str, settings: Mapping[str, Any], omitted: frozenset[str], sent: Any
) -> list[str]:
    """The settings record against what the seat's requests carried, read from their bytes."""
    problems = []
    for name in sorted(omitted):
        if settings.get(name) != OMITTED:
            problems.append(f"{where}: {name} was given up in negotiation but is not recorded as {OMITTED}")
    final = sent[-1] if sent else None
    if final is not None:
        recorded = {k: settings.get(k) for k in NEGOTIABLE if settings.get(k) not in (OMITTED, None)}
        if final != recorded:
            problems.append(
                f"{where}: the settings record says {recorded}, its last request sent {dict(final)}"
            )
    return problems


def answer_problems(
    key: str,
    answers: pl.DataFrame,
    lines: pl.DataFrame | None,
    questions: pl.DataFrame | None,
    packet: pl.DataFrame | None,
    journal: Sequence[Mapping[str, Any]] | None,
    receipts: ReceiptStore,
    card_date: Any,
) -> list[str]:
    """Every seat's call replayed from its receipts (and its journal), every reply read again.

    The ``answers`` rows and ``answer_lines`` are re-derived with ``answering.answers.answer_tables``, the
    function that wrote them, from the receipts alone; the signed rows must be those, so an answer
    line can only say what the signed reply said.
    """
    what = f"answers card {key}"
    missing = [name for name, frame in (("card_questions", questions), ("packet", packet)) if frame is None]
    if missing:
        return [f"{what}: cannot be re-derived without {', '.join(missing)}"]
    assert questions is not None and packet is not None
    if journal is None:
        journal_file = f"journal/forecast/answers/card={key}.jsonl"
        return [f"{what}: the card has answers but no answers journal ({journal_file})"]
    calls = seat_calls(journal)
    sealed = packet.row(0, named=True)
    problems: list[str] = []
    results: dict[str, CallResult] = {}
    assignments: list[SeatAssignment] = []
    for row in answers.iter_rows(named=True):
        seat, where = row["seat"], f"{what} seat {row['seat']}"
        receipt_ids = [str(r) for r in row["receipt_ids"] or []]
        asked = calls.get(seat, [])
        stored = [r for _, r in asked if r is not None]
        if receipt_ids != stored:
            problems.append(f"{where}: names receipts {receipt_ids}, its journal records replies {stored}")
        try:
            replay = replay_seat(row["protocol"], receipt_ids, receipts)
            settings = json.loads(row["settings"])
        except (ReceiptError, ValueError) as exc:
            problems.append(f"{where}: its call cannot be replayed ({exc})")
            continue
        dark = bool(asked) and asked[-1][1] is None
        if replay.status is None:
            if not dark:
                problems.append(
                    f"{where}: after its last receipt the asking rules ask again, and its journal records "
                    "no further request"
                )
            status, text, error = "no_response", None, no_reply_error(asked[-1][0] if asked else 0)
        else:
            if dark:
                problems.append(f"{where}: its journal records a request after the call had ended")
            status, text, error = replay.status, replay.text, replay.error
        problems += _settings_problems(where, settings, replay.omitted, replay.sent)
        assignments.append(SeatAssignment(seat, row["protocol"], row["model"], "", None, bool(row["house"])))
        results[seat] = CallResult(
            status=status,
            text=text,
            receipt_ids=tuple(receipt_ids),
            attempts=len(receipt_ids),
            settings_record=settings,
            error=error,
            model=row["model"],
            protocol=row["protocol"],
        )
    versions = sorted(set(answers["rules"].to_list())) if "rules" in answers.columns else []
    if len(versions) != 1:
        return [*problems, f"{what}: its rows name reading rules {versions}, not one version"]
    try:
        derived_seats, derived_lines = answer_tables(
            key,
            card_date,
            sealed["packet_id"],
            questions,
            assignments,
            results,
            sealed["kind"],
            packet=str(sealed["packet_text"]).encode("utf-8"),
            reading_rules=str(versions[0]),
        )
    except ValueError as exc:  # reading rules this verifier does not implement
        return [*problems, f"{what}: cannot be re-read ({exc})"]
    seats = answers.drop([c for c in SIGNATURE_COLUMNS if c in answers.columns])
    kept = derived_seats.filter(pl.col("seat").is_in(list(results)))
    problems += compare_rows(what, seats.filter(pl.col("seat").is_in(list(results))), kept, ["seat"])
    if lines is None:
        problems.append(f"answer_lines card {key}: missing, though the card has answers")
    else:
        recorded = lines.filter(pl.col("seat").is_in(list(results)))
        problems += compare_rows(f"answer_lines card {key}", recorded, derived_lines, ["seat", "label"])
    for seat in sorted(set(calls) - set(answers["seat"].to_list())):
        problems.append(f"{what}: its journal records requests to seat {seat}, which has no answers row")
    return problems


# --------------------------------------------------------------------------------------------
# Settlements: each row read again from the receipt it names


SETTLEMENT_FIELDS = ("outcome_prices", "closed_time", "uma_resolution_status", "observed_at")


def settlement_problems(
    key: str, settlements: pl.DataFrame, questions: pl.DataFrame | None, receipts: ReceiptStore
) -> list[str]:
    """Every settlement row's status and outcome, as its receipt reads under COLOSSEUM-SETTLEMENT-1."""
    problems: list[str] = []
    rows = list(settlements.iter_rows(named=True))
    label_of = dict(questions.select("market_id", "label").iter_rows()) if questions is not None else None
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    unreadable: dict[str, str] = {}
    wanted = [str(r["market_id"]) for r in rows]
    for receipt_id in dict.fromkeys(str(r["receipt_id"]) for r in rows):
        try:
            observed = observations(receipts, [receipt_id], wanted)
        except (ReceiptError, ValueError, KeyError) as exc:
            unreadable[receipt_id] = str(exc)
            continue
        for obs in observed.iter_rows(named=True):
            seen.setdefault((obs["market_id"], receipt_id), obs)
    for row in rows:
        where = (
            f"settlements card {key} row {row.get(ID_FIELD)} (market {row['market_id']}, {row.get('label')})"
        )
        if row["receipt_id"] in unreadable:
            problems.append(f"{where}: its receipt cannot be read: {unreadable[row['receipt_id']]}")
            continue
        obs = seen.get((str(row["market_id"]), str(row["receipt_id"])))
        if obs is None:
            problems.append(f"{where}: receipt {row['receipt_id']} does not mention the market")
            continue
        expected = {
            "status": obs["state"],
            "outcome": obs["outcome"],
            "winner": None if obs["outcome"] is None else ("Yes" if obs["outcome"] == 1 else "No"),
            **{f: obs[f] for f in SETTLEMENT_FIELDS},
        }
        if label_of is not None:
            expected["label"] = label_of.get(row["market_id"])
        for field, value in expected.items():
            if field in row and not same(row[field], value):
                recorded, read = _short(row[field]), _short(value)
                problems.append(f"{where}: {field} is {recorded} in the record, its receipt reads {read}")
    return problems


# --------------------------------------------------------------------------------------------
# Scores


def score_problems(
    key: str,
    scores: pl.DataFrame,
    lines: pl.DataFrame,
    seats: pl.DataFrame,
    questions: pl.DataFrame,
    settlements: pl.DataFrame,
) -> list[str]:
    """Every score re-derived from its answer line and settlement, and every settled answer scored."""
    problems = rescoring_problems(scores, lines, seats, questions, settlements)
    fresh = score_card(lines, seats, questions, settlements)
    current = scores.filter(pl.col("formula") == COLOSSEUM_SCORING)
    for row in fresh.join(current.select(SCORE_KEY), on=list(SCORE_KEY), how="anti").iter_rows(named=True):
        problems.append(
            f"scores card {key} seat {row['seat']} {row['label']} (market {row['market_id']}): settled "
            f"and answered, but no {COLOSSEUM_SCORING} score in the record"
        )
    return problems


# --------------------------------------------------------------------------------------------
# Boards


BOARD_KEYS = {
    "leaderboard": ("kind", "entrant_type", "entrant"),
    "calibration": ("kind", "entrant_type", "entrant", "confidence"),
}


def board_problems(
    scores: pl.DataFrame | None,
    recorded: Mapping[str, pl.DataFrame | None],
    *,
    source: Mapping[str, str] | None = None,
    built: Boards | None = None,
) -> tuple[list[str], list[str], int]:
    """The boards rebuilt from ``scores`` (or given as ``built``) against each recorded one in ``recorded``.

    Returns (problems, notes, rows compared). ``source`` names where each recorded board was read.
    """
    if built is None:
        assert scores is not None
        built = build_boards(scores)
    derived = {"leaderboard": built.leaderboard, "calibration": built.calibration}
    problems: list[str] = []
    notes: list[str] = []
    compared = 0
    for table, frame in recorded.items():
        keys = BOARD_KEYS[table]
        label = (source or {}).get(table, table)
        if frame is None:
            if not derived[table].is_empty():
                problems.append(f"{label}: missing, though the scores make {derived[table].height} rows")
            continue
        compared += frame.height
        for column in ENVIRONMENT_COLUMNS:
            if column in frame.columns and column in derived[table].columns:
                theirs = set(derived[table][column].unique().to_list())
                mine = set(frame[column].unique().to_list())
                if mine != theirs:
                    notes.append(
                        f"{label}: recorded with {column} {sorted(map(str, mine))}, "
                        f"re-derived with {sorted(map(str, theirs))}"
                    )
        problems += compare_rows(label, frame, derived[table], keys, ignore=(ID_FIELD, *ENVIRONMENT_COLUMNS))
    return problems, notes, compared
