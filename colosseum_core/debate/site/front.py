"""What the site's landing page says of the debate arena, read from its board's published files alone.

In each kind, the latest sealed epoch of that kind (``about.json`` lists the epochs in the order they
sealed; each epoch's ``epoch_manifest`` download says its kind) gives who leads: its king (the
``crown`` row) and the miners at the top Elo (its ``ratings`` rows). When it last changed: that epoch,
with its topic rotation.
"""

from __future__ import annotations

from typing import Any, Final

import polars as pl

from colosseum_core.debate.site.build import FIELDS
from colosseum_core.debate.site.downloads import download_name
from colosseum_core.site.front import Front, FrontUnreadable, KindFront, Lead, PartFiles, Value

KINDS: Final = ("FIGHT", "CALIBRATION")
MEASURES: Final = (
    "Miners commit a debating strategy on a chain, and every epoch the entered miners argue motions "
    "drawn from the most traded markets and the day's controversies, Pro against Con, judged by a "
    "panel of two models. Elo and Bradley–Terry rate every miner, and the king keeps the crown until a "
    "challenger 200 Elo above it for 20 epochs wins a title fight."
)


def debate_front(files: PartFiles) -> Front:
    epochs = files.listed("epochs")
    latest: dict[str, dict[str, Any]] = {}
    for epoch in reversed(epochs):
        manifest = _row(files, "epoch_manifest", epoch)
        latest.setdefault(str(manifest["kind"]), manifest)
        if len(latest) == len(KINDS):
            break
    return Front(
        measures=MEASURES,
        kinds=tuple(_kind(files, kind, latest.get(kind), epochs) for kind in KINDS),
        board="index.html",
        downloads="downloads.html",
    )


def _row(files: PartFiles, table: str, epoch: str) -> dict[str, Any]:
    frame = files.parquet(download_name(table, epoch))
    if frame.height != 1:
        raise FrontUnreadable(f"{files.site_name(download_name(table, epoch))}: {frame.height} rows, not one")
    return frame.row(0, named=True)


def _kind(files: PartFiles, kind: str, manifest: dict[str, Any] | None, epochs: list[str]) -> KindFront:
    if manifest is None:
        return KindFront(kind, empty=f"no {kind} epoch sealed yet")
    epoch = str(manifest["epoch"])
    page = "index.html" if epoch == epochs[-1] else f"epochs/{epoch}.html"
    crown = _row(files, "crown", epoch)
    king = (
        (Value.of("crown", crown, "king_hotkey", str(crown["king_hotkey"])),)
        if crown.get("king_hotkey")
        else ()
    )
    leads = [
        Lead(
            title="King",
            who=king,
            figures=(
                (
                    "Elo",
                    Value.of(
                        "crown", crown, "king_rating", FIELDS.format_field("crown", "king_rating", crown)
                    ),
                ),
            )
            if king
            else (),
            href="crown.html",
            nobody="no king",
        )
    ]
    ratings = files.parquet(download_name("ratings", epoch))
    if ratings.height:
        best = ratings.filter(pl.col("rating") == pl.col("rating").max()).sort("hotkey").to_dicts()
        leads.append(
            Lead(
                title="Top Elo",
                who=tuple(Value.of("ratings", r, "hotkey", str(r["hotkey"])) for r in best),
                figures=(
                    (
                        "Elo",
                        Value.of(
                            "ratings", best[0], "rating", FIELDS.format_field("ratings", "rating", best[0])
                        ),
                    ),
                    ("n", Value.of("ratings", best[0], "games", str(best[0]["games"]))),
                ),
                href=page,
            )
        )
    changed = Value.of(
        "epoch_manifest", manifest, "rotation", f"epoch {epoch} (rotation {manifest['rotation']})"
    )
    return KindFront(kind, tuple(leads), changed, f"epochs/{epoch}.html")
