"""The debate arena's prompts, published verbatim with a version and a pinned SHA-256.

* ``debater`` (COMPELLE-DEBATER-PROMPT-1) and ``judge`` (COMPELLE-JUDGE-PROMPT-1) are the method's
  own text, byte for byte; the method describes but does not quote the other three, written here:
* ``intent`` (COMPELLE-INTENT-PROMPT-1): the intent panel's question, told to default to GOOD;
* ``deliberation`` (COMPELLE-DELIBERATION-PROMPT-1): what a judge is told after a split, following
  its own first reading, with the other judge's verdict and reason;
* ``search`` (COMPELLE-SEARCH-PROMPT-1): the web search's question for the topic rotation (the
  method names "a Grok web-search query for trending controversies"), asking for debatable
  propositions as JSON, each with its context and citations.

A prompt is filled by one pass over its own placeholders (``{strategy}``, ``{topic}``, …) and no
others, so a value that itself contains ``{topic}`` is sent as written. A file whose bytes are not
the pinned ones is refused at load: the published prompt is the one sent.

Imported by: every part of the debate that sends a prompt (the entry's intent panel, the judges, the
games, the topics' search), its pages and the tests. It imports nothing of the arena.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
from collections.abc import Mapping
from importlib import resources
from typing import Final


@dataclasses.dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    sha256: str
    placeholders: tuple[str, ...]

    @functools.cached_property
    def text(self) -> str:
        raw = resources.files(__package__).joinpath(f"{self.name}.txt").read_bytes()
        found = hashlib.sha256(raw).hexdigest()
        if found != self.sha256:
            raise ValueError(
                f"prompt {self.name} ({self.version}): its file's SHA-256 is {found}, not the published "
                f"{self.sha256}; a changed prompt is a new version"
            )
        return raw.decode("utf-8")

    def render(self, values: Mapping[str, str]) -> str:
        """The prompt with each placeholder replaced by its value, in one pass."""
        missing = sorted(set(self.placeholders) - set(values))
        extra = sorted(set(values) - set(self.placeholders))
        if missing or extra:
            raise ValueError(
                f"prompt {self.name}: placeholders {list(self.placeholders)}; "
                f"missing {missing}, unknown {extra}"
            )
        pattern = re.compile("|".join(re.escape("{" + p + "}") for p in self.placeholders))
        return pattern.sub(lambda m: values[m.group(0)[1:-1]], self.text)


DEBATER: Final = Prompt(
    "debater",
    "COMPELLE-DEBATER-PROMPT-1",
    "8918410780c9ff985c14fba33475841bf80c1d9b036e8fcabe619de440a5c4c1",
    ("strategy", "date", "topic", "side", "context"),
)
JUDGE: Final = Prompt(
    "judge",
    "COMPELLE-JUDGE-PROMPT-1",
    "cbc9799d20bc4d42c2e7b45f42fd23e3dc86b2e3bca95f151188147e8b0499a0",
    ("topic", "transcript"),
)
INTENT: Final = Prompt(
    "intent",
    "COMPELLE-INTENT-PROMPT-1",
    "ce1b356e14318713ea545a8a0fd975d846bd10992e634b65576c2311dbf213d1",
    ("strategy",),
)
DELIBERATION: Final = Prompt(
    "deliberation",
    "COMPELLE-DELIBERATION-PROMPT-1",
    "c564b707ef36e8d4a0a0dafc988b629d762f48273af8aa527aa045bcedf881b9",
    ("other_verdict", "other_reason"),
)
SEARCH: Final = Prompt(
    "search",
    "COMPELLE-SEARCH-PROMPT-1",
    "2e47f2e126429d54fae0c236098d74302b19bddcadfe785b1bd2d51cb542a2f6",
    ("date",),
)
PROMPTS: Final = (DEBATER, JUDGE, INTENT, DELIBERATION, SEARCH)
