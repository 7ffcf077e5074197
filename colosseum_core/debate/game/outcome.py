"""A game's result re-derived from its recorded turns and judge calls alone (for ``verify``).

The same rules the game was played by, read back: the first turn whose raw text concedes ends the
game for the other side; a turn the debate model did not give aborts it (void); a game that reached
neither ends at the turn cap, and the judges' counted votes (each slot's last reading, read again
from its raw reply) and, after a split, their deliberations give the panel's result
(``judging.panel``), a deliberation a rate limit cut short voiding it.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from colosseum_core.debate.game.concession import conceded_reason, read_concession
from colosseum_core.debate.game.turns import TURN_CAP
from colosseum_core.debate.judging.ask import DELIBERATING, READING
from colosseum_core.debate.judging.panel import VOID, after_deliberation, first_reading
from colosseum_core.debate.judging.votes import read_judge_vote

CONCESSION, PANEL, ABORTED = "concession", "panel", "aborted"


@dataclasses.dataclass(frozen=True)
class Outcome:
    status: str
    winner: str | None
    reason: str  # the reason's beginning (a rate limit's note may follow it)
    ended_by: str
    conceded_by: str | None = None
    concession_short: bool | None = None
    problem: str | None = None  # rows that no game played by the rules could have left


def _void(reason: str, problem: str | None = None) -> Outcome:
    return Outcome(VOID, None, reason, ABORTED, problem=problem)


def rederived_outcome(turns: pl.DataFrame, calls: pl.DataFrame) -> Outcome:
    """One game's outcome from its ``turns`` and ``judge_calls``."""
    if turns.height == 0 and calls.height == 0:
        return _void("Void: aborted on turn 1")
    ordered = turns.sort("turn")
    if ordered["turn"].to_list() != list(range(1, ordered.height + 1)):
        return _void("Void", f"its turns are numbered {ordered['turn'].to_list()}, not 1 to {ordered.height}")
    for turn in ordered.iter_rows(named=True):
        if turn["status"] != "answered":
            return _void(f"Void: aborted on turn {turn['turn']}")
        concession = read_concession(turn["text"])
        if concession is not None:
            return Outcome(
                "decided",
                "Con" if turn["side"] == "Pro" else "Pro",
                conceded_reason(turn["side"], turn["turn"], concession.mark),
                CONCESSION,
                turn["side"],
                concession.short,
            )
    if ordered.height != TURN_CAP:
        return _void(
            "Void", f"{ordered.height} turns and no concession: a game goes to the panel at {TURN_CAP}"
        )
    readings = calls.filter(pl.col("stage") == READING)
    slots = list(dict.fromkeys(readings["slot"].to_list()))
    votes: list[str | None] = []
    for slot in slots:
        last = readings.filter(pl.col("slot") == slot).sort("attempt").row(-1, named=True)
        votes.append(read_judge_vote(last["reply"]).verdict if last["status"] == "answered" else None)
    while len(votes) < 2:
        votes.append(None)
    first = first_reading(votes)
    if first is not None:
        # A vote a rate limit took away voids the game as an outage does: aborted, not judged.
        aborted = first.status == VOID and bool(readings["rate_limited"].fill_null(False).any())
        return Outcome(first.status, first.winner, first.reason, ABORTED if aborted else PANEL)
    deliberations = calls.filter(pl.col("stage") == DELIBERATING)
    limited = deliberations.filter(pl.col("rate_limited").fill_null(False))
    if limited.height:
        slots_limited = ", ".join(limited["slot"].to_list())
        return _void(f"Panel split 1-1 → deliberation aborted ({slots_limited} rate-limited) → void")
    second = []
    for slot in slots:
        found = deliberations.filter(pl.col("slot") == slot)
        reply = found.row(0, named=True) if found.height else None
        answered = reply is not None and reply["status"] == "answered"
        second.append(read_judge_vote(reply["reply"]).verdict if answered else None)
    result = after_deliberation([v for v in votes if v is not None], second)
    return Outcome(result.status, result.winner, result.reason, PANEL)
