"""The judges' statistics the board shows, from the games' recorded panel reasons.

Over the games the panel decided (not ended by a concession): how often the two judges agreed on
their first reading (``Panel verdict 2-0``), how often deliberation settled a split (``Panel split
1-1 → deliberation 2-0``) rather than leaving a draw, and how often Pro won a decided game. Each
share comes with its n.
"""

from __future__ import annotations

import dataclasses

import polars as pl

AGREED, SPLIT, SETTLED = "Panel verdict 2-0", "Panel split 1-1", "Panel split 1-1 → deliberation 2-0"


@dataclasses.dataclass(frozen=True)
class JudgeStatistics:
    judged: int  # games read by both judges with two valid first votes
    agreed: int
    splits: int
    settled: int
    decided: int  # decided games, by the panel or a concession
    pro_wins: int

    def shares(self) -> dict[str, str]:
        def share(k: int, n: int) -> str:
            return "—" if n == 0 else f"{100 * k / n:.1f} % ({k} of {n})"

        return {
            "first_reading_agreement": share(self.agreed, self.judged),
            "deliberation_settles": share(self.settled, self.splits),
            "pro_wins": share(self.pro_wins, self.decided),
        }


def judge_statistics(games: pl.DataFrame) -> JudgeStatistics:
    if games.height == 0:
        return JudgeStatistics(0, 0, 0, 0, 0, 0)
    reason = pl.col("reason").fill_null("")
    counts = games.select(
        agreed=reason.str.starts_with(AGREED).sum(),
        splits=reason.str.starts_with(SPLIT).sum(),
        settled=reason.str.starts_with(SETTLED).sum(),
        decided=(pl.col("status") == "decided").sum(),
        pro_wins=((pl.col("status") == "decided") & (pl.col("winner") == "Pro")).sum(),
    ).row(0, named=True)
    return JudgeStatistics(
        judged=int(counts["agreed"] + counts["splits"]),
        agreed=int(counts["agreed"]),
        splits=int(counts["splits"]),
        settled=int(counts["settled"]),
        decided=int(counts["decided"]),
        pro_wins=int(counts["pro_wins"]),
    )
