"""A trial's tables and manifest from its plan, its journals and its receipts alone (COMPELLE-TRIAL-1).

What the trial's seal vouches for, and what ``verify`` derives again: the games, turns and the
panel's calls as the games journal holds them, the model's votes as the votes journal holds them,
and one manifest row of what they come to:

- the model's **win rate** against the house debater over the games that were not void (a draw is
  half a win), with its Wilson 95 % interval (``statistics.proportion``), and its placement among
  the two (COLOSSEUM-PLACEMENT-2: second only when its interval lies wholly below one half, where
  the house debater's mirror interval lies wholly above it);
- its **agreement** with the panel: over the games the panel decided, the share where the model's
  vote (its last reading) named the panel's winner; no vote is no agreement. The house judges' own
  agreement (each slot's last vote, deliberation included) is computed the same way, and the model
  is placed among them;
- its **Pro share**: PRO among its valid votes, beside the panel's share over the same games;
- its **format failures** by the debate's classes (a turn not given, empty, cut, with banned words or
  dashes, written to the judges and neutralised, a concession too short; a vote that hedged, was
  malformed or was not given), its **refusals** (a reply whose receipt says the model refused or was
  blocked), its **calls** and **tokens** (the usage its receipts carry), and the **time** its games
  and votes took by the journals' instants.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from colosseum_core.debate.game.outcome import PANEL
from colosseum_core.debate.game.schemas import GAME_SCHEMA, JUDGE_CALL_SCHEMA, TURN_SCHEMA
from colosseum_core.debate.judging.ask import DELIBERATING
from colosseum_core.debate.judging.panel import DECIDED, DRAW, VOID
from colosseum_core.debate.judging.votes import HEDGE, MALFORMED, PRO
from colosseum_core.debate.rules import COMPELLE_TRIAL
from colosseum_core.debate.trial.plan import MODEL_SEAT
from colosseum_core.debate.trial.vote import MODEL_SLOT
from colosseum_core.providers.call import stop_in_receipt
from colosseum_core.providers.usage import receipt_tokens
from colosseum_core.record import with_ids
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.statistics.placement import PLACEMENT
from colosseum_core.statistics.proportion import WILSON, wilson_interval


class TrialRecordError(ValueError):
    """A trial whose journals do not hold its plan's games: the message names the trial and the game."""


def _partitioned(schema: Mapping[str, pl.DataType]) -> dict[str, pl.DataType]:
    return {"trial": pl.String(), **{k: v for k, v in schema.items() if k != "epoch"}}


TRIAL_GAME_SCHEMA: Final = _partitioned(GAME_SCHEMA)
TRIAL_TURN_SCHEMA: Final = _partitioned(TURN_SCHEMA)
TRIAL_JUDGE_CALL_SCHEMA: Final = _partitioned(JUDGE_CALL_SCHEMA)
MANIFEST_SCHEMA: Final[dict[str, pl.DataType]] = {
    "trial": pl.String(),
    "model_name": pl.String(),
    "rotation": pl.String(),
    "games": pl.Int64(),
    "wins": pl.Int64(),
    "draws": pl.Int64(),
    "losses": pl.Int64(),
    "void": pl.Int64(),
    "win_rate": pl.Float64(),
    "win_low": pl.Float64(),
    "win_high": pl.Float64(),
    "win_rank": pl.Int64(),
    "judged": pl.Int64(),
    "agreed": pl.Int64(),
    "agreement": pl.Float64(),
    "agreement_low": pl.Float64(),
    "agreement_high": pl.Float64(),
    "agreement_rank": pl.Int64(),
    "house_agreement": pl.String(),  # JSON: each house judge slot's agreed and judged
    "votes_valid": pl.Int64(),
    "votes_pro": pl.Int64(),
    "pro_share": pl.Float64(),
    "pro_low": pl.Float64(),
    "pro_high": pl.Float64(),
    "panel_pro_share": pl.Float64(),
    "format_failures": pl.String(),  # JSON: class -> count
    "refusals": pl.Int64(),
    "calls": pl.Int64(),
    "tokens_in": pl.Int64(),
    "tokens_out": pl.Int64(),
    "seconds": pl.Float64(),
    "kind": pl.String(),
    "rules": pl.String(),
    "statistics": pl.String(),
}
# Why a turn or a vote of the model failed the format, by the debate's classes.
TURN_CLASSES: Final = (
    "turn_not_given",
    "turn_empty",
    "turn_cut",
    "turn_banned_word",
    "turn_dash",
    "turn_written_to_judges",
    "concession_short",
)
VOTE_CLASSES: Final = ("vote_not_given", "vote_hedge", "vote_malformed")
REFUSED_STOPS: Final = frozenset({"refusal", "safety"})


@dataclasses.dataclass(frozen=True)
class TrialTables:
    tables: dict[str, pl.DataFrame]  # the trial's sealed tables, manifest included
    manifest_id: str


def _frame(rows: Sequence[Mapping[str, Any]], schema: Mapping[str, pl.DataType], trial: str) -> pl.DataFrame:
    return with_ids(pl.DataFrame([{"trial": trial, **r} for r in rows], schema=dict(schema), orient="row"))


def _instant_seconds(entry: Mapping[str, Any]) -> float:
    ended, started = (dt.datetime.fromisoformat(entry[k]) for k in ("ended_at", "started_at"))
    return (ended - started).total_seconds()


def _journalled(
    trial: str, plan: pl.DataFrame, entries: Sequence[Mapping[str, Any]], key: str, what: str
) -> dict[str, Mapping[str, Any]]:
    found: dict[str, Mapping[str, Any]] = {}
    for entry in entries:
        game_id = entry[key]["game_id"] if key == "game" else entry[key]
        if game_id in found:
            raise TrialRecordError(f"trial {trial} {what} journal: game {game_id} journalled twice")
        found[game_id] = entry
    unplanned = sorted(set(found) - set(plan["game_id"]))
    if unplanned:
        raise TrialRecordError(
            f"trial {trial} {what} journal: game {unplanned[0]} is not in the trial's plan"
        )
    return found


def trial_tables(
    trial: str,
    plan: pl.DataFrame,
    games_journal: Sequence[Mapping[str, Any]],
    votes_journal: Sequence[Mapping[str, Any]],
    receipts: ReceiptStore,
) -> TrialTables:
    """The trial's tables, from its plan, journals and receipts alone (see the module's doc)."""
    games = _journalled(trial, plan, games_journal, "game", "games")
    votes = _journalled(trial, plan, votes_journal, "game_id", "votes")
    missing = [g for g in plan["game_id"] if g not in games]
    if missing:
        raise TrialRecordError(
            f"trial {trial}: game {missing[0]} of its plan is not played (its games journal)"
        )
    order = plan["game_id"].to_list()
    rotation_of = dict(plan.select("game_id", "rotation").iter_rows())
    game_rows = [
        {**games[g]["game"], "rotation": rotation_of[g], "kind": plan["kind"][0], "pairing": COMPELLE_TRIAL}
        for g in order
    ]
    turn_rows = [t for g in order for t in games[g]["turns"]]
    call_rows = [c for g in order for c in games[g]["judge_calls"]]
    for g in order:
        if games[g]["judge_calls"] and g not in votes:
            raise TrialRecordError(
                f"trial {trial}: game {g} was judged, but the model's vote is not journalled"
            )
    vote_rows = [v for g in order if g in votes for v in votes[g]["calls"]]
    tables = {
        "trial_games": _frame(game_rows, TRIAL_GAME_SCHEMA, trial),
        "trial_turns": _frame(turn_rows, TRIAL_TURN_SCHEMA, trial),
        "trial_judge_calls": _frame(call_rows, TRIAL_JUDGE_CALL_SCHEMA, trial),
        "trial_model_votes": _frame(vote_rows, TRIAL_JUDGE_CALL_SCHEMA, trial),
    }
    seconds = sum(_instant_seconds(e) for e in (*games.values(), *votes.values()))
    manifest = _manifest(trial, plan, tables, receipts, seconds)
    tables["trial_manifest"] = _frame([manifest], MANIFEST_SCHEMA, trial)
    content = {
        "tables": {t: sorted(f[ID_FIELD].to_list()) for t, f in tables.items()},
        "plan": sorted(plan[ID_FIELD].to_list()),
    }
    manifest_id = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()
    return TrialTables(tables, manifest_id)


def _last_votes(calls: pl.DataFrame) -> dict[tuple[str, str], str | None]:
    """Each (game, slot)'s last vote: its deliberation's if it deliberated, else its last reading's."""
    last: dict[tuple[str, str], tuple[int, int, str | None]] = {}
    for row in calls.iter_rows(named=True):
        rank = (1 if row["stage"] == DELIBERATING else 0, row["attempt"])
        key = (row["game_id"], row["slot"])
        if key not in last or rank >= last[key][:2]:
            last[key] = (*rank, row["verdict"])
    return {k: v[2] for k, v in last.items()}


def _manifest(
    trial: str, plan: pl.DataFrame, tables: Mapping[str, pl.DataFrame], receipts: ReceiptStore, seconds: float
) -> dict[str, Any]:
    games, turns = tables["trial_games"], tables["trial_turns"]
    calls, votes = tables["trial_judge_calls"], tables["trial_model_votes"]
    side = dict(plan.select("game_id", "model_side").iter_rows())
    results = Counter()
    for g in games.iter_rows(named=True):
        if g["status"] == VOID:
            results["void"] += 1
        elif g["status"] == DRAW:
            results["draws"] += 1
        elif g["winner"] == side[g["game_id"]]:
            results["wins"] += 1
        else:
            results["losses"] += 1
    played = results["wins"] + results["draws"] + results["losses"]
    win, win_low, win_high = wilson_interval(results["wins"] + 0.5 * results["draws"], played)

    # Agreement with the panel, over the games it decided by its votes.
    decided = {
        g["game_id"]: g["winner"].upper()
        for g in games.iter_rows(named=True)
        if g["status"] == DECIDED and g["ended_by"] == PANEL
    }
    model_last = _last_votes(votes)
    agreed = sum(1 for g, w in decided.items() if model_last.get((g, MODEL_SLOT)) == w)
    agreement, agree_low, agree_high = wilson_interval(agreed, len(decided))
    house_last = _last_votes(calls)
    house: dict[str, dict[str, int]] = {}
    for (g, slot), verdict in sorted(house_last.items()):
        if g in decided:
            seat = house.setdefault(slot, {"agreed": 0, "judged": 0})
            seat["judged"] += 1
            seat["agreed"] += int(verdict == decided[g])
    agreement_rank = None
    if agree_high is not None:
        lows = [wilson_interval(s["agreed"], s["judged"])[1] for s in house.values()]
        agreement_rank = 1 + sum(1 for low in lows if low is not None and low > agree_high)
    valid = [v for (g, _), v in model_last.items() if v is not None]
    pro = sum(1 for v in valid if v == PRO)
    pro_share, pro_low, pro_high = wilson_interval(pro, len(valid))
    panel_pro = [w for g, w in decided.items() if (g, MODEL_SLOT) in model_last]
    panel_pro_share = sum(1 for w in panel_pro if w == PRO) / len(panel_pro) if panel_pro else None

    # The model's format failures, refusals, calls and tokens.
    failures: Counter[str] = Counter()
    mine = turns.filter(pl.col("hotkey") == MODEL_SEAT)
    for t in mine.iter_rows(named=True):
        flags = t["style_flags"] or []
        if t["status"] != "answered":
            failures["turn_not_given"] += 1
            continue
        failures["turn_empty"] += "empty" in flags
        failures["turn_cut"] += bool(t["cut"])
        failures["turn_banned_word"] += any(f.startswith("banned:") for f in flags)
        failures["turn_dash"] += any(f.startswith("dash:") for f in flags)
        failures["turn_written_to_judges"] += bool(t["neutralised"])
        failures["concession_short"] += bool(t["concession_short"])
    for v in votes.iter_rows(named=True):
        if v["status"] != "answered":
            failures["vote_not_given"] += 1
        elif v["invalid"] == HEDGE:
            failures["vote_hedge"] += 1
        elif v["invalid"] == MALFORMED:
            failures["vote_malformed"] += 1
    refusals = calls_made = 0
    tokens_in = tokens_out = 0
    counted = False
    for row in (*mine.iter_rows(named=True), *votes.iter_rows(named=True)):
        ids = [r for r in row["receipt_ids"] or [] if r in receipts]
        calls_made += len(row["receipt_ids"] or [])
        if not ids:
            continue
        last = receipts.get(ids[-1])
        if stop_in_receipt(row["protocol"], last).stop in REFUSED_STOPS:
            refusals += 1
        for r in ids:
            used_in, used_out = receipt_tokens(receipts.get(r), row["protocol"])
            if used_in is not None or used_out is not None:
                counted = True
                tokens_in, tokens_out = tokens_in + (used_in or 0), tokens_out + (used_out or 0)
    return {
        "model_name": plan["model_name"][0],
        "rotation": plan["rotation"][0],
        "games": games.height,
        "wins": results["wins"],
        "draws": results["draws"],
        "losses": results["losses"],
        "void": results["void"],
        "win_rate": win,
        "win_low": win_low,
        "win_high": win_high,
        # PLACEMENT-2 between the model and the house debater, whose interval mirrors the model's.
        "win_rank": None if win_high is None else (2 if win_high < 0.5 else 1),
        "judged": len(decided),
        "agreed": agreed,
        "agreement": agreement,
        "agreement_low": agree_low,
        "agreement_high": agree_high,
        "agreement_rank": agreement_rank,
        "house_agreement": json.dumps(house, sort_keys=True),
        "votes_valid": len(valid),
        "votes_pro": pro,
        "pro_share": pro_share,
        "pro_low": pro_low,
        "pro_high": pro_high,
        "panel_pro_share": panel_pro_share,
        "format_failures": json.dumps(
            {c: failures[c] for c in (*TURN_CLASSES, *VOTE_CLASSES)}, sort_keys=True
        ),
        "refusals": refusals,
        "calls": calls_made,
        "tokens_in": tokens_in if counted else None,
        "tokens_out": tokens_out if counted else None,
        "seconds": round(seconds, 3),
        "kind": plan["kind"][0],
        "rules": COMPELLE_TRIAL,
        "statistics": f"{WILSON} {PLACEMENT}",
    }
