"""Timestamp formats the real Gamma API uses, over integer UNIX seconds.

Gamma mixes formats: ISO-8601 with ``Z`` for most dates (``endDate``, ``createdAt`` with microseconds),
a POSTGRES text form for ``closedTime`` and ``gameStartTime`` (``"2026-08-14 21:00:00+00"``) and bare
dates for ``endDateIso``. Day strings are cached and times are
formatted arithmetically because these run tens of thousands of times per board.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

MINUTE = 60
HOUR = 3600
DAY = 86400


_EPOCH = date(1970, 1, 1)


@lru_cache(maxsize=8192)
def _day(days: int) -> str:
    return (_EPOCH + timedelta(days=days)).isoformat()


def _hms(rem: int) -> str:
    h, r = divmod(rem, 3600)
    return f"{h:02d}:{r // 60:02d}:{r % 60:02d}"


def iso_z(sec: int, micro: int = 0) -> str:
    days, rem = divmod(int(sec), DAY)
    base = f"{_day(days)}T{_hms(rem)}"
    if micro:
        # Gamma trims trailing zeros of the fraction ("2024-12-31T19:05:03.54Z").
        return f"{base}.{micro:06d}".rstrip("0") + "Z"
    return base + "Z"


def pg(sec: int) -> str:
    days, rem = divmod(int(sec), DAY)
    return f"{_day(days)} {_hms(rem)}+00"


def day_iso(sec: int) -> str:
    return _day(int(sec) // DAY)


def to_ts(at: datetime) -> int:
    """Whole UTC seconds of an aware datetime; naive datetimes are taken as UTC."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return int(at.timestamp() // 1)


def from_ts(sec: int) -> datetime:
    return datetime.fromtimestamp(sec, tz=UTC)


def parse_iso(text: str) -> int:
    """Parse an ISO-8601 instant as sent in query params or the as-of header.

    Accepts ``Z``, ``+00:00`` and other offsets, and a bare date (midnight UTC). ``+`` may arrive
    decoded as a space when a client forgets to percent-encode it, so a space before the offset is
    restored to ``+``.
    """
    s = text.strip()
    if not s:
        raise ValueError("empty date")
    if len(s) > 10 and s[-6] == " " and s[-3] == ":":
        s = s[:-6] + "+" + s[-5:]
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    dt = datetime.fromisoformat(s)
    return to_ts(dt)
