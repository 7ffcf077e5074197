"""How every published value is written, for every arena: one function per kind of value, shared by the
builder and the re-check.

A re-check reads each ``data-table``/``data-id``/``data-field`` element of the built pages back,
looks the row up in the record and writes the record's value with the arena's ``FieldFormats``; the
text must match exactly. So a value is only ever turned into text here.

A field named ``column.key`` reads ``key`` of the JSON object stored as text in ``column``; a field of
several names separated by spaces (``call confidence``) is each value's text, joined by one space.

Text from outside (an exchange's questions and rules, model replies, errors, model names) reaches
the pages through ``escape_html`` only, which shows every code point that would not show, or that
changes how text around it is laid out, as a visible escape (``hidden`` says which); ``page_parse``
reads the escape back as the code point it stands for, so the check compares the record's exact text.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import html
import json
import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Final

NULL: Final = "—"
# The attribute a page states the status of what it shows in (a partition sealed or missed, …), on an
# element outside any compact table, so that the re-check can hold the statement to the record.
STATUS_ATTR: Final = "data-partition-status"

Formatter = Callable[[Any], str]


def text(value: Any) -> str:
    return NULL if value is None else str(value)


def integer(value: Any) -> str:
    return NULL if value is None else str(int(value))


def signed(value: Any) -> str:
    """A tally whose sign is the point (+3, -2, 0)."""
    if value is None:
        return NULL
    return "0" if value == 0 else f"{int(value):+d}"


def fixed(digits: int, *, plus: bool = False) -> Formatter:
    def write(value: Any) -> str:
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return NULL
        return f"{value:+.{digits}f}" if plus else f"{value:.{digits}f}"

    return write


def price(value: Any) -> str:
    """Dollars; prices are whole half-micro-dollars, so seven decimals hold any of them exactly."""
    if value is None:
        return NULL
    written = f"{value:.7f}".rstrip("0")
    return written + "0" if written.endswith(".") else written


def money(value: Any) -> str:
    return NULL if value is None else f"${value:,.0f}"


def yes_no(value: Any) -> str:
    return NULL if value is None else ("yes" if value else "no")


def flag(word: str) -> Formatter:
    """A flag printed as its word when set (EARLY, BAD FORMATTING), a dash when not."""

    def write(value: Any) -> str:
        return word if value else NULL

    return write


def choice(when_true: str, when_false: str) -> Formatter:
    def write(value: Any) -> str:
        return NULL if value is None else (when_true if value else when_false)

    return write


def outcome(value: Any) -> str:
    """Settlement outcomes are 1 when YES settled, 0 when NO did."""
    return {1: "YES", 0: "NO"}.get(value, NULL) if value is not None else NULL


def instant(value: Any) -> str:
    """UTC instants as the record's identifiers write them: ISO 8601 with Z."""
    if value is None:
        return NULL
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    return str(value)


def day(value: Any) -> str:
    return NULL if value is None else value.isoformat() if isinstance(value, dt.date) else str(value)


def sequence(value: Any) -> str:
    if value is None:
        return NULL
    return ", ".join(str(v) for v in value) if len(value) else NULL


def json_value(value: Any) -> str:
    """A value inside a JSON column: strings as they are (OMITTED), numbers as JSON writes them."""
    if value is None:
        return NULL
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {json_value(v)}" for k, v in value.items()) or NULL
    if isinstance(value, list | tuple):
        return "; ".join(json_value(v) for v in value) or NULL
    return json.dumps(value)


def general(value: Any) -> str:
    """Fields without a kind of their own, by the type of the value."""
    if value is None:
        return NULL
    if isinstance(value, str):  # the most common, first
        return value
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, int):
        return integer(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dt.datetime):
        return instant(value)
    if isinstance(value, dt.date):
        return day(value)
    if isinstance(value, list | tuple):
        return sequence(value)
    return str(value)


@dataclasses.dataclass(frozen=True)
class FieldFormats:
    """How an arena writes its fields: a kind of value per field name and, where one name means
    different things in different tables, per (table, field). Any other field is written by the type
    of its value (``general``); a field ``column.key`` is a key of a JSON-text column (``json_value``)."""

    by_field: Mapping[str, Formatter]
    by_table_field: Mapping[tuple[str, str], Formatter] = dataclasses.field(default_factory=dict)

    def formatter(self, table: str, field: str) -> Formatter:
        if "." in field:
            return json_value
        return self.by_table_field.get((table, field)) or self.by_field.get(field) or general

    def format_field(self, table: str, field: str, row: Mapping[str, Any]) -> str:
        """The text of ``field`` of ``row``; several fields separated by spaces are joined by one space."""
        if " " in field:
            return " ".join(self.formatter(table, f)(field_value(row, f)) for f in field.split(" "))
        return self.formatter(table, field)(field_value(row, field))


def field_value(row: Mapping[str, Any], field: str) -> Any:
    """The value of ``field`` in ``row``; ``column.key`` reads a key of a JSON-text column."""
    column, _, key = field.partition(".")
    value = row[column]
    if not key:
        return value
    if value is None:
        return None
    document = json.loads(value) if isinstance(value, str) else value
    return document.get(key) if isinstance(document, Mapping) else None


def plain(value: Any) -> Any:
    """A record value as JSON: the same mapping the row identifiers use (RFC 8785 input)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dt.datetime):
        return instant(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --- text from outside, on a page ------------------------------------------------------------------------

# Other (controls, format characters such as the bidirectional and zero-width ones, surrogates, private
# use, unassigned and noncharacters) and the line and paragraph separators: what a reader cannot see,
# or sees laid out other than the record says. By category, so a format character added to Unicode is
# hidden without a list to update ("unassigned" is as of this Python's ``unicodedata.unidata_version``:
# a character newer than that shows as its escape until Python knows it). TAB is hidden too: a cell
# collapses it into one space and the packet shows it as spaces, so a reader could not tell which bytes
# were sent; the arena writes none itself.
HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# LF is how the packet and the rules are laid out; a page shows it as a line break or a space.
SHOWN_CONTROLS: Final = frozenset("\n")
# Default-ignorable code points that Unicode files as letters or marks, so no category finds them,
# yet that draw nothing. (Variation selectors are left to choose the look of the character before them,
# emoji above all.)
INVISIBLE: Final = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")
CODE_POINT_CLASS: Final = "cp"
# Controls have no character names, only aliases (NameAliases.txt): C0 from U+0000, then DEL, then C1.
_C0: Final = (
    "NULL",
    "START OF HEADING",
    "START OF TEXT",
    "END OF TEXT",
    "END OF TRANSMISSION",
    "ENQUIRY",
    "ACKNOWLEDGE",
    "ALERT",
    "BACKSPACE",
    "CHARACTER TABULATION",
    "LINE FEED",
    "LINE TABULATION",
    "FORM FEED",
    "CARRIAGE RETURN",
    "SHIFT OUT",
    "SHIFT IN",
    "DATA LINK ESCAPE",
    "DEVICE CONTROL ONE",
    "DEVICE CONTROL TWO",
    "DEVICE CONTROL THREE",
    "DEVICE CONTROL FOUR",
    "NEGATIVE ACKNOWLEDGE",
    "SYNCHRONOUS IDLE",
    "END OF TRANSMISSION BLOCK",
    "CANCEL",
    "END OF MEDIUM",
    "SUBSTITUTE",
    "ESCAPE",
    "INFORMATION SEPARATOR FOUR",
    "INFORMATION SEPARATOR THREE",
    "INFORMATION SEPARATOR TWO",
    "INFORMATION SEPARATOR ONE",
)
_C1: Final = (
    "PADDING CHARACTER",
    "HIGH OCTET PRESET",
    "BREAK PERMITTED HERE",
    "NO BREAK HERE",
    "INDEX",
    "NEXT LINE",
    "START OF SELECTED AREA",
    "END OF SELECTED AREA",
    "CHARACTER TABULATION SET",
    "CHARACTER TABULATION WITH JUSTIFICATION",
    "LINE TABULATION SET",
    "PARTIAL LINE FORWARD",
    "PARTIAL LINE BACKWARD",
    "REVERSE LINE FEED",
    "SINGLE SHIFT TWO",
    "SINGLE SHIFT THREE",
    "DEVICE CONTROL STRING",
    "PRIVATE USE ONE",
    "PRIVATE USE TWO",
    "SET TRANSMIT STATE",
    "CANCEL CHARACTER",
    "MESSAGE WAITING",
    "START OF GUARDED AREA",
    "END OF GUARDED AREA",
    "START OF STRING",
    "SINGLE GRAPHIC CHARACTER INTRODUCER",
    "SINGLE CHARACTER INTRODUCER",
    "CONTROL SEQUENCE INTRODUCER",
    "STRING TERMINATOR",
    "OPERATING SYSTEM COMMAND",
    "PRIVACY MESSAGE",
    "APPLICATION PROGRAM COMMAND",
)
# Everything but printable ASCII and LF: the only characters ``hidden`` needs to look at one by one.
_CANDIDATE: Final = re.compile("[^\n\x20-\x7e]")
_INVISIBLE_SEARCH: Final = re.compile("[" + "".join(sorted(INVISIBLE)) + "]")


@functools.cache
def hidden(char: str) -> bool:
    """Whether a page shows ``char`` as its escape rather than as itself."""
    if char in SHOWN_CONTROLS:
        return False
    return unicodedata.category(char) in HIDDEN_CATEGORIES or char in INVISIBLE


def has_hidden(text: str) -> bool:
    # ``isprintable`` is false for exactly the hidden categories, LF and spaces other than U+0020, and
    # runs in C: almost every text is settled by it without a look at one character.
    flat = text.replace("\n", " ") if "\n" in text else text
    if flat.isprintable():
        return not flat.isascii() and _INVISIBLE_SEARCH.search(flat) is not None
    return any(hidden(m.group()) for m in _CANDIDATE.finditer(flat))


def hidden_in(text: str) -> list[str]:
    """The distinct hidden code points of ``text``, in the order they first occur."""
    if not has_hidden(text):
        return []
    return list(dict.fromkeys(c for c in _CANDIDATE.findall(text) if hidden(c)))


def code_point_label(char: str) -> str:
    """U+202E: how Unicode writes a code point, and what a page shows for a hidden one."""
    return f"U+{ord(char):04X}"


def code_point_title(char: str) -> str:
    """The label and the name (U+202E RIGHT-TO-LEFT OVERRIDE), or what the code point is if unnamed."""
    point = ord(char)
    if point < 0x20:
        name = _C0[point]
    elif point == 0x7F:
        name = "DELETE"
    elif 0x80 <= point <= 0x9F:
        name = _C1[point - 0x80]
    else:
        category = unicodedata.category(char)
        if category == "Cs":
            name = "surrogate"
        elif category == "Co":
            name = "private use"
        elif category == "Cn":
            noncharacter = 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE
            name = "noncharacter" if noncharacter else "unassigned"
        else:
            name = unicodedata.name(char, "")
    return f"{code_point_label(char)} {name}".rstrip()


def label_code_point(label: str) -> str | None:
    """The hidden code point a label written by ``escape_html`` stands for (None if it is none)."""
    if not label.startswith("U+"):
        return None
    try:
        point = int(label[2:], 16)
    except ValueError:
        return None
    if not 0 <= point <= 0x10FFFF:
        return None
    char = chr(point)
    # Only the one way ``code_point_label`` writes it: U+202E, never U+202e, U+0202E or U+_202E.
    return char if hidden(char) and code_point_label(char) == label else None


@functools.cache
def _element_form(char: str) -> str:
    if not hidden(char):
        return char
    # A styled element, not text: the label can never be mistaken for the same letters in the record,
    # by the check (which reads the element back as the code point) or by a reader (it is boxed).
    return (
        f'<span class="{CODE_POINT_CLASS}" title="{code_point_title(char)}">{code_point_label(char)}</span>'
    )


@functools.cache
def _attribute_form(char: str) -> str:
    return code_point_label(char) if hidden(char) else char


def escape_html(value: object, *, attribute: bool = False) -> str:
    """``value`` as HTML text: markup characters escaped, every hidden code point shown as its escape.

    In element content a hidden code point becomes ``<span class="cp" title="U+202E RIGHT-TO-LEFT
    OVERRIDE">U+202E</span>``; with ``attribute`` (an attribute value, or ``<title>``, where no element
    can go) it becomes the bare label. A character reference would not do in either place: a browser
    turns it back into the very code point.
    """
    text = html.escape(str(value), quote=True)
    if not has_hidden(text):
        return text
    form = _attribute_form if attribute else _element_form
    return _CANDIDATE.sub(lambda m: form(m.group()), text)
