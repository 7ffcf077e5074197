"""The Solve-or-Object event as the multi-event arena sees it (``events.kind``): its replies are
written once (``soo_replies``, one row per contender and item: the reply, its reading and its score)
and its standings seal it (``soo_standings``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from colosseum_core.events.kind import Drawn, EventKind, EventPages, HouseReply, ImportedWhenCalled, Step

if TYPE_CHECKING:
    import polars as pl

    from colosseum_core.events.manifest import FrozenManifest
    from colosseum_core.record.receipts import ReceiptStore
    from colosseum_core.verify.report import Outcome

REPLY_TABLES: Final = ("soo_replies",)
STANDING_TABLES: Final = ("soo_standings",)
# Its derived downloads and their check on a site's copy, imported when a board or verify asks.
DOWNLOADS: Final = "colosseum_core.events.solve_or_object.downloads"


def _audit(
    out: Outcome,
    frozen: FrozenManifest,
    present: Mapping[str, pl.DataFrame],
    receipts: ReceiptStore,
    *,
    sealed: bool,
) -> None:
    """Every reply re-read and re-scored, and once sealed the standings computed again
    (``solve_or_object.audit``)."""
    from colosseum_core.events.solve_or_object.audit import check_event

    event = frozen.event
    if "soo_replies" not in present:
        if sealed:
            out.problems.append(f"event {event}: sealed, but the record has no soo_replies")
        return
    standings = present.get("soo_standings")
    if sealed and standings is None:
        out.problems.append(f"event {event}: sealed, but the record has no soo_standings")
    check_event(out, frozen, present["soo_replies"], standings if sealed else None, receipts)


def _pages(pages: EventPages) -> Drawn:
    """The event's standings, its items and its prompts (``solve_or_object.pages``)."""
    from colosseum_core.events.site.glossary import Names
    from colosseum_core.events.solve_or_object import pages as soo_pages
    from colosseum_core.events.solve_or_object.bank import load_bank
    from colosseum_core.events.solve_or_object.run import DEFAULT_CONTENDERS

    page, event, manifest, frames = pages.page, pages.event, pages.manifest, pages.frames
    base = DEFAULT_CONTENDERS.parent
    bank = load_bank(base / manifest["bank"]["file"], root=base)
    items = [bank.item(item_id) for item_id in manifest["bank"]["items"]]
    standings = frames["soo_standings"]
    body = soo_pages.event_page(
        event, manifest, standings, frames["soo_replies"], pages.downloads, pages.html_table, pages.medals
    )
    page(f"{event}/index.html", f"{event}: standings", body)
    page(
        f"{event}/items.html",
        f"{event}: items",
        soo_pages.items_page(event, items, bank, frames["soo_replies"], pages.html_table, Names(manifest)),
    )
    page(f"{event}/prompts.html", f"{event}: prompts", soo_pages.prompts_page(event, manifest, items[0]))
    return Drawn(standings, len(items))


def _houses() -> Mapping[str, HouseReply]:
    from colosseum_core.events.solve_or_object.house import HOUSES

    return HOUSES


KIND: Final = EventKind(
    name="solve-or-object",
    steps=(Step("replies", REPLY_TABLES),),
    standings=STANDING_TABLES,
    sealing="soo_standings",
    journals={"soo_replies": ("contender", "item")},
    counts=("soo_replies",),
    audit=_audit,
    pages=_pages,
    houses=_houses,
    house_behaviours=("sharp", "credulous", "paranoid", "garbled"),
    derived=("soo_bank.json", "soo_bank.parquet", "soo_items.parquet"),
    downloads=ImportedWhenCalled("colosseum_core.events.solve_or_object.downloads", "downloads"),
    check_downloads=ImportedWhenCalled("colosseum_core.events.solve_or_object.downloads", "check_downloads"),
    wiring="colosseum_dagster.events.solve_or_object",
    commands="colosseum_dagster.cli.events.solve_or_object",
)
