"""An epoch's games: the entered miners paired, every game played and judged, three tables out.

``play_epoch_games`` is the one function the epoch's games asset calls. It pairs the entered miners
(by the given pairings, or part 1's seeded shuffle), gives each pair a motion of the rotation the
epoch argues, plays every game in order (``game.play``) and returns the ``games``, ``turns`` and
``judge_calls`` tables. Every row names the epoch; every game the rotation, the models document (by
its SHA-256) and the versions of the rules and prompts it was played under.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Final

import polars as pl

from colosseum_core.debate.asking import Asker
from colosseum_core.debate.entry.names import ENTERED
from colosseum_core.debate.game.play import (
    Debater,
    GameSpec,
    PlayedGame,
    Schedule,
    ScheduleError,
    Sleep,
    play_games,
)
from colosseum_core.debate.game.schemas import GAME_SCHEMA, JUDGE_CALL_SCHEMA, TURN_SCHEMA
from colosseum_core.debate.models import ModelsConfig
from colosseum_core.debate.pairing import ROUNDS, Pairing, fight_pairings
from colosseum_core.debate.rating_key import entered_keys, rating_key
from colosseum_core.debate.rules import COMPELLE_SWISS, COMPELLE_TITLE_FIGHT
from colosseum_core.debate.tournament import next_round
from colosseum_core.record import with_ids

GIVEN: Final = "given"


class GamesError(ValueError):
    """An epoch that cannot be played as asked: the message names the epoch, the field and the value."""


@dataclasses.dataclass(frozen=True)
class EpochGames:
    games: pl.DataFrame
    turns: pl.DataFrame
    judge_calls: pl.DataFrame
    byes: list[tuple[int, str]]
    pauses: list[tuple[str, float]]


def _frame(rows: list[dict], schema: dict[str, pl.DataType], epoch: str) -> pl.DataFrame:
    return with_ids(pl.DataFrame([{"epoch": epoch, **r} for r in rows], schema=schema, orient="row"))


def specs_for(
    epoch: str,
    pairings: Sequence[Pairing],
    entries: pl.DataFrame,
    motions: pl.DataFrame,
    date: str,
) -> list[GameSpec]:
    entered = {
        row["hotkey"]: Debater(
            row["hotkey"],
            row["strategy_hash"],
            row["strategy"],
            rating_key(row["hotkey"], row["block_at_registration"], row["strategy_hash"]),
        )
        for row in entries.filter(pl.col("status") == ENTERED).iter_rows(named=True)
    }
    by_id = {row["motion_id"]: row for row in motions.iter_rows(named=True)}
    specs = []
    seen: dict[tuple[int, str], str] = {}
    for p in pairings:
        if p.pro == p.con:
            raise GamesError(f"epoch {epoch} game {p.game_id} field con: {p.con!r} cannot debate itself")
        for hotkey in (p.pro, p.con):
            if (p.round, hotkey) in seen:
                raise GamesError(
                    f"epoch {epoch} game {p.game_id} field pairing: {hotkey!r} already plays round "
                    f"{p.round} in game {seen[(p.round, hotkey)]}"
                )
            seen[(p.round, hotkey)] = p.game_id
        for side, hotkey in (("pro", p.pro), ("con", p.con)):
            if hotkey not in entered:
                raise GamesError(f"epoch {epoch} game {p.game_id} field {side}: {hotkey!r} is not entered")
        if p.motion_id not in by_id:
            raise GamesError(
                f"epoch {epoch} game {p.game_id} field motion_id: {p.motion_id!r} is not in the rotation"
            )
        motion = by_id[p.motion_id]
        specs.append(
            GameSpec(
                game_id=p.game_id,
                round=p.round,
                motion_id=p.motion_id,
                motion=motion["motion"],
                context=motion["context"],
                pro=entered[p.pro],
                con=entered[p.con],
                date=date,
            )
        )
    return specs


async def play_epoch_games(
    epoch: str,
    *,
    entries: pl.DataFrame,
    motions: pl.DataFrame,
    rotation: str,
    models: ModelsConfig,
    asker: Asker,
    sleep: Sleep,
    date: str,
    kind: str,
    pairings: Sequence[Pairing] | None = None,
    rounds: int | None = None,
    done: Mapping[str, PlayedGame] | None = None,
    on_played: Callable[[PlayedGame], Awaitable[None]] | None = None,
    earlier: pl.DataFrame | None = None,
    motion_rotations: Mapping[str, str] | None = None,
    pairing: str | None = None,
) -> EpochGames:
    """Given ``pairings`` are played as they are; otherwise ``rounds`` Swiss rounds, each paired
    from the results before it (``tournament.next_round``) with ``earlier``, every earlier epoch's
    games. ``done`` and ``on_played``: the epoch's journal of games already played (``play_games``)."""
    if rounds is not None and rounds < 1:
        raise GamesError(f"epoch {epoch} field rounds: {rounds}; an epoch plays at least one round")
    judged_under = (
        set(entries["models_sha256"].drop_nulls().to_list()) if "models_sha256" in entries.columns else set()
    )
    if judged_under and judged_under != {models.sha256}:
        # The models document is read at the epoch's start: a change takes effect at the next epoch.
        raise GamesError(
            f"epoch {epoch} field models_sha256: its entries were judged under {sorted(judged_under)}, "
            f"not {models.sha256} ({models.source}); a models change takes effect at the next epoch"
        )
    byes: list[tuple[int, str]] = []
    played: list[PlayedGame] = []
    pauses: list[tuple[str, float]] = []

    async def play(round_pairings: Sequence[Pairing]) -> None:
        specs = specs_for(epoch, round_pairings, entries, motions, date)
        try:
            schedule = await play_games(specs, models, asker, sleep, done=done, on_played=on_played)
        except ScheduleError as exc:
            raise GamesError(f"epoch {epoch} {exc}") from None
        played.extend(schedule.games)
        pauses.extend(schedule.pauses)

    how = (pairing or GIVEN) if pairings is not None else COMPELLE_SWISS
    if pairings is not None:
        await play(pairings)
    else:
        entered = entered_keys(entries)
        motion_ids = motions["motion_id"].to_list()
        for round_number in range(1, (ROUNDS if rounds is None else rounds) + 1):
            so_far = pl.DataFrame([{"epoch": epoch, **g.game} for g in played]) if played else None
            paired = next_round(epoch, round_number, entered, motion_ids, earlier, so_far)
            if paired.bye is not None:
                byes.append((round_number, paired.bye))
            if played and played[-1].rate_limited is not None and paired.games:
                # The round before ended on a game a rate limit stopped: its wait comes first.
                pauses.append((played[-1].game["game_id"], played[-1].rate_limited))
                await sleep(played[-1].rate_limited)
            await play(paired.games)
    schedule = Schedule(played, pauses)
    of = motion_rotations or {}
    games = [
        {**g.game, "rotation": of.get(g.game["motion_id"], rotation), "kind": kind, "pairing": how}
        for g in schedule.games
    ]
    return EpochGames(
        games=_frame(games, GAME_SCHEMA, epoch),
        turns=_frame([t for g in schedule.games for t in g.turns], TURN_SCHEMA, epoch),
        judge_calls=_frame([c for g in schedule.games for c in g.judge_calls], JUDGE_CALL_SCHEMA, epoch),
        byes=byes,
        pauses=schedule.pauses,
    )


async def play_title_fight(
    epoch: str,
    *,
    challenger: str,
    king: str,
    entries: pl.DataFrame,
    motions: pl.DataFrame,
    models: ModelsConfig,
    asker: Asker,
    sleep: Sleep,
    date: str,
    kind: str,
    done: Mapping[str, PlayedGame] | None = None,
    on_played: Callable[[PlayedGame], Awaitable[None]] | None = None,
) -> EpochGames:
    """The title fight between ``challenger`` and ``king`` (rating keys) over ``motions`` (the fight's,
    ``crown.fight.fight_motions``): both sides of every motion, judged by the epoch's panel."""
    hotkeys = dict(entered_keys(entries).select("rating_key", "hotkey").iter_rows())
    for role, key in (("challenger", challenger), ("king", king)):
        if key not in hotkeys:
            raise GamesError(f"epoch {epoch} title fight field {role}: {key!r} is not entered this epoch")
    if motions.height == 0:
        raise GamesError(f"epoch {epoch} title fight field motions: no sealed rotation has motions")
    return await play_epoch_games(
        epoch,
        entries=entries,
        motions=motions,
        rotation=motions["rotation"][0],
        models=models,
        asker=asker,
        sleep=sleep,
        date=date,
        kind=kind,
        pairings=fight_pairings(epoch, hotkeys[challenger], hotkeys[king], motions["motion_id"].to_list()),
        done=done,
        on_played=on_played,
        motion_rotations=dict(motions.select("motion_id", "rotation").iter_rows()),
        pairing=COMPELLE_TITLE_FIGHT,
    )
