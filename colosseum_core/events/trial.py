"""The multi-event arena's part of a model maker's trial (COLOSSEUM-TRIAL-1, COLOSSEUM-EVENTS-TRIAL-1):
for each kind of event, one ordinary event of that kind with the model as a contender
(``events.trial_field``): frozen, run and sealed by the kind's own jobs, under the kind's own seal,
so ``colosseum verify`` covers it; CALIBRATION, so it is never on a FIGHT board; its manifest names
the trial.

- chess: the model against the Stockfish anchors, every pairing on one line of the suite with the
  colours swapped (two games a pairing), rated with them (CHESS-RATINGS-1);
- Solve or Object: the model beside the house solvers on four pairs of the bank (eight items, the
  fewest whose pair-clustered interval is not a point for most fields);
- challenges: the model beside the house authors and solvers, one authoring slot each, judged by
  the house reviewers.

An event's id derives from the trial's (``trial-<kind>-<trial>``), so a trial run again finds the
event where it stopped: a frozen event is not frozen again, its journals replay every recorded reply
(nothing is asked twice), and a sealed one is only read. ``read`` reports from the record alone: the
model's standing with its interval and rank among the field in the kind's own measure, its format
failures by the kind's failure classes, its refusals, and its calls, tokens and seconds from its
receipts.

The events are made by Dagster steps, and the rules never import Dagster: a part runs them through
the wiring's job runner the request carries (``TrialRequest.run_job``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.kinds import kind_named
from colosseum_core.events.trial_field import EVENTS_TRIAL, model_contender_id, trial_record
from colosseum_core.providers.usage import usage_of
from colosseum_core.record.layout import Record
from colosseum_core.record.tables import RecordTables
from colosseum_core.trial.part import PartReport, Standing, TrialError, TrialRequest

ARENA: Final = "events"
# The dynamic partitions every event is one of (``colosseum_dagster.events.manifests``).
PARTITIONS: Final = "events"
BOOTSTRAP_REPLICATES: Final = 999

Frames = Mapping[str, pl.DataFrame]


@dataclasses.dataclass(frozen=True)
class Findings:
    """What a kind reads of the model in its sealed event: its standings, its format failures by
    class, its refusals, its calls' receipts (id and protocol)."""

    standings: tuple[Standing, ...]
    format_failures: dict[str, int]
    refusals: int
    receipts: tuple[tuple[str, str], ...]


def _rank(standings: pl.DataFrame, contender: str, value: str, *, higher: bool) -> int | None:
    """The contender's rank (1 = best) by ``value`` among those with one: 1 + how many did better."""
    mine = standings.filter(pl.col("contender") == contender)[value]
    if mine.is_empty() or mine[0] is None:
        return None
    better = pl.col(value) > mine[0] if higher else pl.col(value) < mine[0]
    return 1 + standings.filter(pl.col(value).is_not_null() & better).height


def standing(
    standings: pl.DataFrame,
    contender: str,
    measure: str,
    columns: tuple[str, str, str],
    *,
    higher: bool = True,
    placement: bool = True,
) -> Standing:
    """The contender's standing in one measure: ``columns`` are its value and interval's; its rank is
    the kind's placement when ``placement`` (ties share one), else counted by the value."""
    value, low, high = columns
    row = standings.filter(pl.col("contender") == contender)
    if row.is_empty():
        return Standing(measure, None, None, None, None, standings.height, higher)
    first = row.row(0, named=True)
    rank = first["placement"] if placement else _rank(standings, contender, value, higher=higher)
    return Standing(measure, first[value], first[low], first[high], rank, standings.height, higher)


def _counts(frame: pl.DataFrame, column: str, prefix: str = "") -> dict[str, int]:
    counted = frame.filter(pl.col(column).is_not_null()).group_by(column).len().sort(column)
    return {f"{prefix}{row[column]}": int(row["len"]) for row in counted.iter_rows(named=True)}


def _receipts(frame: pl.DataFrame) -> tuple[tuple[str, str], ...]:
    calls = frame.select(pl.col("receipt_ids"), pl.col("protocol")).explode("receipt_ids")
    calls = calls.filter(pl.col("receipt_ids").is_not_null())
    return tuple((r["receipt_ids"], r["protocol"]) for r in calls.iter_rows(named=True))


def _chess(event: str, frames: Frames, contender: str) -> Findings:
    moves = frames["chess_moves"].filter(pl.col("contender") == contender)
    return Findings(
        standings=(
            standing(
                frames["chess_standings"], contender, "rating (CHESS-RATINGS-1)", ("rating", "low", "high")
            ),
        ),
        format_failures=_counts(moves, "failure"),
        refusals=int((moves["status"] == "refused").sum()),
        receipts=_receipts(moves),
    )


def _solve_or_object(event: str, frames: Frames, contender: str) -> Findings:
    replies = frames["soo_replies"].filter(pl.col("contender") == contender)
    table = frames["soo_standings"]
    return Findings(
        standings=(
            standing(table, contender, "score (SOO-STANDINGS-1)", ("score", "low", "high")),
            standing(
                table,
                contender,
                "Brier score of P_DEFECTIVE",
                ("brier", "brier_low", "brier_high"),
                higher=False,
                placement=False,
            ),
        ),
        format_failures=_counts(replies, "failure"),
        refusals=int((replies["status"] == "refused").sum()),
        receipts=_receipts(replies),
    )


def _challenges(event: str, frames: Frames, contender: str) -> Findings:
    table = frames["challenge_standings"].filter(pl.col("basis") == "verified")
    authored = frames["challenge_authored"].filter(pl.col("author") == contender)
    replies = frames["challenge_replies"].filter(pl.col("solver") == contender)
    submissions = frames["challenge_submissions"].filter(pl.col("author") == contender)
    return Findings(
        standings=tuple(
            standing(
                table.filter(pl.col("ranking") == ranking),
                contender,
                f"{ranking} score (CHALLENGE-STANDINGS-1, verified)",
                ("score", "low", "high"),
            )
            for ranking in ("solving", "authoring")
        ),
        # A task that did not hold is its author's failure, by admission's class; a reply that did
        # not come back, its solver's.
        format_failures={
            **_counts(submissions.filter(pl.col("status") != "verified"), "status", "authoring: "),
            **_counts(replies.filter(pl.col("status") != "answered"), "status", "solving: "),
        },
        refusals=int((authored["status"] == "refused").sum() + (replies["status"] == "refused").sum()),
        receipts=_receipts(
            pl.concat([authored.select("receipt_ids", "protocol"), replies.select("receipt_ids", "protocol")])
        ),
    )


def _transcripts(data_dir: Path, tables: RecordTables, event: str, read: Sequence[str]) -> tuple[str, ...]:
    """Where the event's exchanges with its players are kept, relative to the record's root, as every
    part reports them: its journals (every call, in order), then the tables the report read."""
    root = Path(data_dir).absolute()
    journals = sorted(root.glob(f"journal/{EVENTS.name}/*/event={event}.jsonl"))
    files = [Path(str(tables.path(t, event))).absolute() for t in read if tables.exists(t, event)]
    return tuple(p.relative_to(root).as_posix() for p in [*journals, *files])


@dataclasses.dataclass(frozen=True)
class TrialEvent:
    """How one kind of event takes part in a trial: its kind and the part's name, its events' id
    prefix, its jobs' prefix and the resource its steps ask through (the wiring's), its freeze's own
    config (the event's size), the tables its report reads and how it reads them."""

    kind: str
    part: str
    short: str
    jobs: str
    resource: str
    size: Mapping[str, int]
    tables: tuple[str, ...]
    findings: Callable[[str, Frames, str], Findings]
    arena: str = ARENA

    def event(self, trial: str) -> str:
        """The trial's event of this kind: its id derived from the trial's, so a rerun resumes it."""
        return f"trial-{self.short}-{trial}"

    def freeze_config(self, trial: str, model: Mapping[str, Any]) -> dict[str, Any]:
        """The freeze's config: the kind, its size, the trial's record and a seed drawn from the
        trial's id (recorded in the manifest)."""
        seed = int(hashlib.sha256(f"{EVENTS_TRIAL}\n{self.kind}\n{trial}".encode()).hexdigest()[:8], 16)
        return {
            "kind": self.kind,
            **self.size,
            "seed": seed,
            "replicates": BOOTSTRAP_REPLICATES,
            "trial": json.dumps(trial_record(trial, model), sort_keys=True),
        }

    # -- the part --------------------------------------------------------------------------------

    def run(self, request: TrialRequest) -> PartReport:
        """Freeze the trial's event (unless frozen), run it to its seal (unless sealed) and report."""
        model, trial = request.model, request.trial
        event = self.event(trial)
        where = f"events {self.part}: trial {trial}, event {event}"
        missing = model.missing_key(request.environ)
        if missing is not None:
            raise TrialError(f"{where}: ${missing} is not set, so {model.name} cannot be asked")
        if request.run_job is None:
            raise TrialError(f"{where}: no job runner (the events are made by Dagster steps)")
        tables = Record(request.data_dir).tables(EVENTS)
        sealing = self._sealing()
        asking = {
            "resources": {self.resource: {"config": {"sparring_url": request.sparring_url}}},
            "key_variables": [model.key_env] if model.key_env and not model.house else [],
        }
        if tables.exists("event_manifests", event):
            self._check_frozen(tables, event, trial)
        else:
            request.progress(f"{where}: freezing (the model beside the house field)")
            config = self.freeze_config(trial, model.record())
            ops = {"events__event_manifests": {"config": config}}
            outcome = request.run_job(f"{self.jobs}_freeze_job", PARTITIONS, event, ops=ops, **asking)
            if not outcome.success:
                return self._failed(event, "not frozen: " + "; ".join(outcome.failures))
        if not tables.exists(sealing, event):
            request.progress(f"{where}: running to its seal (a stopped run resumes; nothing asked twice)")
            outcome = request.run_job(f"{self.jobs}_event_job", PARTITIONS, event, **asking)
            if not outcome.success:
                return self._failed(event, "not sealed: " + "; ".join(outcome.failures))
        report = self.read(request.data_dir, trial)
        if report is None:  # frozen by this run a moment ago
            raise TrialError(f"{where}: the record holds no such event after its run")
        request.progress(f"{where}: {report.state}")
        return report

    def read(self, data_dir: Path, trial: str) -> PartReport | None:
        """The part as the record holds it: None if the trial has no event of this kind; ``waiting``
        while it is frozen and not sealed; else the model's findings from the sealed tables."""
        event = self.event(trial)
        record = Record(data_dir)
        tables = record.tables(EVENTS)
        if not tables.exists("event_manifests", event):
            return None
        self._check_frozen(tables, event, trial)
        if not tables.exists(self._sealing(), event):
            return PartReport(
                arena=self.arena,
                part=self.part,
                unit=event,
                state="waiting",
                note="frozen, not sealed: the trial run again resumes it",
            )
        frames = {t: tables.read_checked(t, event) for t in self.tables}
        findings = self.findings(event, frames, model_contender_id(trial))
        receipts = record.receipts
        usage = usage_of(
            (receipts.get(receipt_id), protocol)
            for receipt_id, protocol in findings.receipts
            if receipt_id in receipts
        )
        return PartReport(
            arena=self.arena,
            part=self.part,
            unit=event,
            state="sealed",
            standings=findings.standings,
            format_failures=findings.format_failures,
            refusals=findings.refusals,
            calls=usage.calls,
            tokens_in=usage.tokens_in,
            tokens_out=usage.tokens_out,
            seconds=round(usage.seconds, 3),
            transcripts=_transcripts(data_dir, tables, event, self.tables),
        )

    # -- helpers ---------------------------------------------------------------------------------

    def _sealing(self) -> str:
        kind = kind_named(self.kind)
        if kind is None:
            raise TrialError(f"events {self.part}: the {self.kind} event is not a registered kind")
        return kind.sealing

    def _check_frozen(self, tables: Any, event: str, trial: str) -> None:
        """The event is this trial's, of this kind: anything else under its id is refused, named."""
        manifest = json.loads(tables.read_checked("event_manifests", event)["manifest"][0])
        frozen_trial = (manifest.get("trial") or {}).get("id")
        if manifest.get("kind") != self.kind or frozen_trial != trial:
            raise TrialError(
                f"events {self.part}: event {event} is a {manifest.get('kind')} event of trial "
                f"{frozen_trial!r}, not a {self.kind} event of trial {trial!r}; it is never refrozen"
            )

    def _failed(self, event: str, note: str) -> PartReport:
        return PartReport(arena=self.arena, part=self.part, unit=event, state="failed", note=note)


CHESS: Final = TrialEvent(
    kind="chess",
    part="chess",
    short="chess",
    jobs="chess",
    resource="chess",
    size={"lines": 1},
    tables=("chess_games", "chess_moves", "chess_standings"),
    findings=_chess,
)
SOLVE_OR_OBJECT: Final = TrialEvent(
    kind="solve-or-object",
    part="solve-or-object",
    short="soo",
    jobs="soo",
    resource="solve_or_object",
    size={"pairs": 4},
    tables=("soo_replies", "soo_standings"),
    findings=_solve_or_object,
)
CHALLENGES: Final = TrialEvent(
    kind="challenge",
    part="challenges",
    short="ch",
    jobs="challenge",
    resource="solve_or_object",
    size={"slots": 2},
    tables=(
        "challenge_authored",
        "challenge_submissions",
        "challenge_replies",
        "challenge_standings",
    ),
    findings=_challenges,
)
TRIAL_EVENTS: Final = (CHESS, SOLVE_OR_OBJECT, CHALLENGES)
