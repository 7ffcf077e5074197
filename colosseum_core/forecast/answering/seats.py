"""The seats: thirteen permanent positions, each a company's model line, and who fills each one.

The registry is ``seats.toml`` at the repository root (COLOSSEUM-SEATS-1); a gladiator names its
model as ``models.toml`` does (``model = "openai/gpt-5"``), resolved into its protocol, model id,
base URL and key variable. A seat's record
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
from typing import Any

from colosseum_core.providers.models import (
    ModelNameError,
    Registry,
    default_registry,
    named_model,
    names_a_model,
)

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


def _gladiator_model(seat: str, entry: Mapping[str, Any], registry: Registry) -> dict[str, str]:
    """A gladiator's protocol, model id, base URL and key variable: resolved from its model's name
    (``model = "openai/gpt-5"``, through ``models.toml``), or as spelled out (the form before names,
    an entry with a ``protocol``). A seat's gladiator is a provider's model, so it has a key variable."""
    where = f"seat {seat}: gladiator since {entry.get('since')}"
    if names_a_model(entry):
        try:
            ref = named_model(entry, where, registry)
        except ModelNameError as exc:
            raise SeatRegistryError(str(exc)) from None
        if ref.key_env is None:
            raise SeatRegistryError(
                f"{where}: {ref.name!r} has no key variable (key_env); a seat's model has one"
            )
        return {
            "protocol": ref.protocol,
            "model": ref.model,
            "base_url": ref.base_url,
            "key_env": ref.key_env,
        }
    protocol = entry.get("protocol")
    if protocol not in PROTOCOLS:
        raise SeatRegistryError(f"seat {seat}: protocol = {protocol!r} is not one of {PROTOCOLS}")
    return {
        "protocol": protocol,
        "model": str(entry["model"]),
        "base_url": str(entry["base_url"]).rstrip("/"),
        "key_env": str(entry["key_env"]),
    }


def parse_seats(document: Mapping[str, object], registry: Registry | None = None) -> tuple[Seat, ...]:
    """The seats of a registry's document; a gladiator's model name resolves through ``registry``
    (the project's ``models.toml`` by default)."""
    if document.get("registry") != SEATS_REGISTRY:
        raise SeatRegistryError(f"registry = {document.get('registry')!r}, expected {SEATS_REGISTRY!r}")
    seats: list[Seat] = []
    names = default_registry() if registry is None else registry
    for raw in document.get("seats", []):  # type: ignore[union-attr]
        seat_id = str(raw.get("id"))
        if not _SEAT_ID.match(seat_id):
            raise SeatRegistryError(f"seat id {seat_id!r} must match {_SEAT_ID.pattern}")
        first_day = _date(seat_id, "first_day", raw.get("first_day"))
        gladiators = []
        for entry in raw.get("gladiators", []):
            since = _date(seat_id, "since", entry.get("since"))
            gladiators.append(Gladiator(since=since, **_gladiator_model(seat_id, entry, names)))
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


def keyed_gladiators(
    seats: tuple[Seat, ...], day: dt.date, environ: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The gladiators who answer a card on ``day`` because their key is set (the card is FIGHT for
    them), as a card's check of its models asks them (``providers.check``), each by its seat."""
    keyed = []
    for seat in seats:
        gladiator = seat.gladiator_on(day)
        if gladiator is not None and environ.get(gladiator.key_env):
            fields = {k: getattr(gladiator, k) for k in ("protocol", "model", "base_url", "key_env")}
            keyed.append({"id": seat.id, **fields})
    return keyed
