"""Each motion's context parenthetical: what the debaters are told about the motion, on one line.

The debater prompt carries it after the motion (its ``{context}``), so the model knows the current
price and the resolution criteria of a market, or what was reported about a controversy:

* a market: ``(Polymarket, 2026-12-01 06:00 UTC: Yes 42%. Resolves: <criteria>. <event URL>)``,
  Kalshi alike. The instant is the rotation's start, the one the price is read for; the criteria
  are cut to ``CRITERIA_CHARS`` characters, ending in "…" where cut;
* a search item: ``(Reported: <context>. Sources: <url>, <url>)``;
* an evergreen motion: ``(An evergreen motion, <version> list.)``.

Every run of white space becomes one space (criteria are often paragraphs), and a missing piece is
left out rather than written as empty. Pure functions of their arguments.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, Final

from colosseum_core.debate.topics.names import EVERGREEN, KALSHI, POLYMARKET, SEARCH

CRITERIA_CHARS: Final = 280
REPORT_CHARS: Final = 280
ELLIPSIS: Final = "…"
SOURCE_LABELS: Final = {POLYMARKET: "Polymarket", KALSHI: "Kalshi"}


def one_line(text: str) -> str:
    return " ".join(text.split())


def cut(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, ending in "…" where it was cut."""
    line = one_line(text)
    if len(line) <= limit:
        return line
    return line[: limit - len(ELLIPSIS)].rstrip() + ELLIPSIS


def _sentence(text: str) -> str:
    # The pieces are joined with ". ", so a piece's own closing period is not doubled.
    return text[:-1].rstrip() if text.endswith(".") else text


def instant_text(instant: dt.datetime) -> str:
    """``2026-12-01 06:00 UTC``."""
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError(f"naive datetime {instant!r}: pass an aware (UTC) instant")
    return instant.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def price_text(price_yes: float | None) -> str:
    """``Yes 42%`` (whole percent), or that no price was published."""
    if price_yes is None:
        return "no price published"
    return f"Yes {price_yes * 100:.0f}%"


def market_context(
    source: str, at: dt.datetime, price_yes: float | None, resolution: str | None, url: str | None
) -> str:
    pieces = [f"{SOURCE_LABELS[source]}, {instant_text(at)}: {price_text(price_yes)}"]
    criteria = cut(resolution or "", CRITERIA_CHARS)
    if criteria:
        pieces.append(f"Resolves: {_sentence(criteria)}")
    if url:
        pieces.append(url)
    return "(" + ". ".join(pieces) + ")"


def search_context(reported: str | None, citations: Sequence[str]) -> str:
    pieces = []
    report = cut(reported or "", REPORT_CHARS)
    if report:
        pieces.append(f"Reported: {_sentence(report)}")
    if citations:
        pieces.append("Sources: " + ", ".join(citations))
    return "(" + ". ".join(pieces) + ")"


def evergreen_context(version: str) -> str:
    return f"(An evergreen motion, {version} list.)"


def motion_context(row: Mapping[str, Any], *, at: dt.datetime, evergreen_version: str) -> str:
    """The parenthetical of one candidate row (``candidates.CANDIDATE_SCHEMA``), by its source."""
    source = row["source"]
    if source in SOURCE_LABELS:
        return market_context(source, at, row.get("price_yes"), row.get("resolution"), row.get("url"))
    if source == SEARCH:
        return search_context(row.get("reported"), row.get("citations") or ())
    if source == EVERGREEN:
        return evergreen_context(evergreen_version)
    raise ValueError(f"a motion from an unknown source {source!r}")
