"""The debate arena's part of ``colosseum verify`` (the audit protocol of ``colosseum_core.verify``).

Per epoch: every row of its ``entries`` and ``panel_calls`` has the identifier of its content; every
entry's status, rule, value and panel verdict is re-derived from the entry's own resolved fields
and panel counts by the entry checks (COMPELLE-ENTRY-1), and the panel counts from the epoch's
recorded votes; every panel call names receipts the record holds; a strategy's hash is the SHA-256
of its text. Per epoch with games: every game's result and reason re-derived from its raw turns and
judge replies by the game's and the panel's rules, every turn's neutralised passages re-derived by
the fence the game's rules name, every player one that entered with the strategy
the game names, every receipt of every turn and judge call held; a title fight's games the same
way, and the fight the one the record made due. The games, turns and judge calls of an epoch (and
of its title fight) are the ones its journal holds, game by game: every game is journalled as it
ends, before any table is written (``colosseum_dagster.debate.games.game_journal``). Per sealed
epoch: its close re-derived (``closing``: every Elo rating from the games, every streak, the title
fight's decision, the crown and the weights, the manifest the seal vouches for), and the weights
set on the chain its weights.

The tables' bytes and row identifiers, the epoch's seal against its tables, and the journals' chains
and receipts are the runner's checks (``colosseum_core.verify``); tables are read through an
``AuditRecord``, so a check that needs a file that cannot be read says so, naming it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from colosseum_core.debate.arena import (
    CLOSING_TABLES,
    DEBATE,
    DEBATE_TOPICS,
    FIGHT_JOURNAL,
    FIGHT_TABLES,
    GAME_TABLES,
    GAMES_JOURNAL,
)
from colosseum_core.debate.crown.closing import (
    ClosingError,
    EpochInputs,
    close_epoch,
    close_vouched,
    epoch_fight_motions,
    epoch_inputs,
    epoch_manifest_id,
    fight_due,
)
from colosseum_core.debate.entry import ENTRY_SCHEMA, PANEL_COLUMNS, entries
from colosseum_core.debate.entry.names import ENTERED
from colosseum_core.debate.game.concession import read_concession
from colosseum_core.debate.game.outcome import rederived_outcome
from colosseum_core.debate.game.schemas import GAME_SCHEMA, JUDGE_CALL_SCHEMA, TURN_SCHEMA
from colosseum_core.debate.game.turns import passed_on
from colosseum_core.debate.judging.fence import fence_of, neutralise
from colosseum_core.debate.judging.votes import read_judge_vote
from colosseum_core.debate.pairing import fight_pairings, shuffle_pairings
from colosseum_core.debate.rating_key import entered_keys, rating_key
from colosseum_core.debate.rules import COMPELLE_PAIRING, COMPELLE_SWISS
from colosseum_core.debate.site.downloads import BT_FIT
from colosseum_core.debate.site.downloads_check import (
    PARTITIONED,
    check_debate_part,
    check_epoch_fit,
    debate_parts,
    panel_votes,
)
from colosseum_core.debate.strategy import strategy_hash
from colosseum_core.debate.strength import MACHINE_DEPENDENT_COLUMNS, TOLERANCE_ELO
from colosseum_core.debate.tournament import games_before, next_round
from colosseum_core.providers.call import answer_in_receipt
from colosseum_core.record.identifiers import ID_FIELD, with_ids
from colosseum_core.record.journal import JournalError, read_journal
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.canonical import shortened
from colosseum_core.verify.reading import audit_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, check_downloads, guarded

DERIVED = ("verdict", "status", "rule", "value", "rules")
# The journal each set of game tables is played into.
JOURNAL_OF = {GAME_TABLES: GAMES_JOURNAL, FIGHT_TABLES: FIGHT_JOURNAL}
# What names one row of the games, turns and judge calls tables.
ROW_KEYS = (("game_id",), ("game_id", "turn"), ("game_id", "slot", "stage", "attempt"))


def _check_epoch(root: str, epoch: str) -> Outcome:
    out = Outcome()
    record = audit_record(root)
    tables = record.tables(DEBATE)

    def run() -> None:
        stored = tables.read_checked("entries", epoch)
        calls = tables.read_checked("panel_calls", epoch) if tables.exists("panel_calls", epoch) else None
        if calls is not None:
            receipts = record.receipts
            missing = [r for r in calls["receipt_ids"].explode().drop_nulls().to_list() if r not in receipts]
            out.problems += [
                f"panel_calls epoch {epoch}: names receipt {r}, which the record lacks" for r in missing
            ]
            out.count("panel_calls", calls.height)
        # A verdict kept from an earlier epoch is checked against that epoch's recorded votes.
        voted_in = (
            sorted(set(stored["panel_epoch"].drop_nulls().to_list()))
            if "panel_epoch" in stored.columns
            else [epoch]
        )
        recorded = [
            (calls if e == epoch else tables.read_checked("panel_calls", e)).with_columns(
                panel_epoch=pl.lit(e)
            )
            for e in voted_in
            if (e == epoch and calls is not None) or (e != epoch and tables.exists("panel_calls", e))
        ]
        votes = panel_votes(
            pl.concat(recorded, how="diagonal_relaxed") if recorded else None, pl.col("panel_epoch")
        )
        rederived = entries(stored.select(*ENTRY_SCHEMA, *PANEL_COLUMNS))
        for row, (mine, again) in enumerate(
            zip(
                stored.select(DERIVED).iter_rows(named=True),
                rederived.select(DERIVED).iter_rows(named=True),
                strict=True,
            )
        ):
            for field in DERIVED:
                if mine[field] != again[field]:
                    out.problems.append(
                        f"entries epoch {epoch} hotkey {stored['hotkey'][row]} field {field}: recorded "
                        f"{mine[field]!r}, the entry checks give {again[field]!r}"
                    )
        asked = stored.filter(pl.col("panel_valid").is_not_null())
        if "panel_epoch" not in asked.columns:
            asked = asked.with_columns(panel_epoch=pl.lit(epoch))
        asked = asked.join(votes, on=["panel_epoch", "strategy_hash"], how="left")
        for entry in asked.iter_rows(named=True):
            if (entry["panel_valid"], entry["panel_bad"]) != (entry["valid"], entry["bad"]):
                said = f"{entry['panel_valid']} valid, {entry['panel_bad']} BAD"
                found = f"{entry['valid']} valid, {entry['bad']} BAD"
                where = f"entries epoch {epoch} hotkey {entry['hotkey']}"
                out.problems.append(f"{where}: panel counts {said}, but its recorded votes give {found}")
        for entry in stored.filter(pl.col("strategy").is_not_null()).iter_rows(named=True):
            if strategy_hash(entry["strategy"]) != entry["strategy_hash"]:
                where = f"entries epoch {epoch} hotkey {entry['hotkey']}"
                out.problems.append(f"{where} field strategy_hash: not the SHA-256 of its strategy")
        out.count("epochs")
        out.count("entries", stored.height)
        if tables.exists("games", epoch):
            _check_games(out, record, epoch, stored)
        # The fight's check and the close's read the close's inputs (every earlier epoch's games) once.
        inputs = None
        if tables.exists("fight_games", epoch):
            games = _check_games(out, record, epoch, stored, FIGHT_TABLES)
            inputs = epoch_inputs(record, epoch)
            _check_fight_pairings(out, record, epoch, games, inputs)
        if record.seals(DEBATE).get(epoch) is not None:
            _check_close(out, record, epoch, inputs or epoch_inputs(record, epoch))

    guarded(out, f"epoch {epoch}", run)
    return out


def _answers_match(out: Outcome, frame: pl.DataFrame, text: str, what: str, receipts: ReceiptStore) -> None:
    """Every answered call's recorded text is what its last receipt answered."""
    for row in frame.filter(pl.col("status") == "answered").iter_rows(named=True):
        ids = row["receipt_ids"] or []
        if not ids or ids[-1] not in receipts:
            continue  # a missing receipt is named by the receipts check
        status, said = answer_in_receipt(row["protocol"], receipts.get(ids[-1]))
        if status != "answered" or said != row[text]:
            out.problems.append(f"{what(row)} field {text}: not what its receipt {ids[-1]} answered")


def _check_pairings(
    out: Outcome, record: Record, epoch: str, games: pl.DataFrame, players: pl.DataFrame, motions: list[str]
) -> None:
    """A Swiss epoch's rounds re-paired from the record, each from the results before it; a shuffled
    one (part 1's rule) re-drawn from its seed."""
    how = set(games["pairing"]) if games.height else set()
    if how == {COMPELLE_PAIRING}:
        again, _ = shuffle_pairings(epoch, players["hotkey"].to_list(), motions, int(games["round"].max()))
    elif how == {COMPELLE_SWISS}:
        earlier = games_before(record.tables(DEBATE), epoch)
        entered = entered_keys(players)
        again = []
        for number in range(1, int(games["round"].max()) + 1):
            before = games.filter(pl.col("round") < number)
            again += next_round(
                epoch, number, entered, motions, earlier, before if before.height else None
            ).games
    else:
        return
    mine = games.select("round", "game_id", "pro_hotkey", "con_hotkey", "motion_id").sort("game_id").rows()
    theirs = sorted((p.round, p.game_id, p.pro, p.con, p.motion_id) for p in again)
    if mine != theirs:
        rule = next(iter(how))
        out.problems.append(
            f"games epoch {epoch} field pairing: the games are not the pairings {rule} gives for the "
            "epoch's entered miners, its rotation and the record before it"
        )


def _check_games(
    out: Outcome, record: Record, epoch: str, entered: pl.DataFrame, names: tuple[str, ...] = GAME_TABLES
) -> pl.DataFrame:
    """Every game's result, reason and ending re-derived from its turns and judge calls, whose texts
    are the ones their receipts answered; every player entered with the strategy it played; every
    motion the sealed rotation's; a shuffled epoch's pairings re-derived; every receipt held.
    ``names``: the games, turns and judge calls tables (the epoch's, or its title fight's); the games
    are returned."""
    tables = record.tables(DEBATE)
    frames = dict(
        zip(("games", "turns", "judge_calls"), (tables.read_checked(t, epoch) for t in names), strict=True)
    )
    games, turns, calls = frames["games"], frames["turns"], frames["judge_calls"]
    _check_journal(out, record, epoch, names, frames)
    gt, tt, ct = names
    players = entered.filter(pl.col("status") == ENTERED)
    strategies = {
        hotkey: (strategy, rating_key(hotkey, block, strategy))
        for hotkey, strategy, block in players.select(
            "hotkey", "strategy_hash", "block_at_registration"
        ).iter_rows()
    }
    rotations = {
        key: record.tables(DEBATE_TOPICS).read_checked("motions", key)
        for key in games["rotation"].unique().to_list()
        if record.seals(DEBATE_TOPICS).get(key) is not None
    }
    for game in games.iter_rows(named=True):
        where = f"{gt} epoch {epoch} game {game['game_id']}"
        for side in ("pro", "con"):
            hotkey = game[f"{side}_hotkey"]
            played = (game[f"{side}_strategy_hash"], game[f"{side}_rating_key"])
            if strategies.get(hotkey) != played:
                out.problems.append(
                    f"{where} field {side}_hotkey: {hotkey} did not enter with that strategy and rating key"
                )
        motions = rotations.get(game["rotation"])
        if motions is None:
            out.problems.append(f"{where} field rotation: {game['rotation']} is not a sealed rotation")
        else:
            found = motions.filter(pl.col("motion_id") == game["motion_id"])
            if found.height != 1 or (found["motion"][0], found["context"][0]) != (
                game["motion"],
                game["context"],
            ):
                out.problems.append(
                    f"{where} field motion: not motion {game['motion_id']} of rotation {game['rotation']}"
                )
        got = rederived_outcome(
            turns.filter(pl.col("game_id") == game["game_id"]),
            calls.filter(pl.col("game_id") == game["game_id"]),
        )
        if got.problem is not None:
            out.problems.append(f"{where}: {got.problem}")
        recorded = tuple(game[f] for f in ("status", "winner", "ended_by", "conceded_by", "concession_short"))
        derived = (got.status, got.winner, got.ended_by, got.conceded_by, got.concession_short)
        if recorded != derived or not game["reason"].startswith(got.reason):
            out.problems.append(
                f"{where}: recorded {recorded} ({game['reason']!r}); its turns and judge calls give "
                f"{derived} ({got.reason!r})"
            )
    for call in calls.iter_rows(named=True):
        vote = read_judge_vote(call["reply"] if call["status"] == "answered" else None)
        if (call["verdict"], call["reason"]) != (vote.verdict, vote.reason):
            out.problems.append(
                f"{ct} epoch {epoch} game {call['game_id']} {call['slot']} {call['stage']} "
                f"#{call['attempt']} field verdict: recorded {call['verdict']!r}, "
                f"its reply reads {vote.verdict!r}"
            )
    # Each game's turns re-fenced by the fence its rules name (an old game by the old fence).
    fences: dict[str, str | None] = {}
    for game in games.iter_rows(named=True):
        try:
            fences[game["game_id"]] = fence_of(game["rules"])
        except ValueError as exc:
            fences[game["game_id"]] = None
            out.problems.append(f"{gt} epoch {epoch} game {game['game_id']} field rules: {exc}")
    for turn in turns.filter(pl.col("status") == "answered").iter_rows(named=True):
        where = f"{tt} epoch {epoch} game {turn['game_id']} turn {turn['turn']}"
        concession = read_concession(turn["text"])
        mark = concession.mark if concession else None
        if turn["concession"] != mark:
            out.problems.append(
                f"{where} field concession: recorded {turn['concession']!r}, its text reads {mark!r}"
            )
        fence = fences.get(turn["game_id"])
        if fence is not None:
            _, removed = neutralise(passed_on(turn["text"])[0], fence)
            recorded = list(turn["neutralised"] or [])
            if recorded != removed:
                out.problems.append(
                    f"{where} field neutralised: recorded {recorded!r}, {fence} removes "
                    f"{removed!r} from its text"
                )
    receipts = record.receipts
    _answers_match(
        out, turns, "text", lambda r: f"{tt} epoch {epoch} game {r['game_id']} turn {r['turn']}", receipts
    )
    _answers_match(
        out,
        calls,
        "reply",
        lambda r: f"{ct} epoch {epoch} game {r['game_id']} {r['slot']} {r['stage']} #{r['attempt']}",
        receipts,
    )
    if names == GAME_TABLES and len(rotations) == 1:
        motion_ids = next(iter(rotations.values()))["motion_id"].to_list()
        _check_pairings(out, record, epoch, games, players, motion_ids)
    for table, frame in ((tt, turns), (ct, calls)):
        named = frame["receipt_ids"].explode().drop_nulls().unique().sort().to_list()
        out.problems += [
            f"{table} epoch {epoch}: names receipt {r}, which the record lacks"
            for r in named
            if r not in receipts
        ]
    out.count("games", games.height)
    return games


def _check_journal(
    out: Outcome, record: Record, epoch: str, names: tuple[str, ...], frames: Mapping[str, pl.DataFrame]
) -> None:
    """The epoch's games, turns and judge calls (``names``: the epoch's or its title fight's) are
    the ones its journal holds: game by game, row by row, field by field."""
    gt = names[0]
    path = record.journal_path(DEBATE, JOURNAL_OF[names], epoch)
    rel = path.relative_to(record.root).as_posix()
    games = frames["games"]
    if not path.exists():
        if games.height:
            out.problems.append(
                f"{gt} epoch {epoch}: {games.height} games recorded, but they have no journal ({rel}): "
                "every game is journalled as it ends, before its tables are written"
            )
        return
    try:
        entries, _ = read_journal(path, rel)
    except JournalError:
        out.problems.append(
            f"{gt} epoch {epoch}: not compared with its journal, because {rel} is not as written"
        )
        return
    journalled: dict[str, Mapping[str, Any]] = {}
    for entry in entries:
        game_id = entry["game"]["game_id"]
        if game_id in journalled:
            out.problems.append(f"{rel} line {entry['seq']}: game {game_id} journalled a second time")
        journalled[game_id] = entry
    recorded = {row["game_id"]: row for row in games.iter_rows(named=True)}
    for game_id in sorted(set(recorded) - set(journalled)):
        out.problems.append(f"{gt} epoch {epoch} game {game_id}: recorded, but not in its journal ({rel})")
    for game_id in sorted(set(journalled) - set(recorded)):
        out.problems.append(f"{gt} epoch {epoch} game {game_id}: in its journal ({rel}), but not recorded")
    both = [g for g in recorded if g in journalled]
    # Each table as the game's journal entries give it (``games.play_epoch_games``): the game with
    # what the schedule adds (its rotation, kind and pairing), then its turns and its judge calls.
    again = [
        _frame(
            [
                {**journalled[g]["game"], **{f: recorded[g][f] for f in ("rotation", "kind", "pairing")}}
                for g in both
            ],
            GAME_SCHEMA,
            epoch,
        ),
        _frame([t for g in both for t in journalled[g]["turns"]], TURN_SCHEMA, epoch),
        _frame([c for g in both for c in journalled[g]["judge_calls"]], JUDGE_CALL_SCHEMA, epoch),
    ]
    for table, stored, derived, keys in zip(names, frames.values(), again, ROW_KEYS, strict=True):
        kept = stored.filter(pl.col("game_id").is_in(both))
        out.problems += _journal_differences(f"{table} epoch {epoch}", rel, kept, derived, keys)


def _frame(rows: list[Mapping[str, Any]], schema: Mapping[str, pl.DataType], epoch: str) -> pl.DataFrame:
    return with_ids(pl.DataFrame([{"epoch": epoch, **r} for r in rows], schema=dict(schema), orient="row"))


def _journal_differences(
    what: str, rel: str, stored: pl.DataFrame, journalled: pl.DataFrame, keys: tuple[str, ...]
) -> list[str]:
    """Each row of ``stored`` not as ``journalled`` has it, by its ``keys``: its first differing field."""
    if set(stored[ID_FIELD].to_list()) == set(journalled[ID_FIELD].to_list()):
        return []
    theirs = {tuple(r[k] for k in keys): r for r in journalled.iter_rows(named=True)}
    problems = []
    for row in stored.iter_rows(named=True):
        at = tuple(row[k] for k in keys)
        where = f"{what} " + " ".join(f"{k} {v}" for k, v in zip(keys, at, strict=True))
        other = theirs.pop(at, None)
        if other is None:
            problems.append(f"{where}: recorded, but its journal ({rel}) has no such row")
            continue
        if row[ID_FIELD] == other[ID_FIELD]:
            continue
        field = next((c for c in stored.columns if c != ID_FIELD and row[c] != other.get(c)), ID_FIELD)
        problems.append(
            f"{where} field {field}: recorded {shortened(row.get(field))}, its journal ({rel}) has "
            f"{shortened(other.get(field))}"
        )
    for at in theirs:
        named = " ".join(f"{k} {v}" for k, v in zip(keys, at, strict=True))
        problems.append(f"{what} {named}: in its journal ({rel}), but not recorded")
    return problems


def _check_fight_pairings(
    out: Outcome, record: Record, epoch: str, games: pl.DataFrame, inputs: EpochInputs
) -> None:
    """A title fight's games are the fight the record made due: its challenger and king, both sides
    of the fight's motions."""
    if games.height == 0:
        return
    before = fight_due(inputs)
    if before.challenger is None or before.crown.king is None:
        out.problems.append(f"fight_games epoch {epoch}: {games.height} games, but no title fight was due")
        return
    hotkey = {k: k.split("@", 1)[0] for k in (before.challenger, before.crown.king)}
    try:
        motions = epoch_fight_motions(record, epoch)
    except ClosingError as exc:
        out.problems.append(f"fight_games epoch {epoch}: {exc}")
        return
    again = fight_pairings(
        epoch, hotkey[before.challenger], hotkey[before.crown.king], motions["motion_id"].to_list()
    )
    mine = games.select("round", "game_id", "pro_hotkey", "con_hotkey", "motion_id").sort("game_id").rows()
    theirs = sorted((p.round, p.game_id, p.pro, p.con, p.motion_id) for p in again)
    if mine != theirs:
        out.problems.append(
            f"fight_games epoch {epoch} field pairing: not both sides of the fight's motions between the "
            f"challenger {before.challenger} and the king {before.crown.king}"
        )


def _first_difference(
    stored: pl.DataFrame, again: pl.DataFrame, tolerances: Mapping[str, float] | None = None
) -> str:
    """The first field that differs (a column in ``tolerances`` only by more than its tolerance)."""
    if stored.columns != again.columns:
        return f"its columns {stored.columns} are not {again.columns}"
    if stored.height != again.height:
        return f"{stored.height} rows, re-derived {again.height}"
    allowed = tolerances or {}
    for column in stored.columns:
        if column == ID_FIELD:
            continue
        tolerance = allowed.get(column)
        for row, (mine, theirs) in enumerate(zip(stored[column], again[column], strict=True)):
            within_tolerance = (
                tolerance is not None
                and isinstance(mine, float)
                and isinstance(theirs, float)
                and abs(mine - theirs) <= tolerance
            )
            if mine == theirs or within_tolerance:
                continue
            within = f" (tolerance {tolerance:g})" if tolerance is not None else ""
            return f"row {row + 1} field {column}: recorded {mine!r}, re-derived {theirs!r}{within}"
    return "its row identifiers differ"


# Columns whose last bits are the machine's (see ``strength.TOLERANCE_ELO``), by closing table.
_MACHINE_TOLERANCES: dict[str, dict[str, float]] = {
    "ratings": dict.fromkeys(MACHINE_DEPENDENT_COLUMNS, TOLERANCE_ELO)
}


def _machine_bits_only(stored: pl.DataFrame, again: pl.DataFrame, tolerances: Mapping[str, float]) -> bool:
    """Whether ``again`` is ``stored`` but for the last bits of the machine-dependent columns: those
    within their tolerance, every other column equal, of the same type (row identifiers aside)."""
    if not tolerances or stored.schema != again.schema or stored.height != again.height:
        return False
    others = [ID_FIELD, *tolerances]
    if not stored.drop(others).equals(again.drop(others)):
        return False
    for column, tolerance in tolerances.items():
        mine, theirs = stored[column], again[column]
        close = ((mine - theirs).abs() <= tolerance) | (mine.is_null() & theirs.is_null())
        if not close.fill_null(False).all():
            return False
    return True


def _check_close(out: Outcome, record: Record, epoch: str, inputs: EpochInputs) -> None:
    """A sealed epoch's ratings, rating changes, crown, streaks, title fight and weights re-derived
    from its games and the crown the epoch before left; the weights set on the chain are its weights.

    The Bradley–Terry columns may differ in their last bits on another machine: within
    ``TOLERANCE_ELO`` they are the recorded ones re-derived, and the seal is then checked against
    the identifiers of the tables as recorded (a note says so); every other field must be equal."""
    tables = record.tables(DEBATE)
    seal = record.seals(DEBATE).get(epoch)
    close = close_epoch(inputs) if seal is None else close_vouched(inputs, seal)
    stored_tables: dict[str, pl.DataFrame] = {}
    to_the_bit = True
    for table, again in close.tables.items():
        if not tables.exists(table, epoch):
            continue  # the runner's seal check names a sealed table that is missing
        stored = tables.read_checked(table, epoch)
        stored_tables[table] = stored
        if table == "epoch_manifest" or stored.equals(again):
            continue
        tolerances = _MACHINE_TOLERANCES.get(table, {})
        if _machine_bits_only(stored, again, tolerances):
            to_the_bit = False
        else:
            out.problems.append(
                f"{table} epoch {epoch}: does not re-derive: {_first_difference(stored, again, tolerances)}"
            )
    manifest_id = close.manifest_id
    if not to_the_bit and all(table in stored_tables for table in CLOSING_TABLES):
        manifest_id = epoch_manifest_id(inputs, stored_tables)
        out.notes.append(
            f"epoch {epoch}: the Bradley–Terry columns re-derive within {TOLERANCE_ELO:g} Elo on this "
            "machine, not to the bit (its floating point differs from the sealing machine's)"
        )
    if "epoch_manifest" in stored_tables:
        again = close.tables["epoch_manifest"]
        if manifest_id != close.manifest_id:
            again = with_ids(again.drop(ID_FIELD).with_columns(manifest_id=pl.lit(manifest_id)))
        if not stored_tables["epoch_manifest"].equals(again):
            out.problems.append(
                f"epoch_manifest epoch {epoch}: does not re-derive: "
                f"{_first_difference(stored_tables['epoch_manifest'], again)}"
            )
    if seal is not None and seal.content_id != manifest_id:
        out.problems.append(
            f"epoch {epoch} seal: vouches for {seal.content_id}, the record re-derives {manifest_id}"
        )
    if tables.exists("weight_sets", epoch):
        sets = tables.read_checked("weight_sets", epoch)
        wanted = sorted(
            (int(u), float(w)) for u, w in close.tables["weights"].select("uid", "weight").iter_rows()
        )
        for row in sets.iter_rows(named=True):
            if sorted(zip(row["uids"], row["weights"], strict=True)) != wanted:
                out.problems.append(
                    f"weight_sets epoch {epoch} field weights: set {row['weights']} on uids {row['uids']}, "
                    f"but the epoch's weights are {wanted}"
                )
    out.count("closes")


@dataclasses.dataclass(frozen=True)
class DebateAudit:
    arena: ArenaRecord = DEBATE
    record_counts: tuple[str, ...] = ("epochs", "entries", "panel_calls", "games", "closes")
    site_counts: tuple[str, ...] = ("debate_downloads", "debate_fits")
    site_downloads_checked_by_partition: tuple[str, ...] = ()
    checks_partition_files: bool = False
    journals: Mapping[str, tuple[str, ...]] = dataclasses.field(
        default_factory=lambda: {GAMES_JOURNAL: (), FIGHT_JOURNAL: ()}
    )

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        epochs = sorted(scan.partitions.get("entries", frozenset()))
        return [Task("epochs", 1, _check_epoch, (str(scan.root), epoch)) for epoch in epochs]

    def published_arena_keys(self, root: Path) -> list[str]:
        return []  # the debate record publishes no key: its epochs are not signed

    def site_tasks(self, scan: SiteScan) -> list[Task]:
        """Every row identifier of the board's downloads; that every download the board must have is
        there and agrees with the others (and with the record the site lives in, if it does); and every
        epoch's Bradley–Terry fit re-fitted from the games by its method row."""
        site = str(scan.site)
        tasks = []
        for prefix, names in sorted(debate_parts(scan.verified).items()):
            files = sorted(names)
            tasks.append(
                Task("debate downloads", len(files), check_downloads, (site, files, "debate_downloads"))
            )
            tasks.append(Task("debate downloads", 1, check_debate_part, (site, prefix, files, scan.record)))
            epochs = sorted({m["key"] for n in files if (m := PARTITIONED.match(n)) and m["table"] == BT_FIT})
            tasks += [Task("debate fits", 1, check_epoch_fit, (site, prefix, files, e)) for e in epochs]
        return tasks


DEBATE_AUDIT = DebateAudit()
