"""SOO-PROMPT-1: what a contender is shown for one item, published verbatim.

One user message per item, the same bytes for every contender: the rules of the event, the reply
format, then the problem fenced between two marker lines that carry a nonce made from the item's
statement, so that no statement can close its own fence. Nothing says whether the item is sound.
"""

from __future__ import annotations

import hashlib
from typing import Final

from colosseum_core.events.solve_or_object.bank import Item

PROMPT_TEMPLATE: Final = """\
You are given one problem. It is either sound (well posed, with exactly one answer in the form it \
asks for) or defective: its conditions contradict each other (contradiction), it lacks information \
or admits several answers (missing_or_non_unique), it rests on something false (false_premise), or \
it asks for a kind of answer that cannot describe the answer (ill_typed).

Solve it, object to it, or abstain. A correct answer to a sound problem scores +1; an objection \
that names a defective problem's class and quotes the words at fault scores +1; abstaining scores \
0; anything else (a wrong answer, an objection to a sound problem, an answer to a defective one, \
an objection with the wrong class or the wrong words, a reply that cannot be read) scores -1. \
Whatever you choose, also give your probability, in percent, that the problem is defective: it is \
scored by the Brier score.

End your reply with these lines, exactly as shown, each on its own line:
VERDICT: ANSWER, OBJECT or ABSTAIN
ANSWER: your answer, on one line, in the form the problem asks for (only with VERDICT: ANSWER)
DEFECT: contradiction, missing_or_non_unique, false_premise or ill_typed (only with VERDICT: OBJECT)
SPAN: "the exact words of the problem that are at fault, quoted" (only with VERDICT: OBJECT)
P_DEFECTIVE: a whole number from 0 to 100

The problem (answer type: {answer_type}) is between the two lines that carry the mark {nonce}:
--- PROBLEM {nonce} ---
{statement}
--- END OF PROBLEM {nonce} ---
"""


def nonce(statement: str) -> str:
    return hashlib.sha256(statement.encode("utf-8")).hexdigest()[:12]


def item_prompt(item: Item) -> str:
    return PROMPT_TEMPLATE.format(
        answer_type=item.answer_type, nonce=nonce(item.statement), statement=item.statement
    )


def prompt_sha256(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()
