"""json_values.loads is json.loads: the same value and type, or the same exception, for any text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from colosseum_core import json_values

CASES = [
    b'{"a":1,"b":2,"a":3}',  # a repeated key: the last value, the first position
    b"18446744073709551616",  # beyond 64 bits: orjson would read a float
    b"-9223372036854775809",
    b'{"id": 123456789012345678901234567890}',
    b"[1, -12345678901234567890]",
    b'"12345678901234567890"',  # a long number in a string is a string either way
    b"9223372036854775807",
    b"1E400",  # beyond a double: json reads inf, orjson refuses
    b"NaN",
    b"[Infinity, -Infinity]",
    b'"\\ud800"',  # a lone surrogate
    b"\xef\xbb\xbf{}",  # a byte order mark
    b"-0",
    b"-0.0",
    b"5e-324",
    b"1.00000000000000011102230246251565404236316680908203125",
    b" [1] ",
    b'"\xc3\xa9\\u202e"',
    b'{"body": "[1, 2]", "status": 18446744073709551616}',  # a long integer beside long strings
    b'{"body": "x", "size": [1.5, {"a": 2}]}',
]
BAD = [b"", b"{", b"[1,]", b"01", b'"\x00"', b"\xff", b"[1] x", b'{"a" 1}']


def _outcome(text: bytes | str) -> Any:
    try:
        value = json.loads(text)
    except Exception as exc:
        return ("raises", type(exc))
    return ("value", repr(value), _types(value))


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_types(item) for item in value]
    return type(value).__name__


READERS = [json_values.loads, json_values.loads_strings]


def _ours(text: bytes | str, read: Any = json_values.loads) -> Any:
    try:
        value = read(text)
    except Exception as exc:
        return ("raises", type(exc))
    return ("value", repr(value), _types(value))


@pytest.mark.parametrize("read", READERS)
@pytest.mark.parametrize("text", CASES + BAD)
def test_every_reading_and_refusal_is_json_loads_own(text: bytes, read: Any) -> None:
    assert _ours(text, read) == _outcome(text)
    assert _ours(text.decode("utf-8", "replace"), read) == _outcome(text.decode("utf-8", "replace"))


_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


@given(_values, st.sampled_from([None, 2]), st.booleans())
def test_any_json_text_reads_as_json_loads_reads_it(value: Any, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    encoded = text.encode("utf-8", "surrogatepass")
    for read in READERS:
        assert _ours(text, read) == _outcome(text)
        assert _ours(encoded, read) == _outcome(encoded)
