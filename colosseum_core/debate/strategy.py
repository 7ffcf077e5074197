"""A miner's strategy: what its commitment says (COMPELLE-STRATEGY-1), and the text it resolves to.

A commitment is a **gist pointer** or **inline text**. A pointer names a gist and must name a
revision, so the text behind it cannot change:

* ``gist:<id>@<sha>`` or ``https://gist.github.com/<user>/<id>/<sha>``: pinned;
* ``gist:<id>`` or ``https://gist.github.com/<user>/<id>``: unpinned, and rejected.

Anything else is the strategy itself. Either way the strategy is UTF-8 text of at most
``MAX_STRATEGY_BYTES`` bytes, not empty, with no control characters but tab and line breaks; a
pinned gist holds exactly one file, and a file GitHub returned truncated is rejected (the text
behind it is not all there). A strategy's identity, and its rating's key, is the SHA-256 of its
bytes: editing the text, or pointing at a new revision with other text, makes a new strategy.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import unicodedata
from typing import Final

from colosseum_core.chain.ledger import GistRevision

MAX_STRATEGY_BYTES: Final = 32_768
INLINE, PINNED, UNPINNED = "inline", "pinned", "unpinned"

_GIST_ID = r"[0-9a-f]{20,40}"
_SHA = r"[0-9a-f]{40}"
_PINNED: Final = (
    re.compile(rf"gist:(?P<id>{_GIST_ID})@(?P<sha>{_SHA})"),
    re.compile(rf"https://gist\.github\.com/[A-Za-z0-9-]+/(?P<id>{_GIST_ID})/(?P<sha>{_SHA})/?"),
)
_UNPINNED: Final = (
    re.compile(rf"gist:(?P<id>{_GIST_ID})"),
    re.compile(rf"https://gist\.github\.com/[A-Za-z0-9-]+/(?P<id>{_GIST_ID})/?"),
)
_ALLOWED_CONTROLS: Final = frozenset("\t\n\r")


@dataclasses.dataclass(frozen=True)
class Pointer:
    """What a commitment says: inline text, or a gist and (pinned) its revision."""

    kind: str
    gist_id: str | None = None
    sha: str | None = None


def read_commitment(data: str) -> Pointer:
    """The pointer a commitment's text makes (never raises: anything that is not a pointer is inline)."""
    text = data.strip()
    for pattern in _PINNED:
        if m := pattern.fullmatch(text):
            return Pointer(PINNED, m["id"], m["sha"])
    for pattern in _UNPINNED:
        if m := pattern.fullmatch(text):
            return Pointer(UNPINNED, m["id"])
    return Pointer(INLINE)


def text_problem(text: str, where: str) -> str | None:
    """Why ``text`` cannot be a strategy (None if it can), naming ``where`` it came from and the offset."""
    if not text.strip():
        return f"{where}: the strategy is empty"
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > MAX_STRATEGY_BYTES:
        return f"{where}: {size:,} bytes; a strategy is at most {MAX_STRATEGY_BYTES:,} bytes of text"
    for offset, char in enumerate(text):
        if char in _ALLOWED_CONTROLS:
            continue
        category = unicodedata.category(char)
        if category in ("Cc", "Cs"):
            code = f"U+{ord(char):04X}"
            return f"{where}: character {offset} is {code}, a control or lone surrogate; a strategy is text"
    return None


def gist_text(revision: GistRevision) -> tuple[str | None, str | None]:
    """(the strategy a pinned gist revision holds, or None; why not, or None)."""
    where = f"gist {revision.gist_id} revision {revision.sha}"
    if len(revision.files) != 1:
        names = ", ".join(f.filename for f in revision.files) or "none"
        return None, f"{where}: holds {len(revision.files)} files ({names}); a strategy gist holds one"
    file = revision.files[0]
    if file.truncated:
        return None, (
            f"{where} file {file.filename}: truncated by GitHub ({file.size:,} bytes); "
            f"a strategy is at most {MAX_STRATEGY_BYTES:,} bytes"
        )
    return file.content, text_problem(file.content, f"{where} file {file.filename}")


def strategy_hash(text: str) -> str:
    """The strategy's identity: SHA-256 of its UTF-8 bytes, hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
