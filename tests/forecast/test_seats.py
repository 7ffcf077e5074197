"""The seat registry: thirteen seats, appended history, house gladiators without keys."""

from __future__ import annotations

import datetime as dt
import tomllib

import pytest

from colosseum_core.forecast.answering.seats import (
    DEFAULT_REGISTRY,
    SeatRegistryError,
    assign,
    load_seats,
    parse_seats,
)

SPARRING = "http://127.0.0.1:9999"


def test_the_registry_in_the_repository_is_valid():
    seats = load_seats()
    assert len(seats) == 13
    companies = [s.company for s in seats]
    assert any(companies.count(c) == 2 for c in companies)  # some companies hold two seats
    assert {g.protocol for s in seats for g in s.gladiators} == {"openai", "anthropic", "gemini"}


def test_without_keys_every_seat_is_a_house_gladiator_on_the_sparring_server():
    day = dt.date(2026, 11, 29)
    for seat in load_seats():
        got = assign(seat, day, {}, SPARRING)
        assert got is not None and got.house and got.base_url == SPARRING and got.model.startswith("house-")


def test_a_key_in_the_environment_puts_the_real_gladiator_in_the_seat():
    seat = next(s for s in load_seats() if s.id == "openai-flagship")
    got = assign(seat, dt.date(2026, 11, 29), {"OPENAI_API_KEY": "sk-test"}, SPARRING)
    assert got is not None and not got.house and got.base_url == "https://api.openai.com"
    assert got.api_key == "sk-test" and got.model == "gpt-5"


def _document() -> dict:
    with DEFAULT_REGISTRY.open("rb") as fh:
        return tomllib.load(fh)


def test_a_replacement_takes_the_seat_on_its_date_and_the_record_continues():
    doc = _document()
    doc["seats"][0]["gladiators"].append(
        {
            "since": dt.date(2026, 12, 1),
            "protocol": "openai",
            "model": "gpt-6",
            "base_url": "https://x",
            "key_env": "K",
        }
    )
    seat = parse_seats(doc)[0]
    assert seat.gladiator_on(dt.date(2026, 11, 30)).model == "gpt-5"
    assert seat.gladiator_on(dt.date(2026, 12, 1)).model == "gpt-6"
    assert seat.gladiator_on(dt.date(2025, 12, 31)) is None


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["seats"].pop(), "13 seats"),
        (lambda d: d["seats"][1].update(id=d["seats"][0]["id"]), "repeat"),
        (lambda d: d["seats"][2]["gladiators"][0].update(protocol="grpc"), "protocol"),
        (
            lambda d: d["seats"][3]["gladiators"].insert(0, dict(d["seats"][3]["gladiators"][0])),
            "strictly increase",
        ),
        (lambda d: d["seats"][4].update(first_day="soon"), "not a date"),
        (lambda d: d.update(registry="v0"), "registry"),
    ],
)
def test_broken_registries_are_refused_naming_the_problem(mutate, message):
    doc = _document()
    mutate(doc)
    with pytest.raises(SeatRegistryError, match=message):
        parse_seats(doc)


def test_a_gladiator_named_by_its_model_resolves_as_its_spelled_out_form():
    doc = _document()
    named = doc["seats"][0]["gladiators"][0]
    assert named == {"since": dt.date(2026, 1, 1), "model": "openai/gpt-5"}
    spelled = dict(
        named, protocol="openai", model="gpt-5", base_url="https://api.openai.com", key_env="OPENAI_API_KEY"
    )
    assert (
        parse_seats(doc)[0]
        == parse_seats({**doc, "seats": [dict(doc["seats"][0], gladiators=[spelled]), *doc["seats"][1:]]})[0]
    )


@pytest.mark.parametrize(
    ("gladiator", "said"),
    [
        (
            {"model": "acme/x"},
            "seat openai-flagship: gladiator since 2026-01-01: model name: provider 'acme' is not one of",
        ),
        ({"model": "gpt-5"}, "'gpt-5' is not provider/model"),
        ({"model": 7}, "field model: expected a model's name (e.g. openai/gpt-5.1), got 7"),
        (
            {"model": "openai/x", "base_url": "http://127.0.0.1:8000/v1"},
            "'openai/x' has no key variable (key_env)",
        ),
    ],
)
def test_a_bad_model_name_is_refused_naming_the_seat(gladiator, said):
    doc = _document()
    doc["seats"][0]["gladiators"] = [{"since": dt.date(2026, 1, 1), **gladiator}]
    with pytest.raises(SeatRegistryError) as caught:
        parse_seats(doc)
    assert said in str(caught.value)
