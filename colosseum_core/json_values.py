"""JSON text to Python values: exactly what ``json.loads`` gives, faster where that is safe.

Receipts are parsed several times a card (the copy, its re-check, the seal's re-check), and Python's
own decoder was a third of the copy's time on a 50,000-market board. ``orjson`` decodes the same
text to the same values except in cases it either refuses (NaN and Infinity, a number beyond a
double, a lone surrogate, a byte order mark, other encodings than UTF-8, deep nesting) or, in one
case, reads differently without refusing: an integer beyond 64 bits becomes a float. So a text
holding a number token of 19 digits or more, or one ``orjson`` refuses, is handed to ``json.loads``
itself, and every value and every error is ``json.loads``'s own.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

# A number token's integer part of 19+ digits: a value starts after "[", ":", "," or at the top.
# Text inside strings may match too; that only sends the text to json.loads. Found without a regular
# expression, which took longer than the decoding: every digit masked to "0", each run of 19 found
# by a plain search, and what stands before it read. Text is tested as its UTF-8 bytes, where the
# ASCII digits, signs, spaces and punctuation are exactly where they are in the text.
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_RUN = b"0" * 19
_DIGIT_RUN = re.compile(rb"0+")
_BEFORE_A_VALUE = frozenset(b"[:,")
_WHITESPACE = frozenset(b" \t\n\r")


def _may_hold_long_integer(data: bytes) -> bool:
    masked = data.translate(_DIGITS_TO_ZERO)
    at = masked.find(_RUN)
    while at != -1:
        before = at - 1
        if before >= 0 and data[before] == ord("-"):
            before -= 1
        while before >= 0 and data[before] in _WHITESPACE:
            before -= 1
        if before < 0 or data[before] in _BEFORE_A_VALUE:
            return True
        at = masked.find(_RUN, _DIGIT_RUN.match(masked, at).end())  # type: ignore[union-attr]
    return False


def loads(text: bytes | str) -> Any:
    """``json.loads(text)``: the same value, or the same exception."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    if not _may_hold_long_integer(data):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def loads_strings(text: bytes | str) -> Any:
    """``json.loads(text)`` for a document whose bulk is strings: a receipt (its body is one long
    string), a list of outcomes.

    ``loads`` masks every byte to find long integers, which on a receipt is most of the reading's
    cost. Here ``orjson`` reads first and the value is walked instead: an integer it would read
    differently comes back as a float, so a value holding no float is ``json.loads``'s own. One
    holding any float, or a text ``orjson`` refuses, is read by ``loads``.
    """
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return loads(text)
    return loads(text) if _holds_float(value) else value


def _holds_float(value: Any) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is float:
            return True
        if kind is dict:
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
    return False
