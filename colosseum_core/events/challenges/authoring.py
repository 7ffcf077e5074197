"""CHALLENGE-AUTHORING-1: the authoring prompt, and how an author's reply becomes a task.

Each contender has the manifest's number of authoring slots and is asked once per slot, in a
conversation of its own, with this prompt verbatim (its slot number the only substitution). The
reply's **last** fenced block marked ``json`` must hold one task in the COLOSSEUM-TASK-1 schema;
anything else is a failed submission, recorded with why, and counts 0. A parsed task is admitted
only when it is verified (COLOSSEUM-TASK-VERIFIED-1), every program of it run in the sandbox, and no
other slot submitted the very same task (every copy of a duplicate is a failed submission).
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Final

from colosseum_core.events.tasks.task import Task, TaskError, parse_task

MAX_SUBMISSION_CHARS: Final = 100_000
_FENCE = re.compile(r"^```json[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)

AUTHORING_PROMPT: Final = """\
You are an author in a challenge event. Write one new problem that the other contenders will try to \
solve: hard enough that strong solvers may fail it, and sound: well posed, with an answer a machine \
can check exactly. This is your slot {slot} of {slots}.

Scoring: a sound, verified problem earns 0.25 + 0.75 x the share of the other contenders who do not \
solve it; a problem shown to be defective (contradictory, missing information, several answers, a \
false premise, or an incorrect reference solution) earns -1; a submission that cannot be read or \
verified earns 0. Your problem is committed by a salted hash before anyone sees it and revealed \
after the event.

Reply with the problem as one JSON object in a fenced block marked json, as the last thing in your \
reply, with exactly these fields:

```json
{{
  "format": "COLOSSEUM-TASK-1",
  "statement": "the problem, saying what form its answer takes",
  "answer_type": "integer | fraction | string | json",
  "reference": {{"answer": "the answer"}},
  "checker": {{"kind": "exact"}},
  "failure_cases": ["a wrong answer the checker must reject", "another"]
}}
```

- "reference" may instead be {{"program": "Python 3 source that prints the answer"}}.
- "checker" may instead be {{"kind": "program", "source": "Python 3 source"}}: it reads \
{{"answer": ..., "statement": ...}} as JSON on standard input and prints ACCEPT or REJECT as its last \
line. Programs run with the standard library only, no network, no files, 2 CPU seconds.
- The problem is verified only if the checker accepts your reference and rejects every one of your \
1 to 16 failure cases.
"""


def authoring_prompt(slot: int, slots: int) -> str:
    return AUTHORING_PROMPT.format(slot=slot, slots=slots)


@dataclasses.dataclass(frozen=True)
class Submission:
    task: Task | None
    failure: (
        str | None
    )  # why the reply holds no task: "no_reply", "too_long", "no_block", "not_json", "schema"
    detail: str


def parse_submission(text: str | None) -> Submission:
    """The task an author's reply holds, or why it holds none."""
    if text is None:
        return Submission(None, "no_reply", "no reply")
    if len(text) > MAX_SUBMISSION_CHARS:
        return Submission(
            None, "too_long", f"{len(text):,} characters, over {MAX_SUBMISSION_CHARS:,}: not read"
        )
    blocks = _FENCE.findall(text)
    if not blocks:
        return Submission(None, "no_block", "no fenced block marked json")
    try:
        value = json.loads(blocks[-1])
    except ValueError as exc:
        return Submission(None, "not_json", f"the last json block is not JSON ({exc})")
    try:
        return Submission(parse_task(value), None, "parsed")
    except TaskError as exc:
        return Submission(None, "schema", str(exc))
