"""The debate trials' part of ``colosseum verify`` (the audit protocol of ``colosseum_core.verify``).

Per trial: its plan is CALIBRATION and the plan COMPELLE-TRIAL-1 draws from its own sealed rotation
(the same motions, both sides, every house strategy); a sealed trial's tables are the ones its plan,
journals and receipts give again (``derive``), table by table, and its seal vouches for the manifest
they give; every game's result re-derived from its turns and the panel's calls, every vote read
again from its reply, every recorded reply the one its receipt holds, every receipt held; no game
of a trial moves a rating. The tables' bytes, the seal against the tables it names and the journals'
chains are the runner's checks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from colosseum_core.debate.arena import (
    DEBATE_TOPICS,
    DEBATE_TRIALS,
    TRIAL_GAMES_JOURNAL,
    TRIAL_PLAN,
    TRIAL_TABLES,
    TRIAL_VOTES_JOURNAL,
)
from colosseum_core.debate.audit import _answers_match, _first_difference
from colosseum_core.debate.entry.epoch_entries import CALIBRATION
from colosseum_core.debate.game.outcome import rederived_outcome
from colosseum_core.debate.judging.votes import read_judge_vote
from colosseum_core.debate.trial.part import derive_trial
from colosseum_core.debate.trial.plan import planned_model, trial_plan
from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.trial import TrialError
from colosseum_core.verify.audit import RecordScan, SiteScan
from colosseum_core.verify.reading import audit_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import Task, guarded


def _check_trial(root: str, trial: str) -> Outcome:
    out = Outcome()
    record = audit_record(root)
    tables = record.tables(DEBATE_TRIALS)

    def run() -> None:
        if not tables.exists(TRIAL_PLAN, trial):
            out.problems.append(f"trial {trial}: it has tables but no {TRIAL_PLAN}, which is written first")
            return
        plan = tables.read_checked(TRIAL_PLAN, trial)
        if set(plan["kind"]) != {CALIBRATION}:
            out.problems.append(
                f"{TRIAL_PLAN} trial {trial} field kind: {sorted(set(plan['kind']))}, not {CALIBRATION}"
            )
        rotation = plan["rotation"][0]
        if record.seals(DEBATE_TOPICS).get(rotation) is None:
            out.problems.append(
                f"{TRIAL_PLAN} trial {trial} field rotation: {rotation} is not a sealed rotation"
            )
        else:
            motions = record.tables(DEBATE_TOPICS).read_checked("motions", rotation)
            again = trial_plan(
                trial, planned_model(plan), rotation=rotation, motions=motions,
                models_sha256=plan["models_sha256"][0], date=plan["date"][0],
            )  # fmt: skip
            if not again.equals(plan):
                out.problems.append(
                    f"{TRIAL_PLAN} trial {trial}: not the plan COMPELLE-TRIAL-1 draws from rotation "
                    f"{rotation}: "
                    f"{_first_difference(plan, again)}"
                )
        out.count("trials")
        seal = record.seals(DEBATE_TRIALS).get(trial)
        if seal is None:
            for table in TRIAL_TABLES:
                if tables.exists(table, trial):
                    out.problems.append(
                        f"{table} trial {trial}: written, but the trial has no seal (its seal writes it)"
                    )
            return
        present = {t: tables.read_checked(t, trial) for t in TRIAL_TABLES if tables.exists(t, trial)}
        try:
            derived = derive_trial(record, trial)
        except TrialError as exc:
            out.problems.append(str(exc))
            return
        for table, stored in present.items():
            again = derived.tables[table]
            if not stored.equals(again):
                out.problems.append(
                    f"{table} trial {trial}: not what its plan, journals and receipts give: "
                    f"{_first_difference(stored, again)}"
                )
        if seal.content_id != derived.manifest_id:
            out.problems.append(
                f"trial {trial} seal: vouches for {seal.content_id}, its plan, journals and receipts give "
                f"{derived.manifest_id}"
            )
        _check_games(out, record, trial, present)

    guarded(out, f"trial {trial}", run)
    return out


def _check_games(out: Outcome, record: Record, trial: str, frames: Mapping[str, pl.DataFrame]) -> None:
    games = frames.get("trial_games")
    turns, calls, votes = (frames.get(t) for t in ("trial_turns", "trial_judge_calls", "trial_model_votes"))
    if games is None or turns is None or calls is None or votes is None:
        return  # a sealed table that is missing is named by the runner's seal check
    rated = games.filter(pl.col("pro_rating_key").is_not_null() | pl.col("con_rating_key").is_not_null())
    for game in rated["game_id"]:
        out.problems.append(
            f"trial_games trial {trial} game {game}: names a rating key; a trial's games move none"
        )
    for game in games.iter_rows(named=True):
        got = rederived_outcome(
            turns.filter(pl.col("game_id") == game["game_id"]),
            calls.filter(pl.col("game_id") == game["game_id"]),
        )
        recorded = (game["status"], game["winner"], game["ended_by"])
        if got.problem is not None or recorded != (got.status, got.winner, got.ended_by):
            out.problems.append(
                f"trial_games trial {trial} game {game['game_id']}: recorded {recorded}, its turns and judge "
                f"calls give {(got.status, got.winner, got.ended_by)}"
                + (f" ({got.problem})" if got.problem else "")
            )
    for table, frame in (("trial_judge_calls", calls), ("trial_model_votes", votes)):
        for call in frame.iter_rows(named=True):
            vote = read_judge_vote(call["reply"] if call["status"] == "answered" else None)
            if (call["verdict"], call["invalid"]) != (vote.verdict, vote.invalid):
                out.problems.append(
                    f"{table} trial {trial} game {call['game_id']} {call['slot']} #{call['attempt']} "
                    "field verdict: "
                    f"recorded {call['verdict']!r}, its reply reads {vote.verdict!r}"
                )
    receipts = record.receipts
    _answers_match(
        out,
        turns,
        "text",
        lambda r: f"trial_turns trial {trial} game {r['game_id']} turn {r['turn']}",
        receipts,
    )
    for table, frame in (("trial_judge_calls", calls), ("trial_model_votes", votes)):
        _answers_match(
            out, frame, "reply",
            lambda r, t=table: f"{t} trial {trial} game {r['game_id']} {r['slot']} #{r['attempt']}", receipts,
        )  # fmt: skip
    for table, frame in (("trial_turns", turns), ("trial_judge_calls", calls), ("trial_model_votes", votes)):
        named = frame["receipt_ids"].explode().drop_nulls().unique().sort().to_list()
        out.problems += [
            f"{table} trial {trial}: names receipt {r}, which the record lacks"
            for r in named
            if r not in receipts
        ]
    out.count("trial_games", games.height)


@dataclasses.dataclass(frozen=True)
class TrialsAudit:
    arena: ArenaRecord = DEBATE_TRIALS
    record_counts: tuple[str, ...] = ("trials", "trial_games")
    site_counts: tuple[str, ...] = ()
    site_downloads_checked_by_partition: tuple[str, ...] = ()
    checks_partition_files: bool = False
    journals: Mapping[str, tuple[str, ...]] = dataclasses.field(
        default_factory=lambda: {TRIAL_GAMES_JOURNAL: (), TRIAL_VOTES_JOURNAL: ()}
    )

    def record_tasks(self, scan: RecordScan) -> list[Task]:
        keys = (
            sorted(set().union(*scan.partitions.values(), scan.decided))
            if scan.partitions
            else sorted(scan.decided)
        )
        return [Task("trials", 1, _check_trial, (str(scan.root), key)) for key in keys]

    def site_tasks(self, scan: SiteScan) -> list[Task]:
        return []

    def published_arena_keys(self, root: Path) -> list[str]:
        return []


TRIALS_AUDIT = TrialsAudit()
