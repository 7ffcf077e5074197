"""A card from its copy to its seal: every verdict, the rotated card and the packet.

Kinds: a card swept from the simulated exchange is CALIBRATION; otherwise FIGHT. The two never
mix: "one question, one card, ever" and the seal order (``seal_step.py``) are each kept within a kind.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import polars as pl

from colosseum_core.forecast.rules import ONE_OF_A_KIND_READING, SLATE_LAWS
from colosseum_core.forecast.schedule import Card
from colosseum_core.forecast.sealing.packet import PACKET_FORMAT, packet_id, render_packet
from colosseum_core.forecast.selection import EXCLUDED, SELECTED, VERDICT_SCHEMA, Selection, select_card
from colosseum_core.forecast.selection.rotation import rotate
from colosseum_core.record import with_ids

CALIBRATION = "CALIBRATION"
FIGHT = "FIGHT"
MALFORMED = "malformed"


def card_kind(exchange: str) -> str:
    """The kind a sweep makes a card: anything from the simulated exchange is practice."""
    return CALIBRATION if exchange == "simulated" else FIGHT


@dataclasses.dataclass(frozen=True)
class RankedCandidates:
    verdicts: pl.DataFrame
    selection: Selection


def rank_candidates(
    card: Card,
    verbatim: pl.DataFrame,
    copy_errors: pl.DataFrame,
    history: pl.DataFrame | None,
    one_of_a_kind: str = ONE_OF_A_KIND_READING,
) -> RankedCandidates:
    """A verdict for every swept question: the copied ones by the rules, the uncopyable as malformed.

    ``one_of_a_kind`` is the reading of that rule: today's for a new card, the recorded one
    (``selection.reading_of``) when a sealed card is re-derived.
    """
    selection = select_card(verbatim, seal=card.seal, history=history, one_of_a_kind=one_of_a_kind)
    # A market the copy quarantined is still a swept question: it is excluded as malformed.
    quarantined = (
        copy_errors.filter(
            pl.col("market_id").is_not_null() & ~pl.col("market_id").is_in(verbatim["market_id"].implode())
        )
        .unique(subset="market_id", keep="first", maintain_order=True)
        .select(
            "market_id",
            verdict=pl.lit(EXCLUDED),
            rule=pl.lit(MALFORMED),
            value=pl.format("not copied: {} = {}", pl.col("field"), pl.col("value").fill_null("null")),
            rules=pl.lit(SLATE_LAWS),
        )
    )
    verdicts = pl.concat(
        [selection.verdicts.drop("card", strict=False), quarantined], how="diagonal_relaxed"
    ).select(pl.lit(card.key).alias("card"), *(pl.col(c).cast(t) for c, t in VERDICT_SCHEMA.items()))
    return RankedCandidates(verdicts=with_ids(verdicts), selection=selection)


@dataclasses.dataclass(frozen=True)
class SealedCard:
    questions: pl.DataFrame
    packet: pl.DataFrame
    packet_bytes: bytes


def seal_card(
    card: Card,
    verdicts: pl.DataFrame,
    verbatim: pl.DataFrame,
    sweep: Mapping[str, object],
    packet_format: str = PACKET_FORMAT,
) -> SealedCard:
    """The sealed card: its questions in rotated label order, and its packet rendered once.

    ``packet_format``: the layout to render; a sealed card is re-derived in the one it was sealed in.
    """
    kind = card_kind(str(sweep["exchange"]))
    selected = (
        verdicts.filter(pl.col("verdict") == SELECTED)
        .sort("place")
        .select("place", "rank", "market_id", "event_id", "price", "price_source", "doubt_bits", "interest")
        .join(
            verbatim.select("market_id", "question", "description", "end_date", "end_date_ts"),
            on="market_id",
            how="left",
            maintain_order="left",
        )
    )
    rotated = rotate(selected, card.day_number)
    packet_bytes = render_packet(card, rotated.iter_rows(named=True), packet_format)
    identifier = packet_id(packet_bytes)
    questions = rotated.select(
        pl.lit(card.key).alias("card"),
        pl.lit(kind).alias("kind"),
        pl.all(),
        pl.lit(identifier).alias("packet_id"),
        pl.lit(SLATE_LAWS).alias("rules"),
    )
    packet = pl.DataFrame(
        [
            {
                "card": card.key,
                "slot": card.slot,
                "seal": card.seal,
                "kind": kind,
                "questions": rotated.height,
                "total_doubt_bits": float(sum(rotated["doubt_bits"].to_list())),
                "swept": verdicts.height,
                "ranked": verdicts["rank"].is_not_null().sum(),
                "sweep_complete": bool(sweep["complete"]),
                "sweep_reason": sweep["reason"],
                "exchange": sweep["exchange"],
                "exchange_url": sweep["exchange_url"],
                "rules": SLATE_LAWS,
                "packet_format": packet_format,
                "packet_id": identifier,
                "packet_text": packet_bytes.decode("utf-8"),
            }
        ],
        schema_overrides={"seal": pl.Datetime("us", "UTC"), "sweep_reason": pl.String()},
    )
    return SealedCard(questions=with_ids(questions), packet=with_ids(packet), packet_bytes=packet_bytes)
