"""A kind of event that lives only in the tests (``tests/events/test_kinds.py``): a round of a toy game per
contender, a house player, an audit and a page. No file outside ``tests/`` names it; a test
registers it, by hand or through ``COLOSSEUM_EVENT_KINDS``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from colosseum_core.events.kind import Drawn, EventKind, EventPages, HouseReply, Step
from colosseum_core.events.manifest import FrozenManifest
from colosseum_core.providers.house_models import Persona
from colosseum_core.record import with_ids
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.verify.report import Outcome

if TYPE_CHECKING:
    from colosseum_core.events.site.downloads import Download

ROUND_TABLES: Final = ("toy_rounds",)
STANDING_TABLES: Final = ("toy_standings",)


def audit(
    out: Outcome,
    frozen: FrozenManifest,
    present: Mapping[str, pl.DataFrame],
    receipts: ReceiptStore,
    *,
    sealed: bool,
) -> None:
    """Every round is a contender's of the manifest; a sealed event has its standings."""
    rounds = present.get("toy_rounds")
    if rounds is None:
        out.problems.append(f"event {frozen.event}: no toy_rounds")
        return
    named = {c["id"] for c in frozen.document["contenders"]}
    for who in rounds["contender"].to_list():
        if who not in named:
            out.problems.append(f"toy_rounds event {frozen.event} contender {who}: not in the manifest")
    if sealed and "toy_standings" not in present:
        out.problems.append(f"event {frozen.event}: sealed, but the record has no toy_standings")
    out.count("toy_rounds", rounds.height)


def pages(drawn: EventPages) -> Drawn:
    rounds = drawn.frames["toy_rounds"]
    rows = [[str(r["contender"]), str(r["points"])] for r in rounds.iter_rows(named=True)]
    drawn.page(f"{drawn.event}/index.html", "toy", drawn.html_table("Rounds", ["Contender", "Points"], rows))
    return Drawn(drawn.frames["toy_standings"], rounds.height)


def downloads(manifest: Mapping[str, Any], frames: Mapping[str, pl.DataFrame]) -> list[Download]:
    """Each contender's move, beside the tables: what the kind derives (``toy_moves.parquet``)."""
    from colosseum_core.events.site.downloads import Download  # it reads the registry, as kinds do

    moves = with_ids(frames["toy_rounds"].select("contender", "move").sort("contender"))
    return [Download("downloads/toy_moves.parquet", "toy_moves", parquet_bytes(moves))]


def toy_reply(persona: Persona, conversation: list[tuple[str, str]]) -> str:
    return "rock"


def houses() -> Mapping[str, HouseReply]:
    return {"house-toy": toy_reply}


KIND: Final = EventKind(
    name="toy",
    steps=(Step("rounds", ROUND_TABLES),),
    standings=STANDING_TABLES,
    sealing="toy_standings",
    journals={"toy_calls": ("contender", "round")},
    counts=("toy_rounds",),
    audit=audit,
    pages=pages,
    houses=houses,
    derived=("toy_moves.parquet",),
    downloads=downloads,
    recipe_text={
        "TOY-RPS-1": (
            "Rounds and standings",
            "toy_rounds.points, toy_standings",
            "A contender's move is drawn from the event's seed and its id; against the house's rock, "
            "paper wins 1 point, rock draws ½, scissors 0; ranked by points, ties share a placement.",
        )
    },
    wiring="tests.support.event_kind_toy_wiring",
)
