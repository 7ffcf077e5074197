"""Verification benchmark: ``verify_record`` over a million signed answers.

An answer is one seat's answer to one question (seat × question), as ``benchmarks/scoring.py`` counts
them. Each seat's record for a card, its ``answers`` row, lists its binding answers ("M01 YES 7", …)
and carries the two signatures (method §9), so every answer is signed twice through its seat record;
the per-question rows are the ``answer_lines`` table.

``--unit answer`` (the default): ``--answers N`` is N answer lines, in ⌈N / (13 × 25)⌉ cards, each
with 13 ``answers`` rows (``colosseum_core.forecast.answering.answers.SEAT_SCHEMA``: statuses, settings and
format records, binding answers, reply receipt ids), each signed by its seat's Ed25519 key and
countersigned by the arena's with ``colosseum_core.trust.signing.sign_record`` (``answer_signatures``), and
325 ``answer_lines`` rows (``LINE_SCHEMA``, the same calls and confidences as the seat rows), plus the
``public_keys``. ``--unit record``: N is N signed seat records (``answers`` rows), ⌈N / 13⌉ cards,
without ``answer_lines`` (the benchmark's earlier measure). Both write the record as the record
writes it, with real identifiers: one Parquet file per table and card under
``warehouse/forecast/<table>/card=<key>/data.parquet``. The record is generated in processes, cached in
``--dir`` (a subdirectory per unit) and reused; progress goes to stderr, and an interrupted
generation resumes.

Then it times ``verify_record`` over it with ``--workers`` processes. Only these tables are
present, so the identifier and signature checks do all the work; the other checks find nothing.

    python benchmarks/verify.py                         # 1,000,000 answers, 2 workers
    python benchmarks/verify.py --quick                 # 20,000 answers: the smoke test
    python benchmarks/verify.py --unit record           # 1,000,000 signed seat records (2,000,000 signatures)
    python benchmarks/verify.py --answers 200000 --workers 1 --json
    python benchmarks/verify.py --profile 300           # where one worker's time goes, per 300 cards

The target is 120 s for a million answers on 2 cores, i.e. ≥ 8,334 answers a second (a start-up
allowance of 5 s is granted to smaller runs); with ``--unit record`` it applies to seat records.
Exit status 0 when the record verifies clean within the target, else 1. Besides the wall time it
prints the workers' processor time: on a shared machine the two differ. Mind the floor: a seat record
carries two Ed25519 signatures, and where OpenSSL verifies ~5,600 a second per core (``openssl speed
ed25519``), a million answers (~40,000 seat records, ~80,000 signatures) need ~7 s of two cores for
them, a million seat records (two million signatures) ~176 s.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import datetime as dt
import hashlib
import io
import json
import math
import multiprocessing
import os
import pstats
import random
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import polars as pl

from colosseum_core.arenas import AUDITS
from colosseum_core.forecast.answering.answers import LINE_SCHEMA, SEAT_SCHEMA
from colosseum_core.forecast.answering.reading import (
    CONFIDENCE_FORMS,
    JSON_ANSWERS,
    MARKDOWN_TABLE,
    PROSE_LINES,
    RECOVERY_STEPS,
    SEPARATORS,
    TRIM_AND_CASE,
)
from colosseum_core.forecast.answering.seats import load_seats
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.audit.record import check_cards
from colosseum_core.forecast.rules import COLOSSEUM_READING
from colosseum_core.forecast.schedule import SLOTS
from colosseum_core.forecast.sealing.card import CALIBRATION, FIGHT
from colosseum_core.record import RecordTables, row_id
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.record.ledger import FileEntry, sidecar_path
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.trust.keys import ARENA, SigningKey, public_keys_frame
from colosseum_core.trust.signing import sign_record, signatures_frame
from colosseum_core.verify import verify_record
from colosseum_core.verify.canonical import content_ids

FORMAT = "colosseum-verify-bench/4"  # 4: the arenas' folders (warehouse/forecast/…)
TARGET_SECONDS_PER_MILLION = 120.0
START_UP_ALLOWANCE_S = 5.0
QUICK = 20_000
FIRST_DAY = dt.date(2026, 1, 1)
CARDS_PER_CHUNK = 200
SEATS = tuple(load_seats())
SEAT_IDS = tuple(s.id for s in SEATS)
LABELS = tuple(f"M{j:02d}" for j in range(1, 26))
SETTINGS = json.dumps(
    {"max_tokens": 16384, "seed": 0, "temperature": 0.0, "timeout_s": 300.0, "top_p": 1.0}, sort_keys=True
)
# The tolerances a sloppy reply needs, one per reply (the last, in published order, is the line's step).
SLOPPY_STEPS = (TRIM_AND_CASE, SEPARATORS, CONFIDENCE_FORMS, PROSE_LINES, MARKDOWN_TABLE, JSON_ANSWERS)
STEP_ORDER = {step.name: i for i, step in enumerate(RECOVERY_STEPS)}


@dataclasses.dataclass(frozen=True)
class Unit:
    """What ``--answers`` counts, how many of them a card holds, and the tables written."""

    name: str
    per_card: int
    tables: tuple[str, ...]
    noun: str


UNITS = {
    "answer": Unit(
        "answer",
        len(SEAT_IDS) * len(LABELS),
        ("answer_lines", "answer_signatures", "answers", "public_keys"),
        "answers (seat × question)",
    ),
    "record": Unit(
        "record", len(SEAT_IDS), ("answer_signatures", "answers", "public_keys"), "signed seat records"
    ),
}


def card_keys(n: int) -> list[str]:
    """``n`` consecutive real card keys from the first day: three a day, in seal order."""
    slots = sorted(SLOTS)
    return [f"{(FIRST_DAY + dt.timedelta(days=i // 3)).isoformat()}-{slots[i % 3]}" for i in range(n)]


def _key(name: str, seed: int) -> SigningKey:
    return SigningKey.from_seed(
        name, hashlib.sha256(f"verify-bench:{seed}:{name}".encode()).digest(), FIRST_DAY
    )


def _hex(rng: random.Random) -> str:
    return f"{rng.getrandbits(256):064x}"


# One label as the reader leaves it: status, call, confidence, step, steps, reason.
Read = tuple[str, str | None, int | None, str | None, tuple[str, ...], str | None]


def read_reply(rng: random.Random) -> tuple[list[Read], int]:
    """What ``read_reply`` would make of one seat's reply, per label, and its count of unmatched lines.

    Mostly strict replies (a label now and then left out); some sloppy ones, read by one recovery
    step, with a line now and then that cannot be read; a few that bind nothing at all.
    """
    style = rng.random()
    if style < 0.02:  # prose without an answer line: a forfeit
        return [("unbound", None, None, None, (), "no answer")] * len(LABELS), 0
    reads: list[Read] = []
    unmatched = 0
    step = rng.choice(SLOPPY_STEPS) if style >= 0.80 else None
    for _ in LABELS:
        roll = rng.random()
        call, confidence = rng.choice(("YES", "NO")), rng.randint(1, 10)
        if step is None:
            reads.append(
                ("unbound", None, None, None, (), "no answer")
                if roll < 0.02
                else ("answered", call, confidence, None, (), None)
            )
        elif roll < 0.03:
            unmatched += 1
            reads.append(("unbound", None, None, None, (), "unreadable answer"))
        elif roll < 0.13:
            reads.append(("answered", call, confidence, None, (), None))
        else:
            reads.append(("recovered", call, confidence, step, (step,), None))
    return reads, unmatched


def format_record(reads: list[Read], unmatched: int) -> dict[str, Any]:
    """``colosseum_core.forecast.answering.reading.format_record`` of the reading ``reads``."""
    statuses = [r[0] for r in reads]
    used: dict[str, int] = {}
    for read in reads:
        for name in read[4]:
            used[name] = used.get(name, 0) + 1
    return {
        "rules": COLOSSEUM_READING,
        "answered": statuses.count("answered"),
        "recovered": statuses.count("recovered"),
        "unbound": statuses.count("unbound"),
        "unmatched": unmatched,
        "quotations": 0,
        "bad_formatting": statuses.count("recovered") > 0 or unmatched > 0,
        "steps_used": dict(sorted(used.items(), key=lambda item: STEP_ORDER[item[0]])),
        "unbound_reasons": {label: r[5] for label, r in zip(LABELS, reads, strict=True) if r[0] == "unbound"},
        "truncated": False,
        "not_utf8": False,
        "notes": [],
    }


def seat_answers(
    rng: random.Random,
    card: str,
    kind: str,
    seat_index: int,
    packet_id: str,
    market_ids: list[str],
    lines: dict[str, list[Any]] | None,
) -> dict[str, Any]:
    """One seat's ``answers`` row, as ``answer_card`` writes it; its ``answer_lines`` rows go to ``lines``."""
    seat = SEATS[seat_index]
    gladiator = seat.gladiators[-1]
    roll = rng.random()
    call_status = "answered" if roll < 0.93 else "no_response" if roll < 0.97 else "refused"
    reads, unmatched = read_reply(rng) if call_status == "answered" else (None, 0)
    pairs = zip(LABELS, reads, strict=True) if reads else ()
    binding = [f"{label} {r[1]} {r[2]}" for label, r in pairs if r[0] in ("answered", "recovered")]
    if lines is not None:
        for label, market_id, r in zip(LABELS, market_ids, reads or [(None,) * 6] * len(LABELS), strict=True):
            binds = r[0] in ("answered", "recovered")
            lines["card"].append(card)
            lines["seat"].append(seat.id)
            lines["label"].append(label)
            lines["market_id"].append(market_id)
            lines["call"].append(r[1])
            lines["confidence"].append(r[2])
            lines["status"].append(r[0] or "unbound")
            lines["binding"].append(binds)
            lines["step"].append(r[3])
            lines["reason"].append(None if binds else r[5] if reads else f"seat {call_status}")
            lines["rules"].append(COLOSSEUM_READING)
    record = format_record(reads, unmatched) if reads else {}
    attempts = 2 if call_status == "refused" else 1
    return {
        "card": card,
        "card_date": card[:10],
        "seat": seat.id,
        "protocol": gladiator.protocol,
        "model": gladiator.model,
        "house": False,
        "kind": kind,
        "packet_id": packet_id,
        "status": ("answered" if binding else "forfeited") if call_status == "answered" else call_status,
        "attempts": attempts,
        "receipt_ids": [_hex(rng) for _ in range(attempts)],
        "settings": SETTINGS,
        "error": {"answered": None, "no_response": "timed out after 300 s", "refused": "HTTP 400: refused"}[
            call_status
        ],
        "bad_formatting": bool(record.get("bad_formatting", False)),
        "answered": record.get("answered", 0),
        "recovered": record.get("recovered", 0),
        "unbound": record.get("unbound", len(LABELS)),
        "unmatched": record.get("unmatched", 0),
        "format_record": json.dumps(record, sort_keys=True),
        "binding_answers": binding,
        "rules": COLOSSEUM_READING,
    }


def _with_ids(frame: pl.DataFrame, what: str) -> pl.DataFrame:
    """``with_ids(frame)``, computed by the batch canonicaliser (the same ids, ~50 times faster)."""
    ids, errors = content_ids(frame)
    if errors:
        raise ValueError(f"{what}: rows without canonical JSON: {errors}")
    return frame.insert_column(0, pl.Series("id", ids, dtype=pl.String))


def generate_chunk(root: str, seed: int, unit_name: str, start: int, keys: list[str]) -> int:
    """Write the tables of ``unit_name`` for ``keys`` (cards ``start``…) into the record."""
    unit = UNITS[unit_name]
    tables = RecordLayout(Path(root)).tables(FORECAST)

    def write(table: str, data: bytes, card: str) -> None:
        # Not RecordTables.write_bytes: its fsyncs per file would double the time of many small
        # files, and an interrupted chunk is regenerated whole anyway (its .done marker comes last).
        # The ledger entry is the writer's own, byte for byte.
        path = tables.path(table, card)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        entry = FileEntry(hashlib.sha256(data).hexdigest(), len(data))
        sidecar_path(path).write_bytes(entry.encode())

    arena = _key(ARENA, seed)
    seat_keys = {seat: _key(seat, seed) for seat in SEAT_IDS}
    keys_bytes = parquet_bytes(public_keys_frame([arena.record, *(k.record for k in seat_keys.values())]))
    for offset, card in enumerate(keys):
        index = start + offset
        rng = random.Random(f"{seed}:{index}")
        packet_id = _hex(rng)
        kind = CALIBRATION if index % 10 == 9 else FIGHT
        # One question, one card, ever: the card's markets are numbered by its position.
        market_ids = [str(5_000_000 + index * len(LABELS) + j) for j in range(len(LABELS))]
        lines = {name: [] for name in LINE_SCHEMA} if "answer_lines" in unit.tables else None
        rows = [seat_answers(rng, card, kind, i, packet_id, market_ids, lines) for i in range(len(SEATS))]
        answers = _with_ids(pl.DataFrame(rows, schema=SEAT_SCHEMA), f"answers card {card}")
        # sign_record recomputes each row's id with the reference row_id and refuses a stored id
        # that differs, so every seat row's batch id is checked here.
        signed = [sign_record(row, seat_keys[row["seat"]], arena) for row in answers.iter_rows(named=True)]
        write("answers", parquet_bytes(answers), card)
        write("answer_signatures", parquet_bytes(signatures_frame(signed)), card)
        write("public_keys", keys_bytes, card)
        if lines is not None:
            frame = _with_ids(pl.DataFrame(lines, schema=LINE_SCHEMA), f"answer_lines card {card}")
            write("answer_lines", parquet_bytes(frame), card)
    return len(keys)


def _check_sample(tables: RecordTables, unit: Unit, keys: list[str], seed: int) -> None:
    """A sample of cards: ids against the reference ``row_id``, lines against their seat rows."""
    for card in random.Random(seed).sample(keys, min(12, len(keys))):
        for table in unit.tables:
            frame = tables.read(table, card)
            assert [row_id(r) for r in frame.iter_rows(named=True)] == frame["id"].to_list(), (table, card)
        if "answer_lines" not in unit.tables:
            continue
        lines = tables.read("answer_lines", card)
        assert lines.height == unit.per_card, card
        for seat in tables.read("answers", card).iter_rows(named=True):
            mine = lines.filter(pl.col("seat") == seat["seat"], pl.col("binding"))
            bound = [f"{r['label']} {r['call']} {r['confidence']}" for r in mine.iter_rows(named=True)]
            assert bound == seat["binding_answers"], (card, seat["seat"])
            assert mine.height == seat["answered"] + seat["recovered"] == 25 - seat["unbound"], card


def ensure_record(
    directory: Path, unit: Unit, count: int, seed: int, workers: int
) -> tuple[Path, int, float]:
    """The cached record for (unit, count, seed) under ``directory``; generated (or finished) if needed."""
    cards = math.ceil(count / unit.per_card)
    params = {"format": FORMAT, "unit": unit.name, "cards": cards, "seats": list(SEAT_IDS), "seed": seed}
    marker, root, chunks_dir = directory / "BENCH.json", directory / "data", directory / "chunks"
    if marker.exists() and json.loads(marker.read_text()) == params:
        return root, cards, 0.0
    stated = chunks_dir / "params.json"
    if directory.exists() and (not stated.exists() or json.loads(stated.read_text()) != params):
        if any(directory.iterdir()) and not (chunks_dir.exists() or marker.exists()):
            raise SystemExit(f"{directory} exists and is not a benchmark record; give another --dir")
        shutil.rmtree(directory)
    chunks_dir.mkdir(parents=True, exist_ok=True)
    stated.write_text(json.dumps(params))
    keys = card_keys(cards)
    todo = [
        (i, keys[i : i + CARDS_PER_CHUNK])
        for i in range(0, cards, CARDS_PER_CHUNK)
        if not (chunks_dir / f"{i}.done").exists()
    ]
    started = time.perf_counter()
    done = cards - sum(len(k) for _, k in todo)
    print(
        f"generating {cards:,} cards × {unit.per_card:,} {unit.noun} into {root}"
        f" ({done:,} cards already there)",
        file=sys.stderr,
    )
    # Not fork: a forked child of a process that has run polars' thread pool can deadlock.
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("forkserver")
    ) as pool:
        futures = {pool.submit(generate_chunk, str(root), seed, unit.name, i, k): i for i, k in todo}
        made = 0
        for future in as_completed(futures):
            made += future.result()
            (chunks_dir / f"{futures[future]}.done").touch()
            elapsed = time.perf_counter() - started
            rate = made / elapsed
            left = (cards - done - made) / rate if rate else 0
            per_s = f"{rate * unit.per_card:,.0f} {unit.name}s/s"
            line = f"{done + made:,}/{cards:,} cards, {per_s}, ~{left:,.0f} s left"
            print(f"\r  {line} ", end="", file=sys.stderr)
    print(file=sys.stderr)
    _check_sample(RecordLayout(root).tables(FORECAST), unit, keys, seed)
    marker.write_text(json.dumps(params))
    return root, cards, time.perf_counter() - started


def profile(root: Path, cards: int, unit: Unit) -> str:
    """One worker's time over ``cards`` cards, by function (what to make faster)."""
    keys = card_keys(cards)
    profiler = cProfile.Profile()
    profiler.enable()
    check_cards(str(root), keys, unit.tables, False)  # as verify_record calls it: the record has no receipts
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(18)
    return text.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--answers", type=int, default=1_000_000, help="answers, or seat records (default 1,000,000)"
    )
    parser.add_argument(
        "--unit",
        choices=sorted(UNITS),
        default="answer",
        help="what --answers counts: answer lines (seat × question, the default) or signed seat records",
    )
    parser.add_argument("--quick", action="store_true", help=f"{QUICK:,} answers: a smoke test")
    parser.add_argument("--seed", type=int, default=2026, help="generation seed (default 2026)")
    parser.add_argument("--workers", type=int, default=2, help="verification processes (default 2)")
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="record cache, one subdirectory per unit (default: the temp dir)",
    )
    parser.add_argument("--profile", type=int, default=0, metavar="CARDS", help="also profile one worker")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    unit = UNITS[args.unit]
    count = QUICK if args.quick else args.answers
    if count < 1:
        parser.error("--answers must be at least 1")
    base = args.dir or Path(tempfile.gettempdir()) / f"colosseum-verify-bench-{count}-s{args.seed}"
    root, cards, generated_s = ensure_record(
        base / unit.name, unit, count, args.seed, max(1, min(2, os.cpu_count() or 1))
    )
    records = cards * len(SEAT_IDS)
    lines = cards * unit.per_card if unit.name == "answer" else 0
    measured = lines or records

    last = [0.0]

    def progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 2 or done == total:
            last[0] = now
            print(
                f"\r  verify: {stage} {done:,}/{total:,} ", end="" if done < total else "\n", file=sys.stderr
            )

    started = time.perf_counter()
    report = verify_record(root, AUDITS, workers=args.workers, progress=progress)
    seconds = time.perf_counter() - started
    target = TARGET_SECONDS_PER_MILLION * measured / 1_000_000 + (
        0 if measured >= 1_000_000 else START_UP_ALLOWANCE_S
    )
    signatures = report.checked["signatures"]
    # Every table's rows have their ids checked: seat rows, their signatures, the keys (seats and
    # arena), the lines.
    expected_rows = cards * (len(SEAT_IDS) + len(SEAT_IDS) + len(SEAT_IDS) + 1) + lines
    result: dict[str, Any] = {
        "unit": unit.name,
        "answers": measured,
        "seat_records": records,
        "answer_lines": lines,
        "cards": cards,
        "files": report.checked["files"],
        "layout": "one Parquet file per table and card",
        "workers": args.workers,
        "cpus": os.cpu_count(),
        "generated_s": round(generated_s, 1),
        "verify_s": round(seconds, 2),
        "worker_cpu_s": round(report.cpu_seconds, 1),
        # Of the wall time, how much the workers were on a processor: under 1 on a shared machine.
        "cpu_share": round(report.cpu_seconds / (seconds * args.workers), 2),
        "answers_per_s": round(measured / seconds),
        "seat_records_per_s": round(records / seconds),
        "signatures": signatures,
        "signatures_per_s": round(signatures / seconds),
        "target_s": round(target, 1),
        "target_per_s": round(measured / target),
        "within_target": seconds <= target,
        "checked": report.checked,
        "problems": len(report.problems),
        "first_problems": report.problems[:5],
    }
    complete = signatures == 2 * records and report.checked["rows"] == expected_rows
    result["complete"] = complete
    ok = result["within_target"] and report.ok() and complete
    if args.profile:
        result["profile"] = profile(root, min(args.profile, cards), unit)
    if args.json:
        print(json.dumps(result))
        return 0 if ok else 1
    verdict = "within target" if result["within_target"] else "OVER TARGET"
    per_card = f"{len(SEAT_IDS)} seats × {len(LABELS)} questions" if lines else f"{len(SEAT_IDS)} seats"
    print(
        f"verify_record over {measured:,} {unit.noun} in {cards:,} cards ({per_card} a card, "
        f"{result['files']:,} files), {args.workers} workers"
    )
    made = f"{generated_s:8.1f} s" if generated_s else "  cached  "
    print(f"  generation            {made}   (not timed against the target)")
    print(f"  total                 {seconds:8.1f} s   target ≤ {target:.0f} s: {verdict}")
    share = result["cpu_share"]
    print(f"  workers' processor    {report.cpu_seconds:8.1f} s   ({share:.0%} of {args.workers} × wall)")
    name = "answers" if lines else "seat records"
    print(f"  {name + ' / s':21} {result['answers_per_s']:8,}   (target ≥ {result['target_per_s']:,})")
    if lines:
        print(f"  seat records / s      {result['seat_records_per_s']:8,}   ({records:,} signed records)")
    print(f"  signatures / s        {result['signatures_per_s']:8,}   ({signatures:,} verified)")
    print(f"  rows with ids checked {report.checked['rows']:8,}   (expected {expected_rows:,})")
    print(f"  problems              {len(report.problems):8,}")
    for problem in result["first_problems"]:
        print(f"    {problem}")
    if args.profile:
        print(result["profile"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
