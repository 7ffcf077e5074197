"""COLOSSEUM-EXACT-CHECKERS-1: the built-in exact checkers, pure functions with no sandbox.

A task's answer type says how an answer's text is read and when two answers are the same:

- ``integer``: ASCII digits with an optional sign (``42``, ``-7``, ``+007``); equal by value.
- ``fraction``: an integer or ``p/q`` with ASCII digits, an optional sign on ``p`` and ``q`` ≠ 0
  (``3/4``, ``-6/8``, ``5``); equal by value, so ``6/8`` is ``3/4``.
- ``string``: the text itself; equal character for character (case and inner spaces count).
- ``json``: one JSON value (no ``NaN`` or ``Infinity``, no duplicate keys, integers within ±2^53);
  equal when their RFC 8785 canonical forms are, so key order and spacing do not count.

Every type ignores ASCII white space (space, tab, CR, LF) around the answer and nothing else:
digits of other scripts, a thousands separator or a unit are malformed, never read generously.
An answer longer than ``MAX_ANSWER_CHARS`` is malformed without being read.
"""

from __future__ import annotations

import dataclasses
import json
import re
from fractions import Fraction
from typing import Any, Final

import rfc8785

EXACT_CHECKERS: Final = "COLOSSEUM-EXACT-CHECKERS-1"
ANSWER_TYPES: Final = ("integer", "fraction", "string", "json")
MAX_ANSWER_CHARS: Final = 10_000
_SPACE: Final = " \t\r\n"
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FRACTION = re.compile(r"([+-]?[0-9]+)(?:/([0-9]+))?", re.ASCII)


class MalformedAnswer(ValueError):
    """An answer that is not a well-formed answer of its type; the message says why."""


def _no_constant(name: str) -> Any:
    raise MalformedAnswer(f"{name} is not a JSON number")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = next(key for key in keys if keys.count(key) > 1)
        raise MalformedAnswer(f"the JSON object repeats the key {repeated!r}")
    return dict(pairs)


def read_answer(answer_type: str, text: str) -> object:
    """The value ``text`` gives under ``answer_type`` (raises ``MalformedAnswer`` when it gives none)."""
    if not isinstance(text, str):
        raise MalformedAnswer(f"an answer is text, not {type(text).__name__}")
    if len(text) > MAX_ANSWER_CHARS:
        raise MalformedAnswer(f"the answer has {len(text):,} characters, over {MAX_ANSWER_CHARS:,}")
    body = text.strip(_SPACE)
    if answer_type == "integer":
        if not _INTEGER.fullmatch(body):
            raise MalformedAnswer(f"{_shown(body)} is not an integer in ASCII digits")
        return int(body)
    if answer_type == "fraction":
        match = _FRACTION.fullmatch(body)
        if not match:
            raise MalformedAnswer(f"{_shown(body)} is not an integer or p/q in ASCII digits")
        if match.group(2) is not None and int(match.group(2)) == 0:
            raise MalformedAnswer(f"{_shown(body)} divides by zero")
        return Fraction(int(match.group(1)), int(match.group(2) or 1))
    if answer_type == "string":
        return body
    if answer_type == "json":
        try:
            value = json.loads(body, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
            return rfc8785.dumps(value)
        except MalformedAnswer:
            raise
        except (ValueError, rfc8785.CanonicalizationError) as exc:
            raise MalformedAnswer(
                f"{_shown(body)} is not one JSON value with a canonical form ({exc})"
            ) from None
    raise MalformedAnswer(f"answer type {answer_type!r} is not one of {', '.join(ANSWER_TYPES)}")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


@dataclasses.dataclass(frozen=True)
class ExactVerdict:
    accepted: bool
    reason: str  # "equal", "different" or why the answer is malformed


def exact_check(answer_type: str, expected: str, answer: str) -> ExactVerdict:
    """Whether ``answer`` is the same answer as ``expected`` under ``answer_type``.

    ``expected`` must itself be well formed (the task's own reference): ``MalformedAnswer`` if not.
    """
    wanted = read_answer(answer_type, expected)
    try:
        given = read_answer(answer_type, answer)
    except MalformedAnswer as exc:
        return ExactVerdict(False, f"malformed: {exc}")
    return ExactVerdict(True, "equal") if given == wanted else ExactVerdict(False, "different")
