"""``colosseum verify`` on a built site: the debate board's downloads are all there and agree (the
debate audit's site tasks; what they hold is ``downloads``).

On any copy of the site, from its downloads alone: every sealed epoch has every table its manifest
says it has, its ``bt_fit`` method row and, when it fought for the title, its ``fight_calls`` row;
every rotation its games argued has its motions and candidates; ``recipes.parquet`` is the recipes
of the rule versions the tables name. Then the downloads are held to each other: the intent panel's
counts to its votes (``panel_calls``), the weights set on the chain to the epoch's weights, the
method row to the epoch's manifest, its seed to its published derivation and its counts to the games;
every Elo rating to the games replayed and every Bradley–Terry strength and interval to the fit the
method row describes (``epoch_fit``, a task of its own per epoch: the bootstrap is the work); the
streak that called a fight to the streak the epoch before left and the lead to the ratings; a title
fight's games to both sides of the motions the motions downloads give it.

When the site lives in a record (its ``site/``): every download that is a record table is the
record's file byte for byte, and every derived one is what the record gives now.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import polars as pl

from colosseum_core.debate.arena import CLOSING_TABLES, DEBATE, FIGHT_TABLES, GAME_TABLES
from colosseum_core.debate.crown.closing import bt_seed
from colosseum_core.debate.crown.fight import fight_motions
from colosseum_core.debate.entry.intent import BAD
from colosseum_core.debate.pairing import fight_pairings
from colosseum_core.debate.ratings import START, elo_ratings
from colosseum_core.debate.site.downloads import (
    AFTER_SEAL_TABLES,
    BT_FIT,
    FIGHT_CALLS,
    RECIPES_FILE,
    ROTATION_DOWNLOADS,
    bt_fit_rows,
    debate_downloads,
    recipes_for,
    versions_named,
)
from colosseum_core.debate.strength import MACHINE_DEPENDENT_COLUMNS, bt_strengths
from colosseum_core.verify.canonical import frame_difference
from colosseum_core.verify.reading import audit_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import guarded

# A download of the debate board: a table's partition, or the recipes; ``part`` is the board's folder.
PARTITIONED: Final = re.compile(
    r"^(?P<part>(?:[^/]+/)*)downloads/(?P<table>[a-z][a-z0-9_]*)/(?P<noun>epoch|rotation)="
    r"(?P<key>[0-9A-Za-z_.:-]+)\.parquet$"
)
# Every sealed epoch has these, whatever it played.
_VOTES_SCHEMA: Final = {
    "panel_epoch": pl.String(),
    "strategy_hash": pl.String(),
    "valid": pl.Int64(),
    "bad": pl.Int64(),
}
ALWAYS: Final = ("entries", *CLOSING_TABLES, BT_FIT)


@dataclasses.dataclass(frozen=True)
class Part:
    """The debate board's downloads in one folder of a site: ``files[(table, key)]`` -> its path."""

    site: Path
    prefix: str
    files: Mapping[tuple[str, str], str]

    def has(self, table: str, key: str) -> bool:
        return (table, key) in self.files

    def read(self, table: str, key: str) -> pl.DataFrame:
        return pl.read_parquet(self.site / self.files[(table, key)])

    def every(self, table: str) -> pl.DataFrame | None:
        frames = [self.read(t, k) for (t, k) in sorted(self.files) if t == table]
        return pl.concat(frames, how="diagonal_relaxed") if frames else None

    def name(self, table: str, key: str, noun: str = "epoch") -> str:
        return self.files.get((table, key), f"{self.prefix}downloads/{table}/{noun}={key}.parquet")

    @property
    def epochs(self) -> list[str]:
        return sorted(k for (t, k) in self.files if t == "epoch_manifest")


def debate_parts(verified: Sequence[str]) -> dict[str, list[str]]:
    """The debate board's downloads among a site's files, by the folder of the board holding them."""
    parts: dict[str, list[str]] = {}
    for name in verified:
        found = PARTITIONED.match(name)
        if found is not None:
            parts.setdefault(found["part"], []).append(name)
    for prefix, names in parts.items():
        if f"{prefix}{RECIPES_FILE}" in verified:
            names.append(f"{prefix}{RECIPES_FILE}")
    return parts


def _part(site: str, prefix: str, names: Sequence[str]) -> Part:
    files = {}
    for name in names:
        found = PARTITIONED.match(name)
        if found is not None:
            files[(found["table"], found["key"])] = name
        elif name == f"{prefix}{RECIPES_FILE}":
            files[("recipes", "")] = name
    return Part(Path(site), prefix, files)


def check_debate_part(site: str, prefix: str, names: Sequence[str], record: str | None) -> Outcome:
    """Every download the part must have is there, and they agree with each other (and with
    ``record``, the record the site lives in, if it does)."""
    out = Outcome()
    part = _part(site, prefix, names)

    def run() -> None:
        _present(out, part)
        _agree(out, part)
        if record is not None:
            _as_recorded(out, part, record)

    guarded(out, f"{prefix}downloads", run)
    return out


def _present(out: Outcome, part: Part) -> None:
    manifests = part.every("epoch_manifest")
    if manifests is None:
        return
    if not part.has("recipes", ""):
        out.problems.append(f"{part.prefix}{RECIPES_FILE}: missing from the site")
    voted_in = _panel_epochs(part.every("entries"))
    for manifest in manifests.iter_rows(named=True):
        epoch = manifest["epoch"]
        needed = list(ALWAYS)
        if manifest["games"]:
            needed += GAME_TABLES
        if manifest["fight_games"]:
            needed += [*FIGHT_TABLES, FIGHT_CALLS]
        needed += ["panel_calls"] if epoch in voted_in else []
        for table in needed:
            if not part.has(table, epoch):
                out.problems.append(
                    f"{part.name(table, epoch)}: missing from the site (epoch {epoch} has it)"
                )
    games = part.every("games")
    rotations = sorted(set(games["rotation"].drop_nulls())) if games is not None else []
    for rotation in rotations:
        for table in ROTATION_DOWNLOADS:
            if not part.has(table, rotation):
                out.problems.append(
                    f"{part.name(table, rotation, 'rotation')}: missing from the site (the games argued "
                    f"rotation {rotation})"
                )


def _panel_epochs(entries: pl.DataFrame | None) -> set[str]:
    """The epochs the intent panel voted in: those the entries name as their panel's (an entry
    asked this epoch names its own; a verdict kept from an earlier epoch names that one)."""
    if entries is None:
        return set()
    asked = entries.filter(pl.col("panel_valid").is_not_null())
    voted = (
        asked.select(pl.col("panel_epoch").fill_null(pl.col("epoch")))
        if "panel_epoch" in asked.columns
        else asked.select("epoch")
    )
    return set(voted.to_series().to_list())


def _agree(out: Outcome, part: Part) -> None:
    epochs = part.epochs
    if not epochs:
        return
    frames = {
        table: frame
        for table in (
            "entries",
            "panel_calls",
            "games",
            "ratings",
            "streaks",
            "title_fights",
            "weights",
            "weight_sets",
            "crown",
            "epoch_manifest",
            "motions",
            "fight_games",
        )
        if (frame := part.every(table)) is not None
    }
    if part.has("recipes", ""):
        wanted = recipes_for(versions_named(frames))
        _same(
            out,
            part.files[("recipes", "")],
            part.read("recipes", ""),
            wanted,
            "the recipes of the rule versions the tables name",
        )
    _panel_votes(out, part, frames)
    _weight_sets(out, part, frames)
    last = epochs[-1]
    games = frames.get("games")
    upto = games.filter(pl.col("epoch") <= last) if games is not None else pl.DataFrame()
    manifests = frames["epoch_manifest"]
    for epoch, wanted in bt_fit_rows(upto, manifests).items():
        if not part.has(BT_FIT, epoch):
            continue
        stored = part.read(BT_FIT, epoch)
        _same(
            out,
            part.name(BT_FIT, epoch),
            stored,
            wanted,
            "the method of the epoch's fit, from its manifest and the games",
        )
        if stored.height and stored["seed"][0] != bt_seed(epoch):
            out.problems.append(
                f"{part.name(BT_FIT, epoch)} field seed: {stored['seed'][0]}, but its published derivation "
                f"gives {bt_seed(epoch)}"
            )
    _elo(out, part, frames)
    _fight_calls(out, part, frames)
    _fight_motions(out, part, frames)


def _same(out: Outcome, name: str, stored: pl.DataFrame, wanted: pl.DataFrame, what: str) -> None:
    if (problem := frame_difference(name, stored, wanted, what)) is not None:
        out.problems.append(problem)


def panel_votes(calls: pl.DataFrame | None, panel_epoch: pl.Expr) -> pl.DataFrame:
    """The intent panel's valid and BAD votes per panel epoch and strategy hash in ``panel_calls`` rows
    (None: no calls), as ``panel_valid`` and ``panel_bad`` count them."""
    if calls is None:
        return pl.DataFrame(schema=_VOTES_SCHEMA)
    return calls.group_by(panel_epoch.alias("panel_epoch"), "strategy_hash").agg(
        valid=pl.col("vote").is_not_null().sum().cast(pl.Int64),
        bad=(pl.col("vote") == BAD).sum().cast(pl.Int64),
    )


def _panel_votes(out: Outcome, part: Part, frames: Mapping[str, pl.DataFrame]) -> None:
    entries, calls = frames.get("entries"), frames.get("panel_calls")
    if entries is None:
        return
    asked = entries.filter(pl.col("panel_valid").is_not_null())
    if "panel_epoch" not in asked.columns:
        asked = asked.with_columns(panel_epoch=pl.col("epoch"))
    votes = panel_votes(calls, pl.col("epoch"))
    joined = asked.with_columns(pl.col("panel_epoch").fill_null(pl.col("epoch"))).join(
        votes, on=["panel_epoch", "strategy_hash"], how="left"
    )
    for entry in joined.iter_rows(named=True):
        found = (entry["valid"] or 0, entry["bad"] or 0)
        if (entry["panel_valid"], entry["panel_bad"]) != found:
            out.problems.append(
                f"{part.name('entries', entry['epoch'])} hotkey {entry['hotkey']}: panel counts "
                f"{entry['panel_valid']} valid, {entry['panel_bad']} BAD, but the votes in "
                f"{part.name('panel_calls', entry['panel_epoch'])} give {found[0]} valid, {found[1]} BAD"
            )


def _weight_sets(out: Outcome, part: Part, frames: Mapping[str, pl.DataFrame]) -> None:
    sets, weights = frames.get("weight_sets"), frames.get("weights")
    if sets is None:
        return
    for row in sets.iter_rows(named=True):
        wanted = (
            sorted(
                (int(u), float(w))
                for u, w in weights.filter(pl.col("epoch") == row["epoch"])
                .select("uid", "weight")
                .iter_rows()
            )
            if weights is not None
            else []
        )
        if sorted(zip(row["uids"], row["weights"], strict=True)) != wanted:
            out.problems.append(
                f"{part.name('weight_sets', row['epoch'])} field weights: set {row['weights']} on uids "
                f"{row['uids']}, but {part.name('weights', row['epoch'])} gives {wanted}"
            )


def _elo(out: Outcome, part: Part, frames: Mapping[str, pl.DataFrame]) -> None:
    """Every epoch's Elo ratings against one replay of the games downloads: sequential Elo after the
    games up to an epoch is the same whatever comes after, so each key's rating after epoch E is its
    last rating after a game of an epoch up to E."""
    games, ratings = frames.get("games"), frames.get("ratings")
    if games is None or ratings is None or games.height == 0:
        return
    # The changes are the games in the order applied: a key's last row of an epoch is its rating after it.
    changes = elo_ratings(games.filter(pl.col("epoch") <= max(ratings["epoch"]))).changes.with_row_index(
        "game"
    )
    after = (
        pl.concat(
            [
                changes.select("game", "epoch", rating_key="pro_rating_key", replayed="pro_after"),
                changes.select("game", "epoch", rating_key="con_rating_key", replayed="con_after"),
            ]
        )
        .sort("game")
        .group_by("rating_key", "epoch", maintain_order=True)
        .last()
        .select("rating_key", "replayed", at=pl.col("epoch").cast(pl.Int64))
        .sort("rating_key", "at")
    )
    stored = ratings.select("epoch", "rating_key", "rating", at=pl.col("epoch").cast(pl.Int64))
    held = stored.sort("rating_key", "at").join_asof(after, on="at", by="rating_key", check_sortedness=False)
    for row in held.sort("epoch", "rating_key").iter_rows(named=True):
        replayed = row["replayed"]
        if replayed != row["rating"]:
            out.problems.append(
                f"{part.name('ratings', row['epoch'])} rating_key {row['rating_key']} field rating: "
                f"{row['rating']!r}, the games downloads replayed give {replayed!r}"
            )


def _fight_calls(out: Outcome, part: Part, frames: Mapping[str, pl.DataFrame]) -> None:
    fights = frames.get("title_fights")
    if fights is None:
        return
    epochs = part.epochs
    streaks, ratings = frames.get("streaks"), frames.get("ratings")
    for fight in fights.iter_rows(named=True):
        epoch = fight["epoch"]
        if not part.has(FIGHT_CALLS, epoch):
            continue  # named missing above
        name = part.name(FIGHT_CALLS, epoch)
        [call] = part.read(FIGHT_CALLS, epoch).iter_rows(named=True)
        earlier = [e for e in epochs if e < epoch]
        before = (
            dict(streaks.filter(pl.col("epoch") == earlier[-1]).select("rating_key", "streak").iter_rows())
            if earlier and streaks is not None
            else {}
        )
        elo = (
            dict(ratings.filter(pl.col("epoch") == epoch).select("rating_key", "rating").iter_rows())
            if ratings is not None
            else {}
        )
        facts = {
            "challenger": fight["challenger"],
            "king": fight["king"],
            "previous_streak": before.get(fight["challenger"], 0),
            "streak": before.get(fight["challenger"], 0) + 1,
            "rating": elo.get(fight["challenger"], START),
            "king_rating": elo.get(fight["king"], START),
        }
        facts["lead"] = facts["rating"] - facts["king_rating"]
        for field, wanted in facts.items():
            if call[field] != wanted:
                out.problems.append(
                    f"{name} field {field}: {call[field]!r}, but the title fight, the streaks the epoch "
                    f"before left and the ratings give {wanted!r}"
                )
        if call["streak"] < call["hold"] or call["lead"] < call["lead_bar"]:
            out.problems.append(
                f"{name}: streak {call['streak']} with a lead of {call['lead']:.1f} does not call a fight "
                f"(it takes {call['hold']} epochs at {call['lead_bar']:g} or more)"
            )


def _fight_motions(out: Outcome, part: Part, frames: Mapping[str, pl.DataFrame]) -> None:
    fights, fight_games = frames.get("title_fights"), frames.get("fight_games")
    motions, games = frames.get("motions"), frames.get("games")
    if fights is None or fights.height == 0 or fight_games is None or games is None:
        return
    for fight in fights.iter_rows(named=True):
        epoch = fight["epoch"]
        argued = games.filter(pl.col("epoch") == epoch)["rotation"].drop_nulls()
        if motions is None or argued.len() == 0:
            out.problems.append(
                f"{part.name('fight_games', epoch)}: the motions downloads hold none of its motions"
            )
            continue
        drawn = fight_motions(motions, max(argued))["motion_id"].to_list()
        hotkey = {k: k.split("@", 1)[0] for k in (fight["challenger"], fight["king"])}
        again = fight_pairings(epoch, hotkey[fight["challenger"]], hotkey[fight["king"]], drawn)
        mine = (
            fight_games.filter(pl.col("epoch") == epoch)
            .select("round", "game_id", "pro_hotkey", "con_hotkey", "motion_id")
            .sort("game_id")
            .rows()
        )
        theirs = sorted((p.round, p.game_id, p.pro, p.con, p.motion_id) for p in again)
        if mine != theirs:
            out.problems.append(
                f"{part.name('fight_games', epoch)}: not both sides of the {len(drawn)} most recent unique "
                "motions the motions downloads give the fight"
            )


def check_epoch_fit(site: str, prefix: str, names: Sequence[str], epoch: str) -> Outcome:
    """``epoch``'s Bradley–Terry strengths and intervals re-fitted from the games downloads by the
    method its ``bt_fit`` row states, within its tolerance."""
    out = Outcome()
    part = _part(site, prefix, names)

    def run() -> None:
        if not (part.has(BT_FIT, epoch) and part.has("ratings", epoch)):
            return  # named missing by the part's check
        [method] = part.read(BT_FIT, epoch).iter_rows(named=True)
        games = part.every("games")
        upto = games.filter(pl.col("epoch") <= epoch) if games is not None else None
        stored = part.read("ratings", epoch)
        if upto is None or upto.height == 0:
            return
        fitted = bt_strengths(upto, seed=method["seed"], replicates=method["replicates"]).table
        again = {r["rating_key"]: r for r in fitted.iter_rows(named=True)}
        tolerance = method["tolerance_elo"]
        for row in stored.iter_rows(named=True):
            theirs = again.get(row["rating_key"], {})
            for column in MACHINE_DEPENDENT_COLUMNS:
                mine, other = row[column], theirs.get(column)
                if mine is None and other is None:
                    continue
                if mine is None or other is None or abs(mine - other) > tolerance:
                    out.problems.append(
                        f"{part.name('ratings', epoch)} rating_key {row['rating_key']} field {column}: "
                        f"{mine!r}, the fit {part.name(BT_FIT, epoch)} states gives {other!r} "
                        f"(tolerance {tolerance:g})"
                    )
        out.count("debate_fits")

    guarded(out, f"{part.name('ratings', epoch)}", run)
    return out


def _as_recorded(out: Outcome, part: Part, root: str) -> None:
    """Every download as the record gives it now, byte for byte; none it gives for the site's epochs
    left out (the weights set on the chain after the site was built aside)."""
    record = audit_record(root)
    tables = record.tables(DEBATE)
    sealed = {s.partition for s in record.seals(DEBATE).seals()}
    unsealed = [e for e in part.epochs if e not in sealed]
    for epoch in unsealed:
        out.problems.append(
            f"{part.name('epoch_manifest', epoch)}: epoch {epoch} is not sealed in the record at {root}"
        )
    epochs = [e for e in part.epochs if e in sealed]
    given = {d.path: d for d in debate_downloads(tables, epochs)}
    here = {path: key for key, path in part.files.items()}
    for path, (table, _) in sorted(here.items()):
        relative = path[len(part.prefix) :]
        wanted = given.get(relative)
        if wanted is None:
            out.problems.append(f"{path}: not a download the record at {root} gives for the site's epochs")
        elif (part.site / path).read_bytes() != wanted.data:
            what = "its file" if not wanted.derived else "what it derives"
            out.problems.append(f"{path}: differs from the record's ({what}, {table})")
    for relative, download in sorted(given.items()):
        if f"{part.prefix}{relative}" not in here and download.table not in AFTER_SEAL_TABLES:
            out.problems.append(
                f"{part.prefix}{relative}: missing from the site (the record at {root} has it)"
            )
