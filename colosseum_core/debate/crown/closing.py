"""An epoch's close: its ratings, the crown, the title fight's decision and the weights, sealed.

``fight_due`` says, from the record as the epoch's games left it, who is king and whether a title
fight is due (the title-fight step plays it). ``close_epoch`` is the one function the sealing step
calls and ``verify`` calls again on the record: from the epoch's entries, its games and title-fight
games, every earlier epoch's games and the crown the previous sealed epoch left, it builds the
epoch's sealed tables:

* ``ratings``: every standing rating key's Elo after the epoch (COMPELLE-ELO-1, replayed from every
  game of every epoch up to it) beside its Bradley–Terry strength and 95 % interval (COMPELLE-BT-1,
  a seed derived from the epoch), with W/D/L, voids and each number's n, and its rank: its placement
  by its Bradley–Terry interval (COLOSSEUM-PLACEMENT-2), or, in an epoch sealed before, its row
  number by Elo (COMPELLE-RANK-1: ``rank_rule``);
* ``rating_changes``: the epoch's games with both sides' ratings before and after;
* ``crown`` (one row) and ``streaks``: the crown after the epoch (COMPELLE-CROWN-1);
* ``title_fights``: the fight's tally, n, k, the bar and the p-value (none when no fight);
* ``weights``: the weight vector the validator sets (COMPELLE-WEIGHTS-1), by uid;
* ``epoch_manifest`` (one row): what the epoch argued under, its counts, every rule's version and
  the identifier the seal vouches for, the SHA-256 over the other tables' identifiers.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping
from typing import Final

import polars as pl

from colosseum_core.debate.arena import CLOSING_TABLES, DEBATE, DEBATE_TOPICS
from colosseum_core.debate.crown.fight import FightDecision, decide, fight_motions, tally
from colosseum_core.debate.crown.reign import BeforeFight, Crown, crown_after_fight, standing_before_fight
from colosseum_core.debate.crown.streak import LEAD
from colosseum_core.debate.crown.weights import weights
from colosseum_core.debate.entry.intent import BAD
from colosseum_core.debate.entry.names import INTENT_PANEL
from colosseum_core.debate.game.schemas import GAME_SCHEMA
from colosseum_core.debate.rating_key import entered_keys, rating_key
from colosseum_core.debate.ratings import CHANGE_SCHEMA, RATING_SCHEMA, START, Ratings, elo_ratings
from colosseum_core.debate.rules import (
    COMPELLE_BT,
    COMPELLE_CROWN,
    COMPELLE_ELO,
    COMPELLE_ENTRY,
    COMPELLE_GAME,
    COMPELLE_JUDGING,
    COMPELLE_RANK_1,
    COMPELLE_SWISS,
    COMPELLE_TITLE_FIGHT,
    COMPELLE_WEIGHTS,
)
from colosseum_core.debate.strength import REPLICATES, STRENGTH_SCHEMA, bt_strengths
from colosseum_core.debate.tournament import games_before
from colosseum_core.record import with_ids
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.layout import Record
from colosseum_core.record.seals import Seal
from colosseum_core.record.tables import RecordTables, parquet_bytes
from colosseum_core.statistics.placement import PLACEMENT, placements
from colosseum_core.statistics.significance import TITLE_BAR

RULES: Final = (
    COMPELLE_ENTRY,
    COMPELLE_GAME,
    COMPELLE_JUDGING,
    COMPELLE_SWISS,
    COMPELLE_ELO,
    COMPELLE_BT,
    COMPELLE_CROWN,
    COMPELLE_TITLE_FIGHT,
    TITLE_BAR,
    COMPELLE_WEIGHTS,
)
RATINGS_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "rank": pl.Int64(),
    **{k: v for k, v in RATING_SCHEMA.items() if k != "rules"},
    **{k: v for k, v in STRENGTH_SCHEMA.items() if k not in ("rating_key", "rules")},
    "entered": pl.Boolean(),
    "elo_rules": pl.String(),
    "bt_rules": pl.String(),
}
CROWN_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "king": pl.String(),
    "king_hotkey": pl.String(),
    "king_rating": pl.Float64(),
    "crowned_epoch": pl.String(),
    "deposed": pl.String(),
    "changed_epoch": pl.String(),
    "tail_left": pl.Int64(),
    "event": pl.String(),
    "reason": pl.String(),
    "challenger": pl.String(),
    "rules": pl.String(),
}
STREAK_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "rating_key": pl.String(),
    "hotkey": pl.String(),
    "rating": pl.Float64(),
    "lead": pl.Float64(),
    "streak": pl.Int64(),
    "rules": pl.String(),
}
FIGHT_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "challenger": pl.String(),
    "king": pl.String(),
    "games": pl.Int64(),
    "decided": pl.Int64(),
    "challenger_wins": pl.Int64(),
    "king_wins": pl.Int64(),
    "draws": pl.Int64(),
    "voids": pl.Int64(),
    "bar": pl.Int64(),
    "tail": pl.String(),  # Σ_{x≥k} C(n,x), exact, as decimal text (it outgrows 64 bits)
    "p_value": pl.Float64(),
    "outcome": pl.String(),
    "rules": pl.String(),
    "bar_rules": pl.String(),
}
WEIGHT_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "rating_key": pl.String(),
    "hotkey": pl.String(),
    "uid": pl.Int64(),
    "role": pl.String(),
    "weight": pl.Float64(),
    "rules": pl.String(),
}


class ClosingError(ValueError):
    """An epoch that cannot close as recorded: the message names the epoch, the table and the value."""


# ``bt_seed`` in words, as the board publishes it beside the seed (``bt_fit``).
BT_SEED_RULE: Final = (
    f"the first 4 bytes of SHA-256 of the UTF-8 text '{COMPELLE_BT}', a line feed (0x0A) and the epoch "
    "key as written (seven digits, e.g. 0014523), read as one big-endian unsigned integer"
)


def bt_seed(epoch: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{COMPELLE_BT}\n{epoch}".encode()).digest()[:4], "big")


@dataclasses.dataclass(frozen=True)
class EpochInputs:
    """What an epoch's close reads, all from the record."""

    epoch: str
    entries: pl.DataFrame
    games: pl.DataFrame
    fight_games: pl.DataFrame
    earlier_games: pl.DataFrame | None
    previous: Crown | None
    # The rank rule the epoch's sealed manifest names (``rank_rule``); None when no manifest of the
    # epoch is recorded: it closes under the current one (``PLACEMENT``), or the one its seal vouches
    # for (``close_vouched``).
    rank_rule: str | None = None


def _keys(inputs: EpochInputs) -> tuple[set[str], set[str], set[str], dict[str, tuple[str, int]]]:
    """(entered, standing, locked out) rating keys and each key's (hotkey, uid)."""
    entries = inputs.entries
    entered = set(entered_keys(entries)["rating_key"])
    standing: set[str] = set()
    locked: set[str] = set()
    who: dict[str, tuple[str, int]] = {}
    previous_king = inputs.previous.king if inputs.previous else None
    for row in entries.iter_rows(named=True):
        if row["strategy_hash"] is not None:
            key = rating_key(row["hotkey"], row["block_at_registration"], row["strategy_hash"])
        elif previous_king and previous_king.startswith(f"{row['hotkey']}@{row['block_at_registration']}:"):
            # A commitment that did not resolve this epoch (a gist that failed) still stands.
            key = previous_king
        else:
            continue
        standing.add(key)
        who[key] = (row["hotkey"], row["uid"])
        if row["rule"] == INTENT_PANEL:
            locked.add(key)
    return entered, standing, locked, who


@dataclasses.dataclass(frozen=True)
class _Standing:
    """Every game up to the epoch, Elo replayed over them, and the crown going into its title fight."""

    games: pl.DataFrame
    rated: Ratings | None  # None: no game yet
    elo: dict[str, float]
    before: BeforeFight


def _standing(inputs: EpochInputs) -> _Standing:
    games = (
        pl.concat([inputs.earlier_games, inputs.games], how="diagonal_relaxed")
        if inputs.earlier_games is not None and inputs.earlier_games.height
        else inputs.games
    )
    rated = elo_ratings(games) if games.height else None
    elo = dict(rated.ratings.select("rating_key", "rating").iter_rows()) if rated else {}
    entered, standing, locked, _ = _keys(inputs)
    before = standing_before_fight(
        inputs.previous, inputs.epoch, ratings=elo, entered=entered, standing=standing, locked_out=locked
    )
    return _Standing(games, rated, elo, before)


def fight_due(inputs: EpochInputs) -> BeforeFight:
    """The crown going into the epoch's title fight, and its challenger (None: no fight)."""
    return _standing(inputs).before


@dataclasses.dataclass(frozen=True)
class EpochClose:
    tables: dict[str, pl.DataFrame]  # CLOSING_TABLES and epoch_manifest
    crown: Crown
    decision: FightDecision | None
    manifest_id: str


def crown_from_tables(crown: pl.DataFrame, streaks: pl.DataFrame) -> Crown:
    """The crown a sealed epoch left, from its ``crown`` row and ``streaks``."""
    if crown.height != 1:
        raise ClosingError(f"crown table has {crown.height} rows; a sealed epoch has exactly one")
    row = crown.row(0, named=True)
    return Crown(
        epoch=row["epoch"],
        king=row["king"],
        crowned_epoch=row["crowned_epoch"],
        deposed=row["deposed"],
        changed_epoch=row["changed_epoch"],
        tail_left=row["tail_left"],
        streaks=dict(streaks.select("rating_key", "streak").iter_rows()),
        event=row["event"],
        reason=row["reason"],
    )


def _frame(rows: list[dict], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return with_ids(pl.DataFrame(rows, schema=schema, orient="row"))


def epoch_manifest_id(inputs: EpochInputs, tables: Mapping[str, pl.DataFrame]) -> str:
    """What an epoch's seal vouches for: the row identifiers of its inputs and of its closing tables."""
    sealed = {
        "entries": inputs.entries,
        "games": inputs.games,
        "fight_games": inputs.fight_games,
        **{name: tables[name] for name in CLOSING_TABLES},
    }
    lines = [f"{name}:{','.join(frame[ID_FIELD].to_list())}" for name, frame in sealed.items()]
    digest = hashlib.sha256("\n".join([inputs.epoch, *lines]).encode()).hexdigest()
    return f"epoch-{digest[:24]}"


# Every rule an epoch's rank was sealed under, the current first.
RANK_RULES: Final = (PLACEMENT, COMPELLE_RANK_1)
RANK_DIGITS: Final = 1  # the Bradley–Terry bounds are placed at 0.1 Elo, far above the machine's bits


def ranked(ratings: pl.DataFrame, rule: str) -> pl.DataFrame:
    """``ratings`` (a rating key per row, with Elo and the Bradley–Terry columns) ranked by ``rule``, in
    the order the table is sealed in.

    A placement rule: each key's placement by its Bradley–Terry interval, the bounds rounded to
    ``RANK_DIGITS`` first (their last bits are the machine's, ``strength.TOLERANCE_ELO``; rounded, the
    comparisons are the same on every machine); a key with no rated game has none; rows by rank, then
    Elo, then key. COMPELLE-RANK-1: the row number by Elo, then key."""
    by_elo = ratings.sort(["rating", "rating_key"], descending=[True, False])
    if rule == COMPELLE_RANK_1:
        return by_elo.with_row_index("rank", offset=1).with_columns(pl.col("rank").cast(pl.Int64))
    if rule not in RANK_RULES:
        raise ClosingError(f"rank rule {rule!r} is not one of {', '.join(RANK_RULES)}")
    bounds = by_elo.select(
        [pl.col(c).round(RANK_DIGITS).alias(c) for c in ("bt_rating", "bt_low", "bt_high")]
    )
    placed = placements(
        bounds["bt_rating"].to_list(),
        bounds["bt_low"].to_list(),
        bounds["bt_high"].to_list(),
        tie_keys=by_elo["rating_key"].to_list(),
        rule=rule,
        counted=by_elo["bt_rating"].is_not_null().to_list(),
    )
    return by_elo.with_columns(rank=pl.Series(placed.placement, dtype=pl.Int64)).sort(
        ["rank", "rating", "rating_key"], descending=[False, True, False], nulls_last=True
    )


def rank_rule(record: Record, epoch: str) -> str | None:
    """The rank rule of a closed epoch, as its recorded manifest names it: the placement rule in its
    rules, or COMPELLE-RANK-1 when it names none (sealed before COLOSSEUM-PLACEMENT-2). None when no
    manifest of the epoch is recorded (not closed yet, or sealed by a run that stopped before)."""
    tables = record.tables(DEBATE)
    if not tables.exists("epoch_manifest", epoch):
        return None
    manifest = tables.read_checked("epoch_manifest", epoch)
    return rank_rule_named(manifest["rules"][0] if manifest.height == 1 else None)


def rank_rule_named(rules: Iterable[str] | None) -> str:
    """The rank rule an epoch manifest's ``rules`` name: its placement rule, else COMPELLE-RANK-1."""
    named = set(rules) if rules is not None else set()
    return next((r for r in RANK_RULES if r in named), COMPELLE_RANK_1)


def _game_rules_beyond(inputs: EpochInputs) -> list[str]:
    """The rules the epoch's games name beyond ``RULES`` (the fence they were judged through, from
    COMPELLE-FENCE-2 on), so that an epoch sealed before names exactly what it named then."""
    frames = [games.select("rules") for games in (inputs.games, inputs.fight_games) if games.height]
    if not frames:
        return []
    named = pl.concat(frames)["rules"].drop_nulls().str.split(" ").explode().unique().to_list()
    return sorted(set(named) - set(RULES) - {""})


def close_epoch(inputs: EpochInputs, *, replicates: int = REPLICATES) -> EpochClose:
    epoch = inputs.epoch
    entered, standing, _, who = _keys(inputs)
    replay = _standing(inputs)
    games, rated, elo, before = replay.games, replay.rated, replay.elo, replay.before
    fight = inputs.fight_games
    if before.challenger is None and fight.height:
        raise ClosingError(
            f"epoch {epoch} table fight_games: {fight.height} games, but no challenger was due a title fight"
        )
    decision = None
    if before.challenger is not None:
        if fight.height == 0:
            raise ClosingError(
                f"epoch {epoch} table fight_games: no games, but {before.challenger} was due a title fight"
            )
        decision = decide(tally(fight, before.challenger))
    crown = crown_after_fight(before, decision)

    # Ratings: the standing keys that have played, with Bradley–Terry beside Elo.
    rule = inputs.rank_rule or PLACEMENT
    if rated is not None:
        strengths = bt_strengths(games, seed=bt_seed(epoch), replicates=replicates).table
        ratings = (
            rated.ratings.filter(pl.col("rating_key").is_in(sorted(standing)))
            .drop("rules")
            .join(strengths.drop("rules"), on="rating_key", how="left")
            .with_columns(
                epoch=pl.lit(epoch),
                entered=pl.col("rating_key").is_in(sorted(entered)),
                elo_rules=pl.lit(COMPELLE_ELO),
                bt_rules=pl.lit(COMPELLE_BT),
            )
            .pipe(ranked, rule)
            .select([pl.col(n).cast(t) for n, t in RATINGS_SCHEMA.items()])
        )
        changes = rated.changes.filter(pl.col("epoch") == epoch)
    else:
        ratings = pl.DataFrame(schema=RATINGS_SCHEMA)
        changes = pl.DataFrame(schema=CHANGE_SCHEMA)

    king_rating = elo.get(crown.king, START) if crown.king else None
    crown_row = {
        "epoch": epoch,
        "king": crown.king,
        "king_hotkey": who.get(crown.king, (None, None))[0] if crown.king else None,
        "king_rating": king_rating,
        "crowned_epoch": crown.crowned_epoch,
        "deposed": crown.deposed,
        "changed_epoch": crown.changed_epoch,
        "tail_left": crown.tail_left,
        "event": crown.event,
        "reason": crown.reason,
        "challenger": before.challenger,
        "rules": COMPELLE_CROWN,
    }
    streak_rows = [
        {
            "epoch": epoch,
            "rating_key": key,
            "hotkey": who[key][0],
            "rating": elo.get(key, START),
            "lead": elo.get(key, START) - (king_rating if king_rating is not None else START),
            "streak": n,
            "rules": COMPELLE_CROWN,
        }
        for key, n in sorted(crown.streaks.items())
    ]
    fight_rows = []
    if decision is not None:
        t, test = decision.tally, decision.test
        fight_rows.append(
            {
                "epoch": epoch,
                "challenger": before.challenger,
                "king": before.crown.king,
                "games": t.games,
                "decided": test.decided,
                "challenger_wins": t.challenger_wins,
                "king_wins": t.king_wins,
                "draws": t.draws,
                "voids": t.voids,
                "bar": test.bar,
                "tail": str(test.tail),
                "p_value": test.p_value,
                "outcome": decision.outcome,
                "rules": COMPELLE_TITLE_FIGHT,
                "bar_rules": TITLE_BAR,
            }
        )
    weight_rows = [
        {
            "epoch": epoch,
            "rating_key": key,
            "hotkey": who[key][0],
            "uid": who[key][1],
            "role": role,
            "weight": weight,
            "rules": COMPELLE_WEIGHTS,
        }
        for key, role, weight in weights(crown.king, crown.deposed, crown.tail_left, standing)
    ]
    tables = {
        "ratings": with_ids(ratings),
        "rating_changes": with_ids(changes),
        "crown": _frame([crown_row], CROWN_SCHEMA),
        "streaks": _frame(streak_rows, STREAK_SCHEMA),
        "title_fights": _frame(fight_rows, FIGHT_SCHEMA),
        "weights": _frame(weight_rows, WEIGHT_SCHEMA),
    }
    manifest_id = epoch_manifest_id(inputs, tables)
    rotations = sorted(set(inputs.games["rotation"].drop_nulls())) if inputs.games.height else []
    models = sorted(set(inputs.entries["models_sha256"].drop_nulls())) if inputs.entries.height else []
    manifest = {
        "epoch": epoch,
        "manifest_id": manifest_id,
        "block": int(inputs.entries["block"].max()) if inputs.entries.height else None,
        "rotation": ",".join(rotations) or None,
        "models_sha256": ",".join(models) or None,
        "kind": ",".join(sorted(set(inputs.entries["kind"].drop_nulls()))) if inputs.entries.height else None,
        "registered": inputs.entries.height,
        "entered": len(entered),
        "games": inputs.games.height,
        "fight_games": fight.height,
        "king": crown.king,
        "lead": LEAD,
        "bt_seed": bt_seed(epoch),
        "bt_replicates": replicates,
        # An epoch sealed under COMPELLE-RANK-1 named no rank rule: it names what it named then.
        "rules": [*RULES, *_game_rules_beyond(inputs), *([rule] if rule != COMPELLE_RANK_1 else [])],
    }
    manifest_schema = {
        "epoch": pl.String(),
        "manifest_id": pl.String(),
        "block": pl.Int64(),
        "rotation": pl.String(),
        "models_sha256": pl.String(),
        "kind": pl.String(),
        "registered": pl.Int64(),
        "entered": pl.Int64(),
        "games": pl.Int64(),
        "fight_games": pl.Int64(),
        "king": pl.String(),
        "lead": pl.Float64(),
        "bt_seed": pl.Int64(),
        "bt_replicates": pl.Int64(),
        "rules": pl.List(pl.String()),
    }
    assert tuple(tables) == CLOSING_TABLES
    tables["epoch_manifest"] = _frame([manifest], manifest_schema)
    return EpochClose(tables, crown, decision, manifest_id)


def close_vouched(inputs: EpochInputs, seal: Seal, *, replicates: int = REPLICATES) -> EpochClose:
    """The close of a sealed epoch, under the rank rule its seal vouches for.

    With the epoch's manifest recorded, the rule it names. Without (the run that sealed it stopped
    before writing it), each rank rule in turn, the current first, until one gives the identifier and
    the tables' bytes the seal vouches for (the manifest's bytes name the rule, so two rules that rank
    alike are still told apart); if none does (the record changed, or the Bradley–Terry columns' last
    bits differ on this machine) the current rule's close, whose differences the caller reports."""
    if inputs.rank_rule is not None:
        return close_epoch(inputs, replicates=replicates)
    closes = []
    for rule in RANK_RULES:
        close = close_epoch(dataclasses.replace(inputs, rank_rule=rule), replicates=replicates)
        sealed = {
            name: hashlib.sha256(parquet_bytes(frame)).hexdigest()
            for name, frame in close.tables.items()
            if name in seal.tables
        }
        if close.manifest_id == seal.content_id and all(seal.tables[n] == h for n, h in sealed.items()):
            return close
        closes.append(close)
    return closes[0]


class Overtaken(ClosingError):
    """An epoch whose close would come after a later epoch's: it can no longer close or play."""


def previous_crown(record: Record, epoch: str) -> Crown | None:
    """The crown the latest sealed epoch before ``epoch`` left (None: no epoch is sealed before it)."""
    before = [s.partition for s in record.seals(DEBATE).seals() if s.partition < epoch]
    if not before:
        return None
    tables = record.tables(DEBATE)
    last = max(before)
    unwritten = [t for t in ("crown", "streaks") if not tables.exists(t, last)]
    if unwritten:
        raise ClosingError(
            f"epoch {last} is sealed but its {' and '.join(unwritten)} were never written (the run that "
            f"sealed it stopped): run its close again (`colosseum debate close {int(last)}`) to finish it"
        )
    return crown_from_tables(tables.read_checked("crown", last), tables.read_checked("streaks", last))


def check_not_overtaken(record: Record, epoch: str, table: str = "games") -> None:
    """Refuse to play or close ``epoch`` once a later epoch is sealed or has ``table``: its ratings,
    pairings and crown were derived without this epoch's, and would no longer re-derive."""
    later = [s.partition for s in record.seals(DEBATE).seals() if s.partition > epoch]
    later += [p for p in record.tables(DEBATE).partitions(table) if p > epoch]
    if later:
        raise Overtaken(
            f"epoch {epoch} is overtaken by epoch {min(later)} (sealed or played after it): an epoch "
            "plays and closes in order, so it can no longer play or close; later epochs are unaffected"
        )


def _table_or_empty(
    tables: RecordTables, table: str, epoch: str, schema: dict[str, pl.DataType]
) -> pl.DataFrame:
    found = tables.read_if_present(table, epoch)
    return found if found is not None else with_ids(pl.DataFrame(schema=schema))


def epoch_inputs(record: Record, epoch: str) -> EpochInputs:
    """What ``close_epoch`` and ``fight_due`` read for ``epoch``, from the record."""
    tables = record.tables(DEBATE)
    if not tables.exists("entries", epoch):
        raise ClosingError(f"epoch {epoch} table entries: not recorded; run the epoch's entries first")
    return EpochInputs(
        epoch=epoch,
        entries=tables.read_checked("entries", epoch),
        games=_table_or_empty(tables, "games", epoch, GAME_SCHEMA),
        fight_games=_table_or_empty(tables, "fight_games", epoch, GAME_SCHEMA),
        earlier_games=games_before(tables, epoch),
        previous=previous_crown(record, epoch),
        rank_rule=rank_rule(record, epoch),
    )


def epoch_fight_motions(record: Record, epoch: str) -> pl.DataFrame:
    """The title fight's motions for ``epoch`` (``crown.fight.fight_motions``): from the sealed
    rotations up to the latest one the epoch's games argued."""
    argued = record.tables(DEBATE).read_checked("games", epoch)["rotation"].drop_nulls()
    if argued.len() == 0:
        raise ClosingError(
            f"epoch {epoch} table games: no game names a rotation, so a title fight has no motions"
        )
    return fight_motions(record.tables(DEBATE_TOPICS).scan("motions").collect(), max(argued))


def king_going_in(record: Record, epoch: str) -> tuple[str | None, bool]:
    """The sitting king's hotkey as ``epoch``'s entries are judged, and whether the previous epoch
    demoted it to PENDING on a BAD verdict (then BAD again locks it out)."""
    crown = previous_crown(record, epoch)
    if crown is None or crown.king is None:
        return None, False
    hotkey = crown.king.split("@", 1)[0]
    last = crown.epoch
    entries = record.tables(DEBATE).read_checked("entries", last)
    row = entries.filter(pl.col("hotkey") == hotkey)
    demoted = bool(
        row.height
        and row["is_king"].fill_null(False)[0]
        and not row["king_demoted"].fill_null(False)[0]
        and row["verdict"][0] == BAD
    )
    return hotkey, demoted


def rederived_rating_problems(record: Record, close: EpochClose) -> list[str]:
    """The blocking check: every stored rating equals Elo replayed from the record's games files."""
    epoch = close.tables["crown"]["epoch"][0]
    scan = record.tables(DEBATE).scan("games")
    games = scan.filter(pl.col("epoch") <= epoch).collect() if scan is not None else None
    replayed = (
        dict(elo_ratings(games).ratings.select("rating_key", "rating").iter_rows())
        if games is not None and games.height
        else {}
    )
    problems = []
    for key, rating in close.tables["ratings"].select("rating_key", "rating").iter_rows():
        if replayed.get(key) != rating:
            problems.append(
                f"ratings epoch {epoch} rating_key {key}: stored {rating!r}, replayed from the games "
                f"{replayed.get(key)!r}"
            )
    return problems
