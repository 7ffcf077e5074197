"""The packet: the card rendered once, as the exact UTF-8 bytes every seat receives.

A short fixed preamble states the answer format; then, per question in label order, its label,
Polymarket's question text and resolution rules verbatim, and its scheduled end. No prices, no
system prompt. The packet's identifier is the SHA-256 of its bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from colosseum_core.forecast.schedule import Card
from colosseum_core.rules import COLOSSEUM_SCORING, SLATE_LAWS

PACKET_FORMAT = "COLOSSEUM-PACKET-1"

_PREAMBLE = """FRONTIER COLOSSEUM · CARD {key} · {slot} · SEALED {seal}
{format} · {rules} · {scoring}

This packet is your whole input. It holds {count} yes/no questions from Polymarket, each with its
resolution rules exactly as Polymarket publishes them. For every question, answer with one line:

  LABEL: YES|NO CONFIDENCE

where CONFIDENCE is a whole number from 1 (a coin flip) to 10 (certain). For example:

  M01: YES 7
  M02: NO 3

One line per question, in any order, and nothing else. A question you leave unanswered is
scored as the least confident wrong answer.
"""

_QUESTION = """
{rule}
{label}
Question: {question}
Scheduled end: {end}
Resolution rules:
{rules}
"""

_RULE_LINE = "=" * 72


def render_packet(card: Card, questions: Iterable[Mapping[str, Any]]) -> bytes:
    """The packet's bytes. ``questions``: rows with label, question, description, end_date (as published)."""
    rows = sorted(questions, key=lambda q: str(q["label"]))
    parts = [
        _PREAMBLE.format(
            key=card.key,
            slot=card.slot,
            seal=card.seal.strftime("%Y-%m-%dT%H:%M:%SZ"),
            format=PACKET_FORMAT,
            rules=SLATE_LAWS,
            scoring=COLOSSEUM_SCORING,
            count=len(rows),
        )
    ]
    for row in rows:
        parts.append(
            _QUESTION.format(
                rule=_RULE_LINE,
                label=row["label"],
                question=row["question"],
                end=row["end_date"],
                rules=row.get("description")
                or "(Polymarket publishes no resolution rules for this question.)",
            )
        )
    parts.append(f"\n{_RULE_LINE}\nEND OF CARD {card.key}\n")
    return "".join(parts).encode("utf-8")


def packet_id(packet: bytes) -> str:
    return hashlib.sha256(packet).hexdigest()
