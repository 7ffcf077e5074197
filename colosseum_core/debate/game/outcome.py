"""A game's result re-derived from its recorded turns and judge calls alone (for ``verify``).

The same rules the game was played by, read back: the first turn whose raw text concedes ends the
game for the other side; a turn the debate model did not give aborts it (void); otherwise the
judges' counted votes (each slot's last reading, read again from its raw reply) and, after a split,
their deliberations give the panel's result (``judging.panel``).
"""

from __future__ import annotations

import polars as pl

from colosseum_core.debate.game.concession import read_concession
from colosseum_core.debate.judging.ask import DELIBERATING, READING
from colosseum_core.debate.judging.panel import VOID, after_deliberation, first_reading
from colosseum_core.debate.judging.votes import read_judge_vote


def rederived_outcome(turns: pl.DataFrame, calls: pl.DataFrame) -> tuple[str, str | None, str]:
    """(status, winner, the reason's beginning) of one game from its ``turns`` and ``judge_calls``."""
    if turns.height == 0 and calls.height == 0:
        return VOID, None, "Void: aborted on turn 1"
    for turn in turns.sort("turn").iter_rows(named=True):
        if turn["status"] != "answered":
            return VOID, None, f"Void: aborted on turn {turn['turn']}"
        concession = read_concession(turn["text"])
        if concession is not None:
            winner = "Con" if turn["side"] == "Pro" else "Pro"
            return (
                "decided",
                winner,
                f"{turn['side']} conceded on turn {turn['turn']} ({concession.mark}) → {winner}",
            )
    slots = list(dict.fromkeys(calls.filter(pl.col("stage") == READING)["slot"].to_list()))
    votes: list[str | None] = []
    for slot in slots:
        last = (
            calls.filter((pl.col("slot") == slot) & (pl.col("stage") == READING))
            .sort("attempt")
            .row(-1, named=True)
        )
        votes.append(read_judge_vote(last["reply"]).verdict if last["status"] == "answered" else None)
    while len(votes) < 2:
        votes.append(None)
    first = first_reading(votes)
    if first is not None:
        return first.status, first.winner, first.reason
    second = []
    for slot in slots:
        found = calls.filter((pl.col("slot") == slot) & (pl.col("stage") == DELIBERATING))
        reply = found.row(0, named=True) if found.height else None
        answered = reply is not None and reply["status"] == "answered"
        second.append(read_judge_vote(reply["reply"]).verdict if answered else None)
    result = after_deliberation([v for v in votes if v is not None], second)
    return result.status, result.winner, result.reason
