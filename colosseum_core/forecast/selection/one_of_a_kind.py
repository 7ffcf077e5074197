"""Rule 10, ``one_of_a_kind``: no two questions on one card are the same question in different clothes.

Two questions are alike when they share any of these keys; an excluded question's verdict names the
best-ranked question it is alike to and the first of these keys the two share:
1. the same market id;
2. the same event (a family: after ``one_per_family`` only a repeated market id can still share one);
3. the same sports fixture: the same non-null game id, where the event's ``gameId`` and the market's
   ``gameId`` are one namespace (Gamma writes the same number in both, and "More Markets" child events
   share their parent's). A sports market (one with a ``sportsMarketType``) that carries no game id
   at all is keyed by its event's normalized title and its stamped start (event ``startTime``, else
   ``eventStartTime``, else ``gameStartTime``): the same fixture listed twice without an id;
4. the same normalized question stem (``stems.question_stem``);
5. (COLOSSEUM-ONE-OF-A-KIND-2) the same fixture read from the event title: the same two teams, in
   either order, on the same New York date of the game's stamped start (the stamps of 3.), with or
   without a game id. The teams are read from the title (``fixture_teams``): the title is cut at
   every ``": "`` and every spaced dash or bar (``" - "``, ``" – "``, ``" — "``, ``" | "``), with
   parenthesized notes removed first, and the first piece that is two names joined by exactly one
   ``vs``, ``vs.``, ``v``, ``v.`` (either case) or ``@``, spaces around it, gives the teams, each
   normalized as a question stem. "UFC Fight Night: A vs. B", "b @ a" and "A v B - More Markets" are
   one fixture;
6. (COLOSSEUM-ONE-OF-A-KIND-2) the same event title, normalized as a question stem, on the same event
   date: the New York date of the event's stamped start (the stamps of 3.), else of the event's own
   ``endDate``, else of the market's. New York because Polymarket dates its questions in Eastern
   time ("… on December 1") and the card's calendar is New York's; a start rather than an end when
   one is stamped, because a game's end date is the listing's choice (hours or a week later) while
   its start is the game.

Keys 1–4 are COLOSSEUM-ONE-OF-A-KIND-1, which stays available (``select_card(one_of_a_kind=...)``)
so that a card judged under it is re-derived under it. Version 2 only adds keys, and its two come
last, so on a card where no exclusion names one of them both readings give the same verdicts, word
for word; an exclusion that names one says so (``…, COLOSSEUM-ONE-OF-A-KIND-2) as market …``), and
``reading_of`` reads that back from recorded verdicts.

Which one stays is decided on the card, in rank order: walking the ranked list, a question stays
unless it is alike to a better-ranked question that stayed. So a question alike only to a question
that was itself excluded is not excluded, and the verdict always names a market that is on the list
the cut reads. That walk is sequential by nature; here it is run as rounds of columnar joins (keep
every question that is the best-ranked live holder of each of its keys, then exclude every question
alike to one kept above it) that reach the same fixed point, on a real board in two or three rounds.
Each round settles at least the best-ranked open question, so a contrived chain (1 alike to 2, 2 to
3, 3 to 4, …) would take one round per link: after ``_MAX_ROUNDS`` whatever is still open is
finished by the walk itself, one question at a time, which gives the same verdicts by definition.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from operator import itemgetter
from typing import Final

import polars as pl

from colosseum_core.forecast.rules import ONE_OF_A_KIND_READING, ONE_OF_A_KIND_READING_1
from colosseum_core.forecast.schedule import CARD_TIMEZONE_NAME
from colosseum_core.forecast.selection.texts import instant_text
from colosseum_core.stems import question_stem

READINGS: Final = (ONE_OF_A_KIND_READING_1, ONE_OF_A_KIND_READING)
# The order a verdict prefers when one better-ranked question matches on several keys: version 1's
# keys first, so version 2 words an exclusion differently only where version 1 would not make it.
_MARKET, _EVENT, _FIXTURE, _STEM, _TEAMS, _TITLE = range(6)
_MAX_ROUNDS: Final = 8
# Spacing as the title reader sees it: every control character and every Unicode space, written out
# so that the independent audit (plain Python) can use exactly the same class.
_SPACING: Final = "[\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
_NOTE: Final = r"\([^()]*\)"
_BREAK: Final = ": +| +[-\u2013\u2014|] +"
_PIECE: Final = "\x1f"  # no longer in the text once spacing is one space
# Within a piece whose spaces are doubled, each word stands between two spaces of its own, so joining
# words ("V vs") can not hide one another from the count.
_JOIN: Final = r" (?:[vV][sS]?\.?|@) "
_SIDES: Final = f"^(.*?){_JOIN}(.*)$"
_BEATEN_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rank": pl.Int64(),
    "blocker": pl.Int64(),
    "shown": pl.String(),
}
_KEY_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rank": pl.Int64(),
    "kind": pl.Int8(),
    "key": pl.String(),
    "shown": pl.String(),
}


def check_reading(reading: str) -> str:
    """``reading`` when it is a published reading of the rule; anything else raises ``ValueError``."""
    if reading not in READINGS:
        raise ValueError(f"unknown one_of_a_kind reading {reading!r}; known: {', '.join(READINGS)}")
    return reading


def reading_of(values: Iterable[str | None]) -> str:
    """The reading that re-derives a recorded card, from the ``value`` of its ``one_of_a_kind`` verdicts.

    Version 2 names itself in every exclusion only it can make, and without one both readings agree;
    so a card whose values never name version 2 re-derives under version 1, which is what a card
    recorded before version 2 was judged under.
    """
    marker = f", {ONE_OF_A_KIND_READING}) as market "
    named = any(value is not None and marker in value for value in values)
    return ONE_OF_A_KIND_READING if named else ONE_OF_A_KIND_READING_1


def reading_for(recorded_verdicts: pl.DataFrame | None) -> str:
    """The reading a card is judged by: today's when it has no recorded verdicts (a new card), else
    the one its recorded verdicts were judged under (``reading_of`` their values)."""
    if recorded_verdicts is None:
        return ONE_OF_A_KIND_READING
    return reading_of(recorded_verdicts["value"])


def _present(column: str) -> pl.Expr:
    return pl.col(column).is_not_null() & (pl.col(column).str.len_bytes() > 0)


def _key(kind: int, key: pl.Expr, shown: pl.Expr) -> dict[str, pl.Expr]:
    return {"kind": pl.lit(kind, dtype=pl.Int8), "key": key, "shown": shown}


def stamped_start() -> pl.Expr:
    """The first start Polymarket stamps: the event's ``startTime``, the market's ``eventStartTime``,
    then its ``gameStartTime`` (the order ``tomorrow_only`` names them in)."""
    return pl.coalesce("event_start_time_ts", "market_event_start_time_ts", "game_start_time_ts")


def new_york_date(instant: pl.Expr) -> pl.Expr:
    """The New York calendar date of a UTC instant, as ``YYYY-MM-DD``."""
    return instant.dt.convert_time_zone(CARD_TIMEZONE_NAME).dt.strftime("%Y-%m-%d")


def event_date() -> pl.Expr:
    """The event's date: its stamped start's, else its ``endDate``'s, else the market's (New York)."""
    return new_york_date(pl.coalesce(stamped_start(), "event_end_date_ts", "end_date_ts"))


def fixture_teams(title: pl.Expr) -> pl.Expr:
    """The two teams a fixture's title names, as ``"a" and "b"`` in code-point order; null if none.

    Each name is a question stem, which never holds a quotation mark, so the text is unambiguous.
    """
    piece = pl.element()
    doubled = pl.concat_str(pl.lit("  "), piece.str.replace_all(" ", "  ", literal=True), pl.lit("  "))
    first, second = (question_stem(doubled.str.extract(_SIDES, group)) for group in (1, 2))
    pair = pl.when((doubled.str.count_matches(_JOIN) == 1) & first.is_not_null() & second.is_not_null()).then(
        pl.when(first <= second)
        .then(pl.format('"{}" and "{}"', first, second))
        .otherwise(pl.format('"{}" and "{}"', second, first))
    )
    pieces = (
        title.str.replace_all(_NOTE, " ")
        .str.replace_all(f"{_SPACING}+", " ")
        .str.replace_all(_BREAK, _PIECE)
        .str.split(_PIECE)
    )
    return pieces.list.eval(pair).list.drop_nulls().list.first()


def _reading_two_specs() -> list[dict[str, pl.Expr]]:
    start = stamped_start()
    teams = fixture_teams(pl.col("event_title"))
    game_date = new_york_date(start)
    title = question_stem(pl.col("event_title"))
    on_date = event_date()
    version = pl.lit(ONE_OF_A_KIND_READING)
    return [
        _key(
            _TEAMS,
            pl.when(start.is_not_null()).then(pl.concat_str(pl.lit("teams:"), teams, pl.lit("@"), game_date)),
            pl.format("same fixture (teams {} on {}, {})", teams, game_date, version),
        ),
        _key(
            _TITLE,
            pl.concat_str(pl.lit("title:"), title, pl.lit("@"), on_date),
            pl.format('same event (title "{}" on {}, {})', title, on_date, version),
        ),
    ]


def kinship_keys(ranked: pl.DataFrame, reading: str = ONE_OF_A_KIND_READING) -> pl.DataFrame:
    """Every key that makes two ranked questions alike, one row per (rank, key), as ``_KEY_SCHEMA``.

    Reads ``rank``, ``market_id``, ``event_id``, ``event_game_id``, ``game_id``,
    ``sports_market_type``, ``event_title``, the start stamps, ``event_end_date_ts``,
    ``end_date_ts`` and ``stem``.
    """
    start = stamped_start()
    sports_without_game = (
        ~_present("event_game_id") & ~_present("game_id") & pl.col("sports_market_type").is_not_null()
    )
    title_stem = question_stem(pl.col("event_title"))
    sports_key = pl.when(sports_without_game).then(
        pl.concat_str(pl.lit("sports:"), title_stem, pl.lit("@"), instant_text(start))
    )
    specs = [
        _key(_MARKET, pl.lit("market:") + pl.col("market_id"), pl.lit("same market id")),
        _key(_EVENT, pl.lit("event:") + pl.col("event_id"), pl.format("same event ({})", pl.col("event_id"))),
        *(
            _key(
                _FIXTURE,
                pl.when(_present(column)).then(pl.lit("game:") + pl.col(column)),
                pl.format("same fixture (game {})", pl.col(column)),
            )
            for column in ("event_game_id", "game_id")
        ),
        _key(
            _FIXTURE,
            sports_key,
            pl.format("same fixture ({} at {})", pl.col("event_title"), instant_text(start)),
        ),
        _key(_STEM, pl.lit("stem:") + pl.col("stem"), pl.lit("same question stem")),
    ]
    if check_reading(reading) == ONE_OF_A_KIND_READING:
        specs += _reading_two_specs()
    parts = [ranked.select(pl.col("rank").cast(pl.Int64), **spec) for spec in specs]
    return (
        pl.concat(parts)
        .cast(_KEY_SCHEMA)
        .filter(pl.col("key").is_not_null())
        .unique(["rank", "key"], keep="first", maintain_order=True)
    )


def _finish_in_order(keys: pl.DataFrame, kept: pl.DataFrame, undecided: pl.DataFrame) -> pl.DataFrame:
    """The walk itself over the questions the rounds left open: (rank, blocker, shown) of those excluded."""
    holder = dict(keys.join(kept, on="rank", how="semi").select("key", "rank").iter_rows())
    open_keys = keys.join(undecided, on="rank", how="semi").sort("rank", "kind", "key")
    beaten: list[tuple[int, int, str]] = []
    # Rows arrive grouped by rank (sorted), each group in key-kind order.
    for rank, group in itertools.groupby(
        open_keys.select("rank", "key", "shown").iter_rows(), key=itemgetter(0)
    ):
        rows = [(key, shown) for _, key, shown in group]
        blockers = [holder[key] for key, _ in rows if key in holder]
        if blockers:
            blocker = min(blockers)
            beaten.append((rank, blocker, next(shown for key, shown in rows if holder.get(key) == blocker)))
        else:
            holder.update((key, rank) for key, _ in rows)
    return pl.DataFrame(beaten, schema=_BEATEN_SCHEMA, orient="row")


def _walk(keys: pl.DataFrame, ranks: pl.DataFrame) -> pl.DataFrame:
    """The greedy walk down the ranked list: (rank, blocker, shown) for every question it excludes."""
    undecided = ranks
    kept = ranks.clear()
    excluded: list[pl.DataFrame] = [pl.DataFrame(schema=_BEATEN_SCHEMA)]
    for _ in range(_MAX_ROUNDS):
        if undecided.is_empty():
            break
        best = keys.group_by("key").agg(best=pl.col("rank").min())
        leading = (
            keys.join(undecided, on="rank", how="semi")
            .join(best, on="key")
            .group_by("rank")
            .agg(leads=(pl.col("rank") == pl.col("best")).all())
            .filter("leads")
            .select("rank")
        )
        keyless = undecided.join(keys, on="rank", how="anti")
        newly_kept = pl.concat([leading, keyless])
        kept = pl.concat([kept, newly_kept])
        undecided = undecided.join(newly_kept, on="rank", how="anti")

        held = keys.join(kept, on="rank", how="semi").select("key", blocker=pl.col("rank"))
        beaten = (
            keys.join(undecided, on="rank", how="semi")
            .join(held, on="key")
            .filter(pl.col("blocker") < pl.col("rank"))
            # The key text settles a tie of kind (two game ids), so the wording never depends on a join.
            .sort("rank", "blocker", "kind", "key")
            .group_by("rank", maintain_order=True)
            .first()
            .select("rank", "blocker", "shown")
        )
        excluded.append(beaten)
        undecided = undecided.join(beaten, on="rank", how="anti")
        # An excluded question holds no key any more: only kept and open questions compete.
        keys = keys.join(beaten, on="rank", how="anti")
    if not undecided.is_empty():
        excluded.append(_finish_in_order(keys, kept, undecided))
    return pl.concat(excluded)


def one_of_a_kind_reasons(ranked: pl.DataFrame, reading: str = ONE_OF_A_KIND_READING) -> pl.DataFrame:
    """(rank, reason) for every question of ``ranked`` that is alike to a better-ranked one on the list.

    ``ranked`` holds the questions left after ``one_per_family``, each with its ``rank`` and ``stem``;
    ``reading`` is the version of the rule to judge by (``READINGS``).
    """
    ranks = ranked.select(pl.col("rank").cast(pl.Int64))
    beaten = _walk(kinship_keys(ranked, reading), ranks)
    names = ranked.select(blocker=pl.col("rank").cast(pl.Int64), blocker_market=pl.col("market_id"))
    return beaten.join(names, on="blocker", how="left").select(
        "rank", reason=pl.format("{} as market {}", pl.col("shown"), pl.col("blocker_market"))
    )
