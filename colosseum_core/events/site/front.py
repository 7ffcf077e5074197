"""What the site's landing page says of the multi-event arena, read from its board's published files alone.

Events are FIGHT or CALIBRATION by their manifest's class, and each has its own medals: in each kind,
the latest sealed events (``about.json`` lists them in the order they sealed) with their gold, from the
event's standings download (a challenge event's: the solving ranking on the Verified basis, as the
events index shows it). A contender played by a house player standing in for it is shown by that player
first. When it last changed: the latest event's seal (``bundle.json``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, Final

import polars as pl

from colosseum_core.site.front import Front, FrontUnreadable, KindFront, Lead, PartFiles, Value

KINDS: Final = ("FIGHT", "CALIBRATION")
# How many of a kind's latest events the landing page names.
EVENTS_SHOWN: Final = 6
# Each event kind's headline standings: its table, the rows of it that hold the medals shown, and the
# number a gold is shown with (field, label, how it is written).
HEADLINE: Final[dict[str, tuple[str, Mapping[str, str], str, str, str]]] = {
    "chess": ("chess_standings", {}, "rating", "rating", "{:.1f}"),
    "solve-or-object": ("soo_standings", {}, "score", "score", "{:+.3f}"),
    "challenge": (
        "challenge_standings",
        {"ranking": "solving", "basis": "verified"},
        "score",
        "score",
        "{:+.3f}",
    ),
}
MEASURES: Final = (
    "Events are contests with their own standings and medals: chess between models, Solve or Object "
    "(solve a problem or say what is wrong with it), and challenges the contenders write for each "
    "other, each frozen in a signed manifest before its first game or question. There is no overall "
    "championship; medals go to placements 1–3 by 95 % intervals."
)


def events_front(files: PartFiles) -> Front:
    events = files.listed("events")
    by_kind: dict[str, list[tuple[str, dict[str, Any]]]] = {kind: [] for kind in KINDS}
    for event in reversed(events):
        manifest = files.json(f"{event}/manifest.json")
        try:
            by_kind[str(manifest["class"])].append((event, manifest))
        except (KeyError, TypeError) as exc:
            raise FrontUnreadable(f"{files.site_name(f'{event}/manifest.json')}: no class ({exc})") from None
    return Front(
        measures=MEASURES,
        kinds=tuple(_kind(files, kind, by_kind[kind]) for kind in KINDS),
        board="index.html",
        downloads="index.html",
    )


def _kind(files: PartFiles, kind: str, events: list[tuple[str, dict[str, Any]]]) -> KindFront:
    if not events:
        return KindFront(kind, empty=f"no {kind} event sealed yet")
    leads = tuple(_gold(files, event, manifest) for event, manifest in events[:EVENTS_SHOWN])
    latest = events[0][0]
    bundle = files.json(f"{latest}/bundle.json") if files.exists(f"{latest}/bundle.json") else {}
    sealed = bundle.get("sealed_at") if isinstance(bundle, dict) else None
    changed = Value(f"{latest}, sealed {_minute(sealed)}" if sealed else latest)
    return KindFront(kind, leads, changed, f"{latest}/index.html")


def _minute(instant: object) -> str:
    """A seal's instant to the minute, as a reader wants it; as published when it is not ISO 8601."""
    try:
        at = dt.datetime.fromisoformat(str(instant))
    except ValueError:
        return str(instant)
    return at.strftime("%Y-%m-%d %H:%M UTC") if at.utcoffset() == dt.timedelta(0) else at.isoformat()


def _gold(files: PartFiles, event: str, manifest: dict[str, Any]) -> Lead:
    kind = str(manifest.get("kind"))
    if kind not in HEADLINE:
        raise FrontUnreadable(f"{files.site_name(f'{event}/manifest.json')}: an event of kind {kind!r}")
    table, where, field, label, written = HEADLINE[kind]
    standings = files.parquet(f"{event}/downloads/{table}.parquet")
    for column, value in where.items():
        standings = standings.filter(pl.col(column) == value)
    gold = standings.filter(pl.col("medal") == "gold").sort("contender").to_dicts()
    players = {
        str(c["id"]): f"{c['model']} for {c['id']}"
        for c in manifest.get("contenders", [])
        if c.get("stands_in_for") and c.get("model")
    }
    figures = ()
    if len(gold) == 1 and gold[0].get(field) is not None:
        figures = ((label, Value.of(table, gold[0], field, written.format(gold[0][field]))),)
    return Lead(
        title=f"{event} ({kind}): gold",
        who=tuple(
            Value.of(table, r, "contender", players.get(str(r["contender"]), str(r["contender"])))
            for r in gold
        ),
        figures=figures,
        href=f"{event}/index.html",
        nobody="no gold",
    )
