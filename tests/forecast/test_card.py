"""The card core: quarantined questions as verdicts, and the packet."""

from __future__ import annotations

import hashlib

import polars as pl

from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.sealing.card import CALIBRATION, FIGHT, card_kind, rank_candidates
from colosseum_core.forecast.sealing.packet import PACKET_FORMAT_1, parse_packet, render_packet

CARD = card_from_key("2026-11-29-1000")
QUESTIONS = [
    {
        "label": "M02",
        "question": "Will B?",
        "description": "Resolves YES if B.\r\nElse NO.",
        "end_date": "2026-12-01",
    },
    {
        "label": "M01",
        "question": "Will «A» happen?",
        "description": "Rules for A ✓",
        "end_date": "2026-11-30T17:00:00Z",
    },
]


def test_the_packet_renders_the_same_bytes_every_time_in_label_order():
    first = render_packet(CARD, QUESTIONS)
    assert first == render_packet(CARD, list(reversed(QUESTIONS)))
    parsed = parse_packet(first)
    assert parsed.labels == ("M01", "M02") and parsed.card == CARD.key
    m01, m02 = parsed.questions
    assert (m01.question, m01.scheduled_end, m01.rules) == (
        "Will «A» happen?",
        "2026-11-30T17:00:00Z",
        "Rules for A ✓",
    )
    assert m02.rules == "Resolves YES if B.\r\nElse NO."  # rules verbatim, line endings included
    text = first.decode("utf-8")
    assert "M01: YES 7" in text and "2026-11-29T15:00:00Z" in text
    assert hashlib.sha256(first).hexdigest() != hashlib.sha256(render_packet(CARD, QUESTIONS[:1])).hexdigest()
    # The first layout still renders, byte for byte, for cards sealed in it.
    old = render_packet(CARD, QUESTIONS, PACKET_FORMAT_1).decode("utf-8")
    assert old.index("M01\nQuestion: Will «A» happen?") < old.index("M02\nQuestion: Will B?")


def test_the_simulator_makes_calibration_cards():
    assert card_kind("simulated") == CALIBRATION and card_kind("polymarket") == FIGHT


def test_a_quarantined_market_is_a_malformed_verdict():
    empty = pl.DataFrame(schema={"market_id": pl.String, "event_id": pl.String, "question": pl.String})
    errors = pl.DataFrame(
        {
            "card": [CARD.key] * 2,
            "receipt_id": ["r" * 64] * 2,
            "market_id": ["7400001", None],
            "field": ["bestBid", "<page>"],
            "value": ["{'a': 1}", None],
            "error": ["…", "…"],
        }
    )
    ranked = rank_candidates(CARD, empty, errors, None)
    [row] = ranked.verdicts.to_dicts()
    assert (row["market_id"], row["verdict"], row["rule"]) == ("7400001", "excluded", "malformed")
    assert row["value"] == "not copied: bestBid = {'a': 1}" and row["card"] == CARD.key
