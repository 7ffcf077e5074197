"""Polymarket's timestamps, in every spelling Gamma publishes, read as UTC instants.

Gamma mixes ISO-8601 (``2026-03-11T09:29:01.328428Z``, fractions of any length), postgres text
(``2026-03-19 23:20:15+00``), the odd ``+00:00:00`` offset and bare dates (``2028-11-07``). One
strict reader accepts exactly those families and names the text it refused, so a new spelling is
noticed rather than guessed at.
"""

from __future__ import annotations

import datetime as dt
import functools
import re

_TIMESTAMP = re.compile(
    r"""
    (?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})
    (?:
        [Tt\x20]
        (?P<hour>\d{2}):(?P<minute>\d{2})
        (?::(?P<second>\d{2})(?:[.,](?P<fraction>\d+))?)?
        (?P<offset>
            [Zz]
            | (?P<sign>[+-])(?P<off_h>\d{2})
              (?: :(?P<off_m>\d{2})(?::(?P<off_s>\d{2}))? | (?P<off_m_compact>\d{2}) )?
        )
    )?
    """,
    # ASCII: \d would otherwise take any Unicode digit ("٢٠٢٦"), which int() happily reads.
    re.VERBOSE | re.ASCII,
)


def parse_timestamp(text: str) -> dt.datetime:
    """The UTC instant ``text`` names; ``ValueError`` naming ``text`` if it is not a Gamma timestamp.

    A date with a time must carry an offset: a naive wall time is ambiguous, and guessing UTC
    would silently move a market's end by hours if Gamma ever published local time. A bare date is
    the exception, because Gamma's ``*DateIso`` fields are dates of the UTC calendar.
    """
    if not isinstance(text, str):
        raise ValueError(f"timestamp {text!r} is not text")
    return _parse(text)


# A board repeats the same few end dates thousands of times, and the copy reads each text twice
# (to check it, then to store the instant); datetimes are immutable, so sharing them is safe.
@functools.lru_cache(maxsize=8192)
def _parse(text: str) -> dt.datetime:
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a timestamp Gamma publishes (ISO-8601, postgres text or a date)")
    parts = match.groupdict()
    try:
        if parts["hour"] is None:
            return dt.datetime(int(parts["year"]), int(parts["month"]), int(parts["day"]), tzinfo=dt.UTC)
        # datetime keeps microseconds; extra digits are truncated, never rounded, so an instant
        # can not be carried into the next second (or day) by rounding.
        fraction = (parts["fraction"] or "")[:6].ljust(6, "0")
        value = dt.datetime(
            int(parts["year"]),
            int(parts["month"]),
            int(parts["day"]),
            int(parts["hour"]),
            int(parts["minute"]),
            int(parts["second"] or 0),
            int(fraction),
            tzinfo=_offset(parts),
        )
        return value.astimezone(dt.UTC)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"{text!r} is not a valid timestamp: {exc}") from exc


def _offset(parts: dict[str, str | None]) -> dt.tzinfo:
    if parts["sign"] is None:
        return dt.UTC
    hours = int(parts["off_h"] or 0)
    minutes = int(parts["off_m"] or parts["off_m_compact"] or 0)
    seconds = int(parts["off_s"] or 0)
    if hours > 23 or minutes > 59 or seconds > 59:
        raise ValueError("offset out of range")
    delta = dt.timedelta(hours=hours, minutes=minutes, seconds=seconds)
    return dt.timezone(-delta if parts["sign"] == "-" else delta)


def format_timestamp(value: dt.datetime) -> str:
    """``value`` as Gamma's own ISO spelling in UTC: ``2026-11-30T05:00:00Z`` (fraction only if any)."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: pass an aware (UTC) instant")
    utc = value.astimezone(dt.UTC)
    spec = "microseconds" if utc.microsecond else "seconds"
    return utc.replace(tzinfo=None).isoformat(timespec=spec) + "Z"
