"""The debate board's downloads (COMPELLE-DOWNLOADS-1): every number the pages show re-derives from
them alone, with the recipe published beside it.

- **The record's tables**, byte for byte: per sealed epoch (``downloads/<table>/epoch=<epoch>.parquet``)
  its entries and the intent panel's calls (every vote with its reason), its games, turns and judge
  calls, its title fight's, its closing tables and its manifest, and the weights as set on the chain
  (``weight_sets``, with the receipts' ids) once they are; per sealed topic rotation up to the latest
  one a sealed epoch argued (``downloads/<table>/rotation=<key>.parquet``) its motions and its
  candidates, which a title fight's 100 most recent unique motions are drawn from.
- **Derived**, by the functions that sealed the tables, from the record alone:
  ``bt_fit/epoch=<epoch>.parquet``, the Bradley–Terry fit's method row (the seed and how it is
  derived, the generator and the draw, the cluster key and numbering, the interval rule, the prior
  and the centring, the replicates, the games fitted and the tolerance ``verify`` allows), as the
  chess fit's ``method`` column publishes its own; ``fight_calls/epoch=<epoch>.parquet`` for an epoch
  that called a title fight, the challenger's streak at the end of the epoch (the fight then resets
  it, so the ``streaks`` table never shows it) with its lead over the king.
- **The recipes** (``recipes.parquet``): every rule a published number is made under, by its
  version, in words; the downloads page states them.

Derived files carry row identifiers as the record's do; ``colosseum verify`` checks each download
against the others on any copy of the site, and byte for byte against the record when it has one.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import polars as pl

from colosseum_core.debate.arena import CLOSING_TABLES, DEBATE_TOPICS, FIGHT_TABLES, GAME_TABLES
from colosseum_core.debate.crown.closing import (
    BT_SEED_RULE,
    RANK_DIGITS,
    epoch_inputs,
    fight_due,
    rank_rule_named,
)
from colosseum_core.debate.crown.fight import ALPHA_DEN, ALPHA_NUM, MIN_DECIDED, MOTIONS
from colosseum_core.debate.crown.streak import HOLD, LEAD
from colosseum_core.debate.crown.weights import TAIL_EPOCHS, TAIL_SHARE
from colosseum_core.debate.entry.intent import MIN_VALID
from colosseum_core.debate.models import PANEL_SIZE
from colosseum_core.debate.ratings import DRAW_PENALTY, ORDER, START, K
from colosseum_core.debate.rules import (
    COMPELLE_BT,
    COMPELLE_CROWN,
    COMPELLE_ELO,
    COMPELLE_ENTRY,
    COMPELLE_JUDGING,
    COMPELLE_RANK_1,
    COMPELLE_TITLE_FIGHT,
    COMPELLE_WEIGHTS,
)
from colosseum_core.debate.site.stats import AGREED, SETTLED, SPLIT
from colosseum_core.debate.strength import REPLICATES, fit_method, rated_pairs
from colosseum_core.record import RecordTables, with_ids
from colosseum_core.record.layout import Record
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.recipes import RECIPE_SCHEMA, RecipeMissing
from colosseum_core.site.shell import attr, column_head
from colosseum_core.statistics.pairwise import DRAW
from colosseum_core.statistics.placement import PLACEMENT_2
from colosseum_core.statistics.significance import TITLE_BAR

DOWNLOADS_VERSION: Final = "COMPELLE-DOWNLOADS-1"
# The judges' statistics are the board's own numbers (``site.stats``), under the board's version.
BOARD_STATISTICS: Final = "COMPELLE-BOARD-1"
EPOCH_TABLES: Final = (
    "entries",
    "panel_calls",
    *GAME_TABLES,
    *FIGHT_TABLES,
    *CLOSING_TABLES,
    "epoch_manifest",
)
# Written once after the seal: the weights as the validator set them on the chain.
AFTER_SEAL_TABLES: Final = ("weight_sets",)
ROTATION_DOWNLOADS: Final = ("motions", "topic_candidates")
BT_FIT, FIGHT_CALLS = "bt_fit", "fight_calls"
DERIVED_TABLES: Final = (BT_FIT, FIGHT_CALLS)
RECIPES_FILE: Final = "downloads/recipes.parquet"

BT_FIT_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "rules": pl.String(),
    "model": pl.String(),
    "bootstrap": pl.String(),
    "games": pl.Int64(),
    "draws": pl.Int64(),
    "entrants": pl.Int64(),
    "clusters": pl.Int64(),
    "seed": pl.Int64(),
    "seed_rule": pl.String(),
    "replicates": pl.Int64(),
    "level": pl.Float64(),
    "quantile_low": pl.Float64(),
    "quantile_high": pl.Float64(),
    "generator": pl.String(),
    "games_fitted": pl.String(),
    "entrant_order": pl.String(),
    "cluster_definition": pl.String(),
    "cluster_key": pl.String(),
    "cluster_numbering": pl.String(),
    "prior": pl.String(),
    "method": pl.String(),
    "tolerance_elo": pl.Float64(),
    "downloads": pl.String(),
}
FIGHT_CALL_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "challenger": pl.String(),
    "hotkey": pl.String(),
    "king": pl.String(),
    "streak": pl.Int64(),  # at the end of the epoch, before the fight zeroed or restarted it
    "previous_streak": pl.Int64(),  # the previous sealed epoch's (its streaks table), 0 if none
    "hold": pl.Int64(),
    "rating": pl.Float64(),
    "king_rating": pl.Float64(),
    "lead": pl.Float64(),
    "lead_bar": pl.Float64(),
    "rules": pl.String(),
    "downloads": pl.String(),
}


@dataclasses.dataclass(frozen=True)
class Recipe:
    rule: str
    title: str
    governs: str
    recipe: str

    def row(self) -> dict[str, str]:
        return {**dataclasses.asdict(self), "downloads": DOWNLOADS_VERSION}


def _bt_recipe() -> str:
    method = fit_method(seed=0, replicates=REPLICATES)
    return (
        f"The games: {method['games_fitted']}. {method['entrant_order']}. Clusters: "
        f"{method['cluster_definition']}; the key: {method['cluster_key']}; {method['cluster_numbering']}. "
        f"The seed: {BT_SEED_RULE} (the epoch manifest's bt_seed; bt_replicates is B). The draw: one "
        f"{method['generator']}, seeded once; for b = 1..B in order, u_1..u_C = randint(0, C, size=C, "
        "dtype=uint32); m_c = #{k : u_k = c}; the replicate's table is Σ_c m_c C_c, C_c the counts of "
        "cluster c. The fit of a table (the full data or a replicate): Bradley–Terry with a draw as half "
        "a win, S_ij = W_ij + ½T_ij, and Newman's prior (every entrant one win and one loss against a "
        "virtual entrant fixed at θ = 0); Newton from θ = 0 on the penalised log-likelihood "
        "Σ_{i≠j} S_ij ln σ(θ_i − θ_j) + Σ_i [ln σ(θ_i) + ln σ(−θ_i)], the step solving (L + D)Δ = g with "
        "g_i = s_i − Σ_j n_ij σ(θ_i − θ_j) + 1 − 2σ(θ_i), L the Bradley–Terry information matrix and "
        "D = diag(2σ(θ_i)(1 − σ(θ_i))), halved until the objective does not drop, until max|step| < "
        "1e-12; then θ centred to mean 0 over the real entrants and R = 1000 + 400/ln 10 · θ. The "
        f"interval: [Q_{method['quantile_low']:g}, Q_{method['quantile_high']:g}] of each key's replicate "
        "ratings, numpy.quantile(…, method='linear') (type 7), replicates without a finite fit excluded "
        "and counted; the point is the full-data fit, and a bound is moved to the point if the point lies "
        "outside (extended). bt_games: the fitted games the key played. A re-fit on another machine "
        f"agrees within {method['tolerance_elo']:g} Elo (the solver's last bits are the machine's). As the "
        f"library records it: {method['method']}."
    )


# The recipe of every rule a number on the debate pages is made under, by version. A version that
# replaces one of these adds its own entry: an epoch sealed under the old one keeps its recipe.
RECIPES: Final[Mapping[str, Recipe]] = {
    r.rule: r
    for r in (
        Recipe(
            COMPELLE_ENTRY,
            "Entry and the intent panel",
            "entries.status, rule, value, verdict, panel_valid, panel_bad",
            "The checks run in order (registration window, pinned revision, intent panel); the first that "
            "stops a miner names itself (rule) and the value that stopped it. The intent panel: "
            f"{PANEL_SIZE} models each vote GOOD or BAD on the strategy; every call is a row of panel_calls "
            "(the epoch named by the entry's panel_epoch: a decided verdict is kept per strategy hash and "
            "models document), with its raw reply, the vote read from it (null when the reply is not a "
            "vote, problem says why) and the reason given. panel_valid = the calls of the entry's "
            "strategy_hash whose vote is not null; panel_bad = those whose vote is BAD. Verdict: BAD "
            f"(locked out) iff panel_valid ≥ {MIN_VALID} and panel_bad = panel_valid; GOOD iff "
            f"panel_valid ≥ {MIN_VALID} and panel_bad = 0; otherwise PENDING (asked again next epoch). "
            "The sitting king (is_king) is not locked out by one BAD verdict: it is PENDING for the epoch "
            "(king_demoted on the next), and BAD again then locks it out.",
        ),
        Recipe(
            COMPELLE_JUDGING,
            "A game's result",
            "games.status, winner, reason; the W, D, L and voids of ratings",
            "From the game's judge_calls: a valid vote is a reply whose first line is PRO or CON (verdict). "
            "Two equal first-stage votes decide the game; a split goes to deliberation, and two equal "
            "deliberation votes decide it, else it is a draw; fewer than two valid votes, or a rate limit "
            "mid-game, void it. A turn that opens with Δ concedes the game to the opponent "
            "(turns.concession, games.ended_by). Status decided, draw or void; winner Pro or Con when "
            "decided.",
        ),
        Recipe(
            COMPELLE_ELO,
            "Elo",
            "ratings.rating, games, wins, draws, losses, voids; rating_changes",
            f"Every rating key starts at {START:g}. The games: every row of the games downloads of the "
            "epochs up to and including this one (title fights are never rated), sorted by "
            f"({', '.join(ORDER)}) ascending. Per game, from the ratings before it: "
            "E = 1/(1 + 10^((R_con − R_pro)/400)); S = 1 if Pro won, 0 if Con won, ½ for a draw; "
            f"R_pro += {K:g}·(S − E) and R_con −= {K:g}·(S − E), and on a draw both lose a further "
            f"{DRAW_PENALTY:g}. A void changes no rating and no W/D/L (it counts in voids). No rounding "
            "until display (one decimal). games = wins + draws + losses. The ratings table holds the rating "
            "keys whose registration stands after the epoch (entered: whether it entered this epoch), "
            "its rank by the epoch's rank rule; rating_changes lists the epoch's "
            "games with both sides' ratings before and after, in the order applied.",
        ),
        Recipe(
            COMPELLE_RANK_1,
            "The rank (epochs sealed before COLOSSEUM-PLACEMENT-2)",
            "ratings.rank",
            "An epoch whose manifest's rules name no placement rule was ranked by Elo: the ratings rows "
            "sorted by rating descending, then rating key ascending, and numbered 1, 2, 3, … in that order.",
        ),
        Recipe(
            PLACEMENT_2,
            "The rank: each miner's placement by its Bradley–Terry interval",
            "ratings.rank",
            "An epoch whose manifest's rules name COLOSSEUM-PLACEMENT-2: each rating key's bt_rating, "
            f"bt_low and bt_high rounded to {RANK_DIGITS} decimal (half to even, as polars' round does) "
            "so that the machine's last bits never move a rank; a key with no rated game "
            "(bt_rating null) has no rank. Among the others, rank = 1 + the number of keys whose rounded "
            "bt_low is greater than this key's rounded bt_high (touching or overlapping is not above). Rows "
            "sorted by rank ascending (null last), then rating descending, then rating key ascending.",
        ),
        Recipe(
            COMPELLE_BT,
            "Bradley–Terry with its 95 % interval",
            "ratings.bt_rating, bt_low, bt_high, bt_games, extended; bt_fit",
            _bt_recipe(),
        ),
        Recipe(
            COMPELLE_CROWN,
            "The crown and the streaks",
            "crown; streaks.rating, lead, streak; fight_calls",
            "After each epoch, from the Elo after it (ratings) and the crown the previous sealed epoch "
            "left: with no king, the top-rated entered miner is crowned (ties: the smaller rating key); "
            "a king whose registration no longer stands or whom the intent panel locked out vacates the "
            "crown to the top-rated entered miner. Otherwise every entered challenger at least "
            f"{LEAD:g} Elo above the king (lead = rating − king's rating) extends its streak by one; "
            "every other streak is zero (one epoch under the line, or not entered, resets it). The "
            f"longest streak that has reached {HOLD} (then the higher rating, then the smaller key) "
            "fights for the title in that epoch, if the king is entered; else it waits, streak intact. "
            "The fight then zeroes the challenger's streak (king holds) or restarts every streak "
            "(challenger crowned), so the streaks table of the fight's epoch shows the streak after "
            "the fight: fight_calls gives the streak that called it (= the previous epoch's streak + 1).",
        ),
        Recipe(
            COMPELLE_TITLE_FIGHT,
            "The title fight",
            "title_fights.games, decided, challenger_wins, king_wins, draws, voids, outcome; fight_games",
            f"The motions: the {MOTIONS} most recent unique motion texts of the sealed rotations up to the "
            "latest one the epoch's games argued: every row of the motions downloads with rotation ≤ that "
            "rotation, sorted by rotation descending then position ascending, keeping a text's first "
            f"(most recent) row, the first {MOTIONS}. Motion t is argued twice: game 2t − 1 with the "
            "challenger as Pro, game 2t with the king as Pro (fight_games.round, game ids <epoch>-t001…). "
            "The tally counts the fight's games by status: decided games won by the challenger's rating key, "
            f"by the king's, draws and voids; n = decided. With n < {MIN_DECIDED} the fight is inconclusive "
            "and the king holds; otherwise the challenger takes the crown iff its wins clear the bar.",
        ),
        Recipe(
            TITLE_BAR,
            "The binomial bar",
            "title_fights.bar, tail, p_value",
            f"k = the challenger's wins, n = decided games. tail = Σ_{{x=k..n}} C(n, x) in exact integers; "
            f"p_value = tail / 2ⁿ. The challenger clears the bar iff {ALPHA_DEN}·tail ≤ {ALPHA_NUM}·2ⁿ "
            f"(α = {ALPHA_NUM}/{ALPHA_DEN}, exact); bar = the least k that clears for this n (none when "
            "no k ≤ n clears).",
        ),
        Recipe(
            COMPELLE_WEIGHTS,
            "The weights, and what was set on the chain",
            "weights.weight, role, uid; weight_sets",
            f"The king 1.0. For the {TAIL_EPOCHS} epochs after a title fight changes hands (the epoch of the "
            f"change is the first; crown.tail_left counts them down) the deposed king keeps {TAIL_SHARE:g} "
            f"and the new king has {1 - TAIL_SHARE:g}, if the deposed king's registration still stands. "
            "No king: no weights. weight_sets is what the validator set on the chain after the seal: the "
            "uids and weights (the weights table's, by uid), the block the chain recorded and the ids of "
            "the receipts of the request (the receipts are in the record, not on the site).",
        ),
        Recipe(
            BOARD_STATISTICS,
            "The judges' statistics",
            "judges.html",
            "Over the games downloads (Swiss games) and the fight_games downloads (title fights) apart, from "
            f"each game's reason: first-reading agreement = games whose reason starts '{AGREED}' among those "
            f"whose reason starts '{AGREED}' or '{SPLIT}'; deliberation settles a split = reasons starting "
            f"'{SETTLED}' among those starting '{SPLIT}'; Pro wins = decided games won by Pro among decided "
            "games. Each share is shown with its k and n, to one decimal.",
        ),
    )
}
# Where each closing table names the rule versions its numbers were made under.
_VERSION_COLUMNS: Final = (
    ("entries", "rules"),
    ("ratings", "elo_rules"),
    ("ratings", "bt_rules"),
    ("crown", "rules"),
    ("streaks", "rules"),
    ("title_fights", "rules"),
    ("title_fights", "bar_rules"),
    ("weights", "rules"),
    ("weight_sets", "rules"),
)
_ALWAYS: Final = (COMPELLE_JUDGING, BOARD_STATISTICS)


def recipes_for(versions: Iterable[str]) -> pl.DataFrame:
    """The recipes of ``versions`` (and of the game's judging and the board's statistics), by rule;
    ``RecipeMissing`` names a version with none."""
    wanted = sorted({*versions, *_ALWAYS})
    missing = [v for v in wanted if v not in RECIPES]
    if missing:
        raise RecipeMissing(
            f"debate board: no recipe for rule {', '.join(missing)}, which a sealed table names: add it to "
            "colosseum_core.debate.site.downloads.RECIPES before publishing numbers made under it"
        )
    return with_ids(pl.DataFrame([RECIPES[v].row() for v in wanted], schema=RECIPE_SCHEMA, orient="row"))


def versions_named(frames: Mapping[str, pl.DataFrame]) -> set[str]:
    """The rule versions the published tables' numbers name (``_VERSION_COLUMNS``), and those of
    the epochs' manifests the board has a recipe for (the title fight's, before any fight)."""
    named: set[str] = set()
    for table, column in _VERSION_COLUMNS:
        frame = frames.get(table)
        if frame is not None and column in frame.columns:
            named |= {v for v in frame[column].drop_nulls().to_list() if v}
    manifests = frames.get("epoch_manifest")
    if manifests is not None and "rules" in manifests.columns:
        named |= set(manifests["rules"].explode().drop_nulls().to_list()) & set(RECIPES)
        named |= {rank_rule_named(rules) for rules in manifests["rules"].to_list()}
    return named


def download_name(table: str, partition: str, noun: str = "epoch") -> str:
    return f"downloads/{table}/{noun}={partition}.parquet"


@dataclasses.dataclass(frozen=True)
class Download:
    path: str  # relative to the debate part of the site
    table: str
    partition: str | None  # None for recipes.parquet
    data: bytes
    derived: bool


def bt_fit_rows(games: pl.DataFrame, manifests: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """The ``bt_fit`` row of every epoch in ``manifests`` (its sealed epoch_manifest rows: bt_seed,
    bt_replicates), from ``games``: every game the record holds of the epochs up to the last of them
    (the fit of epoch E reads every game of the epochs up to E, as its close did)."""
    counts = _cumulative_counts(games, manifests["epoch"].to_list())
    found: dict[str, pl.DataFrame] = {}
    for manifest in manifests.iter_rows(named=True):
        epoch = manifest["epoch"]
        if COMPELLE_BT not in (manifest["rules"] or []):
            raise RecipeMissing(
                f"epoch_manifest epoch {epoch} field rules: names no {COMPELLE_BT}, the only Bradley–Terry "
                "fit whose method the board publishes"
            )
        row = {
            "epoch": epoch,
            **fit_method(seed=manifest["bt_seed"], replicates=manifest["bt_replicates"]),
            **counts[epoch],
            "seed_rule": BT_SEED_RULE,
            "downloads": DOWNLOADS_VERSION,
        }
        found[epoch] = with_ids(pl.DataFrame([row], schema=BT_FIT_SCHEMA, orient="row"))
    return found


def _cumulative_counts(games: pl.DataFrame, epochs: Sequence[str]) -> dict[str, dict[str, int]]:
    """Per epoch, ``fit_counts`` of the games of every epoch up to it, in one pass over the games (a
    key or a cluster counts from the first epoch it plays in)."""
    rated = rated_pairs(games, "epoch") if games.height else None
    per_epoch: dict[str, dict[str, int]] = {}
    keys_at: dict[str, int] = {}
    clusters_at: dict[str, int] = {}
    if rated is not None:
        for row in (
            rated.group_by("epoch")
            .agg(games=pl.len(), draws=(pl.col("outcome") == DRAW).sum())
            .iter_rows(named=True)
        ):
            per_epoch[row["epoch"]] = row
        sides = pl.concat([rated.select("epoch", key="a"), rated.select("epoch", key="b")])
        keys_at = dict(sides.group_by("key").agg(pl.col("epoch").min()).group_by("epoch").len().iter_rows())
        clusters_at = dict(
            rated.group_by("cluster").agg(pl.col("epoch").min()).group_by("epoch").len().iter_rows()
        )
    wanted = set(epochs)
    totals: dict[str, dict[str, int]] = {}
    running = {"games": 0, "draws": 0, "entrants": 0, "clusters": 0}
    for epoch in sorted(set(per_epoch) | wanted):
        here = per_epoch.get(epoch, {"games": 0, "draws": 0})
        running = {
            "games": running["games"] + int(here["games"]),
            "draws": running["draws"] + int(here["draws"]),
            "entrants": running["entrants"] + int(keys_at.get(epoch, 0)),
            "clusters": running["clusters"] + int(clusters_at.get(epoch, 0)),
        }
        if epoch in wanted:
            totals[epoch] = dict(running)
    return totals


def fight_call_row(
    record: Record, epoch: str, ratings: pl.DataFrame, previous: pl.DataFrame | None
) -> pl.DataFrame:
    """The streak that called ``epoch``'s title fight, by the crown's own rule (``closing.fight_due``)
    over the record, beside the Elo lead it was earned by; ``previous``: the streaks the previous
    sealed epoch left (None: no epoch before)."""
    before = fight_due(epoch_inputs(record, epoch))
    challenger, king = before.challenger, before.crown.king
    if challenger is None or king is None:
        raise ValueError(f"title_fights epoch {epoch}: a fight is recorded, but the crown's rule calls none")
    elo = dict(ratings.select("rating_key", "rating").iter_rows())
    earlier = dict(previous.select("rating_key", "streak").iter_rows()) if previous is not None else {}
    rating, king_rating = elo.get(challenger, START), elo.get(king, START)
    row = {
        "epoch": epoch,
        "challenger": challenger,
        "hotkey": challenger.split("@", 1)[0],
        "king": king,
        "streak": before.crown.streaks[challenger],
        "previous_streak": earlier.get(challenger, 0),
        "hold": HOLD,
        "rating": rating,
        "king_rating": king_rating,
        "lead": rating - king_rating,
        "lead_bar": LEAD,
        "rules": COMPELLE_CROWN,
        "downloads": DOWNLOADS_VERSION,
    }
    return with_ids(pl.DataFrame([row], schema=FIGHT_CALL_SCHEMA, orient="row"))


def _frame(data: bytes) -> pl.DataFrame:
    return pl.read_parquet(io.BytesIO(data))


def downloaded(downloads: Sequence[Download], table: str) -> pl.DataFrame | None:
    """``table`` as its downloads hold it, every partition in the order listed, as one frame (None:
    no download of it): what a picture drawn from the downloads reads."""
    parts = [_frame(d.data) for d in downloads if d.table == table]
    return pl.concat(parts, how="diagonal_relaxed") if parts else None


def debate_downloads(tables: RecordTables, sealed: Sequence[str]) -> list[Download]:
    """Every download of the debate board for the ``sealed`` epochs (ascending), in the order listed."""
    record = Record(tables.root.parent.parent)
    last = sealed[-1] if sealed else None
    found: list[Download] = []
    for table in (*EPOCH_TABLES, *AFTER_SEAL_TABLES):
        # Every epoch up to the last sealed one: an epoch overtaken before its close keeps its games,
        # which every later close read.
        for epoch in tables.partitions(table) if last is not None else ():
            if epoch <= last:
                found.append(
                    Download(
                        download_name(table, epoch), table, epoch, tables.read_bytes(table, epoch), False
                    )
                )
    frames = {
        table: pl.concat([_frame(d.data) for d in found if d.table == table], how="diagonal_relaxed")
        for table in {t for t, _ in _VERSION_COLUMNS} | {"games", "epoch_manifest", "ratings", "streaks"}
        if any(d.table == table for d in found)
    }
    games = frames.get("games")
    if games is not None and games["rotation"].drop_nulls().len():
        argued = max(games["rotation"].drop_nulls())
        topics = record.tables(DEBATE_TOPICS)
        for rotation in sorted(s.partition for s in record.seals(DEBATE_TOPICS).seals()):
            if rotation > argued:
                continue
            for table in ROTATION_DOWNLOADS:
                if topics.exists(table, rotation):
                    found.append(
                        Download(
                            download_name(table, rotation, "rotation"),
                            table,
                            rotation,
                            topics.read_bytes(table, rotation),
                            False,
                        )
                    )
    if "epoch_manifest" in frames:
        sealed_manifests = frames["epoch_manifest"].filter(pl.col("epoch").is_in(list(sealed)))
        upto = games.filter(pl.col("epoch") <= last) if games is not None else pl.DataFrame()
        for epoch, frame in bt_fit_rows(upto, sealed_manifests).items():
            found.append(Download(download_name(BT_FIT, epoch), BT_FIT, epoch, parquet_bytes(frame), True))
    fights = frames.get("title_fights")
    if fights is not None and fights.height:
        ratings = frames.get(
            "ratings",
            pl.DataFrame(schema={"epoch": pl.String(), "rating_key": pl.String(), "rating": pl.Float64()}),
        )
        streaks = frames.get("streaks")
        for epoch in sorted(fights["epoch"].unique().to_list()):
            earlier = [e for e in sealed if e < epoch]
            previous = (
                streaks.filter(pl.col("epoch") == earlier[-1]) if earlier and streaks is not None else None
            )
            frame = fight_call_row(record, epoch, ratings.filter(pl.col("epoch") == epoch), previous)
            found.append(
                Download(download_name(FIGHT_CALLS, epoch), FIGHT_CALLS, epoch, parquet_bytes(frame), True)
            )
    if found:  # with no sealed epoch there is no number to re-derive
        recipes = recipes_for(versions_named(frames))
        found.append(Download(RECIPES_FILE, "recipes", None, parquet_bytes(recipes), True))
    return found


_KINDS: Final = (
    (
        "Each epoch's tables, as the record holds them",
        lambda d: not d.derived and d.table not in ROTATION_DOWNLOADS,
    ),
    (
        "The topic rotations the epochs argued and the title fights drew their motions from",
        lambda d: d.table in ROTATION_DOWNLOADS,
    ),
    (
        "Derived from the record: the fit's method, the streak that called a fight, the recipes",
        lambda d: d.derived,
    ),
)


def downloads_page(downloads: Sequence[Download]) -> str:
    """The downloads page: how every number re-derives (the recipes in words), then every file."""
    if not downloads:
        return '<h1>The record as Parquet</h1><p class="empty">No epoch is sealed yet.</p>'
    recipes = next(_frame(d.data) for d in downloads if d.path == RECIPES_FILE)
    sections = "".join(
        f'<section id="{attr(r["rule"])}"><h3>{esc(r["title"])} · {esc(r["rule"])}</h3>'
        f"<p><strong>Governs:</strong> {esc(r['governs'])}.</p><p>{esc(r['recipe'])}</p></section>"
        for r in recipes.iter_rows(named=True)
    )
    lists = ""
    for heading, chosen in _KINDS:
        items = "".join(
            f'<li><a href="{attr(d.path)}">{esc(" ".join(filter(None, (d.table, d.partition))))}</a></li>'
            for d in downloads
            if chosen(d)
        )
        lists += f"<h2>{esc(heading)}</h2>" + (
            f"<ul>{items}</ul>" if items else '<p class="empty">none yet</p>'
        )
    return (
        "<h1>The record as Parquet</h1>"
        "<p>Every number on these pages re-derives from these files alone, by the recipes below (also "
        f'<a href="{attr(RECIPES_FILE)}">recipes.parquet</a>, one row per rule version). Each row carries '
        "its identifier, the SHA-256 of its canonical JSON; <code>colosseum verify</code> checks every "
        "file against the others, and against the record when it has one.</p>"
        "<h2>How every number re-derives</h2>" + sections + _weight_sets_section(downloads) + lists
    )


# The chain table's headers, in order, with their tooltips.
WEIGHT_SETS_TIPS: Final = {
    "Epoch": "The epoch whose weights were set",
    "Validator": "The validator's hotkey that set them",
    "Weights": "Each uid and the weight set on it",
    "Block": "The block the chain recorded the request in",
    "Receipts": "The ids of the request's receipts in the record (the raw exchanges with the chain)",
}


def _weight_sets_section(downloads: Sequence[Download]) -> str:
    """What the validator set on the chain, epoch by epoch, with the ids of the receipts of each request."""
    sets = [_frame(d.data) for d in downloads if d.table == "weight_sets"]
    rows = [r for frame in sets for r in frame.iter_rows(named=True)]
    body = "".join(
        f"<tr><td>{esc(r['epoch'])}</td><td>{esc(r['validator'])}</td>"
        f"<td>{esc(', '.join(f'uid {u}: {w:g}' for u, w in zip(r['uids'], r['weights'], strict=True)))}</td>"
        f'<td class="num">{esc(r["block"])}</td>'
        f'<td class="code">{esc(" ".join(r["receipt_ids"] or []))}</td></tr>'
        for r in sorted(rows, key=lambda r: r["epoch"], reverse=True)
    )
    heads = "".join(column_head(h, WEIGHT_SETS_TIPS[h]) for h in WEIGHT_SETS_TIPS)
    table = (
        '<div class="table-wrap"><table><caption>weight_sets: the uids and weights set on the chain after '
        "each epoch's seal, the block the chain recorded and the ids of the request's receipts</caption>"
        f"<thead><tr>{heads}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>"
    )
    return "<h2>What was set on the chain</h2>" + (
        table if rows else '<p class="empty">No weights have been set on the chain yet.</p>'
    )
