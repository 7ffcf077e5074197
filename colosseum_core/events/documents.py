"""The committed JSON documents an event freezes from (the chess event's opening suite, the
Solve-or-Object bank): read, checked for their format and for the non-empty list they hold, with
errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_document(
    path: Path, what: str, format: str, items: str, error: type[Exception]
) -> tuple[bytes, dict[str, Any], list[Any]]:
    """The bytes of the ``what`` (a suite, a bank) at ``path``, its JSON object and the non-empty list
    it holds under ``items``; ``error`` naming the file when it cannot be read, is not JSON, is not of
    ``format`` or holds no such list."""
    where = f"{what} {path}"
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"{where}: cannot be read ({exc.strerror or exc})") from None
    try:
        document = json.loads(data)
    except ValueError as exc:
        raise error(f"{where}: not JSON ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != format:
        raise error(f"{where}: format is not {format!r}")
    listed = document.get(items)
    if not isinstance(listed, list) or not listed:
        raise error(f"{where}: {items} is not a non-empty list")
    return data, document, listed
