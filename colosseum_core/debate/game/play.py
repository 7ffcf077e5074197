"""Playing a game (COMPELLE-GAME-1) through the shared providers, and a schedule of games.

``play_game`` asks the debate model for each turn in order (Pro opens), with the seed's debater
prompt verbatim and the debate so far as messages, until a turn concedes with a leading Δ or the
cap is reached; then the judge panel decides. Every call's request and reply is a receipt, and the
game's rows say which receipts. A turn the debate model cannot give (its whole chain refused or
fell silent) aborts the game: it is void, archived, never rated. When the reason was a rate limit,
``play_games`` waits out the provider's quota window (its Retry-After, through the injected
``sleep``) before the next game, so an outage voids the games it hit and no others. Each game is
handed on as it ends (to the epoch's journal), so a run that stops loses no game it played.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

from colosseum_core.debate.asking import SLOT_POLICY, Asked, Asker
from colosseum_core.debate.game.concession import Concession, conceded_reason, read_concession
from colosseum_core.debate.game.outcome import ABORTED, CONCESSION, PANEL
from colosseum_core.debate.game.turns import (
    TURN_CAP,
    SpokenTurn,
    debater_messages,
    debater_prompt,
    passed_on,
    side_of,
    style_flags,
)
from colosseum_core.debate.judging.ask import judge_game
from colosseum_core.debate.judging.fence import neutralise
from colosseum_core.debate.judging.panel import DECIDED, VOID
from colosseum_core.debate.models import ModelsConfig
from colosseum_core.debate.prompts import DEBATER, DELIBERATION, JUDGE
from colosseum_core.debate.rules import COMPELLE_FENCE, COMPELLE_GAME, COMPELLE_JUDGING
from colosseum_core.providers.call import CallSettings, Endpoint

# A rate-limited provider that sends no Retry-After is given a minute (the usual quota window);
# one that asks for more than an hour is waited an hour, then asked again by the next game.
DEFAULT_PAUSE_S: Final = 60.0
MAX_PAUSE_S: Final = 3600.0
DEBATER_SETTINGS: Final = CallSettings(temperature=0.7, max_tokens=1024, timeout_s=300.0, seed=0)
Sleep = Callable[[float], Awaitable[None]]


@dataclasses.dataclass(frozen=True)
class Debater:
    hotkey: str
    strategy_hash: str
    strategy: str
    rating_key: str | None = None  # whose rating the game moves (None: a game that is not rated)


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """What a game is before it is played: who argues which side of which motion, and when."""

    game_id: str
    round: int
    motion_id: str
    motion: str
    context: str
    pro: Debater
    con: Debater
    date: str  # the debaters' "today", set at game start (YYYY-MM-DD)


@dataclasses.dataclass(frozen=True)
class PlayedGame:
    game: dict[str, Any]
    turns: list[dict[str, Any]]
    judge_calls: list[dict[str, Any]]
    # Seconds to wait before the next call, when the provider rate-limited this game to a stop.
    rate_limited: float | None

    def entry(self) -> dict[str, Any]:
        """The game as a journal entry (plain JSON values)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> PlayedGame:
        return cls(entry["game"], entry["turns"], entry["judge_calls"], entry["rate_limited"])


def pause_for(retry_after_s: float | None) -> float:
    """How long the schedule waits after a game a rate limit stopped, per the provider's Retry-After."""
    if retry_after_s is None:
        return DEFAULT_PAUSE_S
    return min(max(retry_after_s, 1.0), MAX_PAUSE_S)


def _retry_after(retry_after_s: float | None) -> str:
    if retry_after_s is None:
        return f"no Retry-After; the schedule waits {DEFAULT_PAUSE_S:g} s"
    return f"Retry-After {retry_after_s:g} s; the schedule waits {pause_for(retry_after_s):g} s"


async def play_game(
    spec: GameSpec,
    models: ModelsConfig,
    asker: Asker,
    *,
    chains: Mapping[str, Sequence[Endpoint]] | None = None,
) -> PlayedGame:
    """One game. ``chains``: a side's own models instead of the debate model (a trial's model plays
    one side, the house debater the other); a side not named plays through the debater's slot."""
    prompts = {
        side: debater_prompt(
            strategy=debater.strategy, date=spec.date, topic=spec.motion, side=side, context=spec.context
        )
        for side, debater in (("Pro", spec.pro), ("Con", spec.con))
    }
    who = {"Pro": spec.pro, "Con": spec.con}
    debater = asker.chain(models.debater)
    chain_of = {side: list((chains or {}).get(side, debater)) for side in ("Pro", "Con")}
    spoken: list[SpokenTurn] = []
    turn_rows: list[dict[str, Any]] = []
    fenced: list[tuple[int, str, str]] = []
    outcome: dict[str, Any] | None = None
    rate_limited: float | None = None
    for number in range(1, TURN_CAP + 1):
        side = side_of(number)
        chain = chain_of[side]
        if not chain:
            outcome = _void(f"Void: aborted on turn {number}, no model of the debater's chain has its key")
            break
        messages = debater_messages(prompts[side], side, spoken)
        asked = await asker.ask(chain, messages, policy=SLOT_POLICY, settings=DEBATER_SETTINGS)
        result = asked.result
        if result.status != "answered":
            if result.refusal == "rate_limited":
                rate_limited = pause_for(result.retry_after_s)
                why = f"the provider rate-limited the debate model ({_retry_after(result.retry_after_s)})"
            else:
                why = f"the debate model {result.status} ({result.error})"
            turn_rows.append(_turn_row(spec, number, side, who[side].hotkey, asked))
            outcome = _void(f"Void: aborted on turn {number}, {why}")
            break
        text = result.text or ""
        sent, cut = passed_on(text)
        clean, removed = neutralise(sent, COMPELLE_FENCE)
        concession = read_concession(text)
        turn_rows.append(
            _turn_row(
                spec, number, side, who[side].hotkey, asked,
                cut=cut, removed=removed, concession=concession, text=text,
            )
        )  # fmt: skip
        spoken.append(SpokenTurn(number, side, sent))
        fenced.append((number, side, clean))
        if concession is not None:
            winner = "Con" if side == "Pro" else "Pro"
            outcome = {
                "status": DECIDED,
                "winner": winner,
                "ended_by": CONCESSION,
                "reason": conceded_reason(side, number, concession.mark),
                "conceded_by": side,
                "concession_short": concession.short,
            }
            break
    judge_rows: list[dict[str, Any]] = []
    if outcome is None:
        judged = await judge_game(spec.motion, fenced, models.judges, asker)
        judge_rows = [{"game_id": spec.game_id, **call.row()} for call in judged.calls]
        limited = judged.rate_limited
        rate_limited = pause_for(judged.retry_after_s) if limited else None
        outcome = {
            "status": judged.result.status,
            "winner": judged.result.winner,
            "ended_by": ABORTED if limited else PANEL,
            "reason": judged.result.reason
            + (
                f" (a judge's provider rate-limited: {_retry_after(judged.retry_after_s)})" if limited else ""
            ),
            "conceded_by": None,
            "concession_short": None,
        }
    game = {
        "game_id": spec.game_id,
        "round": spec.round,
        "motion_id": spec.motion_id,
        "motion": spec.motion,
        "context": spec.context,
        "date": spec.date,
        "pro_hotkey": spec.pro.hotkey,
        "con_hotkey": spec.con.hotkey,
        "pro_strategy_hash": spec.pro.strategy_hash,
        "con_strategy_hash": spec.con.strategy_hash,
        "pro_rating_key": spec.pro.rating_key,
        "con_rating_key": spec.con.rating_key,
        **outcome,
        "turns": len(spoken),
        "neutralised": sum(len(r["neutralised"]) for r in turn_rows),
        "models_sha256": models.sha256,
        "rules": f"{COMPELLE_GAME} {COMPELLE_JUDGING} {COMPELLE_FENCE}",
        "prompts": f"{DEBATER.version} {JUDGE.version} {DELIBERATION.version}",
    }
    return PlayedGame(game, turn_rows, judge_rows, rate_limited)


def _void(reason: str) -> dict[str, Any]:
    return {
        "status": VOID,
        "winner": None,
        "ended_by": ABORTED,
        "reason": reason,
        "conceded_by": None,
        "concession_short": None,
    }


def _turn_row(
    spec: GameSpec,
    number: int,
    side: str,
    hotkey: str,
    asked: Asked,
    *,
    cut: bool = False,
    removed: Sequence[str] = (),
    concession: Concession | None = None,
    text: str | None = None,
) -> dict[str, Any]:
    result = asked.result
    return {
        "game_id": spec.game_id,
        "turn": number,
        "side": side,
        "hotkey": hotkey,
        "model": result.model,
        "protocol": result.protocol,
        "status": result.status,
        "text": text if text is not None else result.text,
        "cut": cut,
        "neutralised": list(removed),
        "concession": concession.mark if concession is not None else None,
        "concession_chars": concession.explanation_chars if concession is not None else None,
        "concession_short": concession.short if concession is not None else None,
        "style_flags": style_flags(text) if text is not None else [],
        "fell_back": asked.fell_back,
        "walk": list(asked.walk),
        "receipt_ids": list(asked.receipt_ids),
        "settings": json.dumps(result.settings_record, sort_keys=True),
        "error": result.error,
    }


@dataclasses.dataclass(frozen=True)
class Schedule:
    games: list[PlayedGame]
    # (game id after which the schedule paused, seconds waited)
    pauses: list[tuple[str, float]]


class ScheduleError(ValueError):
    """A game already played (in a journal) that is not the game the schedule asks for."""


async def play_games(
    specs: Sequence[GameSpec],
    models: ModelsConfig,
    asker: Asker,
    sleep: Sleep,
    *,
    done: Mapping[str, PlayedGame] | None = None,
    on_played: Callable[[PlayedGame], Awaitable[None]] | None = None,
    chains: Callable[[GameSpec], Mapping[str, Sequence[Endpoint]]] | None = None,
) -> Schedule:
    """Every game in order; after a game the provider rate-limited, wait for its quota to reset.

    ``done`` holds games already played (by game id, from a journal a run that stopped kept): they
    are not played again. ``on_played`` is told of each game as it ends, before the next begins.
    ``chains``: each game's sides' own models, where they are not the debate model (``play_game``).
    """
    played: list[PlayedGame] = []
    pauses: list[tuple[str, float]] = []
    for index, spec in enumerate(specs):
        if done and spec.game_id in done:
            kept = done[spec.game_id]
            asked = (spec.pro.hotkey, spec.con.hotkey, spec.motion_id)
            found = (kept.game["pro_hotkey"], kept.game["con_hotkey"], kept.game["motion_id"])
            if asked != found:
                raise ScheduleError(
                    f"game {spec.game_id} field pairing: the journal holds it as {found}, the schedule asks "
                    f"for {asked}"
                )
            played.append(kept)
            continue
        game = await play_game(spec, models, asker, chains=chains(spec) if chains else None)
        if on_played is not None:
            await on_played(game)
        played.append(game)
        if game.rate_limited is not None and index < len(specs) - 1:
            pauses.append((spec.game_id, game.rate_limited))
            await sleep(game.rate_limited)
    return Schedule(played, pauses)
