"""Writing a site's files, for every arena: counted, byte-deterministic, the signer's names kept free."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from colosseum_core.trust.bundle import ARENA_PEM, ENVELOPE_NAME, MANIFEST_NAME

# Written by the signer (``trust.bundle.sign_bundle``) after the build, never by a builder.
RESERVED: Final = frozenset({MANIFEST_NAME, ENVELOPE_NAME, ARENA_PEM})


class SiteWriter:
    """Writes files under ``root`` and counts them; refuses the signer's names."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = 0
        self.bytes = 0

    def write(self, relative: str, data: bytes | str) -> None:
        if relative in RESERVED:
            raise ValueError(f"{relative} is written by the signer, not the board builder")
        body = data.encode() if isinstance(data, str) else data
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
        self.files += 1
        self.bytes += len(body)


def json_bytes(document: Any) -> bytes:
    """A JSON document as a site publishes it: keys sorted, one value a line, no NaN, UTF-8."""
    return (
        json.dumps(document, ensure_ascii=False, sort_keys=True, indent=1, allow_nan=False) + "\n"
    ).encode()


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def table_json_bytes(document: Any) -> bytes:
    """JSON with one table row per line: objects indented, a list of lists one inner list a line."""

    def dump(value: Any, depth: int) -> str:
        pad, inner = " " * depth, " " * (depth + 1)
        if isinstance(value, dict) and value:
            items = (
                f"{inner}{json.dumps(k, ensure_ascii=False)}: {dump(value[k], depth + 1)}"
                for k in sorted(value)
            )
            return "{\n" + ",\n".join(items) + f"\n{pad}}}"
        if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
            return "[\n" + ",\n".join(inner + compact_json(v) for v in value) + f"\n{pad}]"
        return compact_json(value)

    return (dump(document, 0) + "\n").encode()
