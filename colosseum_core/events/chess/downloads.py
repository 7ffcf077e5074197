"""What a chess event publishes beside its tables (COLOSSEUM-EVENT-DOWNLOADS-1, ``events.site.downloads``):
``chess_white_clusters.parquet``, the clusters White's share of the points is resampled over, each
with its index in the bootstrap (the order each game pair first appears in ``chess_games`` as
recorded), White's points doubled and the games; and its check on a site's copy: the clusters are
what the games give, and White's share and its interval re-derive from them.

Nothing here imports python-chess: the downloads are built from the recorded tables alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import polars as pl

from colosseum_core.events.kind import DownloadsCopy
from colosseum_core.events.site.downloads import EVENT_DOWNLOADS, Download
from colosseum_core.events.site.downloads_check import differs
from colosseum_core.record import with_ids
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.statistics.bootstrap import BootstrapSpec, ratio_intervals
from colosseum_core.verify.report import Outcome

WHITE_CLUSTERS: Final = "chess_white_clusters"
WHITE_CLUSTER_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "cluster_index": pl.Int64(),  # c in the bootstrap: 0..C−1
    "cluster": pl.String(),
    "white_points_twice": pl.Int64(),  # 2 × White's points over the cluster's games
    "games": pl.Int64(),
    "downloads": pl.String(),
}


def white_clusters(event: str, games: pl.DataFrame) -> pl.DataFrame:
    """The clusters of White's share in the bootstrap's order: the order each game pair first
    appears in ``chess_games`` as recorded (``chess.standings``' ``group_by(maintain_order=True)``)."""
    clusters = games.group_by("cluster", maintain_order=True).agg(
        white_points_twice=(pl.col("white_score") * 2).sum().cast(pl.Int64), games=pl.len()
    )
    frame = clusters.with_row_index("cluster_index").with_columns(
        event=pl.lit(event), downloads=pl.lit(EVENT_DOWNLOADS)
    )
    return with_ids(frame.select([pl.col(n).cast(t) for n, t in WHITE_CLUSTER_SCHEMA.items()]))


def downloads(manifest: Mapping[str, Any], frames: Mapping[str, pl.DataFrame]) -> list[Download]:
    return [
        Download(
            f"downloads/{WHITE_CLUSTERS}.parquet",
            WHITE_CLUSTERS,
            parquet_bytes(white_clusters(manifest["event"], frames["chess_games"])),
        )
    ]


def check_downloads(out: Outcome, copy: DownloadsCopy) -> None:
    """The clusters as the games give them, and White's share from the clusters."""
    where, manifest, frames = copy.where, copy.manifest, copy.frames
    if WHITE_CLUSTERS in frames and "chess_games" in frames:
        clusters = frames[WHITE_CLUSTERS]
        differs(
            out,
            f"{where}{WHITE_CLUSTERS}.parquet",
            clusters,
            white_clusters(manifest["event"], frames["chess_games"]),
            "the game pairs in the order chess_games first gives them",
        )
        _white_share(out, where, manifest, clusters, frames.get("chess_fit"))


def _white_share(
    out: Outcome, where: str, manifest: Mapping[str, Any], clusters: pl.DataFrame, fits: pl.DataFrame | None
) -> None:
    """White's share and its interval from the published clusters, in their published order."""
    if fits is None or clusters.height == 0:
        return
    ordered = clusters.sort("cluster_index")
    spec = BootstrapSpec(
        seed=manifest["seeds"]["bootstrap"], replicates=manifest["ratings"]["bootstrap_replicates"]
    )
    again = ratio_intervals(
        ordered["white_points_twice"].to_numpy().reshape(-1, 1),
        ordered["games"].to_numpy().reshape(-1, 1),
        2,
        spec,
    )
    [fit] = fits.filter(pl.col("fit") == "all_games").iter_rows(named=True)
    for field, value in (
        ("white_share", again.point[0]),
        ("white_low", again.low[0]),
        ("white_high", again.high[0]),
    ):
        wanted = round(float(value), 4) if np.isfinite(value) else None
        if fit[field] != wanted:
            out.problems.append(
                f"{where}chess_fit.parquet fit all_games field {field}: {fit[field]!r}, the clusters of "
                f"{where}{WHITE_CLUSTERS}.parquet in their order give {wanted!r}"
            )
