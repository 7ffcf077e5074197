"""``DebateTrialPart``: the debate arena's part of a trial (``colosseum_core.trial.TrialPart``).

``run`` plans the trial once (or finds its plan), plays every game of it not yet in its journal,
asks the model's vote on every judged game not yet in the votes journal, and seals the trial; a
sealed trial is read, never played again. Everything is asked under the trial's partition lock, each
game journalled as it ends and each vote as it is given, so a run that stops anywhere is resumed
by the next one without asking anything twice. ``read`` reports from the record alone.

No sealed rotation begun by the trial's start: the part is ``skipped``, saying so (a rotation is
``colosseum debate topics current``, on the offline default too); the model's key variable unset:
``failed``, before anything is frozen.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.debate.arena import (
    DEBATE_TOPICS,
    DEBATE_TRIALS,
    TRIAL_GAMES_JOURNAL,
    TRIAL_PLAN,
    TRIAL_TABLES,
    TRIAL_VOTES_JOURNAL,
)
from colosseum_core.debate.asking import Asker
from colosseum_core.debate.game.play import GameSpec, PlayedGame, play_games
from colosseum_core.debate.models import ModelsConfig, load_models
from colosseum_core.debate.trial.derive import TrialRecordError, TrialTables, trial_tables
from colosseum_core.debate.trial.plan import game_specs, latest_rotation, planned_model, trial_plan
from colosseum_core.debate.trial.vote import model_vote
from colosseum_core.interrupts import run_async
from colosseum_core.providers.call import Endpoint
from colosseum_core.providers.models import ModelRef
from colosseum_core.record.crash import crash_point
from colosseum_core.record.journal import Journal
from colosseum_core.record.layout import Record
from colosseum_core.record.locks import partition_lock
from colosseum_core.record.sealed_step import Derived, run_sealed_step
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.trial import PartReport, Standing, TrialError, TrialRequest

ARENA: Final = "debate"
PART: Final = "debate"


def model_endpoint(model: ModelRef, sparring_url: str, environ: Mapping[str, str]) -> Endpoint:
    """Where the trial asks the model: a house name on the sparring server, anything else where it
    is served, with its key (none when it needs none)."""
    return Endpoint(
        model.protocol, sparring_url if model.house else model.base_url, model.model, model.key(environ)
    )


@dataclasses.dataclass(frozen=True)
class DebateTrialPart:
    """The debate's part. ``models_path``: the compelle-models/1 document whose house debater and
    panel the model meets (None: the offline default, ``house_models.json``)."""

    models_path: Path | None = None
    arena: str = ARENA
    part: str = PART

    def models(self) -> ModelsConfig:
        return load_models(self.models_path)

    def run(self, request: TrialRequest) -> PartReport:
        record = Record(request.data_dir)
        trial = request.trial
        if record.seals(DEBATE_TRIALS).get(trial) is not None:
            report = self.read(request.data_dir, trial)
            assert report is not None
            return report
        missing = request.model.missing_key(request.environ)
        if missing is not None:
            return PartReport(
                ARENA, PART, trial, "failed", note=f"{request.model.name}: ${missing} is not set"
            )
        owner = f"pid {os.getpid()} trial {trial}"
        with record.locks.hold(
            partition_lock(DEBATE_TRIALS.partition, trial), owner=owner, purpose="debate trial"
        ):
            plan = self._plan(record, request)
            if plan is None:
                return PartReport(
                    ARENA, PART, trial, "skipped",
                    note="no topic rotation is sealed yet: draw one with `colosseum debate topics current` "
                    "(the offline default needs no network)",
                )  # fmt: skip
            run_async(self._play(record, request, plan))
            self._seal(record, request, plan)
        report = self.read(request.data_dir, trial)
        assert report is not None
        return report

    def _plan(self, record: Record, request: TrialRequest) -> pl.DataFrame | None:
        tables = record.tables(DEBATE_TRIALS)
        if tables.exists(TRIAL_PLAN, request.trial):
            return tables.read_checked(TRIAL_PLAN, request.trial)
        now = request.clock()
        rotation = latest_rotation([s.partition for s in record.seals(DEBATE_TOPICS).seals()], now)
        if rotation is None:
            return None
        motions = record.tables(DEBATE_TOPICS).read_checked("motions", rotation)
        plan = trial_plan(
            request.trial, request.model, rotation=rotation, motions=motions,
            models_sha256=self.models().sha256,
            date=now.date().isoformat(),
        )  # fmt: skip
        data = parquet_bytes(plan)
        record.seals(DEBATE_TRIALS).check_write(TRIAL_PLAN, request.trial, data)
        tables.write_bytes(TRIAL_PLAN, data, request.trial)
        request.progress(f"debate: trial {request.trial} planned: {plan.height} games on rotation {rotation}")
        return plan

    async def _play(self, record: Record, request: TrialRequest, plan: pl.DataFrame) -> None:
        trial = request.trial
        models = self.models()
        if plan["models_sha256"][0] != models.sha256:
            raise TrialError(
                f"debate trial {trial} field models_sha256: planned with {plan['models_sha256'][0]}, the "
                f"models document is now {models.sha256} ({models.source}); a trial is finished with the "
                "models it began with"
            )
        asker = Asker(request.sparring_url, request.environ, record.receipts, request.clock)
        model = model_endpoint(planned_model(plan), request.sparring_url, request.environ)
        sides = dict(plan.select("game_id", "model_side").iter_rows())
        games = Journal(record.journal_path(DEBATE_TRIALS, TRIAL_GAMES_JOURNAL, trial))
        votes = Journal(record.journal_path(DEBATE_TRIALS, TRIAL_VOTES_JOURNAL, trial))
        done = {e["game"]["game_id"]: e for e in games.entries()}
        voted = {e["game_id"] for e in votes.entries()}
        total = plan.height
        started: dict[str, str] = {}

        async def vote(entry: Mapping[str, Any]) -> None:
            game_id = entry["game"]["game_id"]
            begun = request.clock().isoformat()
            calls = await model_vote(entry["game"], entry["turns"], model, asker)
            await asyncio.to_thread(
                votes.append,
                {
                    "game_id": game_id,
                    "calls": calls,
                    "started_at": begun,
                    "ended_at": request.clock().isoformat(),
                },
            )
            crash_point(f"trial-vote:{game_id}")
            said = calls[-1]["verdict"] or f"no vote ({calls[-1]['invalid'] or calls[-1]['status']})"
            request.progress(f"debate: game {game_id}: the model as judge: {said}")

        async def played(game: PlayedGame) -> None:
            game_id = game.game["game_id"]
            entry = {**game.entry(), "started_at": started[game_id], "ended_at": request.clock().isoformat()}
            await asyncio.to_thread(games.append, entry)
            crash_point(f"trial-game:{game_id}")
            number = plan["game_id"].to_list().index(game_id) + 1
            request.progress(f"debate: game {number}/{total} {game_id}: {game.game['reason']}")
            if game.judge_calls:
                await vote(entry)

        def chains(spec: GameSpec) -> dict[str, list[Endpoint]]:
            # The clock read as a game starts: the journal keeps each game's time.
            started[spec.game_id] = request.clock().isoformat()
            return {sides[spec.game_id]: [model]}

        # A game journalled before a stop, whose vote was not: its vote first.
        for game_id in plan["game_id"]:
            if game_id in done and done[game_id]["judge_calls"] and game_id not in voted:
                await vote(done[game_id])
        await play_games(
            game_specs(plan), models, asker, asyncio.sleep,
            done={g: PlayedGame.from_entry(e) for g, e in done.items()}, on_played=played, chains=chains,
        )  # fmt: skip

    def _seal(self, record: Record, request: TrialRequest, plan: pl.DataFrame) -> None:
        trial = request.trial

        def derive(_seal: object) -> Derived:
            derived = derive_trial(record, trial)
            return Derived(derived.tables, plan["kind"][0], derived.manifest_id)

        step = run_sealed_step(
            record.tables(DEBATE_TRIALS), record.seals(DEBATE_TRIALS), trial, outputs=TRIAL_TABLES,
            vouched=(TRIAL_PLAN,), derive=derive, sealed_at=lambda: request.clock().isoformat(),
        )  # fmt: skip
        request.progress(f"debate: {step.describe()}")

    def read(self, data_dir: Path, trial: str) -> PartReport | None:
        record = Record(data_dir)
        tables = record.tables(DEBATE_TRIALS)
        if record.seals(DEBATE_TRIALS).get(trial) is None or not tables.exists("trial_manifest", trial):
            if tables.exists(TRIAL_PLAN, trial):
                played = len(
                    Journal(record.journal_path(DEBATE_TRIALS, TRIAL_GAMES_JOURNAL, trial)).entries()
                )
                plan = tables.read_checked(TRIAL_PLAN, trial)
                return PartReport(
                    ARENA, PART, trial, "waiting",
                    note=f"{played} of {plan.height} games played; run the trial again to finish it",
                )  # fmt: skip
            return None
        m = tables.read_checked("trial_manifest", trial).row(0, named=True)
        return report_of(record, trial, m)


def derive_trial(record: Record, trial: str) -> TrialTables:
    """The trial's tables re-derived from its plan, journals and receipts in ``record``."""
    tables = record.tables(DEBATE_TRIALS)
    plan = tables.read_checked(TRIAL_PLAN, trial)
    games = Journal(record.journal_path(DEBATE_TRIALS, TRIAL_GAMES_JOURNAL, trial)).entries()
    votes = Journal(record.journal_path(DEBATE_TRIALS, TRIAL_VOTES_JOURNAL, trial)).entries()
    try:
        return trial_tables(trial, plan, games, votes, record.receipts)
    except TrialRecordError as exc:
        raise TrialError(f"debate {exc}") from None


def report_of(record: Record, trial: str, m: Mapping[str, Any]) -> PartReport:
    """The part's report from a sealed trial's manifest row."""
    house = json.loads(m["house_agreement"])
    standings = (
        Standing("debate win rate vs the house debater", m["win_rate"], m["win_low"], m["win_high"],
                 m["win_rank"], 2, True),
        Standing("judge agreement with the house panel", m["agreement"], m["agreement_low"],
                 m["agreement_high"], m["agreement_rank"], 1 + len(house), True),
        # No better way: the panel's own share over the same games is in the note.
        Standing("judge Pro share", m["pro_share"], m["pro_low"], m["pro_high"], None, 1, False),
    )  # fmt: skip
    root = record.root
    transcripts = tuple(
        str(p.relative_to(root))
        for p in (
            record.journal_path(DEBATE_TRIALS, TRIAL_GAMES_JOURNAL, trial),
            record.journal_path(DEBATE_TRIALS, TRIAL_VOTES_JOURNAL, trial),
            record.tables(DEBATE_TRIALS).path("trial_turns", trial),
        )
    )
    panel = "n/a" if m["panel_pro_share"] is None else f"{m['panel_pro_share']:.2f}"
    note = (
        f"rotation {m['rotation']}: {m['games']} games, {m['wins']} won, {m['draws']} drawn, "
        f"{m['losses']} lost, "
        f"{m['void']} void; the panel decided {m['judged']}, the model agreed on {m['agreed']}; "
        f"the panel's Pro share on the games the model judged {panel}; {m['kind']}"
    )
    return PartReport(
        arena=ARENA,
        part=PART,
        unit=f"{DEBATE_TRIALS.name}/{DEBATE_TRIALS.partition}={trial}",
        state="sealed",
        standings=standings,
        format_failures={k: v for k, v in json.loads(m["format_failures"]).items() if v},
        refusals=m["refusals"],
        calls=m["calls"],
        tokens_in=m["tokens_in"],
        tokens_out=m["tokens_out"],
        seconds=m["seconds"],
        transcripts=transcripts,
        note=note,
    )
