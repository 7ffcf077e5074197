"""`colosseum verify` over a record of every arena (issue 37): one seal audit and one journal audit for
all of them, a corrupt table file named once, a broken receipt leading the problems it causes, and a
site's signer checked against the record or a pinned key.

One record is made through the real commands: a forecast card, settled (the CLI), a debate epoch with its
topic rotation (the real Definitions, against the local ledger, sparring server and exchange), and a
Solve-or-Object event (the CLI; it needs the sandbox, and its cases are skipped without it).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.arenas import AUDITS, PUBLIC_SITE
from colosseum_core.debate.arena import DEBATE
from colosseum_core.events.arena import EVENTS
from colosseum_core.forecast.answering.seats import DEFAULT_REGISTRY, load_seats
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.site.names import seat_name
from colosseum_core.record import with_ids
from colosseum_core.record.journal import read_journal
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import write_recorded
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.site.check import link_problem
from colosseum_core.site.page_parse import read_page
from colosseum_core.trust.bundle import ENVELOPE_NAME, MANIFEST_NAME, sign_bundle
from colosseum_core.trust.keys import ARENA, KeyStore, PublicKeyRecord, SigningKey, public_keys_frame
from colosseum_core.verify import VerifyReport, verify_path, verify_record
from colosseum_core.verify.site import key_id_from
from tests.conftest import cli
from tests.support import run_colosseum
from tests.support.debate import OTHERS, Arena, debate_servers, enter
from tests.support.sandbox import _reason as sandbox_missing

CARD = "2026-11-20-0500"
EVENT = "soo-verify"
ROTATION = "2026-01-04T00Z"


def colosseum(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process (``verify`` in that process: a small record needs no pool)."""
    workers = ["--workers", "1"] if args[0] == "verify" else []
    return run_colosseum(*args, *workers)


@pytest.fixture(scope="module")
def every_arena(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("arenas") / "data"
    assert cli("forecast", "card", "run", CARD, "--markets", "800", "--data", str(data)) == 0
    settle = ("--at", "2026-12-30T00:00:00Z", "--markets", "800", "--data", str(data))
    assert cli("forecast", "settle", *settle) == 0  # a site's board needs scores to verify
    with debate_servers() as (ledger_url, ledger, sparring, exchange):
        enter(ledger, OTHERS)
        Arena(data, ledger_url, ledger, sparring, exchange).epoch()
    if sandbox_missing() is None:
        freeze = ("--pairs", "2", "--seed", "11", "--replicates", "99", "--data", str(data))
        assert cli("events", "solve-or-object", "event", "freeze", EVENT, *freeze) == 0
        assert cli("events", "solve-or-object", "event", "run", EVENT, "--data", str(data)) == 0
    return data


@pytest.fixture
def copy(every_arena: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(every_arena, tmp_path / "data"))


def _epoch(data: Path) -> str:
    [epoch] = Record(data).tables(DEBATE).partitions("entries")
    return epoch


def _needs(arena: str) -> None:
    if arena == "events" and sandbox_missing() is not None:
        pytest.skip(f"the Solve-or-Object event needs the sandbox: {sandbox_missing()}")


def _has(report: VerifyReport, *parts: str) -> bool:
    return any(all(p in line for p in parts) for line in report.problems)


def test_a_record_of_every_arena_verifies_with_its_seals_and_journals_counted_per_arena(
    every_arena: Path,
) -> None:
    report = verify_record(every_arena, AUDITS, workers=2)
    assert report.ok(), report.problems[:10]
    arenas = report.per_arena
    assert (arenas["forecast"]["seals"], arenas["debate"]["seals"], arenas["debate_topics"]["seals"]) == (
        1,
        1,
        1,
    )
    assert arenas["forecast"]["journals"] == 1 and arenas["debate"]["journals"] == 1
    entries = sum(len(read_journal(p)[0]) for p in (every_arena / "journal").rglob("*.jsonl"))
    assert report.checked["journal_entries"] == entries == sum(a["journal_entries"] for a in arenas.values())
    assert report.checked["files"] == len(list((every_arena / "warehouse").rglob("*.parquet")))
    if sandbox_missing() is None:
        assert arenas["events"]["seals"] == 1 and arenas["events"]["journals"] == 1
    done = colosseum("verify", str(every_arena), "--quiet")
    assert done.returncode == 0, done.stdout
    assert "per arena: forecast 1 seals" in done.stdout and "debate 1 seals" in done.stdout


# --------------------------------------------------------------------------------------------
# One seal audit for every arena


SEALS = {
    "forecast": ("forecast/card={key}.json", "packet"),
    "debate": ("debate/epoch={key}.json", "games"),
    "debate_topics": ("debate_topics/rotation={key}.json", "motions"),
    "events": ("events/event={key}.json", "soo_replies"),
}


@pytest.mark.parametrize("fix_ledger", [False, True], ids=["sidecar-stale", "sidecar-fixed"])
@pytest.mark.parametrize("arena", list(SEALS))
def test_a_table_hash_edited_in_any_arenas_seal_is_named_with_both_hashes(
    copy: Path, arena: str, fix_ledger: bool
) -> None:
    _needs(arena)
    key = {"forecast": CARD, "debate": _epoch(copy), "debate_topics": ROTATION, "events": EVENT}[arena]
    name, table = SEALS[arena]
    seal = copy / "seals" / name.format(key=key)
    doc = json.loads(seal.read_text())
    actual = doc["tables"][table]
    doc["tables"][table] = forged = "ab" * 32
    data = json.dumps(doc, indent=1, sort_keys=True).encode()
    if fix_ledger:
        write_recorded(seal, data)  # as if the record's writer had written it: only the hashes tell
    else:
        seal.write_bytes(data)
    report = verify_record(copy, AUDITS, workers=1)
    assert not report.ok()
    rel = f"seals/{name.format(key=key)}"
    assert _has(report, rel, table, actual, forged), report.problems
    assert _has(report, rel, "not to the recorded") is not fix_ledger


def test_a_sealed_table_the_seal_does_not_name_and_a_selection_table_without_a_seal_are_named(
    copy: Path,
) -> None:
    epoch = _epoch(copy)
    seal = copy / "seals" / "debate" / f"epoch={epoch}.json"
    doc = json.loads(seal.read_text())
    del doc["tables"]["turns"]
    write_recorded(seal, json.dumps(doc, indent=1, sort_keys=True).encode())
    topic_seal = copy / "seals" / "debate_topics" / f"rotation={ROTATION}.json"
    topic_seal.unlink()
    topic_seal.with_name(topic_seal.name + ".sha256").unlink()
    report = verify_record(copy, AUDITS, workers=1)
    assert _has(report, f"warehouse/debate/turns/epoch={epoch}/data.parquet", "does not name it")
    assert _has(report, f"motions of rotation {ROTATION} is written, but the rotation has no seal")


# --------------------------------------------------------------------------------------------
# One journal audit for every arena


JOURNALS = {
    "forecast": "journal/forecast/answers/card={key}.jsonl",
    "debate": "journal/debate/games/epoch={key}.jsonl",
    "events": "journal/events/soo_replies/event={key}.jsonl",
}


def _flip(lines: list[bytes]) -> list[bytes]:
    line = lines[1]
    at = line.index(b'"prev":"') + len(b'"prev":"')  # one bit of a hex digit: still JSON
    lines[1] = line[:at] + bytes([line[at] ^ 0x01]) + line[at + 1 :]
    return lines


CHANGES: dict[str, Callable[[list[bytes]], list[bytes]]] = {
    "flipped": _flip,
    "deleted": lambda lines: [lines[0], *lines[2:]],
    "deleted-last": lambda lines: lines[:-1],
    "reordered": lambda lines: [lines[1], lines[0], *lines[2:]],
}


@pytest.mark.parametrize("change", list(CHANGES))
@pytest.mark.parametrize("arena", list(JOURNALS))
def test_a_changed_journal_line_is_named_in_every_arena(copy: Path, arena: str, change: str) -> None:
    _needs(arena)
    key = {"forecast": CARD, "debate": _epoch(copy), "events": EVENT}[arena]
    rel = JOURNALS[arena].format(key=key)
    path = copy / rel
    lines = path.read_bytes().split(b"\n")[:-1]
    if arena == "debate":
        assert len(lines) == 3  # one game a line
    path.write_bytes(b"\n".join(CHANGES[change](lines)) + b"\n")
    report = verify_record(copy, AUDITS, workers=1)
    assert not report.ok()
    if change == "deleted-last":
        # The chain before it is whole: the arena's tables, which the lost line wrote, say so.
        assert _has(report, key, "journal"), report.problems
    else:
        assert report.causes and report.causes[0].problem.startswith(f"{rel} line "), report.problems
        assert report.problems[0] == report.causes[0].problem


def test_a_rotation_whose_candidates_are_not_the_ones_its_sources_gave_is_named(copy: Path) -> None:
    """The collection journal is what a rotation is re-derived from after a crash: it is a journal
    the topics' audit describes, and a rotation whose candidates are not the ones journalled is named
    (the journal re-chained, as a forger would)."""
    from colosseum_core.record.journal import Journal

    assert not any("does not describe" in n for n in verify_record(copy, AUDITS, workers=1).notes)
    [path] = (copy / "journal" / "debate_topics" / "collected").glob("*.jsonl")
    key = path.stem.split("=", 1)[1]
    [entry] = Journal(path).entries()
    body = {k: v for k, v in entry.items() if k not in ("seq", "prev")}
    body["candidates"] = body["candidates"][1:]
    path.unlink()
    Journal(path).append(body)
    report = verify_record(copy, AUDITS, workers=1)
    assert report.problems == [
        f"topic_candidates rotation {key}: not the candidates its collection journal recorded"
    ], report.problems


def test_debate_games_that_are_not_the_ones_journalled_are_named(copy: Path) -> None:
    epoch = _epoch(copy)
    tables = Record(copy).tables(DEBATE)
    games = tables.read("games", epoch)
    target = games.row(0, named=True)
    forged = games.with_columns(
        reason=pl.when(pl.col("game_id") == target["game_id"])
        .then(pl.lit(target["reason"] + " "))
        .otherwise("reason")
    )
    tables.write("games", with_ids(forged.drop("id")), epoch)
    journal = f"journal/debate/games/epoch={epoch}.jsonl"
    report = verify_record(copy, AUDITS, workers=1)
    assert _has(
        report, f"games epoch {epoch} game_id {target['game_id']} field reason", f"its journal ({journal})"
    )
    (copy / journal).unlink()
    report = verify_record(copy, AUDITS, workers=1)
    assert _has(
        report, f"games epoch {epoch}: {games.height} games recorded, but they have no journal ({journal})"
    )


# --------------------------------------------------------------------------------------------
# A corrupt table file is named once; what needs it says so, under it


@pytest.mark.parametrize(
    ("arena", "table", "partition"),
    [
        ("debate_topics", "motions", "rotation"),
        ("debate", "games", "epoch"),
        ("events", "soo_replies", "event"),
    ],
)
def test_a_corrupt_table_file_is_named_once_with_its_table(
    copy: Path, arena: str, table: str, partition: str
) -> None:
    _needs(arena)
    key = {"rotation": ROTATION, "epoch": _epoch(copy), "event": EVENT}[partition]
    rel = f"warehouse/{arena}/{table}/{partition}={key}/data.parquet"
    data = bytearray((copy / rel).read_bytes())
    data[8] ^= 0x5A  # the first page's header: no decoder reads it
    write_recorded(copy / rel, bytes(data))  # its ledger entry made to match: only decoding finds it
    report = verify_record(copy, AUDITS, workers=1)
    named = [p for p in report.problems if "cannot be read as Parquet" in p]
    assert named == [report.problems[0]] and named[0].startswith(f"{rel} ({table} {partition} {key}):"), named
    assert not any("could not be checked" in p for p in report.problems), report.problems
    [cause] = report.causes
    assert set(report.problems) == {cause.problem, *cause.downstream}
    assert all(rel in line or f"{partition} {key}" in line for line in cause.downstream)


# --------------------------------------------------------------------------------------------
# A broken receipt leads what follows from it


def test_a_flipped_receipt_is_named_first_and_what_it_breaks_is_grouped_under_it(copy: Path) -> None:
    sweep = Record(copy).tables(FORECAST).read("raw_sweep", CARD)
    receipt_id = sweep.filter(pl.col("outcome") == "page")["receipt_id"][0]
    path = Record(copy).receipts.path_for(receipt_id)
    data = bytearray(path.read_bytes())
    data[-6] ^= 0x01  # its gzip trailer: the receipt no longer reads as its name
    path.write_bytes(bytes(data))
    report = verify_record(copy, AUDITS, workers=1)
    rel = path.relative_to(copy).as_posix()
    assert report.problems[0] == f"receipt {receipt_id} ({rel}): its bytes do not hash to its name: " + (
        "its gzip trailer (CRC-32 and length) does not match its content"
    )
    [cause] = report.causes
    assert cause.readers == (f"card {CARD}",) and len(cause.downstream) > 10
    assert set(report.problems) == {cause.problem, *cause.downstream}

    done = colosseum("verify", str(copy), "--quiet")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("PROBLEM"))
    assert lines[first] == f"PROBLEM {report.problems[0]}"
    assert (
        lines[first + 1]
        == f"  and {len(cause.downstream)} problem(s) downstream of it (read by card {CARD}):"
    )
    assert sum(line.startswith("PROBLEM") for line in lines) == 1
    summary = json.loads(colosseum("verify", str(copy), "--quiet", "--json").stdout)
    assert summary["ok"] is False and summary["verdict"] == "FAILED"
    assert summary["problems"][0] == report.problems[0] and summary["problem_count"] == len(report.problems)
    assert summary["causes"] == [
        {
            "problem": report.problems[0],
            "read_by": [f"card {CARD}"],
            "downstream_count": len(cause.downstream),
            "downstream": list(cause.downstream),
        }
    ]


# --------------------------------------------------------------------------------------------
# A site's signer, against the record or a pinned key


@pytest.fixture(scope="module")
def built(every_arena: Path) -> Path:
    at = dt.datetime(2026, 12, 31, tzinfo=dt.UTC).isoformat()
    done = colosseum("board", "build", str(every_arena / "site"), "--data", str(every_arena), "--at", at)
    assert done.returncode == 0, done.stderr
    return every_arena / "site"


def _resign_edited(site: Path) -> str:
    """An Elo cell and a transcript changed, then the site signed again by a fresh key that its own
    public keys declare: everything the site says about itself agrees. Returns the fresh key's id."""
    board = site / "debate" / "index.html"
    elo = re.search(r"<td>(\d{3,4}\.\d)</td>", board.read_text())
    assert elo is not None
    raised = f"<td>{float(elo.group(1)) + 100:.1f}</td>"
    board.write_text(board.read_text().replace(elo.group(0), raised, 1))
    [game, *_] = sorted((site / "debate" / "games").glob("*.html"))
    turn = 'data-field="text">'
    assert turn in game.read_text()
    game.write_text(game.read_text().replace(turn, turn + "I concede. ", 1))
    # Declared beside the arena key that countersigned the answers, so the answers still verify.
    fresh = SigningKey.from_seed(ARENA, bytes(range(32)), dt.date(2026, 12, 31))
    record = PublicKeyRecord.of(ARENA, fresh.private.public_key(), dt.date(2026, 12, 31))
    keys = pl.read_parquet(site / "forecast" / "data" / "public_keys.parquet")
    with_fresh = pl.concat([keys, public_keys_frame([record])], how="vertical_relaxed")
    (site / "forecast" / "data" / "public_keys.parquet").write_bytes(parquet_bytes(with_fresh))
    for name in (MANIFEST_NAME, ENVELOPE_NAME):
        (site / name).unlink()
    sign_bundle(site, fresh)
    return record.key_id


def test_a_site_names_its_signer_and_is_checked_against_its_records_keys(built: Path, tmp_path: Path) -> None:
    done = colosseum("verify", str(built), "--quiet")
    assert done.returncode == 0 and done.stdout.splitlines()[0].endswith("; OK"), done.stdout
    report = verify_path(built, AUDITS, workers=1)
    assert report.ok() and report.verdict() == "OK" and report.signer is not None and report.signer.pinned
    signer = report.signer.key_id
    assert signer in report.signer.trusted
    assert (
        f"signer: signed by arena key {signer}, checked against the arena keys the record at" in done.stdout
    )

    # Elsewhere, with nothing to check it against, it checks but is not OK: its signer is self-declared.
    alone = Path(shutil.copytree(built, tmp_path / "site"))
    done = colosseum("verify", str(alone), "--quiet")
    assert done.returncode == 3, done.stdout
    assert "; UNPINNED: every check passed" in done.stdout and "; OK" not in done.stdout
    assert f"signer: signed by key {signer}, UNPINNED: only the site itself declares it" in done.stdout
    summary = json.loads(colosseum("verify", str(alone), "--quiet", "--json").stdout)
    assert (summary["ok"], summary["verdict"], summary["problems"]) == (False, "UNPINNED", [])
    assert summary["signer"] == {"key_id": signer, "pinned": False, "anchor": None, "trusted_key_ids": []}
    # Pinned by its key id or a trusted copy of its public key, or checked against the record: OK.
    for keys, record in (
        ([signer], None),
        ([key_id_from(str(built / "keys" / "arena.pem"))], None),
        ([], built.parent),
    ):
        report = verify_path(alone, AUDITS, workers=1, keys=keys, record=record)
        assert report.verdict() == "OK", (keys, record, report.problems)
    assert colosseum("verify", str(alone), "--key", "not-a-key").returncode == 2


def test_a_site_edited_and_re_signed_by_a_fresh_key_fails_against_the_record_or_the_pin(
    built: Path, tmp_path: Path
) -> None:
    signer = verify_path(built, AUDITS, workers=1).signer
    assert signer is not None and signer.key_id is not None
    record = built.parent
    inside = tmp_path / "data"
    shutil.copytree(record, inside)
    fresh = _resign_edited(inside / "site")
    # In the record's own site/ folder: checked against the record's arena keys, and refused.
    done = colosseum("verify", str(inside / "site"), "--quiet")
    assert done.returncode == 1, done.stdout
    [line, *more] = [line for line in done.stdout.splitlines() if line.startswith("PROBLEM")]
    assert not more, done.stdout
    assert line == (
        f"PROBLEM {ENVELOPE_NAME}: signed by key {fresh}, not by the arena keys the record at {inside} "
        f"publishes ({signer.key_id})"
    )
    # Elsewhere: against the record, or the pinned key (its id or a trusted copy of its public key).
    alone = Path(shutil.copytree(inside / "site", tmp_path / "alone"))
    pem = key_id_from(str(built / "keys" / "arena.pem"))
    for keys, record_given, anchor in (
        ([], record, f"the arena keys the record at {record} publishes"),
        ([signer.key_id], None, "the pinned key"),
        ([pem], None, "the pinned key"),
    ):
        report = verify_path(alone, AUDITS, workers=1, keys=keys, record=record_given)
        assert report.problems == [
            f"{ENVELOPE_NAME}: signed by key {fresh}, not by {anchor} ({signer.key_id})"
        ], report.problems
    # With nothing to check it against, the edited site is consistent: it names its signer, unpinned.
    done = colosseum("verify", str(alone), "--quiet")
    assert done.returncode == 3 and f"signed by key {fresh}, UNPINNED" in done.stdout, done.stdout


def test_a_record_that_publishes_no_arena_key_is_no_anchor_and_says_so(built: Path, tmp_path: Path) -> None:
    # The debate record alone signs nothing: a site checked against it is still unpinned.
    data = tmp_path / "data"
    shutil.copytree(built.parent / "warehouse" / "debate", data / "warehouse" / "debate")
    report = verify_path(built, AUDITS, workers=1, record=data)
    assert report.ok() and report.verdict() == "UNPINNED"
    assert any(f"the record at {data} publishes no arena key" in n for n in report.notes)


# --------------------------------------------------------------------------------------------
# The landing page (COLOSSEUM-FRONT-1): every arena, who leads in each kind, read back


def _section(page: str, start: str, *ends: str) -> str:
    begin = page.index(start)
    stops = [page.index(end, begin + 1) for end in ends if end in page[begin + 1 :]]
    return page[begin : min(stops, default=len(page))]


def _record_rows(record: Record) -> dict[str, pl.DataFrame]:
    """Every row the landing page may cite, by table, from the record itself (not the site)."""
    debate, events = record.tables(DEBATE), record.tables(EVENTS)
    rows = {"leaderboard": record.tables(FORECAST).read("leaderboard")}
    rows["scores"] = pl.concat(
        [record.tables(FORECAST).read("scores", c) for c in record.tables(FORECAST).partitions("scores")],
        how="diagonal_relaxed",
    )
    for table in ("crown", "ratings", "epoch_manifest"):
        rows[table] = pl.concat(
            [debate.read(table, e) for e in debate.partitions(table)], how="diagonal_relaxed"
        )
    if events.partitions("soo_standings"):
        rows["soo_standings"] = pl.concat(
            [events.read("soo_standings", e) for e in events.partitions("soo_standings")],
            how="diagonal_relaxed",
        )
    return rows


def test_the_landing_page_names_every_arena_and_who_leads_each_kind_as_the_record_says(built: Path) -> None:
    record = Record(built.parent)
    landing = (built / "index.html").read_text()
    arenas = ('id="arena-forecast"', 'id="arena-debate"', 'id="arena-events"', 'id="check"')
    forecast, debate, events = (_section(landing, a, *arenas[i + 1 :]) for i, a in enumerate(arenas[:3]))
    for section, folder in ((forecast, "forecast"), (debate, "debate"), (events, "events")):
        assert f'href="{folder}/index.html"' in section and 'href="' + folder + "/" in section
        # FIGHT and CALIBRATION each in a section of its own, never one list.
        assert section.count('data-kind="FIGHT"') == 1 and section.count('data-kind="CALIBRATION"') == 1
    marks = {(t, i, f): text for t, i, f, text in read_page(landing).cells}
    rows = _record_rows(record)

    def shown(table: str, field: str) -> dict[str, str]:
        return {i: text for (t, i, f), text in marks.items() if (t, f) == (table, field)}

    # Forecasting: per kind, the seats at the top FC SCORE of the record's seat board.
    board = rows["leaderboard"].filter(pl.col("entrant_type") == "seat")
    for kind in ("FIGHT", "CALIBRATION"):
        part = _section(forecast, f'data-kind="{kind}"', "</section>")
        seats = board.filter(pl.col("kind") == kind)
        if seats.is_empty():
            assert f"no {kind} records yet" in part
            continue
        top = seats.filter(pl.col("crown") == pl.col("crown").max())
        assert all(f'data-id="{row_id}" data-field="entrant"' in part for row_id in top["id"])
        assert part.count('data-field="entrant"') == top.height
    assert shown("leaderboard", "crown")  # the settled card put a seat on top
    # Debate: the king and the top Elo of the latest epoch of each kind.
    [manifest] = rows["epoch_manifest"].to_dicts()
    part = _section(debate, f'data-kind="{manifest["kind"]}"', "</section>")
    crown = rows["crown"].row(0, named=True)
    assert f'data-id="{crown["id"]}" data-field="king_hotkey">{crown["king_hotkey"]}<' in part
    ratings = rows["ratings"]
    top = ratings.filter(pl.col("rating") == pl.col("rating").max())
    assert set(shown("ratings", "hotkey")) == set(top["id"][:4])
    # Events: each event's gold, and none of its other contenders.
    if "soo_standings" in rows:
        gold = rows["soo_standings"].filter(pl.col("medal") == "gold")
        assert set(shown("soo_standings", "contender")) == set(gold["id"])
        assert f"{EVENT} (solve-or-object): gold" in events
    # Every number is the record's value of the row and field it names.
    written = {
        ("leaderboard", "crown"): lambda v: "0" if v == 0 else f"{v:+d}",
        ("leaderboard", "n"): str,
        ("crown", "king_rating"): lambda v: f"{v:.1f}",
        ("ratings", "rating"): lambda v: f"{v:.1f}",
        ("ratings", "games"): str,
        ("soo_standings", "score"): lambda v: f"{v:+.3f}",
    }
    seat_names = {seat.id: seat_name(seat.company, seat.line) for seat in load_seats(DEFAULT_REGISTRY)}
    names = {
        ("leaderboard", "entrant"): lambda row, text: text.endswith(seat_names[row["entrant"]]),
        ("scores", "card"): lambda row, text: text == f"card {row['card']}",
        ("epoch_manifest", "rotation"): lambda row, t: (
            t == f"epoch {row['epoch']} (rotation {row['rotation']})"
        ),
        ("crown", "king_hotkey"): lambda row, text: text == row["king_hotkey"],
        ("ratings", "hotkey"): lambda row, text: text == row["hotkey"],
        # a contender played by a house player standing in for it is shown by that player first
        ("soo_standings", "contender"): lambda row, t: (
            t == row["contender"] or t.endswith(f" for {row['contender']}")
        ),
    }
    checked = 0
    for (table, row_id, field), text in marks.items():
        [row] = rows[table].filter(pl.col("id") == row_id).to_dicts()
        if (table, field) in written:
            assert text == written[table, field](row[field]), (table, row_id, field, text, row[field])
            checked += 1
        else:
            assert names[table, field](row, text), (table, row_id, field, text)
    assert checked >= 4
    # Every link of the landing page leads to a file of the site.
    files = {p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file()}
    refs = read_page(landing).refs
    assert {"forecast/index.html", "debate/index.html", "events/index.html", "keys/arena.pem"} <= {
        r for _, _, r in refs
    }
    assert [link_problem("index.html", *ref, files) for ref in refs] == [None] * len(refs)


def test_every_internal_link_of_the_site_resolves(built: Path) -> None:
    files = {p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file()}
    pages = sorted(name for name in files if name.endswith(".html"))
    assert {"index.html", "forecast/index.html", "debate/index.html", "events/index.html"} <= set(pages)
    broken = [
        problem
        for name in pages
        for ref in read_page((built / name).read_text()).refs
        if (problem := link_problem(name, *ref, files))
    ]
    assert broken == []


def test_a_changed_leader_on_the_landing_page_is_named_even_when_signed_again(
    built: Path, tmp_path: Path
) -> None:
    assert verify_path(built, AUDITS, workers=1, public_site=PUBLIC_SITE).ok()
    site = Path(shutil.copytree(built, tmp_path / "site"))
    landing = site / "index.html"
    [(_, row_id, _, text)] = [c for c in read_page(landing.read_text()).cells if c[2] == "king_rating"]
    landing.write_text(
        landing.read_text().replace(f'data-field="king_rating">{text}<', 'data-field="king_rating">1999.0<')
    )
    # Whoever holds the arena key and signs the changed page again is still caught.
    for name in (MANIFEST_NAME, ENVELOPE_NAME, "keys/arena.pem"):
        (site / name).unlink()
    sign_bundle(site, KeyStore.for_data(built.parent).signing_key(ARENA, dt.date(2026, 12, 31)))
    report = verify_path(site, AUDITS, workers=1, public_site=PUBLIC_SITE, record=built.parent)
    assert _has(
        report, f"index.html: Debate CALIBRATION, King: its Elo: crown row {row_id} field king_rating"
    )
    assert _has(report, f"shows '1999.0', the parts' files give '{text}'")
    assert _has(report, "index.html: differs from what the site's parts give")
    # The CLI passes the site engine: the same problem, from the command a reader runs.
    done = colosseum("verify", str(site), "--quiet", "--record", str(built.parent))
    assert done.returncode == 1 and f"crown row {row_id} field king_rating" in done.stdout, done.stdout
