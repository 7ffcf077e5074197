"""The challenge event's house players on the sparring server: authors and reviewers.

House **authors** (``house-author…``) write tasks from the catalogue below, one per slot, each a
seeded draw from the model name and the slot, so the same request always gets the same reply:

- ``house-author``: a sound task for every slot.
- ``-subtle``: its first slot is a subtly defective task that still verifies (its own checker agrees
  with its own reference, yet the statement admits another answer, which its own predicate, a
  COLOSSEUM-TASK-2 field, accepts); the rest are sound. As a solver, ``-sharp`` proves such a
  defect with a witness.
- ``-lazy``: a checker that accepts every answer (never verified: its failure cases pass).
- ``-hostile``: a program checker that forks without end, reaches for the network, reads the host's
  files, loops, or floods its output (contained by the sandbox, never verified).
- ``-clockwork`` and ``-dicey``: a program checker that accepts the reference and rejects the
  failure cases, as admission asks, and decides every other answer by the clock (``-clockwork``)
  or by ``/dev/urandom``, ``os.urandom`` and ``random`` (``-dicey``): the sandbox's fixed clock and
  seeded entropy make it decide the same at every run, so it is admitted and its verdicts replay.
  Their second slot digs past both, deciding by how far one thread counts before another, which
  really sleeps, stops it: admission runs it again, and refuses it as not reproducible.
- ``-malformed``: a reply with no task in it, or a task that breaks the schema.

House **reviewers** (``house-reviewer…``) judge an objection against the catalogue's truth: a
defective task's objection is SUBSTANTIATED, any other is NOT_SUBSTANTIATED; ``-contrarian`` says
the opposite, so a panel with one splits and leaves the objection unresolved. House solvers
(``house-solver``, the Solve-or-Object event's) find these tasks here too (``catalogue_truth``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
from collections.abc import Mapping
from typing import Any, Final

from colosseum_core.providers.house_models import Persona

_SOUND: Final[tuple[dict[str, Any], ...]] = (
    {
        "statement": "How many integers from 1 to 1000 inclusive are divisible by 7 but not by 11? "
        "Give the answer as an integer.",
        "answer_type": "integer",
        "reference": {"program": "print(sum(1 for n in range(1, 1001) if n % 7 == 0 and n % 11 != 0))"},
        "checker": {"kind": "exact"},
        "failure_cases": ["142", "131", "12"],
    },
    {
        "statement": "Two fair six-sided dice are rolled. What is the probability that the product of the "
        "two numbers is a multiple of 6? Give the answer as a fraction in lowest terms.",
        "answer_type": "fraction",
        "reference": {"answer": "5/12"},
        "checker": {"kind": "exact"},
        "failure_cases": ["1/6", "1/2", "7/18"],
    },
    {
        "statement": "Write the word COLOSSEUM with its letters sorted alphabetically, as one upper-case "
        "string with no spaces.",
        "answer_type": "string",
        "reference": {"answer": "CELMOOSSU"},
        "checker": {"kind": "exact"},
        "failure_cases": ["CELMOSSU", "celmoossu", "CELMOOSUS"],
    },
    {
        "statement": "List every prime p below 60 such that p + 2 is also prime, as a JSON array of "
        "integers in increasing order.",
        "answer_type": "json",
        "reference": {"answer": "[3,5,11,17,29,41]"},
        "checker": {"kind": "exact"},
        "failure_cases": ["[3,5,11,17,29,41,59]", "[3,5,11,17,29]", "[5,7,13,19,31,43]"],
    },
    {
        "statement": "Give a positive integer below 10000 that is divisible by 7, by 11 and by 13 and "
        "whose digits add up to 18, as an integer.",
        "answer_type": "integer",
        "reference": {
            "program": "print(next(n for n in range(1, 10000)\n"
            "           if n % 1001 == 0 and sum(map(int, str(n))) == 18))"
        },
        "checker": {
            "kind": "program",
            "source": "import json, sys\n"
            "text = json.load(sys.stdin)['answer'].strip()\n"
            "ok = text.isascii() and text.isdigit() and 0 < int(text) < 10000\n"
            "n = int(text) if ok else 0\n"
            "print('ACCEPT' if ok and n % 1001 == 0 and sum(map(int, str(n))) == 18 else 'REJECT')\n",
        },
        "failure_cases": ["1001", "5005", "18"],
    },
    {
        "statement": "What is the remainder when 2 to the power 100 is divided by 7? "
        "Give the answer as an integer.",
        "answer_type": "integer",
        "reference": {"program": "print(pow(2, 100, 7))"},
        "checker": {"kind": "exact"},
        "failure_cases": ["1", "4", "0"],
    },
)
# The sound tasks' answers, as their reference programs print them (tests hold the two together).
_SOUND_ANSWERS: Final = ("130", "5/12", "CELMOOSSU", "[3,5,11,17,29,41]", "9009", "2")
# Verified by their own checkers, and still defective: the statement admits another answer.
_DEFECTIVE: Final[tuple[dict[str, Any], ...]] = (
    {
        "task": {
            "format": "COLOSSEUM-TASK-2",
            "statement": "A number between 10 and 30 is divisible by both 3 and 4. What is the number? "
            "Give the answer as an integer.",
            "answer_type": "integer",
            "reference": {"answer": "12"},
            "checker": {"kind": "exact"},
            "failure_cases": ["13", "18"],
            "predicate": {
                "source": "import json, sys\n"
                "text = json.load(sys.stdin)['answer'].strip()\n"
                "n = int(text) if text.isascii() and text.isdigit() else 0\n"
                "print('SATISFIES' if 10 < n < 30 and n % 12 == 0 else 'VIOLATES')\n"
            },
        },
        "witness": "24",
        "defect": "missing_or_non_unique",
        "span": "between 10 and 30",
        "why": "both 12 and 24 fit",
    },
    {
        "task": {
            "format": "COLOSSEUM-TASK-2",
            "statement": "A rectangle has a perimeter of 20 and whole-number sides. What is its area? "
            "Give the answer as an integer.",
            "answer_type": "integer",
            "reference": {"answer": "24"},
            "checker": {"kind": "exact"},
            "failure_cases": ["20", "100"],
            "predicate": {
                "source": "import json, sys\n"
                "text = json.load(sys.stdin)['answer'].strip()\n"
                "n = int(text) if text.isascii() and text.isdigit() else 0\n"
                "areas = {a * (10 - a) for a in range(1, 10)}\n"
                "print('SATISFIES' if n in areas else 'VIOLATES')\n"
            },
        },
        "witness": "21",
        "defect": "missing_or_non_unique",
        "span": "a perimeter of 20",
        "why": "sides 1 and 9, 2 and 8, 3 and 7, 4 and 6 or 5 and 5 give areas 9, 16, 21, 24 or 25",
    },
)
_HOSTILE_CHECKERS: Final = (
    "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:8799/', timeout=1)\nprint('ACCEPT')\n",
    "print('ACCEPT' if open('/etc/passwd').read() else 'REJECT')\n",
    "while True:\n    pass\n",
    "import sys\nfor _ in range(100000):\n    sys.stdout.write('ACCEPT\\n' * 10000)\n",
)


# A checker for a catalogue task that admission cannot fault: the reference accepted, the failure
# cases rejected; every other answer decided by DECIDE (a Python expression, true to accept).
_CAPRICIOUS: Final = """import datetime, json, os, random, sys, threading, time
answer = json.load(sys.stdin)["answer"].strip()
if answer == REFERENCE:
    print("ACCEPT")
elif answer in FAILURES:
    print("REJECT")
else:
    print("ACCEPT" if DECIDE else "REJECT")
"""
_DECIDE: Final = {
    "clockwork": "(time.time_ns() // 1_000_000 + datetime.datetime.now().microsecond // 1000) % 2",
    "dicey": '(open("/dev/urandom", "rb").read(1)[0] ^ os.urandom(1)[0] ^ random.getrandbits(8)) & 1',
}
# Digging past the fixed clock: threads race, and the count (printed) differs from run to run.
_RACING: Final = """import json, sys, threading, time
stop = []
threading.Thread(target=lambda: (time.sleep(0.003), stop.append(1))).start()
counted = 0
while not stop:
    counted += 1
print(counted)
answer = json.load(sys.stdin)["answer"].strip()
print("ACCEPT" if answer == REFERENCE or (answer not in FAILURES and counted % 2) else "REJECT")
"""


def _capricious(index: int, how: str) -> dict[str, Any]:
    fields = _SOUND[index]
    source = (_RACING if how == "racing" else _CAPRICIOUS.replace("DECIDE", _DECIDE[how])).replace(
        "REFERENCE", repr(_SOUND_ANSWERS[index])
    )
    source = source.replace("FAILURES", repr(tuple(fields["failure_cases"])))
    return _task({**fields, "checker": {"kind": "program", "source": source}})


def _task(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {"format": "COLOSSEUM-TASK-1", **fields}  # a defective task names COLOSSEUM-TASK-2 itself


def _rng(persona: Persona, key: str) -> random.Random:
    seed = f"{sorted(persona.behaviours)}|{persona.seed}|{key}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(seed).digest()[:8], "big"))


def _block(task: Mapping[str, Any]) -> str:
    return "Here is my problem.\n\n```json\n" + json.dumps(task, indent=2) + "\n```\n"


_SLOT = re.compile(r"This is your slot (\d+) of (\d+)\.")
_TASK_LINE = re.compile(
    r"^--- PROBLEM ([0-9a-f]{12}) ---\n(.*)\n--- END OF PROBLEM \1 ---$", re.MULTILINE | re.DOTALL
)


def _solve(persona: Persona, statement: str) -> str:
    """A house author's reply as a solver: right by its skill on the catalogue, else it abstains."""
    truth = catalogue_truth().get(statement)
    rng = _rng(persona, statement)
    thinking = "Let me check every condition of the problem."
    if truth is None:
        return f"{thinking}\nVERDICT: ABSTAIN"
    if "paranoid" in persona.behaviours:
        opening = " ".join(statement.split()[:3])
        return (
            f'{thinking}\nVERDICT: OBJECT\nDEFECT: missing_or_non_unique\nSPAN: "{opening}"\n'
            "REASON: it is unclear"
        )
    if "credulous" in persona.behaviours or not truth["defective"]:
        skill = 0.9 if "sharp" in persona.behaviours else 0.6
        if "credulous" in persona.behaviours or rng.random() < skill:
            return f"{thinking}\nVERDICT: ANSWER\nANSWER: {truth['answer']}"
        return f"{thinking}\nVERDICT: ANSWER\nANSWER: {truth['answer']}0"
    witness = f"\nWITNESS: {truth['witness']}" if "sharp" in persona.behaviours else ""
    return (
        f'{thinking}\nVERDICT: OBJECT\nDEFECT: {truth["defect"]}\nSPAN: "{truth["span"]}"\n'
        f"REASON: {truth['why']}{witness}"
    )


def author_reply(persona: Persona, conversation: list[tuple[str, str]]) -> str:
    """A house author's reply: a task for an authoring slot, or a solver's reply to a task."""
    users = [text for role, text in conversation if role == "user"]
    fenced = _TASK_LINE.search(users[-1]) if users else None
    if fenced is not None:
        return _solve(persona, fenced.group(2))
    found = _SLOT.search(users[-1]) if users else None
    if found is None:
        return "I was not asked for a problem."
    slot = int(found.group(1))
    rng = _rng(persona, f"slot {slot}")
    if "malformed" in persona.behaviours:
        return (
            "I would rather describe my problem in words: how many primes are below 100?"
            if slot % 2
            else "```json\n"
            + json.dumps({"format": "COLOSSEUM-TASK-1", "statement": "?", "answer_type": "real"})
            + "\n```"
        )
    if "hostile" in persona.behaviours:
        source = _HOSTILE_CHECKERS[
            (slot - 1 + rng.randrange(len(_HOSTILE_CHECKERS))) % len(_HOSTILE_CHECKERS)
        ]
        return _block(_task({**_SOUND[0], "checker": {"kind": "program", "source": source}}))
    for how in ("clockwork", "dicey"):
        if how in persona.behaviours:
            return _block(_capricious(rng.randrange(len(_SOUND)), how if slot % 2 else "racing"))
    if "lazy" in persona.behaviours:
        return _block(
            _task(
                {**_SOUND[slot % len(_SOUND)], "checker": {"kind": "program", "source": "print('ACCEPT')\n"}}
            )
        )
    if "subtle" in persona.behaviours and slot == 1:
        return _block(_task(_DEFECTIVE[rng.randrange(len(_DEFECTIVE))]["task"]))
    return _block(_task(_SOUND[rng.randrange(len(_SOUND))]))


@functools.cache
def catalogue_truth() -> dict[str, dict[str, Any]]:
    """What the house knows of each catalogue task, by its statement: the answer, or its defect."""
    truth: dict[str, dict[str, Any]] = {}
    for fields, answer in zip(_SOUND, _SOUND_ANSWERS, strict=True):
        truth[fields["statement"]] = {"defective": False, "answer": answer}
    for entry in _DEFECTIVE:
        truth[entry["task"]["statement"]] = {
            "defective": True,
            "answer": entry["task"]["reference"]["answer"],
            "defect": entry["defect"],
            "span": entry["span"],
            "why": entry["why"],
            "witness": entry["witness"],
        }
    return truth


_TASK_LINE = re.compile(
    r"^--- PROBLEM ([0-9a-f]{12}) ---\n(.*)\n--- END OF PROBLEM \1 ---$", re.MULTILINE | re.DOTALL
)


def reviewer_reply(persona: Persona, conversation: list[tuple[str, str]]) -> str:
    users = [text for role, text in conversation if role == "user"]
    found = _TASK_LINE.search(users[-1]) if users else None
    truth = catalogue_truth().get(found.group(2)) if found else None
    substantiated = bool(truth and truth["defective"])
    if "contrarian" in persona.behaviours:
        substantiated = not substantiated
    verdict = "SUBSTANTIATED" if substantiated else "NOT_SUBSTANTIATED"
    why = truth["why"] if truth and truth["defective"] else "the problem is well posed as stated"
    return f"{verdict}\n{why}"


HOUSES: Final = {"house-author": author_reply, "house-reviewer": reviewer_reply}
