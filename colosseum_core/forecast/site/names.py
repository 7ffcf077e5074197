"""Readable names for seats and gladiators, shown beside the record's own ids, never instead of them.

``seats.toml`` (COLOSSEUM-SEATS-1) gives a seat its company and line but a gladiator only its model
id, so the board derives a gladiator's display name from the id by fixed rules (``gladiator_name``):

* a house gladiator (``house-hash-s3-sloppy-prose``) is read as the sparring server reads it:
  "House hash #3 (sloppy prose)": the gladiator, its seed and its behaviours;
* any other id loses an organisation prefix before ``/`` (``meta-llama/…``), is split at ``-`` and
  ``_``, has runs of one-digit numbers joined by dots (``claude-opus-4-1`` → "Claude Opus 4.1"), and
  each word capitalised: a few brand spellings from ``SPELLINGS`` (GPT, DeepSeek), a word mixing
  letters and digits in capitals (``k2`` → K2, ``17b`` → 17B), ``gpt`` joined to its version by a
  hyphen (``gpt-5-mini`` → "GPT-5 Mini").

The id stays on the page next to the name (it is the value the site check reads back); a name is
only ever a reading aid.
"""

from __future__ import annotations

import re
from typing import Final

from colosseum_core.forecast.answering.house import HOUSE_FAMILIES
from colosseum_core.providers.house_models import parse_model

# Spellings a capitalised word would get wrong.
SPELLINGS: Final[dict[str, str]] = {
    "gpt": "GPT",
    "deepseek": "DeepSeek",
    "xai": "xAI",
    "json": "JSON",
    "openai": "OpenAI",
}
_DIGIT: Final = re.compile(r"^[0-9]$")
_SHORT_VERSION: Final = re.compile(r"^[0-9](?:\.[0-9])*$")
_NUMBER: Final = re.compile(r"^[0-9]+(?:\.[0-9]+)*$")
_MIXED: Final = re.compile(r"^(?=.*[0-9])(?=.*[a-z])[a-z0-9]+$", re.IGNORECASE)


def seat_name(company: str, line: str) -> str:
    """A seat's readable name, its company and line from the registry: "OpenAI flagship"."""
    return f"{company} {line}"


def _word(token: str) -> str:
    lower = token.lower()
    if lower in SPELLINGS:
        return SPELLINGS[lower]
    if _NUMBER.match(token):
        return token
    if _MIXED.match(token):
        return token.upper()
    return token[:1].upper() + token[1:]


def _house_name(model: str) -> str | None:
    persona = parse_model(model, HOUSE_FAMILIES)
    if persona is None:
        return None
    name = "House " + persona.gladiator.removeprefix("house-").replace("-", " ")
    if persona.seed is not None:
        name += f" #{persona.seed}"
    if persona.behaviours:
        name += " (" + ", ".join(_behaviour(b) for b in sorted(persona.behaviours)) + ")"
    return name


def _behaviour(behaviour: str) -> str:
    return " ".join(SPELLINGS.get(part, part) for part in behaviour.split("-"))


def gladiator_name(model: str) -> str:
    """A readable name for a gladiator's model id (see the module's rules)."""
    house = _house_name(model)
    if house is not None:
        return house
    tokens = [t for t in re.split(r"[-_]+", model.rsplit("/", 1)[-1]) if t]
    if not tokens:
        return model
    # Runs of one-digit numbers are a version: 4-1 is 4.1.
    merged: list[str] = []
    for token in tokens:
        if merged and _DIGIT.match(token) and _SHORT_VERSION.match(merged[-1]):
            merged[-1] += "." + token
        else:
            merged.append(token)
    words = [_word(t) for t in merged]
    if words[0] == "GPT" and len(words) > 1:
        words[:2] = [f"GPT-{merged[1]}"]
    return " ".join(words)
