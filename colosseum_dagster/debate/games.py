"""An epoch's games: the entered miners paired, every game played by the debate model and judged."""

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable, Iterator

import dagster as dg
import polars as pl
from pydantic import Field

from colosseum_core.debate.arena import DEBATE, DEBATE_TOPICS, GAME_TABLES
from colosseum_core.debate.crown.closing import ClosingError, check_not_overtaken
from colosseum_core.debate.entry.epoch_entries import kind_of
from colosseum_core.debate.game.epoch_games import GamesError, play_epoch_games
from colosseum_core.debate.game.play import PlayedGame
from colosseum_core.debate.models import ModelsError
from colosseum_core.debate.pairing import ROUNDS, Pairing, game_id
from colosseum_core.debate.rules import COMPELLE_GAME, COMPELLE_JUDGING
from colosseum_core.debate.topics.rotation import rotation_start
from colosseum_core.debate.tournament import games_before
from colosseum_core.interrupts import run_async
from colosseum_core.record.crash import crash_point
from colosseum_core.record.journal import Journal
from colosseum_core.record.layout import Record
from colosseum_dagster.debate.keys import ARENA, GAME_GROUP, key, op_name
from colosseum_dagster.debate.partitions import epoch_partitions
from colosseum_dagster.debate.resources import ASKING, Asking
from colosseum_dagster.wiring import recorded, table_out


class GamesConfig(dg.Config):
    pairings: list[str] = Field(
        default_factory=list,
        description="Games to play instead of the Swiss rounds, each 'PRO_HOTKEY CON_HOTKEY MOTION_ID' "
        "(all of round 1); empty: every entered miner, paired round by round (COMPELLE-SWISS-1)",
    )
    rounds: int = Field(default=ROUNDS, ge=1, description="Swiss rounds (at least 1)")
    rotation: str | None = Field(
        default=None, description="The topic rotation argued (e.g. 2026-12-01T06Z); default the latest sealed"
    )


def game_journal(
    layout: Record, name: str, epoch: str
) -> tuple[dict[str, PlayedGame], Callable[[PlayedGame], Awaitable[None]]]:
    """The games of ``epoch`` already played (journal ``name``), and the callback that journals each
    game as it ends: a run that stops is resumed, not played again."""
    journal = Journal(layout.journal_path(DEBATE, name, epoch))
    done = {e["game"]["game_id"]: PlayedGame.from_entry(e) for e in journal.entries()}

    async def journalled(game: PlayedGame) -> None:
        await asyncio.to_thread(journal.append, game.entry())
        crash_point(f"game:{game.game['game_id']}")

    return done, journalled


def given_pairings(epoch: str, lines: list[str]) -> list[Pairing]:
    pairings = []
    for index, line in enumerate(lines, start=1):
        parts = line.split()
        if len(parts) != 3:
            raise dg.Failure(
                f"epoch {epoch} config pairings[{index - 1}]: {line!r} is not "
                "'PRO_HOTKEY CON_HOTKEY MOTION_ID'"
            )
        pairings.append(Pairing(1, game_id(epoch, 1, index), *parts))
    return pairings


def argued_rotation(record: Record, asked: str | None, now: dt.datetime) -> str:
    """The rotation an epoch argues: the one asked for, else the latest sealed one begun by ``now``."""
    seals = record.seals(DEBATE_TOPICS)
    if asked is not None:
        if seals.get(asked) is None:
            raise dg.Failure(f"rotation {asked} is not sealed: run debate_topics_job for it first")
        return asked
    begun = [s.partition for s in seals.seals() if rotation_start(s.partition) <= now]
    if not begun:
        raise dg.Failure(
            "no topic rotation is sealed yet: run debate_topics_job (`colosseum debate topics current`) first"
        )
    return max(begun)


@dg.multi_asset(
    name=op_name("epoch_games"),
    partitions_def=epoch_partitions,
    group_name=GAME_GROUP,
    ins={"entries": dg.AssetIn(key=key("entries"))},
    outs={
        "games": table_out(
            ARENA,
            f"Every game of the epoch ({COMPELLE_GAME}, {COMPELLE_JUDGING}): who argued which "
            "side of which motion, how it ended (a concession, the panel, or void) and the panel's reason.",
            rules=COMPELLE_GAME,
        ),
        "turns": table_out(
            ARENA,
            "Every turn, raw: the debate model's reply, what was passed on, any concession, "
            "neutralised transcript markers and style flags, its settings and receipts.",
        ),
        "judge_calls": table_out(
            ARENA,
            "Every judge call: slot, stage (reading or deliberation), attempt, temperature, "
            "model, raw reply, the vote read from it (or why not), fallbacks and receipts.",
        ),
    },
    required_resource_keys=ASKING,
)
def epoch_games(
    context: dg.AssetExecutionContext, config: GamesConfig, entries: pl.DataFrame
) -> Iterator[dg.Output[pl.DataFrame]]:
    asking = Asking.of(context)
    epoch = context.partition_key
    now = asking.clock.now()
    layout = asking.record.layout
    frames = recorded(layout.tables(DEBATE), epoch, GAME_TABLES)
    if frames is not None:
        argued = set(frames["games"]["rotation"].to_list())
        if config.pairings or (config.rotation is not None and argued - {config.rotation}):
            raise dg.Failure(
                f"epoch {epoch}: its games are recorded (written once, on rotation "
                f"{', '.join(sorted(argued))}); the pairings or rotation asked for cannot be played into it"
            )
        # Written once: the recorded games are the epoch's; nothing is asked again.
        context.log.info(f"epoch {epoch}: its games are recorded; they are not played again")
        pauses: list[tuple[str, float]] = []
    else:
        try:
            check_not_overtaken(layout, epoch)
        except ClosingError as exc:
            raise dg.Failure(str(exc)) from exc
        rotation = argued_rotation(layout, config.rotation, now)
        motions = layout.tables(DEBATE_TOPICS).read_checked("motions", rotation)
        done, journalled = game_journal(layout, "games", epoch)
        if done:
            context.log.info(f"epoch {epoch}: {len(done)} games already played (journal); they are kept")

        # The tournament pairs by the ratings and side balance every earlier epoch left.
        earlier = games_before(layout.tables(DEBATE), epoch)

        try:
            models = asking.models()
            played = run_async(
                play_epoch_games(
                    epoch,
                    entries=entries,
                    motions=motions,
                    rotation=rotation,
                    models=models,
                    asker=asking.asker(),
                    sleep=asyncio.sleep,
                    date=now.date().isoformat(),
                    kind=kind_of(models),
                    pairings=given_pairings(epoch, config.pairings) if config.pairings else None,
                    rounds=config.rounds,
                    done=done,
                    on_played=journalled,
                    earlier=earlier,
                )
            )
        except GamesError as exc:
            raise dg.Failure(str(exc)) from exc
        except ModelsError as exc:
            raise dg.Failure(f"epoch {epoch}: {exc}") from exc
        frames = {"games": played.games, "turns": played.turns, "judge_calls": played.judge_calls}
        pauses = played.pauses
    games = frames["games"]
    by_status = dict(games.group_by("status").len().iter_rows()) if games.height else {}
    yield dg.Output(
        games,
        output_name="games",
        metadata={
            "games": games.height,
            **{f"{status}": int(n) for status, n in sorted(by_status.items())},
            "paused_s": sum(s for _, s in pauses),
        },
    )
    yield dg.Output(frames["turns"], output_name="turns", metadata={"turns": frames["turns"].height})
    yield dg.Output(
        frames["judge_calls"], output_name="judge_calls", metadata={"calls": frames["judge_calls"].height}
    )
