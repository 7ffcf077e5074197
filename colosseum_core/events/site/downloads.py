"""What an event's page publishes beside its tables (COLOSSEUM-EVENT-DOWNLOADS-1), so that every
number re-derives from the downloads alone with the recipe beside it.

Per event (``<event>/downloads/``), beside every table as the record holds it:

- ``recipes.parquet``: every rule an event's number is made under, by version, in words (the
  clusters and their order, the seed and the draw, the interval rule, the placement rule), and the
  event's ``recipes.html`` page saying the same;
- what its kind derives (``EventKind.downloads``): a chess event's ``chess_white_clusters.parquet``,
  the clusters White's share of the points is resampled over, each with its index in the bootstrap
  (the order each game pair first appears in ``chess_games`` as recorded), White's points doubled
  and the games (``events.chess.downloads``);
  a Solve-or-Object event's bank as the event froze it: ``soo_bank.json`` (the file's exact bytes,
  whose SHA-256 the manifest names), ``soo_bank.parquet`` (one row per pair) and
  ``soo_items.parquet`` (the event's items in the order they were asked, with their answers and
  defects; ``events.solve_or_object.downloads``).

The placement rule an event was sealed under is the one its manifest names, COLOSSEUM-PLACEMENT-1 for
an event frozen before manifests named one (``events.manifest.placement_rule``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from colosseum_core.events.kind import EventKind
from colosseum_core.events.kinds import kind_named
from colosseum_core.events.manifest import placement_rule
from colosseum_core.record import with_ids
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.site import recipes
from colosseum_core.site.formats import escape_html as esc
from colosseum_core.site.recipes import RecipeMissing
from colosseum_core.site.shell import attr
from colosseum_core.statistics.bootstrap import BootstrapSpec
from colosseum_core.statistics.placement import PLACEMENT_1, PLACEMENT_2

EVENT_DOWNLOADS: Final = "COLOSSEUM-EVENT-DOWNLOADS-1"
RECIPES: Final = "recipes"

# An event's recipes carry its id first: one events board publishes every event's.
RECIPE_SCHEMA: Final[dict[str, pl.DataType]] = {"event": pl.String(), **recipes.RECIPE_SCHEMA}


@dataclasses.dataclass(frozen=True)
class Download:
    name: str  # relative to the event's folder
    table: str
    data: bytes


def _words(text: str) -> str:
    return " ".join(text.split())


# The ratio bootstrap's recipe in words (its replicate count is each event's own).
_RATIO: Final = BootstrapSpec(seed=0, replicates=1999).method.replace("b = 1..1999", "b = 1..B")

# The recipe of every rule an event's number is made under, by version: (title, governs, text). A new
# version adds its own entry; an event sealed under an old one keeps its recipe.
_FROZEN: Final[Mapping[str, tuple[str, str, str]]] = {
    "CHESS-RATINGS-1": (
        "Ratings, intervals and White's share",
        "chess_standings.rating, low, high, sensitivity_*; chess_fit; chess_white_clusters",
        _words(
            """Entrants i = 0..p−1 are the manifest's contenders in the manifest's order (event_manifests:
            contenders). Every game of chess_games is White (side a) against Black (side b): white_score
            1 a win, 0 a loss (a forfeit is the loss it is), ½ a draw. Clusters: chess_games.cluster, a
            game pair (one line between two contenders, colours swapped); c = 0..C−1 in ascending
            code-point order of the cluster. The fit: Bradley–Terry–Davidson with Newman's virtual
            entrant, by Newton (chess_fit.method states it whole, as the fit recorded it). The draw: one
            numpy.random.RandomState(seed), seed = the manifest's seeds.bootstrap, B = its
            ratings.bootstrap_replicates; per replicate b = 1..B in order u_1..u_C = randint(0, C,
            size=C, dtype=uint32), m_c = #{k : u_k = c}, the replicate's counts Σ_c m_c C_c. The
            interval: [Q_0.025, Q_0.975] of each contender's replicate ratings, numpy.quantile(…,
            method='linear'), replicates without a finite fit excluded (chess_fit.degenerate); the
            point is the full-data fit, the interval extended to contain it. Ratings, bounds are
            published rounded to 0.1 Elo (a re-fit agrees within chess_fit.tolerance_elo); ν and
            shares to 4 decimals. The sensitivity fit (without_forfeits) is the same over the games
            with no forfeited_by, from a fresh stream with the same seed; a contender with no such game
            has none. White's share: the clusters in the order each game pair first appears in
            chess_games' rows as recorded (chess_white_clusters gives c with each cluster's doubled White
            points and games); share = Σ 2·white_score / (2·games); its interval by the ratio bootstrap
            below, from a fresh stream with the same seed; white_elo = 400·log10(s / (1 − s)). Ratio
            bootstrap: """
            + _RATIO
        ),
    ),
    "SOO-STANDINGS-1": (
        "Points and Brier with their intervals",
        "soo_standings.score, low, high, brier, brier_low, brier_high, placement, medal",
        _words(
            """From soo_replies, one row per contender and item. Clusters: the pairs (an item and its
            twin share their words), q = 0..Q−1 in ascending code-point order of pair_id; entrants
            j: the contenders in ascending code-point order of their id. num[q, j] = Σ points of j's
            replies to pair q, cnt[q, j] = their number (a contender with no reply to a pair has 0 and
            0); score_j = Σ_q num / Σ_q cnt. Brier the same with num = Σ brier_units and scale 10,000.
            Both statistics take the same draws: one numpy.random.RandomState(seed), seed = the
            manifest's seeds.bootstrap, B = its standings.bootstrap_replicates, level its
            standings.level. Ratio bootstrap: """
            + _RATIO
            + ". Placements and medals by score (points), by the placement rule named beside; Brier "
            "ranks nothing."
        ),
    ),
    "SOO-SCORING-1": (
        "The points and the Brier term of a reply",
        "soo_replies.points, brier_units, outcome",
        _words(
            """+1 for a correct answer to a sound item (solved) or an objection to a twin with its class
            and its words (substantiated, or witness_checked with a certificate that holds); 0 to
            abstain; −1 for anything else. brier_units = (P − 100·y)², P the stated P(defective) in
            percent, y = 1 for a twin, 0 for a sound item; 10,000 without a readable P. The items and
            their answers, classes and edits are soo_items (the bank as frozen: soo_bank.json, whose
            SHA-256 the manifest's bank.sha256 names, and soo_bank.parquet)."""
        ),
    ),
    "CHALLENGE-STANDINGS-1": (
        "Solving and authoring scores with their intervals",
        "challenge_standings.score, low, high, n, excluded, placement, medal",
        _words(
            """For each ranking (solving, authoring) and basis (verified: outcomes with evidence verified;
            with_reviewed: verified or reviewed), from challenge_scores of that ranking: the rows kept
            are those of the basis. Clusters: solving, the task_id; authoring, contender + ':' + slot (a
            missing one is '-'); q = 0..Q−1 in ascending code-point order. Entrants j: the manifest's
            contenders in its order. num[q, j] = Σ units, cnt[q, j] = the rows; scale = the largest
            scale of the ranking's rows; score = Σ num / (scale · Σ cnt). Each (ranking, basis) takes
            its own stream: numpy.random.RandomState(seed) afresh, seed = the manifest's
            seeds.bootstrap, B = standings.bootstrap_replicates. Ratio bootstrap: """
            + _RATIO
            + ". Placements among the contenders with n > 0, by the placement rule named beside; an "
            "authoring medal needs verified_slots ≥ 0.8 · slots."
        ),
    ),
    "CHALLENGE-SCORING-1": (
        "The points of a reply and of a task",
        "challenge_scores.units, scale, evidence",
        _words(
            """Solving: +1 a correct answer or an upheld objection, 0 abstain, −1 otherwise; authoring:
            0.25 + 0.75 × the share of the other contenders who failed a sound, verified task, −1 a
            defective one or an incorrect reference, 0 a submission that cannot be read or verified;
            each as units / scale in exact integers (challenge_scores)."""
        ),
    ),
    PLACEMENT_1: (
        "Placements and medals",
        "placement, medal",
        _words(
            """Order by score descending (chess: the published rating, rounded), ties by contender id
            ascending. Walking down the order, a contender shares the placement of the one just above
            it iff their closed 95 % intervals overlap (low_a ≤ high_b and low_b ≤ high_a), so
            neighbours chain; otherwise its placement is 1 + the number of contenders above it.
            Medals: placement 1 gold, 2 silver, 3 bronze."""
        ),
    ),
    PLACEMENT_2: (
        "Placements and medals",
        "placement, medal",
        _words(
            """Among the contenders with a counted outcome (n > 0), a contender's placement is 1 + the
            number of them whose 95 % interval lies wholly above its own (low_j > high_i; touching or
            overlapping is not above); a contender with nothing counted has no placement (null).
            Contenders share a placement only when their intervals overlap. Medals: placement 1 gold,
            2 silver, 3 bronze; rows are listed by placement, then score descending, then contender
            id ascending."""
        ),
    ),
}
RECIPE_TEXT: Final[Mapping[str, tuple[str, str, str]]] = _FROZEN


def event_kind(manifest: Mapping[str, Any]) -> EventKind:
    """The registered kind (``events.kinds``) an event's manifest names."""
    kind = kind_named(manifest["kind"])
    if kind is None:
        raise ValueError(
            f"event {manifest['event']} manifest field kind: {manifest['kind']!r} is no kind of event"
        )
    return kind


def event_recipes(manifest: Mapping[str, Any], frames: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """The event's ``recipes``: its standings' and scoring's rules (its kind's) and its placement rule."""
    kind = event_kind(manifest)
    versions = kind.recipes(manifest)
    versions.append(placement_rule(manifest))
    text = {**RECIPE_TEXT, **kind.recipe_text}
    missing = [v for v in versions if v not in text]
    if missing:
        raise RecipeMissing(
            f"event {manifest['event']}: no recipe for rule {', '.join(missing)}: add it to "
            "colosseum_core.events.site.downloads.RECIPE_TEXT (or its kind's recipe_text) before publishing "
            "numbers made under it"
        )
    rows = [
        {
            "event": manifest["event"],
            "rule": v,
            "title": text[v][0],
            "governs": text[v][1],
            "recipe": text[v][2],
            "downloads": EVENT_DOWNLOADS,
        }
        for v in versions
    ]
    return with_ids(pl.DataFrame(rows, schema=RECIPE_SCHEMA, orient="row"))


def event_downloads(manifest: Mapping[str, Any], frames: Mapping[str, pl.DataFrame]) -> list[Download]:
    """What the event's page publishes beside its tables (the module docstring): the recipes, then
    what its kind derives (``EventKind.downloads``)."""
    found = [
        Download(f"downloads/{RECIPES}.parquet", RECIPES, parquet_bytes(event_recipes(manifest, frames)))
    ]
    return found + list(event_kind(manifest).downloads(manifest, frames))


def recipes_page(event: str, recipes: pl.DataFrame, downloads: Sequence[str]) -> str:
    """The event's recipes in words, and the files they read."""
    sections = "".join(
        f'<section id="{attr(r["rule"])}"><h2>{esc(r["title"])} · {esc(r["rule"])}</h2>'
        f"<p><strong>Governs:</strong> {esc(r['governs'])}.</p><p>{esc(r['recipe'])}</p></section>"
        for r in recipes.iter_rows(named=True)
    )
    files = "".join(f'<li><a href="{attr(d)}">{esc(d.rsplit("/", 1)[-1])}</a></li>' for d in downloads)
    return (
        f"<h1>{esc(event)}: how every number re-derives</h1>"
        "<p>Every number on this event's pages re-derives from its downloads alone, by these recipes "
        f'(also <a href="downloads/{RECIPES}.parquet">{RECIPES}.parquet</a>, one row per rule version). '
        "<code>colosseum verify</code> checks the downloads against each other, and against the record "
        "when it has one.</p>" + sections + f"<h2>The downloads</h2><ul>{files}</ul>"
    )
