"""How the forecasting board writes its fields: the kind of value of each (``colosseum_core.site.formats``
writes each kind), so the builder and the re-check turn a record value into the same text.
"""

from __future__ import annotations

from typing import Final

from colosseum_core.site.formats import (
    FieldFormats,
    Formatter,
    choice,
    fixed,
    flag,
    instant,
    money,
    outcome,
    price,
    signed,
)

# A card's status, as the record's card_status table writes it (colosseum_core.forecast.sealing.seal_step); a
# card page states it in the shared engine's STATUS_ATTR.
SEALED: Final = "sealed"
MISSED: Final = "missed"

SHARP: Final = fixed(1)
EDGE: Final = fixed(4, plus=True)
BRIER: Final = fixed(4)
PROBABILITY: Final = fixed(2)
RATE: Final = fixed(3)
GAP: Final = fixed(3, plus=True)
BITS: Final = fixed(3)

FIELD_KINDS: Final[dict[str, Formatter]] = {
    "sharp": SHARP,
    "sharp_low": SHARP,
    "sharp_high": SHARP,
    "edge": EDGE,
    "edge_low": EDGE,
    "edge_high": EDGE,
    # RECORD and CROWN: the sign is the point
    "record": signed,
    "crown": signed,
    "brier": BRIER,
    "market_brier": BRIER,
    "p": PROBABILITY,
    "stated": PROBABILITY,
    "hit_rate": RATE,
    "gap": GAP,
    "price": price,
    "market_price": price,
    "doubt_bits": BITS,
    "total_doubt_bits": BITS,
    "interest": money,
    "early": flag("EARLY"),
    "interval_extended": flag("extended"),
    "outcome": outcome,
    "settled_outcome": outcome,
    "observed_outcome": outcome,
    "sweep_complete": choice("complete", "partial"),
    "complete": choice("complete", "partial"),
    "seal": instant,
    "end_date_ts": instant,
    "window_start": instant,
    "window_end": instant,
}
# Where one name means different things in different tables.
TABLE_FIELD_KINDS: Final[dict[tuple[str, str], Formatter]] = {
    ("answers", "bad_formatting"): flag("BAD FORMATTING"),
    ("scores", "bad_formatting"): flag("BAD FORMATTING"),
    ("scores", "forfeit"): flag("FORFEIT"),
}
FORECAST_FIELDS: Final = FieldFormats(FIELD_KINDS, TABLE_FIELD_KINDS)
format_field: Final = FORECAST_FIELDS.format_field
formatter: Final = FORECAST_FIELDS.formatter
