"""The guest model server: one name served over OpenAI's protocol, each prompt routed to a house
player on the real sparring server, over loopback HTTP; hostile requests refused in the protocol's
envelope."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from colosseum_standins.guest import GUEST_HEADER, build_app, config_of, parse_route, route_for
from colosseum_standins.loopback import running_app

NAME = "acme-7b"


@pytest.fixture(scope="module")
def guest(sparring_url: str) -> Iterator[str]:
    config = config_of(
        NAME,
        ["(?i)prime=house-solver", "(?i)chess|rain=house-coin", "nobody=house-nobody"],
        "house-hash",
        sparring_url,
        key=None,
    )
    with running_app(build_app(config)) as url:
        yield url


def ask(url: str, body: object, **headers: str) -> httpx.Response:
    return httpx.post(f"{url}/v1/chat/completions", json=body, headers=headers, timeout=30)


def chat(prompt: str, *, system: str | None = None, model: str = NAME, **more: object) -> dict[str, object]:
    messages = [{"role": "system", "content": system}] if system else []
    return {"model": model, "messages": [*messages, {"role": "user", "content": prompt}], **more}


def test_each_prompt_goes_to_the_first_route_it_matches_and_comes_back_under_the_guest_name(
    guest: str, sparring_url: str
) -> None:
    for prompt, house in (
        ("Name a PRIME number.", "house-solver"),
        ("Will it rain in Paris tomorrow?", "house-coin"),
        ("A prime chess puzzle", "house-solver"),  # both match: the first route wins
        ("Tell me a story.", "house-hash"),  # none: the default
    ):
        reply = ask(guest, chat(prompt))
        assert reply.status_code == 200, reply.text
        assert reply.headers[GUEST_HEADER] == house
        assert reply.json()["model"] == NAME
        direct = ask(sparring_url, chat(prompt, model=house), authorization="Bearer house").json()
        assert reply.json()["choices"] == direct["choices"]
    # The system turn is read too: a route can match the arena's instructions.
    assert ask(guest, chat("go", system="You play chess.")).headers[GUEST_HEADER] == "house-coin"
    status = httpx.get(f"{guest}/status").json()
    assert status["model"] == NAME and status["routed"]["house-solver"] >= 2
    assert httpx.get(f"{guest}/v1/models").json()["data"][0]["id"] == NAME


def test_bad_requests_are_refused_in_openai_s_envelope(guest: str) -> None:
    not_json = httpx.post(f"{guest}/v1/chat/completions", content=b"{not json", timeout=30)
    assert not_json.status_code == 400 and not_json.json()["error"]["type"] == "invalid_request_error"
    array = ask(guest, [1, 2])
    assert array.status_code == 400
    other = ask(guest, chat("hi", model="house-hash"))
    assert other.status_code == 404 and other.json()["error"]["code"] == "model_not_found"
    for messages in (None, [], "hello", [{"content": "no role"}], [{"role": "user", "content": {"x": 1}}]):
        refused = ask(guest, {"model": NAME, "messages": messages})
        assert refused.status_code == 400 and refused.json()["error"]["param"] == "messages", messages
    streaming = ask(guest, chat("hi", stream=True))
    assert streaming.status_code == 400
    assert streaming.json()["error"]["param"] == "stream" and "stream" in streaming.json()["error"]["message"]
    # The sparring server's own refusal (a house player it has not) comes back as it sent it.
    unknown = ask(guest, chat("ask nobody"))
    assert unknown.status_code == 404 and "house-nobody" in unknown.json()["error"]["message"]


def test_hostile_prompt_text_is_routed_as_text_and_forwarded_whole(guest: str) -> None:
    hostile = "\u202eprime\x1b[2J" + "a" * 50_000 + "\x00"
    reply = ask(guest, chat(hostile))
    assert reply.status_code == 200 and reply.headers[GUEST_HEADER] == "house-solver"
    parts = ask(
        guest, {"model": NAME, "messages": [{"role": "user", "content": [{"type": "text", "text": "rain"}]}]}
    )
    assert parts.status_code == 200 and parts.headers[GUEST_HEADER] == "house-coin"


def test_a_guest_with_a_key_refuses_a_request_without_it(sparring_url: str) -> None:
    config = config_of(NAME, [], "house-hash", sparring_url, key="sekret")
    with running_app(build_app(config)) as url:
        assert ask(url, chat("hi")).status_code == 401
        assert ask(url, chat("hi"), authorization="Bearer wrong").status_code == 401
        assert ask(url, chat("hi"), authorization="Bearer sekret").status_code == 200


def test_routes_and_names_are_checked_when_the_guest_is_configured() -> None:
    assert parse_route("a=b=house-x").pattern.pattern == "a=b"
    for bad in ("no-equals", "=house-x", "x=", "(unclosed=house-x"):
        with pytest.raises(ValueError, match="route"):
            parse_route(bad)
    with pytest.raises(ValueError, match="house player"):
        config_of("house-hash", [], "house-hash", "http://127.0.0.1:1")
    with pytest.raises(ValueError, match="not a model name"):
        config_of("bad name", [], "house-hash", "http://127.0.0.1:1")
    config = config_of(NAME, ["x=house-a"], "house-b", "http://127.0.0.1:1")
    assert route_for(config, "yyy") == "house-b" and route_for(config, "xx") == "house-a"
