"""The debate arena's part of ``colosseum verify`` (the audit protocol of ``colosseum_core.verify``).

Per epoch: every row of its ``entries`` and ``panel_calls`` has the identifier of its content; every
entry's status, rule, value and panel verdict is re-derived from the entry's own resolved fields
and panel counts by the entry checks (COMPELLE-ENTRY-1), and the panel counts from the epoch's
recorded votes; every panel call names receipts the record holds; a strategy's hash is the SHA-256
of its text. Per epoch with games: every game's result and reason re-derived from its raw turns and
judge replies by the game's and the panel's rules, every player one that entered with the strategy
the game names, every receipt of every turn and judge call held.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl

from colosseum_core.debate.arena import DEBATE, GAME_TABLES
from colosseum_core.debate.entry import ENTRY_SCHEMA, PANEL_COLUMNS, entries
from colosseum_core.debate.entry.intent import BAD
from colosseum_core.debate.entry.names import ENTERED
from colosseum_core.debate.game.outcome import rederived_outcome
from colosseum_core.debate.rating_key import rating_key
from colosseum_core.debate.strategy import strategy_hash
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.canonical import content_ids
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, guarded

DERIVED = ("verdict", "status", "rule", "value", "rules")


def _ids(out: Outcome, frame: pl.DataFrame, what: str) -> None:
    """Every row's id against its content, computed by verify's own canonicaliser (not the writer's)."""
    if ID_FIELD not in frame.columns:
        out.problems.append(f"{what}: the table has no {ID_FIELD} column")
        return
    ids, errors = content_ids(frame)
    for row, (stored, content) in enumerate(zip(frame[ID_FIELD], ids, strict=True)):
        if row in errors:
            out.problems.append(f"{what} row {row}: {errors[row]}")
        elif stored != content:
            out.problems.append(f"{what} row {row}: id {stored} does not match its content ({content})")


def _check_epoch(root: str, epoch: str) -> Outcome:
    out = Outcome()
    record = Record(Path(root))
    tables = record.tables(DEBATE)

    def run() -> None:
        stored = tables.read_checked("entries", epoch)
        _ids(out, stored, f"entries epoch {epoch}")
        calls = tables.read_checked("panel_calls", epoch) if tables.exists("panel_calls", epoch) else None
        if calls is not None:
            _ids(out, calls, f"panel_calls epoch {epoch}")
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
        votes = (
            pl.concat(recorded, how="diagonal_relaxed")
            .group_by("panel_epoch", "strategy_hash")
            .agg(valid=pl.col("vote").is_not_null().sum(), bad=(pl.col("vote") == BAD).sum())
            if recorded
            else pl.DataFrame(
                schema={
                    "panel_epoch": pl.String(),
                    "strategy_hash": pl.String(),
                    "valid": pl.UInt32(),
                    "bad": pl.UInt32(),
                }
            )
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
        out.count("files", 1 if calls is None else 2)
        out.count("rows", stored.height + (0 if calls is None else calls.height))
        if tables.exists("games", epoch):
            _check_games(out, record, epoch, stored)

    guarded(out, f"epoch {epoch}", run)
    return out


def _check_games(out: Outcome, record: Record, epoch: str, entered: pl.DataFrame) -> None:
    """Every game's result and reason re-derived from its turns and judge calls; every player entered
    with the strategy it played; every receipt held."""
    tables = record.tables(DEBATE)
    frames = {t: tables.read_checked(t, epoch) for t in GAME_TABLES}
    for table, frame in frames.items():
        _ids(out, frame, f"{table} epoch {epoch}")
    games, turns, calls = frames["games"], frames["turns"], frames["judge_calls"]
    strategies = {
        hotkey: (strategy, rating_key(hotkey, block, strategy))
        for hotkey, strategy, block in entered.filter(pl.col("status") == ENTERED)
        .select("hotkey", "strategy_hash", "block_at_registration")
        .iter_rows()
    }
    for game in games.iter_rows(named=True):
        where = f"games epoch {epoch} game {game['game_id']}"
        for side in ("pro", "con"):
            hotkey = game[f"{side}_hotkey"]
            played = (game[f"{side}_strategy_hash"], game[f"{side}_rating_key"])
            if strategies.get(hotkey) != played:
                out.problems.append(
                    f"{where} field {side}_hotkey: {hotkey} did not enter with that strategy and rating key"
                )
        status, winner, reason = rederived_outcome(
            turns.filter(pl.col("game_id") == game["game_id"]),
            calls.filter(pl.col("game_id") == game["game_id"]),
        )
        if (game["status"], game["winner"]) != (status, winner) or not game["reason"].startswith(reason):
            out.problems.append(
                f"{where}: recorded {game['status']} {game['winner']} ({game['reason']!r}); its turns and "
                f"judge calls give {status} {winner} ({reason!r})"
            )
    receipts = record.receipts
    for table in ("turns", "judge_calls"):
        named = frames[table]["receipt_ids"].explode().drop_nulls().unique().sort().to_list()
        out.problems += [
            f"{table} epoch {epoch}: names receipt {r}, which the record lacks"
            for r in named
            if r not in receipts
        ]
    out.count("games", games.height)
    out.count("files", len(frames))
    out.count("rows", sum(f.height for f in frames.values()))


@dataclasses.dataclass(frozen=True)
class DebateAudit:
    arena: ArenaRecord = DEBATE
    record_counts: tuple[str, ...] = ("epochs", "entries", "panel_calls", "games")
    site_counts: tuple[str, ...] = ()
    site_downloads_checked_by_partition: tuple[str, ...] = ()

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        epochs = sorted(scan.partitions.get("entries", frozenset()))
        return [Task("epochs", 1, _check_epoch, (str(scan.root), epoch)) for epoch in epochs]

    def site_tasks(self, scan: SiteScan) -> list[Task]:
        return []


DEBATE_AUDIT = DebateAudit()
