"""The seats: thirteen permanent positions, each a company's model line, and who fills each one.

The registry is ``seats.toml`` at the repository root (COLOSSEUM-SEATS-1). A seat's record
continues across gladiators; the gladiator in the seat on a date is the latest one whose ``since``
is on or before that date. A seat whose gladiator has no key in the environment is filled by its
house gladiator on the local sparring server, and a card answered by any house gladiator is
CALIBRATION.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

SEATS_REGISTRY = "COLOSSEUM-SEATS-1"
SEAT_COUNT = 13
PROTOCOLS = ("openai", "anthropic", "gemini")
DEFAULT_REGISTRY = Path(__file__).resolve().parents[3] / "seats.toml"
_SEAT_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class SeatRegistryError(ValueError):
    """The registry breaks one of its rules; the message names the seat and the field."""


@dataclasses.dataclass(frozen=True)
class Gladiator:
    since: dt.date
    protocol: str
    model: str
    base_url: str
    key_env: str


@dataclasses.dataclass(frozen=True)
class Seat:
    id: str
    company: str
    line: str
    first_day: dt.date
    house: str
    gladiators: tuple[Gladiator, ...]

    def gladiator_on(self, day: dt.date) -> Gladiator | None:
        """The gladiator holding the seat on ``day``, or None before the seat's first gladiator."""
        holding = [g for g in self.gladiators if g.since <= day]
        return holding[-1] if holding else None


@dataclasses.dataclass(frozen=True)
class SeatAssignment:
    """Who answers for a seat on a card: its gladiator with a key, or its house gladiator."""

    seat: str
    protocol: str
    model: str
    base_url: str
    api_key: str | None
    house: bool


def _date(seat: str, field: str, value: object) -> dt.date:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    raise SeatRegistryError(f"seat {seat}: {field} = {value!r} is not a date (write it as 2026-01-01)")


def parse_seats(document: Mapping[str, object]) -> tuple[Seat, ...]:
    if document.get("registry") != SEATS_REGISTRY:
        raise SeatRegistryError(f"registry = {document.get('registry')!r}, expected {SEATS_REGISTRY!r}")
    seats: list[Seat] = []
    for raw in document.get("seats", []):  # type: ignore[union-attr]
        seat_id = str(raw.get("id"))
        if not _SEAT_ID.match(seat_id):
            raise SeatRegistryError(f"seat id {seat_id!r} must match {_SEAT_ID.pattern}")
        first_day = _date(seat_id, "first_day", raw.get("first_day"))
        gladiators = []
        for entry in raw.get("gladiators", []):
            protocol = entry.get("protocol")
            if protocol not in PROTOCOLS:
                raise SeatRegistryError(f"seat {seat_id}: protocol = {protocol!r} is not one of {PROTOCOLS}")
            gladiators.append(
                Gladiator(
                    since=_date(seat_id, "since", entry.get("since")),
                    protocol=protocol,
                    model=str(entry["model"]),
                    base_url=str(entry["base_url"]).rstrip("/"),
                    key_env=str(entry["key_env"]),
                )
            )
        if not gladiators:
            raise SeatRegistryError(f"seat {seat_id}: no gladiator")
        dates = [g.since for g in gladiators]
        if dates != sorted(set(dates)) or dates[0] != first_day:
            raise SeatRegistryError(
                f"seat {seat_id}: gladiators' since dates {[d.isoformat() for d in dates]} must start on "
                f"first_day {first_day.isoformat()} and strictly increase (history is appended, never edited)"
            )
        seats.append(
            Seat(
                id=seat_id,
                company=str(raw["company"]),
                line=str(raw["line"]),
                first_day=first_day,
                house=str(raw["house"]),
                gladiators=tuple(gladiators),
            )
        )
    ids = [s.id for s in seats]
    if len(set(ids)) != len(ids):
        raise SeatRegistryError(f"seat ids repeat: {sorted(i for i in ids if ids.count(i) > 1)}")
    if len(seats) != SEAT_COUNT:
        raise SeatRegistryError(f"the arena has {SEAT_COUNT} seats; the registry lists {len(seats)}")
    return tuple(seats)


def load_seats(path: Path = DEFAULT_REGISTRY) -> tuple[Seat, ...]:
    with path.open("rb") as fh:
        return parse_seats(tomllib.load(fh))


def assign(seat: Seat, day: dt.date, environ: Mapping[str, str], sparring_url: str) -> SeatAssignment | None:
    """Who answers for ``seat`` on ``day``; None if the seat has no gladiator yet."""
    gladiator = seat.gladiator_on(day)
    if gladiator is None:
        return None
    key = environ.get(gladiator.key_env) or None
    if key:
        return SeatAssignment(
            seat.id, gladiator.protocol, gladiator.model, gladiator.base_url, key, house=False
        )
    # No key, no network: the house gladiator speaks the seat's own protocol on the sparring server.
    return SeatAssignment(
        seat.id, gladiator.protocol, seat.house, sparring_url.rstrip("/"), "house", house=True
    )
