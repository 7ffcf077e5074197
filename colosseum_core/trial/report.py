"""Running a trial and its one report: every part asked in turn, each part's report kept, a part
that raises reported failed with its one-line reason while the others still run; the report
rebuilt later from the record alone (the trial's entry and each part's ``read``).

Knows no arena: the parts come in as :class:`TrialPart` objects.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from colosseum_core.record.layout import Record
from colosseum_core.trial.entries import TrialJournal, read_entry
from colosseum_core.trial.part import TRIAL, PartReport, Standing, TrialPart, TrialRequest

# How many transcript links the terminal shows per part (--json and the page list them all).
SHOWN_TRANSCRIPTS = 1


@dataclasses.dataclass(frozen=True)
class TrialReport:
    """One trial's report: the model as resolved, and one part report per part asked, in order."""

    trial: str
    model: Mapping[str, Any]
    parts: tuple[PartReport, ...]
    runs: int = 1

    @property
    def failed(self) -> tuple[PartReport, ...]:
        return tuple(p for p in self.parts if p.state == "failed")

    def document(self) -> dict[str, Any]:
        return {
            "trial": self.trial,
            "rule": TRIAL,
            "model": dict(self.model),
            "runs": self.runs,
            "failed": len(self.failed),
            "parts": [
                {**dataclasses.asdict(p), "format_failures": dict(p.format_failures)} for p in self.parts
            ],
        }


def one_line(text: str, limit: int = 300) -> str:
    said = " ".join(str(text).split())
    return said if len(said) <= limit else said[: limit - 1] + "…"


def failed_report(part: TrialPart, reason: str, seconds: float = 0.0) -> PartReport:
    return PartReport(
        part.arena, part.part, unit="", state="failed", seconds=round(seconds, 3), note=one_line(reason)
    )


def trial_lock(trial: str) -> str:
    """The record's writer lock a trial holds while it runs: one run of a trial at a time."""
    return f"trial-{trial}"


def run_trial(
    parts: Sequence[TrialPart],
    request: TrialRequest,
    *,
    monotonic: Callable[[], float] = time.monotonic,
    owner: str | None = None,
) -> TrialReport:
    """Ask every part in turn, writing the trial's entry as it goes; a part that raises is reported
    failed with its one-line reason and the next is asked. Holds the trial's lock throughout
    (``LockBusy`` naming the run that holds it, before anything is asked)."""
    record = Record(request.data_dir)
    with record.locks.hold(
        trial_lock(request.trial), owner=owner or f"pid {os.getpid()}", purpose="colosseum trial"
    ):
        return _run(parts, request, monotonic)


def _run(parts: Sequence[TrialPart], request: TrialRequest, monotonic: Callable[[], float]) -> TrialReport:
    journal = TrialJournal(request.data_dir, request.trial)
    journal.started(
        request.model.record(),
        [(p.arena, p.part) for p in parts],
        request.clock().isoformat(timespec="seconds"),
    )
    reports: list[PartReport] = []
    for number, part in enumerate(parts, start=1):
        request.progress(f"{part.arena}/{part.part} ({number}/{len(parts)}): asking")
        started = monotonic()
        try:
            report = part.run(request)
            if not isinstance(report, PartReport):
                raise TypeError(f"run returned {type(report).__name__}, not a PartReport")
        except Exception as exc:  # a part's failure is its own: the trial goes on to the next
            report = failed_report(part, f"{type(exc).__name__}: {exc}", monotonic() - started)
        journal.part(report)
        took = monotonic() - started
        said = f": {report.note}" if report.note else ""
        request.progress(f"{part.arena}/{part.part}: {report.state} in {took:.1f}s{said}")
        reports.append(report)
    journal.finished(request.clock().isoformat(timespec="seconds"), sum(r.state == "failed" for r in reports))
    entry = read_entry(request.data_dir, request.trial)
    return TrialReport(request.trial, request.model.record(), tuple(reports), entry.runs if entry else 1)


def rebuild_report(data_dir: Path, trial: str, parts: Sequence[TrialPart]) -> TrialReport | None:
    """The trial's report from the record alone: each part its entry lists read by the part
    (``TrialPart.read``); a part that reads nothing (it failed, or never got to its unit) shows what
    the entry says of it; a part no longer offered is said to be. None: no such trial."""
    entry = read_entry(data_dir, trial)
    if entry is None:
        return None
    offered = {(p.arena, p.part): p for p in parts}
    reports: list[PartReport] = []
    for key in entry.parts:
        said = entry.outcomes.get(key)
        part = offered.get(key)
        report = None
        if part is not None:
            try:
                report = part.read(data_dir, trial)
            except Exception as exc:
                report = failed_report(part, f"cannot be read back: {type(exc).__name__}: {exc}")
        if report is None:
            note = said.note if said is not None else "never asked: the trial stopped before it"
            if part is None:
                note = f"no part {key[0]}/{key[1]} is offered now to read it back" + (
                    f"; {note}" if note else ""
                )
            state = said.state if said is not None and said.state == "failed" else "failed"
            report = PartReport(
                *key,
                unit=said.unit if said else "",
                state=state,  # type: ignore[arg-type]
                seconds=said.seconds if said else 0.0,
                note=one_line(note),
            )
        reports.append(report)
    return TrialReport(trial, entry.model, tuple(reports), entry.runs)


def standing_text(standing: Standing) -> str:
    """``brier 0.214 [0.180, 0.251], 2nd of 6 (lower is better)`` in words a reader takes in at once."""

    def number(value: float | None) -> str:
        return "—" if value is None else f"{value:.3g}"

    interval = f" [{number(standing.low)}, {number(standing.high)}]" if standing.low is not None else ""
    rank = f", {_ordinal(standing.rank)} of {standing.field}" if standing.rank is not None else ""
    better = "higher" if standing.higher_is_better else "lower"
    return f"{standing.measure} {number(standing.value)}{interval}{rank} ({better} is better)"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def tokens_text(report: PartReport) -> str:
    if report.tokens_in is None and report.tokens_out is None:
        return "tokens not reported"
    return f"{report.tokens_in or 0:,} in / {report.tokens_out or 0:,} out tokens"


def failures_text(report: PartReport) -> str:
    if not report.format_failures:
        return "no format failures"
    return "format failures " + ", ".join(f"{n} {what}" for what, n in sorted(report.format_failures.items()))


def render_text(report: TrialReport, *, link: Callable[[str], str] = str) -> list[str]:
    """The report for a terminal: a headline, then a few lines per part (standings, failures,
    refusals, cost, transcripts), then what failed. ``link`` turns a transcript's record-relative
    path into what the reader opens."""
    model = report.model
    where = model.get("base_url", "")
    lines = [
        f"trial {report.trial}: {model.get('name', '?')} ({model.get('protocol', '?')} at {where}), "
        f"{len(report.parts)} part(s), {len(report.failed)} failed; {TRIAL}"
    ]
    for part in report.parts:
        unit = f" {part.unit}" if part.unit else ""
        lines.append(f"{part.arena}/{part.part}{unit}: {part.state.upper()}")
        if part.state == "failed":
            lines.append(f"  why: {part.note}")
            continue
        for standing in part.standings:
            lines.append(f"  {standing_text(standing)}")
        if not part.standings:
            lines.append("  no standing yet" + (f": {part.note}" if part.note else ""))
        elif part.note:
            lines.append(f"  note: {part.note}")
        lines.append(
            f"  {failures_text(part)}; {part.refusals} refusal(s); {part.calls} call(s), "
            f"{tokens_text(part)}, {part.seconds:.1f}s"
        )
        shown = part.transcripts[:SHOWN_TRANSCRIPTS]
        if shown:
            more = len(part.transcripts) - len(shown)
            also = f" (+{more} more; --json lists every one)" if more else ""
            lines.append("  transcripts: " + ", ".join(link(t) for t in shown) + also)
    return lines
