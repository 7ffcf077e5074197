"""An epoch's close: the title fight when one is due, the epoch sealed, the weights set on the chain."""

import asyncio
import datetime as dt
from collections.abc import Iterator

import dagster as dg
import polars as pl

from colosseum_core.chain.ledger import LedgerError
from colosseum_core.debate.arena import DEBATE, ENTRY_TABLES, FIGHT_TABLES, GAME_TABLES, SELECTION_TABLES
from colosseum_core.debate.crown.closing import (
    ClosingError,
    check_not_overtaken,
    close_epoch,
    close_vouched,
    epoch_fight_motions,
    epoch_inputs,
    fight_due,
    rederived_rating_problems,
)
from colosseum_core.debate.entry.epoch_entries import kind_of
from colosseum_core.debate.game.epoch_games import (
    GamesError,
    play_title_fight,
)
from colosseum_core.debate.game.schemas import GAME_SCHEMA, JUDGE_CALL_SCHEMA, TURN_SCHEMA
from colosseum_core.debate.models import ModelsError
from colosseum_core.debate.rules import COMPELLE_CROWN, COMPELLE_TITLE_FIGHT, COMPELLE_WEIGHTS
from colosseum_core.interrupts import run_async
from colosseum_core.record import with_ids
from colosseum_core.record.sealed_step import Derived, run_sealed_step
from colosseum_core.record.seals import Seal, SealError
from colosseum_dagster.debate.games import game_journal
from colosseum_dagster.debate.keys import ARENA, CROWN_GROUP, key, op_name
from colosseum_dagster.debate.partitions import epoch_partitions
from colosseum_dagster.debate.resources import ASKING, Asking, ChainResource
from colosseum_dagster.resources import ClockResource, RecordResource
from colosseum_dagster.wiring import recorded, table_out

FIGHT_SCHEMAS = {
    "fight_games": GAME_SCHEMA,
    "fight_turns": TURN_SCHEMA,
    "fight_judge_calls": JUDGE_CALL_SCHEMA,
}
# What the epoch wrote before its close, whose bytes the seal vouches for beside the close's own.
SEALED = (*ENTRY_TABLES, *GAME_TABLES, *FIGHT_TABLES)


def _utc(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


@dg.multi_asset(
    name=op_name("title_fight"),
    partitions_def=epoch_partitions,
    group_name=CROWN_GROUP,
    deps=[key("entries"), key("games")],
    outs={
        "fight_games": table_out(
            ARENA,
            f"The epoch's title fight ({COMPELLE_TITLE_FIGHT}), when a challenger's streak is "
            "due one: both sides of the 100 most recent unique motions, judged by the epoch's panel. "
            "Published, never rated. Empty when no fight was due.",
            rules=COMPELLE_TITLE_FIGHT,
        ),
        "fight_turns": table_out(ARENA, "Every turn of the title fight, raw."),
        "fight_judge_calls": table_out(ARENA, "Every judge call of the title fight, raw."),
    },
    required_resource_keys=ASKING,
)
def title_fight(context: dg.AssetExecutionContext) -> Iterator[dg.Output[pl.DataFrame]]:
    asking = Asking.of(context)
    epoch = context.partition_key
    layout = asking.record.layout
    tables = layout.tables(DEBATE)
    metadata: dict[str, object] = {}
    # Written once: the recorded fight (or its absence) is the epoch's.
    frames = recorded(tables, epoch, FIGHT_TABLES)
    if frames is None:
        try:
            check_not_overtaken(layout, epoch, "fight_games")
            before = fight_due(epoch_inputs(layout, epoch))
        except ClosingError as exc:
            raise dg.Failure(str(exc)) from exc
        if before.challenger is None:
            context.log.info(f"epoch {epoch}: no challenger is due a title fight")
            frames = {t: with_ids(pl.DataFrame(schema=s)) for t, s in FIGHT_SCHEMAS.items()}
        else:
            king = before.crown.king
            assert king is not None
            context.log.info(f"epoch {epoch}: title fight, {before.challenger} against the king {king}")
            try:
                motions = epoch_fight_motions(layout, epoch)
            except ClosingError as exc:
                raise dg.Failure(str(exc)) from exc
            done, journalled = game_journal(layout, "fight", epoch)

            try:
                models = asking.models()
                played = run_async(
                    play_title_fight(
                        epoch,
                        challenger=before.challenger,
                        king=king,
                        entries=tables.read_checked("entries", epoch),
                        motions=motions,
                        models=models,
                        asker=asking.asker(),
                        sleep=asyncio.sleep,
                        date=asking.clock.now().date().isoformat(),
                        kind=kind_of(models),
                        done=done,
                        on_played=journalled,
                    )
                )
            except (GamesError, ModelsError) as exc:
                raise dg.Failure(f"epoch {epoch}: {exc}") from exc
            frames = {
                "fight_games": played.games,
                "fight_turns": played.turns,
                "fight_judge_calls": played.judge_calls,
            }
            metadata = {"challenger": before.challenger, "king": king, "motions": motions.height}
    games = frames["fight_games"]
    by_status = dict(games.group_by("status").len().iter_rows()) if games.height else {}
    yield dg.Output(
        games, output_name="fight_games", metadata={"games": games.height, **by_status, **metadata}
    )
    yield dg.Output(
        frames["fight_turns"], output_name="fight_turns", metadata={"turns": frames["fight_turns"].height}
    )
    yield dg.Output(
        frames["fight_judge_calls"],
        output_name="fight_judge_calls",
        metadata={"calls": frames["fight_judge_calls"].height},
    )


CLOSING_DESCRIPTIONS = {
    "ratings": "Every standing rating key after the epoch: Elo (COMPELLE-ELO-1, replayed from every game of "
    "every epoch) beside Bradley–Terry with its 95 % clustered-bootstrap interval (COMPELLE-BT-1), "
    "W/D/L, voids and each number's n, and the rank: the placement by the Bradley–Terry interval "
    "(COLOSSEUM-PLACEMENT-2; by Elo, COMPELLE-RANK-1, in an epoch sealed before).",
    "rating_changes": "Each of the epoch's games with both sides' Elo before and after.",
    "crown": f"The crown after the epoch ({COMPELLE_CROWN}): the king, since when, the event (crowned, "
    "held, changed hands, vacated) and why.",
    "streaks": "Every challenger 200 Elo or more above the king, and for how many consecutive epochs.",
    "title_fights": "The epoch's title fight, if any: the tally, n decided, k, the exact binomial bar at "
    "α = 0.01, the p-value and the outcome.",
    "weights": f"The weight vector the validator sets ({COMPELLE_WEIGHTS}): the king's 1.0, or 0.95 and the "
    "deposed king's 0.05 for five epochs after a change of crown.",
    "epoch_manifest": "The epoch's seal: what it argued under, its counts, every rule's version, the "
    "identifier the seal vouches for.",
}


@dg.multi_asset(
    name=op_name("epoch_close"),
    partitions_def=epoch_partitions,
    group_name=CROWN_GROUP,
    deps=[key("entries"), key("games"), key("fight_games")],
    outs={name: table_out(ARENA, text) for name, text in CLOSING_DESCRIPTIONS.items()},
)
def epoch_close(
    context: dg.AssetExecutionContext, record: RecordResource, clock: ClockResource
) -> Iterator[dg.Output[pl.DataFrame]]:
    epoch = context.partition_key
    layout = record.layout
    names = SELECTION_TABLES

    def derive(seal: Seal | None) -> Derived:
        if seal is None:
            check_not_overtaken(layout, epoch, "epoch_manifest")
        inputs = epoch_inputs(layout, epoch)
        close = close_epoch(inputs) if seal is None else close_vouched(inputs, seal)
        problems = rederived_rating_problems(layout, close)
        if problems:
            raise dg.Failure(
                f"epoch {epoch}: {len(problems)} ratings do not re-derive from the games; not sealed",
                metadata={"problems": "\n".join(problems[:20])},
            )
        kinds = sorted(set(close.tables["epoch_manifest"]["kind"].drop_nulls().to_list()))
        return Derived(
            tables=close.tables,
            kind=",".join(kinds) or "CALIBRATION",
            content_id=close.manifest_id,
            checks={"ratings_rederived": len(problems), "ratings": close.tables["ratings"].height},
        )

    try:
        step = run_sealed_step(
            layout.tables(DEBATE),
            layout.seals(DEBATE),
            epoch,
            outputs=names,
            vouched=SEALED,
            derive=derive,
            sealed_at=lambda: _utc(clock.now()),
        )
    except (ClosingError, SealError) as exc:
        raise dg.Failure(f"epoch {epoch}: {exc}") from exc
    context.log.info(step.describe())
    frames = step.frames
    crown = frames["crown"].row(0, named=True)
    fights = frames["title_fights"]
    for name in names:
        frame = frames[name]
        metadata: dict[str, object] = {"rows": frame.height}
        if name == "crown":
            metadata |= {"king": crown["king"] or "none", "event": crown["event"], "reason": crown["reason"]}
        if name == "title_fights" and fights.height:
            metadata |= {"outcome": fights["outcome"][0], "p_value": fights["p_value"][0]}
        yield dg.Output(frame, output_name=name, metadata=metadata)


@dg.asset(
    name="weight_sets",
    key_prefix=ARENA,
    partitions_def=epoch_partitions,
    group_name=CROWN_GROUP,
    deps=[key("weights")],
    kinds={"polars", "parquet"},
    description="The weights as set on the chain: the validator, the uid vector, the block the chain "
    "recorded it at and the receipt of the request. Written once per epoch.",
)
def weight_sets(
    context: dg.AssetExecutionContext, record: RecordResource, chain: ChainResource
) -> dg.Output[pl.DataFrame]:
    epoch = context.partition_key
    tables = record.layout.tables(DEBATE)
    if tables.exists("weight_sets", epoch):
        return dg.Output(tables.read_checked("weight_sets", epoch), metadata={"set": "recorded earlier"})
    weights = tables.read_checked("weights", epoch)
    vector = {int(uid): float(w) for uid, w in weights.select("uid", "weight").iter_rows()}
    schema = {
        "epoch": pl.String(),
        "validator": pl.String(),
        "uids": pl.List(pl.Int64()),
        "weights": pl.List(pl.Float64()),
        "block": pl.Int64(),
        "receipt_ids": pl.List(pl.String()),
        "rules": pl.String(),
    }
    if not vector:
        context.log.info(f"epoch {epoch}: no king, so no weights to set")
        return dg.Output(with_ids(pl.DataFrame(schema=schema)), metadata={"set": "nothing (no king)"})
    ledger = chain.ledger(record.receipts)
    try:
        done = ledger.set_weights(chain.validator(), vector)
    except LedgerError as exc:
        raise dg.Failure(f"epoch {epoch}: the weights were not set: {exc}") from exc
    uids = sorted(vector)
    row = {
        "epoch": epoch,
        "validator": done.validator,
        "uids": uids,
        "weights": [vector[u] for u in uids],
        "block": done.block,
        "receipt_ids": list(ledger.receipt_ids),
        "rules": COMPELLE_WEIGHTS,
    }
    frame = with_ids(pl.DataFrame([row], schema=schema, orient="row"))
    return dg.Output(frame, metadata={"block": done.block, "uids": len(uids)})
