"""The board's words for its numbers: the method's public names beside the record's, the keys, the tooltips.

The method (§10 The formulas) names the numbers for the public: RECORD, CONFIDENCE (recorded as
SHARP, shown as the error score 0–100), VS MARKET (recorded as EDGE), FC SCORE (recorded as CROWN),
EARLY and BAD FORMATTING. The record, its downloads and the site check keep the recorded names; a
page shows both, so a reader can go from either to the other.

Every column header of every table carries a tooltip (``title``): its text comes from here, by the
column's field (``FIELD_TIPS``, or ``TABLE_TIPS`` where one field name means different things in
different tables) unless the column states its own.
"""

from __future__ import annotations

from typing import Final

# Recorded name → the method's public name, for the four numbers whose names differ or coincide.
PUBLIC: Final[dict[str, str]] = {
    "RECORD": "RECORD",
    "SHARP": "CONFIDENCE",
    "EDGE": "VS MARKET",
    "CROWN": "FC SCORE",
}


def public(recorded: str) -> str:
    """The public name with the recorded one, "VS MARKET (EDGE)", or the name alone where they agree."""
    name = PUBLIC.get(recorded, recorded)
    return name if name == recorded else f"{name} ({recorded})"


RECORD_TIP: Final = (
    "RECORD: wins minus losses. A win is a call that matched the settlement; a forfeit is a loss."
)
SHARP_TIP: Final = (
    "CONFIDENCE (recorded as SHARP): the error score, 0–100 = (1 − mean Brier) × 100 of the stated "
    "confidence. Higher is better."
)
EDGE_TIP: Final = (
    "VS MARKET (recorded as EDGE): Polymarket's Brier at the seal price minus the seat's, on the same "
    "questions. Above 0: the seat beat the market."
)
CROWN_TIP: Final = (
    "FC SCORE (recorded as CROWN): + the confidence of every right call, − the confidence of every "
    "wrong one; settled questions only. Boards are ordered by it."
)
N_TIP: Final = "n: settled questions scored (voids are not counted). Under 30 is flagged EARLY."
EARLY_TIP: Final = "EARLY: n is under 30, too few settled questions to read much into the numbers."
BAD_FORMATTING_TIP: Final = (
    "BAD FORMATTING: answers the judge recovered from a reply that broke the answer format; they score "
    "at full value."
)
CONFIDENCE_STAKE_TIP: Final = (
    "Confidence (the stake, 1–10): how sure the seat said it was; p = 0.5 + s/20 for YES, 0.5 − s/20 for NO."
)

# One entry per term: (the term as the page shows it, what it means in plain words).
BOARD_KEY: Final[tuple[tuple[str, str], ...]] = (
    (
        "RECORD",
        "Wins minus losses. A win is a call, YES or NO, that matched how Polymarket settled the "
        "question; a wrong call or a forfeit is a loss.",
    ),
    (
        "CONFIDENCE (recorded as SHARP)",
        "The error score, 0 to 100. An answer “YES 7” says YES with confidence 7 of 10, which the "
        "method reads as a probability p = 0.5 + 7/20 = 0.85; its Brier score is (p − outcome)², "
        "0 when sure and right. CONFIDENCE is 100 × (1 − the mean Brier score). Higher is better: "
        "confidence 1 on every answer scores between 69.75 (all wrong) and 79.75 (all right).",
    ),
    (
        "VS MARKET (recorded as EDGE)",
        "The same Brier score computed for Polymarket's own price at the seal, minus the seat's, on "
        "the same questions. Above 0 the seat beat the market's price; below 0 the market was closer.",
    ),
    (
        "FC SCORE (recorded as CROWN)",
        "The standing: each settled answer adds its confidence when right and takes it away when "
        "wrong (a forfeit costs 1). Every board is ordered by it.",
    ),
    (
        "95% range",
        "How far CONFIDENCE and VS MARKET could move with a different draw of questions; the note "
        "under each board says how it is found.",
    ),
    (
        "n and EARLY",
        "n counts the settled questions scored. Under 30 the row is flagged EARLY: too few to say much.",
    ),
    (
        "BAD FORMATTING",
        "Answers the judge had to recover from a reply that broke the answer format. They score at "
        "full value; the count shows how often it happened.",
    ),
    (
        "Forfeits and voids",
        "A forfeit is a question without a binding answer, scored as a wrong call at confidence 1. A "
        "void is a question Polymarket settled 50-50: counted, never scored.",
    ),
    (
        "FIGHT and CALIBRATION",
        "FIGHT records are official. CALIBRATION records are practice, such as answers from a house "
        "gladiator standing in for a seat without its provider's key. They never share a board.",
    ),
)
CARD_KEY: Final[tuple[tuple[str, str], ...]] = (
    (
        "Listings, Swept, Ranked",
        "Market listings: every market on every page the sweep received. Swept: the distinct markets "
        "copied from them, each given a verdict. Ranked: those that passed every screening rule and "
        "were ranked by doubt. The top places make the card (see “How the sweep's listings add up”).",
    ),
    (
        "Call and confidence",
        "Each answer is YES or NO with a confidence from 1 to 10, the stake: p = 0.5 + s/20 for YES, "
        "0.5 − s/20 for NO.",
    ),
    (
        "Brier and market Brier",
        "(p − outcome)², outcome 1 if YES settled and 0 if NO: 0 is perfect, lower is better. The "
        "market Brier is the same for Polymarket's price at the seal.",
    ),
    (
        "VS MARKET (EDGE)",
        "The market Brier minus the seat's Brier on a question: above 0, the seat beat the price.",
    ),
    ("FC SCORE (CROWN)", "+ the confidence for a right call, − the confidence for a wrong one."),
    (
        "BAD FORMATTING and *",
        "An answer marked * was recovered from a reply that broke the answer format: scored at full "
        "value, and the seat's reply is marked BAD FORMATTING.",
    ),
    (
        "Forfeit, unbound, void",
        "An unbound question has no answer that binds: a forfeit, scored as a wrong call at confidence "
        "1. A void question (settled 50-50) is counted and never scored.",
    ),
)

# Tooltips by field, for every table whose field names mean one thing wherever they are.
FIELD_TIPS: Final[dict[str, str]] = {
    "card": "The card: its date and seal time (New York), e.g. 2026-11-20-1000",
    "slot": "DAWN 05:00, MORNING 10:00 or EVENING 18:00, New York time",
    "seal": "When the card was sealed and sent to the seats (UTC)",
    "kind": "FIGHT (official) or CALIBRATION (practice); never mixed",
    "questions": "Questions on the card (at most 25; a short card is never padded)",
    "total_doubt_bits": "The card's total doubt: the sum of its questions' doubt, in bits",
    "sweep_complete": "complete: every slice of the sweep reached its last page; partial otherwise",
    "sweep_reason": "Why the sweep was partial, as recorded",
    "overtaken_by": "The later card of the same kind that sealed first",
    "reason": "Why, as recorded",
    "rules": "The rule version this row was made under",
    "rank": "Rank by doubt (ties: interest, then market id); empty if excluded before the ranking",
    "place": "Place after the family and same-question rules; the top 25 make the card",
    "market_id": "Polymarket's market id",
    "question": "The question, verbatim from Polymarket",
    "verdict": "selected, or excluded by a rule",
    "rule": "The first rule that excluded the question",
    "value": "The number that decided the verdict",
    "doubt_bits": "Doubt of the seal price in bits: −p·log₂p − (1−p)·log₂(1−p); 1 is a coin toss",
    "price": "Polymarket's price of YES at the seal",
    "interest": "The event's interest: the larger of 24 h volume and the money in the order book",
    "label": "The question's label on the card, M01…",
    "price_source": "midpoint (spread ≤ $0.10), else last_trade, else outcome_price",
    "end_date": "Scheduled end, as Polymarket publishes it",
    "seat": "The seat: one of the thirteen permanent positions; it owns the record",
    "model": "The gladiator that answered: the model id it was called by",
    "house": "yes: the seat's house gladiator answered (no provider key), so the card is CALIBRATION",
    "attempts": "Requests made: a refusal is asked once more, silence never",
    "error": "How the last request failed, if it did",
    "bad_formatting": BAD_FORMATTING_TIP,
    "answered": "Answers read strictly, in the exact format M01: YES 7",
    "recovered": "Answers read by a recovery step (BAD FORMATTING)",
    "unbound": "Questions without a binding answer: forfeits",
    "unmatched": "Reply lines that matched no question",
    "format_record.steps_used": "The recovery steps the reading used, and how often",
    "format_record.unbound_reasons": "Why each unbound question binds nothing",
    "format_record.notes": "What else the reading noticed",
    "format_record.truncated": "Whether the reply was cut off at the reply budget",
    "format_record.not_utf8": "Whether the reply's bytes were not UTF-8",
    "step": "The recovery step that read the answer (empty: read strictly)",
    "record_id": "The id of the answers row the signatures cover",
    "signing_scheme": "The signing scheme (COLOSSEUM-SIGNING-1)",
    "seat_key_id": "SHA-256 of the seat's public key",
    "seat_signature": "The seat key's Ed25519 signature over the answers row id",
    "arena_key_id": "SHA-256 of the arena's public key",
    "arena_signature": "The arena key's Ed25519 countersignature",
    "gladiator": "The gladiator that answered for the seat: the model id",
    "result": "win, loss or void",
    "call": "YES or NO, as bound",
    "confidence": CONFIDENCE_STAKE_TIP,
    "p": "The stated probability of YES: 0.5 + s/20 for YES, 0.5 − s/20 for NO",
    "brier": "Brier score (p − outcome)²: 0 is perfect, lower is better",
    "market_price": "Polymarket's price at the seal, the market's forecast",
    "market_brier": "The same Brier score for the market's price at the seal",
    "edge": EDGE_TIP,
    "crown": CROWN_TIP,
    "forfeit": "FORFEIT: no binding answer, scored as NO 1 against a YES settlement (YES 1 against NO)",
    "outcome": "YES or NO, as settled; empty for a void",
    "winner": "The winning outcome as Polymarket names it",
    "outcome_prices": "The settled outcome prices Polymarket published: [1, 0], [0, 1] or [0.5, 0.5]",
    "uma_resolution_status": "Polymarket's resolution status (only resolved settles)",
    "closed_time": "When Polymarket closed the market",
    "observed_at": "When the arena read the settlement",
    "receipt_id": "The stored HTTP response it was read from (SHA-256 receipt)",
    "problem": "What contradicts the recorded settlement",
    "settled_status": "The status recorded first, which stands",
    "settled_outcome": "The outcome recorded first, which stands",
    "observed_state": "What the later observation said",
    "observed_outcome": "The outcome the later observation named",
    "observed_detail": "The later observation, in detail",
    "name": "Whose key: a seat, or the arena",
    "algorithm": "The signature algorithm",
    "public_key": "The raw public key, base64url",
    "key_id": "SHA-256 of the raw public key",
    "valid_from": "The date from which the key signs",
    "stated": "The stated probability of the confidence level, 0.5 + s/20",
    "n": N_TIP,
    "hits": "Calls at this confidence that were right",
    "hit_rate": "The share of calls at this confidence that were right",
    "gap": "Hit rate minus stated probability: above 0, the seat was better than it said",
}
# Where a field means something else in one table.
TABLE_TIPS: Final[dict[tuple[str, str], str]] = {
    ("answers", "kind"): "FIGHT or CALIBRATION: a house gladiator's answers are CALIBRATION",
    ("answers", "status"): "answered, forfeited, no_response (asked, never answered) or refused",
    ("answer_lines", "status"): "answered (strict), recovered (BAD FORMATTING) or unbound (a forfeit)",
    ("answer_lines", "reason"): "Why the answer binds nothing",
    ("settlements", "status"): "settled, or void (a 50-50 resolution, never scored)",
    ("settlements", "rules"): "The settlement rule version (COLOSSEUM-SETTLEMENT)",
    ("card_status", "kind"): "FIGHT or CALIBRATION",
    ("card_status", "rules"): "The seal order the decision was made under",
    ("card_status", "card"): "The missed card",
    ("verdict_summary", "verdict"): "selected, or excluded",
    ("verdict_summary", "count"): "Swept questions with this verdict and rule",
    ("rule_versions", "id"): "The constant that holds the version",
    ("rule_versions", "version"): "The version in force",
    ("rule_versions", "governs"): "What the version governs",
    ("rule_versions", "method"): "Where the method states it",
    ("rule_versions", "defined_in"): "The source file that defines it",
    ("selection_rules", "order"): "The order the rules are applied in",
    ("selection_rules", "id"): "The rule's name, as verdicts name it",
    ("selection_rules", "description"): "What the rule excludes",
    ("recovery_steps", "order"): "The order the steps are tried in",
    ("recovery_steps", "id"): "The step's name, as answer lines name it",
    ("recovery_steps", "description"): "What the step reads",
    ("formulas", "id"): "The number, by its recorded name",
    ("formulas", "formula"): "How it is computed, with its public name",
    ("parameters", "id"): "The parameter's name in the code",
    ("parameters", "value"): "The value in force",
    ("parameters", "defined_in"): "The source file that defines it",
}


def tip(table: str, field: str | None) -> str:
    """The tooltip of a column of ``table`` holding ``field`` ("" if there is none)."""
    if field is None:
        return ""
    if field.startswith("settings."):
        return (
            f"The {field.removeprefix('settings.')} setting recorded for the call; OMITTED: the "
            "provider refused it and it was left out"
        )
    return TABLE_TIPS.get((table, field)) or FIELD_TIPS.get(field, "")
