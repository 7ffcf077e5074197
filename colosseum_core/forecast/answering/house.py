"""The forecast's house gladiators: deterministic baseline forecasters, and the misbehaviours a model
name can ask for, which the sparring server hosts (``HOUSE_FAMILIES``, through the arenas' registry).

A model name is a gladiator followed by any number of behaviour suffixes, e.g.
``house-hash-sloppy-table-refuse-once``.

Gladiators (each reads the packet's labels and question texts and answers every label):

- ``house-coin``: ``YES 1`` for every question, the coin flip; it scores what no knowledge scores.
- ``house-hash``: call and confidence from SHA-256 of ``label + "\\n" + question``: first byte
  below 128 is YES, confidence is ``1 + second byte mod 10``. A pseudo-forecaster that is stable
  across runs, machines and Python versions, with calls and confidences spread like a real seat's.
- ``house-contrarian``: NO for a question starting with the word "Will", YES otherwise,
  confidence 6; a fixed opinion, to tell a scoring that rewards boldness from one that rewards skill.

A seed suffix ``-s<N>`` (``house-hash-s7``, ``house-coin-s2-sloppy-lower``; N a whole number written
without leading zeros, at most one per name, anywhere among the behaviours) gives a gladiator a
persona of its own, so seats filled by the same gladiator do not answer a card identically. Each
stays a pure function of the seed, the label and the question text:

- ``house-hash-sN``: as ``house-hash``, from SHA-256 of ``"seed N\n" + label + "\n" + question``.
- ``house-coin-sN``: a fair coin per question, confidence 1: YES when the first byte of that digest
  is below 128 (unseeded, the coin always lands YES).
- ``house-contrarian-sN``: the same calls as ``house-contrarian``, confidence ``4 + second byte
  mod 5`` (4 to 8) instead of 6, so its stake varies while its opinion does not.

Without a seed every gladiator answers exactly as before, so recorded replies stay reproducible.

The packet is read in either layout (forecast/sealing/packet.py): COLOSSEUM-PACKET-2 by its fence, so a
description that forges a question block adds no label and changes no question; COLOSSEUM-PACKET-1
by its ``Question:`` lines, which a description can forge. A question is read stripped of
surrounding whitespace in both, so a one-line question gets the same answer in either layout (of a
question of several lines PACKET-1 shows the gladiators only the first). Nothing here imports the
arena's packet code: a house gladiator stands in for outside models, which only see the text.

Behaviours (suffixes; combinable with each other and with any gladiator). The sparring server's own,
which every family shows (``providers/house_models.py``):

- ``-refuse-once``: the first request for a packet (per protocol and model) is refused with the
  protocol's overload/rate-limit error (OpenAI 429, Anthropic 529, Gemini 503); later ones succeed.
- ``-refuse``: always refused (403, the protocol's permission error).
- ``-stall``: waits ``stall_s`` before answering (a shorter client timeout sees no response).
- ``-no-seed`` / ``-no-top-p``: a 400 naming ``seed`` / ``top_p`` (in the protocol's wire spelling)
  whenever that setting is sent.

The gladiators' own:

- ``-sloppy-table``: a markdown table ``| M01 | YES | 7 |``.
- ``-sloppy-json``: a JSON list of ``{"label", "answer", "confidence"}`` in a ```json fence.
- ``-sloppy-prose``: a sentence before and after the answer lines.
- ``-sloppy-lower``: the whole reply in lower case (``m01: yes 7``).
- ``-sloppy-paren``: ``M01: YES (7/10)``.
- ``-sloppy-digits``: digits of other scripts, as a model writing for another locale might: the
  label's in fullwidth (``M０１``) on odd rows and the confidence in Arabic-Indic (``٧``) on even ones.
- ``-sloppy-dup``: the first label repeated at the end with the other call and confidence.
- ``-sloppy-missing``: the last label left unanswered.
- ``-sloppy-eleven``: the first label's confidence is 11.
- ``-quote``: before its answers the reply quotes the resolution rules of every question line by
  line, as a model thinking aloud does: ``Reading the rules:``, then per question ``Rules of M01:``
  and each line of its rules verbatim after ``> `` (a blank line as ``>``), then a blank line,
  ``My answers:`` and the answers. A description holding a line such as ``M01: YES 10`` then
  makes the label ambiguous under COLOSSEUM-READING-1; under READING-2 it is a quotation.

Row changes (missing, eleven, dup) apply first, then the line form (paren), then the layout
(table, json or prose; the first named if several), then lower case; the quotation of the rules
goes before all of it, never lower-cased.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

from colosseum_core.providers.house_models import HouseAsk, HouseFamily

GLADIATORS: Final = ("house-coin", "house-hash", "house-contrarian")
LAYOUTS: Final = ("sloppy-table", "sloppy-json", "sloppy-prose")
BEHAVIOURS: Final = (
    *LAYOUTS,
    "sloppy-lower",
    "sloppy-paren",
    "sloppy-digits",
    "sloppy-dup",
    "sloppy-missing",
    "sloppy-eleven",
    "quote",
)

# PACKET-1: a label alone on its line, then its question. Requiring the bare label line skips the
# preamble's ``M01: YES 7`` examples.
_QUESTION = re.compile(r"^[ \t]*(M\d{2,3})[ \t]*\r?\n[ \t]*Question:[ \t]*([^\r\n]*)", re.MULTILINE)
_RULES_1 = re.compile(r"^Resolution rules:\n(.*?)\n\n={72}\n", re.MULTILINE | re.DOTALL)
# PACKET-2: the format on the second line, and the fence alone on an indented line of the preamble,
# which comes before any text of Polymarket's, so the first such line is the real one.
_PACKET_2 = "COLOSSEUM-PACKET-2 "
_FENCE = re.compile(r"^  (@@[0-9a-f]{16,64})$", re.MULTILINE)
_SECTION = re.compile(r" (M[0-9]{2,3}) (QUESTION|RESOLUTION RULES)")
_FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
_ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
_STARTS_WITH_WILL = re.compile(r"\s*will\b", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class Forecast:
    label: str
    call: str
    confidence: int


def _fenced(text: str) -> list[tuple[str, str, str]] | None:
    """PACKET-2's (label, section, text) for the question and rules sections; None for another layout."""
    lines = text.split("\n", 2)
    if len(lines) < 2 or not lines[1].startswith(_PACKET_2):
        return None
    declared = _FENCE.search(text)
    if declared is None:
        return []
    fence = declared.group(1)
    # The fence occurs in no quoted text, so every "\n" + fence begins a section; what follows its
    # line, up to the next one, is the section's text.
    sections = []
    for chunk in text[declared.end() :].split("\n" + fence)[1:]:
        head, _, body = chunk.partition("\n")
        if (m := _SECTION.fullmatch(head)) is not None:
            sections.append((m.group(1), m.group(2), body))
    return sections


def read_packet(text: str) -> list[tuple[str, str]]:
    """``(label, question)`` pairs in packet order; a repeated label keeps its first question."""
    seen: dict[str, str] = {}
    sections = _fenced(text)
    if sections is None:
        pairs = [(label, question) for label, question in _QUESTION.findall(text)]
    else:
        pairs = [(label, body) for label, name, body in sections if name == "QUESTION"]
    for label, question in pairs:
        # Stripped in both layouts, so the same question hashes the same in either.
        seen.setdefault(label, question.strip())
    return list(seen.items())


def read_rules(text: str) -> dict[str, str]:
    """Each label's resolution rules as the packet quotes them; a question without rules has none."""
    sections = _fenced(text)
    if sections is not None:
        found = [(label, body) for label, name, body in sections if name == "RESOLUTION RULES"]
    else:
        # PACKET-1's rules run from "Resolution rules:" to the blank line before the next rule line.
        labels = [m.group(1) for m in _QUESTION.finditer(text)]
        found = list(zip(labels, (m.group(1) for m in _RULES_1.finditer(text)), strict=False))
    rules: dict[str, str] = {}
    for label, body in found:
        rules.setdefault(label, body)
    return rules


def _digest(label: str, question: str, seed: int | None) -> bytes:
    # The unseeded text is the one every recorded house-hash reply was drawn from: it must not change.
    text = f"{label}\n{question}" if seed is None else f"seed {seed}\n{label}\n{question}"
    return hashlib.sha256(text.encode()).digest()


def _coin(label: str, question: str, seed: int | None = None) -> Forecast:
    if seed is None:
        return Forecast(label, "YES", 1)
    return Forecast(label, "YES" if _digest(label, question, seed)[0] < 128 else "NO", 1)


def _hash(label: str, question: str, seed: int | None = None) -> Forecast:
    digest = _digest(label, question, seed)
    return Forecast(label, "YES" if digest[0] < 128 else "NO", 1 + digest[1] % 10)


def _contrarian(label: str, question: str, seed: int | None = None) -> Forecast:
    confidence = 6 if seed is None else 4 + _digest(label, question, seed)[1] % 5
    return Forecast(label, "NO" if _STARTS_WITH_WILL.match(question) else "YES", confidence)


Forecaster = Callable[[str, str, int | None], Forecast]
_FORECASTERS: Mapping[str, Forecaster] = {
    "house-coin": _coin,
    "house-hash": _hash,
    "house-contrarian": _contrarian,
}
if tuple(_FORECASTERS) != GLADIATORS:
    raise RuntimeError("every house gladiator that model names allow needs its forecaster here")


def forecasts_for(
    gladiator: str, questions: Iterable[tuple[str, str]], seed: int | None = None
) -> list[Forecast]:
    forecaster = _FORECASTERS[gladiator]
    return [forecaster(label, question, seed) for label, question in questions]


def _flip(forecast: Forecast) -> Forecast:
    return Forecast(
        forecast.label, "NO" if forecast.call == "YES" else "YES", 11 - min(forecast.confidence, 10)
    )


def render(
    forecasts: Sequence[Forecast], behaviours: Iterable[str] = (), rules: Mapping[str, str] | None = None
) -> str:
    """The reply text: ``LABEL: CALL CONFIDENCE`` lines, bent by the behaviours asked for.

    ``rules``: each label's resolution rules (``read_rules``), quoted first under ``-quote``.
    """
    wanted = set(behaviours)
    answers = _answers(forecasts, wanted)
    if "quote" not in wanted or not forecasts:
        return answers
    return _quotation(forecasts, rules or {}) + "\n\nMy answers:\n" + answers


def _quotation(forecasts: Sequence[Forecast], rules: Mapping[str, str]) -> str:
    parts = ["Reading the rules:"]
    for forecast in forecasts:
        if forecast.label in rules:
            parts.append(f"Rules of {forecast.label}:")
            # Split as the reader splits a reply, so each quoted line is a line of the rules.
            parts += [f"> {line}" if line else ">" for line in re.split(r"\r\n|\r|\n", rules[forecast.label])]
    return "\n".join(parts)


def _answers(forecasts: Sequence[Forecast], wanted: set[str]) -> str:
    rows = list(forecasts)
    if not rows:
        return "I found no labelled questions in this packet."
    if "sloppy-missing" in wanted:
        rows = rows[:-1]
    if "sloppy-eleven" in wanted and rows:
        rows[0] = dataclasses.replace(rows[0], confidence=11)
    if "sloppy-dup" in wanted and rows:
        rows.append(_flip(rows[0]))

    def line(row: Forecast) -> str:
        if "sloppy-paren" in wanted:
            return f"{row.label}: {row.call} ({row.confidence}/10)"
        if "sloppy-digits" in wanted:
            if rows.index(row) % 2 == 0:
                return f"{row.label.translate(_FULLWIDTH)}: {row.call} {row.confidence}"
            return f"{row.label}: {row.call} {str(row.confidence).translate(_ARABIC_INDIC)}"
        return f"{row.label}: {row.call} {row.confidence}"

    layout = next((name for name in LAYOUTS if name in wanted), None)
    if layout == "sloppy-table":
        body = ["| Label | Answer | Confidence |", "|---|---|---|"]
        body += [f"| {r.label} | {r.call} | {r.confidence} |" for r in rows]
        text = "\n".join(body)
    elif layout == "sloppy-json":
        # A list, not an object keyed by label, so a duplicated label survives serialisation.
        items = [{"label": r.label, "answer": r.call, "confidence": r.confidence} for r in rows]
        text = "```json\n" + json.dumps(items, indent=2) + "\n```"
    elif layout == "sloppy-prose":
        text = (
            "Thank you for the card. After weighing each question, here are my forecasts:\n\n"
            + "\n".join(line(r) for r in rows)
            + "\n\nThese are my honest best estimates as of the packet's seal."
        )
    else:
        text = "\n".join(line(r) for r in rows)
    return text.lower() if "sloppy-lower" in wanted else text


def gladiator_reply(ask: HouseAsk) -> str:
    """A gladiator's reply to a packet: its forecasts of every question, bent by the behaviours."""
    forecasts = forecasts_for(ask.persona.gladiator, read_packet(ask.text), ask.persona.seed)
    rules = read_rules(ask.text) if "quote" in ask.persona.behaviours else None
    return render(forecasts, ask.persona.behaviours, rules)


# Keyed by the packet's text alone: what every recorded forecast reply was keyed and identified by.
HOUSE_FAMILIES: Final = tuple(
    HouseFamily(name, gladiator_reply, BEHAVIOURS, keyed_by_user_text=True) for name in GLADIATORS
)
