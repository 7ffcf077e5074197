"""What a turn passes on, and how the debate so far becomes a debater's messages (COMPELLE-GAME-1).

Every call carries the seed's debater prompt verbatim as its first user message, with its five
substitutions only; then the debate so far, the debater's own turns as assistant messages and its
opponent's as user messages. A turn is kept raw in the record, but what is passed on (to the
opponent and to the judges) is cut to ``MAX_TURN_CHARS``, a recorded bound: a provider that ignores
its reply budget must not make every later prompt of the game as long as its reply.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Final

from colosseum_core.debate.prompts import DEBATER
from colosseum_core.providers.adapters import Message

PRO, CON = "Pro", "Con"
SIDES: Final = (PRO, CON)
TURN_CAP: Final = 6  # three turns each; Pro opens
MAX_TURN_CHARS: Final = 8000
CUT_MARK: Final = " [cut]"
# The style rules' banned words (and their inflections the seed names) and the dashes it forbids:
# flagged on every turn for readers; the judges, not the arena, weigh them.
BANNED_WORDS: Final = (
    "delve",
    "leverage",
    "leverages",
    "utilize",
    "crucial",
    "nuanced",
    "multifaceted",
    "landscape",
    "robust",
    "arsenal",
    "sophisticated",
)
_BANNED: Final = re.compile(r"\b(" + "|".join(BANNED_WORDS) + r")\b", re.IGNORECASE)
DASHES: Final = ("\u2014", "\u2013")


@dataclasses.dataclass(frozen=True)
class SpokenTurn:
    """A turn as the rest of the game sees it."""

    number: int
    side: str
    text: str  # as passed on: cut to MAX_TURN_CHARS


def side_of(turn: int) -> str:
    """Who speaks turn ``turn`` (1-based): Pro opens, then they alternate."""
    if turn < 1:
        raise ValueError(f"turn {turn} is not a turn number (they start at 1)")
    return PRO if turn % 2 == 1 else CON


def passed_on(text: str) -> tuple[str, bool]:
    """The text a turn passes on, and whether it was cut."""
    if len(text) <= MAX_TURN_CHARS:
        return text, False
    return text[:MAX_TURN_CHARS] + CUT_MARK, True


def style_flags(text: str) -> list[str]:
    """What of the style rules a turn breaks, for readers: banned words, dashes, empty."""
    flags = sorted({m.group(1).lower() for m in _BANNED.finditer(text)})
    found = [f"banned:{w}" for w in flags]
    found += [f"dash:U+{ord(d):04X}" for d in DASHES if d in text]
    if not text.strip():
        found.append("empty")
    return found


def debater_prompt(*, strategy: str, date: str, topic: str, side: str, context: str) -> str:
    if side not in SIDES:
        raise ValueError(f"side {side!r} is not one of {', '.join(SIDES)}")
    return DEBATER.render(
        {"strategy": strategy, "date": date, "topic": topic, "side": side, "context": context}
    )


def debater_messages(prompt: str, side: str, so_far: Sequence[SpokenTurn]) -> list[Message]:
    """The messages for ``side``'s next turn: the prompt, then every turn so far by who spoke it."""
    messages = [Message("user", prompt)]
    messages += [Message("assistant" if t.side == side else "user", t.text) for t in so_far]
    if messages[-1].role != "user":
        raise ValueError(f"{side} cannot speak twice in a row (turn {len(so_far) + 1})")
    return messages
