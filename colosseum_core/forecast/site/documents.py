"""The board's documents that do not come from record tables: the seats, the rules, the site summary.

Each is a plain JSON-able structure built from the code that defines it (``seats.toml``,
``colosseum_core/forecast/rules.py`` and the modules holding the other format versions), so the pages, the
JSON files and the site check all read the same thing. Rows carry an ``id`` like record rows, so the
pages mark their cells the same way (``data-table="seats"``, ``data-id="openai-flagship"``).
"""

from __future__ import annotations

import inspect
import sys
import types
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from colosseum_core.forecast import rules
from colosseum_core.forecast.answering import reading, seats
from colosseum_core.forecast.answering.seats import Seat
from colosseum_core.forecast.board import leaderboard
from colosseum_core.forecast.sealing import packet
from colosseum_core.forecast.selection import RULE_ORDER
from colosseum_core.forecast.sweep.copy import CONFLICT_FIELD, CONFLICT_WORDS, PAGE_FIELD
from colosseum_core.statistics import bootstrap
from colosseum_core.trust import bundle, signing

# 2: the full ranked list on its own page per card, compact tables, columnar per-card JSON.
# 3: each card's JSON and page also account for its sweep's listings (``sweep_accounting``).
BOARD_FORMAT: Final = "COLOSSEUM-BOARD-3"
# The card page shows the selected places and this many best-ranked excluded questions.
CUT_CONTEXT: Final = 20
# A table derived from a card's ranked_candidates: its verdicts counted by verdict and rule.
VERDICT_SUMMARY: Final = "verdict_summary"
# A table derived from a card's sweeps, verbatim_markets and copy_errors: how the sweep's market
# listings add up to the markets copied (see ``sweep_accounting``).
SWEEP_ACCOUNTING: Final = "sweep_accounting"
# The tables it is counted from; a card missing any of them has no accounting.
ACCOUNTING_SOURCES: Final = ("sweeps", "verbatim_markets", "copy_errors")
# Its rows, in the order the page tells them; the first two always, the others when not zero.
COPIED, REPEATS, FIELD_ERRORS, CONFLICTING_IDS, PAGE_ERRORS = (
    "copied",
    "repeats",
    "field_errors",
    "conflicting_ids",
    "page_errors",
)
ACCOUNTING_ROWS: Final = (COPIED, REPEATS, FIELD_ERRORS, CONFLICTING_IDS, PAGE_ERRORS)
ALWAYS_ACCOUNTED: Final = frozenset({COPIED, REPEATS})
_REPO: Final = Path(rules.__file__).resolve().parents[2]

# Where the method states what each version governs; rules.py's own comments say the rest.
_METHOD: Final[dict[str, str]] = {
    "SLATE_LAWS": "method §4 The selection rules, §5 The cut and the order",
    "COLOSSEUM_SCORING": "method §10 The formulas",
    "VERBATIM_COPY": "method §3 The copy",
    "COLOSSEUM_READING": "method §7 Reading the answers",
    "COLOSSEUM_SETTLEMENT": "method §10 (Polymarket's settlement); docs/decisions.md, settlement",
    "PACKET_FORMAT": "method §6 The packet",
    "SIGNING_SCHEME": "method §9 The signature",
    "SEATS_REGISTRY": "method, defined terms: SEAT and GLADIATOR",
    "BUNDLE_FORMAT": "the signed manifest of this site (MANIFEST.json, MANIFEST.json.dsse)",
    "BOARD_FORMAT": "method §11 The release: this site's layout and release rule",
}
_GOVERNS: Final[dict[str, str]] = {
    "SLATE_LAWS": "Which swept questions make a card: the rules in order, the ranking by doubt, the cut.",
    "COLOSSEUM_SCORING": "RECORD, CONFIDENCE (SHARP), VS MARKET (EDGE), FC SCORE (CROWN), forfeits and "
    "voids, from answers and settlements.",
    "PACKET_FORMAT": "The packet text every seat receives, byte-identical, and its identifier.",
    "SIGNING_SCHEME": "Each answers row signed by its seat's Ed25519 key and countersigned by the arena's.",
    "SEATS_REGISTRY": "The thirteen permanent seats and the gladiators that took them, with dates.",
    "BUNDLE_FORMAT": "The manifest of every published file, signed by the arena key (DSSE).",
    "BOARD_FORMAT": "This site: pages, downloads, and answers published only once every seat responded.",
}
_SELECTION: Final[dict[str, str]] = {
    "malformed": "Fields that contradict each other, or a market that could not be copied.",
    "open": "Active, not closed, accepting orders.",
    "gradeable": "Exactly two outcomes, Yes and No.",
    "priced": "Some published price exists: midpoint (spread ≤ $0.10), else last trade, else outcome price.",
    "tomorrow_only": "An event or market start time before the seal excludes the question.",
    "settles_soon": "Scheduled settlement within 96 hours of the seal.",
    "real_money": "The question's event holds at least $2,500 of interest (max of 24 h volume and book).",
    "once_ever": "A question that appeared on any earlier card of its kind never appears again.",
    "one_per_family": "Only the highest-ranked question of an event makes the card.",
    "one_of_a_kind": (
        "No two questions that are the same question or the same real-world event in different clothes"
        " (one market, event, game, question stem, event title on its day, or fixture's teams on its day)."
    ),
    "the_cut": "The top 25 places make the card; a short card is never padded.",
}
FORMULAS: Final[tuple[tuple[str, str], ...]] = (
    ("p", "YES with confidence s: p = 0.5 + s/20; NO: p = 0.5 − s/20"),
    ("brier", "Brier = (p − outcome)², outcome 1 if YES settled, else 0"),
    ("record", "RECORD = wins − losses (a win is a correct call; a forfeit is a loss)"),
    (
        "sharp",
        "CONFIDENCE, recorded as SHARP, the error score 0–100: SHARP = (1 − mean Brier) × 100 "
        "= Σ (400 − brier_units) / (4 n)",
    ),
    (
        "edge",
        "VS MARKET, recorded as EDGE: EDGE = market Brier at the sealed price − the seat's Brier, on the "
        "same questions",
    ),
    ("crown", "FC SCORE, recorded as CROWN: CROWN = Σ +s for a win, −s for a loss, over settled answers"),
    (
        "forfeit",
        "No binding answer: NO 1 against a YES settlement (YES 1 against NO): Brier 0.3025, CROWN −1",
    ),
    ("void", "A 50-50 resolution is counted as a void and never scored"),
    ("early", "n < 30 is flagged EARLY"),
    ("bad_formatting", "BAD FORMATTING: an answer read by a recovery step, scored at full value and counted"),
    ("interval", "95% percentile interval (type 7) of a question-clustered bootstrap with a recorded seed"),
)


def _where(module: types.ModuleType) -> str:
    return Path(inspect.getfile(module)).resolve().relative_to(_REPO).as_posix()


def _comments(module: types.ModuleType) -> dict[str, str]:
    """The comment lines written right above each constant of ``module``: what the version governs."""
    found: dict[str, str] = {}
    pending: list[str] = []
    for line in inspect.getsource(module).splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            pending.append(stripped.lstrip("#").strip())
            continue
        name = stripped.split("=", 1)[0].split(":", 1)[0].strip()
        if "=" in stripped and name.isupper() and pending:
            found[name] = " ".join(pending)
        pending = []
    return found


def _version_rows() -> list[dict[str, Any]]:
    comments = _comments(rules)
    defined: list[tuple[str, str, str]] = [
        (name, value, _where(rules))
        for name, value in vars(rules).items()
        if name.isupper() and isinstance(value, str)
    ]
    defined += [
        ("PACKET_FORMAT", packet.PACKET_FORMAT, _where(packet)),
        ("SIGNING_SCHEME", signing.SIGNING_SCHEME, _where(signing)),
        ("SEATS_REGISTRY", seats.SEATS_REGISTRY, _where(seats)),
        ("BUNDLE_FORMAT", bundle.BUNDLE_FORMAT, _where(bundle)),
        ("BOARD_FORMAT", BOARD_FORMAT, _where(sys.modules[__name__])),
    ]
    return [
        {
            "id": name,
            "version": value,
            "defined_in": where,
            "governs": _GOVERNS.get(name) or comments.get(name, ""),
            "method": _METHOD.get(name, ""),
        }
        for name, value, where in defined
    ]


def rules_document() -> dict[str, Any]:
    """Every rule and formula version, where each is defined, and the rules each version holds."""
    return {
        "versions": _version_rows(),
        "selection_rules": [
            {"id": rule, "order": i, "description": _SELECTION.get(rule, "")}
            for i, rule in enumerate(RULE_ORDER, start=1)
        ],
        "recovery_steps": [
            {"id": step.name, "order": i, "description": step.description}
            for i, step in enumerate(reading.RECOVERY_STEPS, start=1)
        ],
        "formulas": [{"id": name, "formula": text} for name, text in FORMULAS],
        "parameters": [
            {"id": "BOOTSTRAP_SEED", "value": leaderboard.BOOTSTRAP_SEED, "defined_in": _where(leaderboard)},
            {
                "id": "BOOTSTRAP_REPLICATES",
                "value": leaderboard.BOOTSTRAP_REPLICATES,
                "defined_in": _where(leaderboard),
            },
            {
                "id": "BOOTSTRAP_GENERATOR",
                "value": bootstrap.BOOTSTRAP_GENERATOR,
                "defined_in": _where(bootstrap),
            },
            {"id": "EARLY_BELOW", "value": leaderboard.EARLY_BELOW, "defined_in": _where(leaderboard)},
        ],
    }


def seats_document(registry: Sequence[Seat]) -> dict[str, Any]:
    return {
        "registry": seats.SEATS_REGISTRY,
        "seats": [
            {
                "id": seat.id,
                "company": seat.company,
                "line": seat.line,
                "first_day": seat.first_day.isoformat(),
                "house": seat.house,
                "gladiators": [
                    {
                        "id": f"{seat.id}@{g.since.isoformat()}",
                        "seat": seat.id,
                        "since": g.since.isoformat(),
                        "model": g.model,
                        "protocol": g.protocol,
                    }
                    for g in seat.gladiators
                ],
            }
            for seat in registry
        ],
    }


def around_the_cut(ranked: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The ranked list around the cut: every selected place and the ``CUT_CONTEXT`` best-ranked
    excluded questions, in rank order. Unranked questions (excluded before the ranking) are not shown."""
    placed = sorted((r for r in ranked if r.get("rank") is not None), key=lambda r: r["rank"])
    excluded = [r for r in placed if r["verdict"] != "selected"][:CUT_CONTEXT]
    keep = {id(r) for r in excluded}
    return [r for r in placed if r["verdict"] == "selected" or id(r) in keep]


def summary_id(verdict: str | None, rule: str | None) -> str:
    """A verdict summary row's id: the verdict, and the rule after a slash when there is one."""
    return f"{verdict}/{rule}" if rule is not None else str(verdict)


def verdict_summary(ranked: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A card's verdicts counted by verdict and rule: selected first, then the rules in the order applied."""
    counts: dict[tuple[str, str | None], int] = {}
    for row in ranked:
        key = (row["verdict"], row["rule"])
        counts[key] = counts.get(key, 0) + 1
    order = {rule: i for i, rule in enumerate(RULE_ORDER)}

    def position(key: tuple[str, str | None]) -> tuple[int, int, str, str]:
        verdict, rule = key
        return (verdict != "selected", order.get(rule or "", len(order)), verdict, rule or "")

    return [
        {"id": summary_id(verdict, rule), "verdict": verdict, "rule": rule, "count": n}
        for (verdict, rule), n in sorted(counts.items(), key=lambda item: position(item[0]))
    ]


def copy_error_kind(field: str | None, error: str | None) -> str:
    """Which accounting row a copy_errors row counts in (copy.py writes three kinds)."""
    if field == PAGE_FIELD:
        return PAGE_ERRORS
    if field == CONFLICT_FIELD and CONFLICT_WORDS in str(error):
        return CONFLICTING_IDS
    return FIELD_ERRORS


def sweep_accounting(
    sweeps: Sequence[Mapping[str, Any]], copied: int, errors: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """How a card's sweep listings add up: ``copied`` (its verbatim_markets rows, one per distinct
    market, each given a verdict), the listings quarantined in copy_errors by kind, and ``repeats``:
    the listings neither copied nor quarantined on their own (a market listed again, copied once, and
    the listings of an id published with different contents, none copied). [] unless the card has
    exactly one sweeps row."""
    if len(sweeps) != 1:
        return []
    counts = dict.fromkeys(ACCOUNTING_ROWS, 0)
    for row in errors:
        counts[copy_error_kind(row.get("field"), row.get("error"))] += 1
    counts[COPIED] = copied
    counts[REPEATS] = int(sweeps[0]["markets"]) - copied - counts[FIELD_ERRORS]
    return [
        {"id": name, "count": counts[name]}
        for name in ACCOUNTING_ROWS
        if name in ALWAYS_ACCOUNTED or counts[name]
    ]


def versions() -> dict[str, str]:
    return {row["id"]: row["version"] for row in _version_rows()}


def site_document(
    built_at: str, cards: Sequence[str], released: Iterable[str], missed: Sequence[str] = ()
) -> dict[str, Any]:
    """``data/site.json``: what was built, when, under which versions; ``cards`` are the sealed cards,
    ``missed`` the cards that never sealed."""
    done = set(released)
    return {
        "format": BOARD_FORMAT,
        "built_at": built_at,
        "cards": len(cards),
        "released": sum(1 for card in cards if card in done),
        "awaiting_answers": [card for card in cards if card not in done],
        "card_keys": list(cards),
        "missed": list(missed),
        "versions": versions(),
    }


def pseudo_rows(seats_doc: dict[str, Any], rules_doc: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """The documents' rows by table and id, as the pages mark them."""
    tables: dict[str, list[dict[str, Any]]] = {
        "seats": [{k: v for k, v in s.items() if k != "gladiators"} for s in seats_doc["seats"]],
        "gladiators": [g for s in seats_doc["seats"] for g in s["gladiators"]],
        "rule_versions": rules_doc["versions"],
        "selection_rules": rules_doc["selection_rules"],
        "recovery_steps": rules_doc["recovery_steps"],
        "formulas": rules_doc["formulas"],
        "parameters": rules_doc["parameters"],
    }
    return {name: {row["id"]: row for row in rows} for name, rows in tables.items()}
