"""The Solve-or-Object event's house solvers, which the sparring server hosts (``house-solver…`` models).

A house solver finds the item in the project's bank by the statement between the prompt's fence
lines (it is the house: it may read its own bank) and answers with a skill, every choice a seeded
draw from the model name and the statement, so the same request always gets the same reply:

- ``house-solver``: right three times in five (the sound answer, or the twin's class and edited
  words), otherwise wrong in a way the scoring must catch; P(defective) near its belief.
- ``-sharp``: right nine times in ten; sometimes proves a problem with several answers by a witness.
- ``-credulous``: never objects; a twin gets its original's answer (it misses every defect).
- ``-paranoid``: objects to everything, naming a class at random and quoting the opening words.
- ``-garbled``: thinks aloud and never writes the reply's lines (unreadable).
- ``-stall``: the sparring server's own behaviour, never answering.

A statement the bank does not hold is abstained from, with P(defective) 50.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
from typing import Final

from colosseum_core.events.solve_or_object.bank import Item, load_bank
from colosseum_core.events.solve_or_object.rules import DEFECT_CLASSES
from colosseum_core.providers.house_models import Persona

_FENCE = re.compile(
    r"^--- PROBLEM ([0-9a-f]{12}) ---\n(.*)\n--- END OF PROBLEM \1 ---$", re.MULTILINE | re.DOTALL
)
_SKILL: Final = {"sharp": 0.9, "default": 0.6}


@functools.cache
def _items_by_statement() -> dict[str, Item]:
    bank = load_bank()
    return {item.statement: item for pair in bank.pairs for item in (pair.sound, pair.twin)}


def _rng(persona: Persona, statement: str) -> random.Random:
    key = f"{sorted(persona.behaviours)}|{persona.seed}|{statement}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def _wrong(item: Item, right: str) -> str:
    if item.answer_type == "integer":
        return str(int(right) + 1)
    if item.answer_type == "fraction":
        p, _, q = right.partition("/")
        return f"{int(p) + 1}/{q}" if q else str(int(p) + 2)
    if item.answer_type == "json":
        return "[]" if right != "[]" else "[0]"
    return right[::-1] if right[::-1] != right else right + "x"


def _sound_answer_of(item: Item) -> str:
    bank = load_bank()
    answer = bank.pair(item.pair_id).sound.answer
    assert answer is not None
    return answer


def _edited_words(item: Item) -> str:
    """The edited words, widened to whole words, and to a neighbour or two when the edit removed text
    or changed only a character or two."""
    assert item.edit_start is not None and item.edit_end is not None
    text, start, end = item.statement, item.edit_start, item.edit_end
    if end - start < 3:
        start, end = max(0, start - 8), min(len(text), end + 8)
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end].strip()


def _quoted(words: str) -> str:
    return f'"{words}"'


def _lines(verdict: str, p: int, **fields: str) -> str:
    body = [f"VERDICT: {verdict}", *(f"{key}: {value}" for key, value in fields.items()), f"P_DEFECTIVE: {p}"]
    return "\n".join(body)


def solver_reply(persona: Persona, conversation: list[tuple[str, str]]) -> str:
    """The house solver's reply to an item's prompt."""
    users = [text for role, text in conversation if role == "user"]
    found = _FENCE.search(users[-1]) if users else None
    if found is None:
        return "I see no problem to solve."
    statement = found.group(2)
    item = _items_by_statement().get(statement)
    rng = _rng(persona, statement)
    thinking = "Let me read the problem carefully and check every condition."
    if "garbled" in persona.behaviours:
        return thinking + "\nMy verdict is that I would answer, probably."
    if item is None:
        return thinking + "\n" + _lines("ABSTAIN", 50)
    if "paranoid" in persona.behaviours:
        opening = " ".join(statement.split()[:4])
        return (
            thinking + "\n" + _lines("OBJECT", 90, DEFECT=rng.choice(DEFECT_CLASSES), SPAN=_quoted(opening))
        )
    if "credulous" in persona.behaviours:
        right = _sound_answer_of(item)
        return thinking + "\n" + _lines("ANSWER", 10, ANSWER=right)
    skill = _SKILL["sharp" if "sharp" in persona.behaviours else "default"]
    correct = rng.random() < skill
    if not item.defective:
        assert item.answer is not None
        answer = item.answer if correct else _wrong(item, item.answer)
        return thinking + "\n" + _lines("ANSWER", rng.choice((5, 15, 25)), ANSWER=answer)
    if not correct:
        return thinking + "\n" + _lines("ANSWER", rng.choice((30, 45)), ANSWER=_sound_answer_of(item))
    certificate = item.certificate or {}
    if "sharp" in persona.behaviours and certificate.get("kind") == "two_assignments" and rng.random() < 0.5:
        witness = json.dumps(certificate["assignments"], separators=(",", ":"))
        # A proof of several answers that quotes words beside the edit: only the witness earns it.
        return (
            thinking
            + "\n"
            + _lines(
                "OBJECT",
                95,
                DEFECT=str(item.defect_class),
                SPAN=_quoted(statement.split()[0]),
                WITNESS=witness,
            )
        )
    return (
        thinking
        + "\n"
        + _lines(
            "OBJECT",
            rng.choice((75, 85, 95)),
            DEFECT=str(item.defect_class),
            SPAN=_quoted(_edited_words(item)),
        )
    )


HOUSES: Final = {"house-solver": solver_reply}
