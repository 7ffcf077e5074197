"""The house search: a stand-in for a live-search chat call (xAI's Grok with ``search_parameters``).

The arena asks a search model for the day's trending controversies to debate. The request is an
OpenAI chat completion (``POST /v1/chat/completions``) whose body carries xAI's
``"search_parameters": {"mode": "on", "return_citations": true, "max_search_results": N}``; the reply
is the ordinary chat-completion shape plus xAI's top-level ``"citations": [url, …]`` (and
``usage.num_sources_used``). Only the OpenAI protocol has this model, as only an OpenAI-compatible
API has live search; the server answers its names on the other two with their 404.

``house-search[-sN]``: the message content is a JSON object
``{"controversies": [{"motion", "context", "citations": [url, …]}, …]}`` of four to six items, a
pure function of SHA-256 over the model name and the date: the ``TODAY'S DATE: YYYY-MM-DD`` line of
the conversation (the first one found), else the server clock's date. Motions are debatable
propositions ("Cities should ban …"); contexts speak only of unnamed reports and debates, never of
real people or numbers; citations are fictional URLs on the reserved example domains
(``https://news.example.org/2026/12/01/…``, RFC 2606). One item is always a near-duplicate: the same
story as another item from another outlet, its motion worded a little differently, as a real search
returns it, so the caller's de-duplication has something to do. The top-level ``citations`` are
every item's URLs in order without repeats (the server cuts them to ``max_search_results``, default
20, and leaves them out when ``return_citations`` is false). ``mode`` is checked (``on``, ``off`` or
``auto``, else a 400) but not acted on: the stand-in answers the same in every mode.

``-garbled``: the content is chatty prose listing the same items, not JSON.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import re
from collections.abc import Sequence
from typing import Final, TypedDict

Turn = tuple[str, str]

_DATE: Final = re.compile(r"TODAY'S DATE: (\d{4}-\d{2}-\d{2})")
OUTLETS: Final = ("news.example.org", "wire.example.com", "daily.example.net")


@dataclasses.dataclass(frozen=True)
class _Story:
    slug: str
    motion: str
    # The same story's motion as another outlet words it: the near-duplicate.
    variant: str
    context: str


_STORIES: Final = (
    _Story(
        "car-free-centres",
        "Cities should ban private cars from their historic centres",
        "Cities should ban private cars from historic city centres",
        "Several cities are reported to be widening car-free zones, and shop owners are divided over "
        "what it does to trade.",
    ),
    _Story(
        "school-phone-bans",
        "Schools should ban smartphones for the whole school day",
        "Schools should ban smartphones for the entire school day",
        "Education ministries are widely reported to be weighing full-day phone bans after complaints "
        "from teachers.",
    ),
    _Story(
        "social-media-age-checks",
        "Social media platforms should verify the age of every user",
        "Social media companies should verify every user's age",
        "Lawmakers in several countries are debating age checks, and privacy groups warn about the "
        "data they would collect.",
    ),
    _Story(
        "remote-work-right",
        "Remote work should be a legal right for office jobs",
        "Working from home should be a legal right in office jobs",
        "Employers calling staff back to the office have met organised resistance, reportedly in "
        "several industries at once.",
    ),
    _Story(
        "betting-sponsorship",
        "Sports leagues should ban sponsorship by betting companies",
        "Sports leagues should ban betting company sponsorships",
        "Health campaigners want gambling logos off shirts, while clubs say the money keeps smaller "
        "teams alive.",
    ),
    _Story(
        "voting-at-sixteen",
        "The voting age should be lowered to sixteen",
        "The voting age should be cut to sixteen",
        "Proposals to lower the voting age are back in parliamentary debate, with youth groups and "
        "sceptics both campaigning.",
    ),
    _Story(
        "ai-image-labels",
        "AI-generated images should carry a mandatory label",
        "AI-generated images should be required to carry a label",
        "A viral fake photograph has revived calls for labelling rules, and platforms disagree on "
        "whether labels work.",
    ),
    _Story(
        "short-haul-flights",
        "Short flights should be banned where a train takes under three hours",
        "Short-haul flights should be banned where a train takes less than three hours",
        "Rail campaigners and airlines are at odds over proposals to replace short routes with trains.",
    ),
    _Story(
        "holiday-rental-caps",
        "Cities should cap the number of short-term holiday rentals",
        "Cities should limit the number of short-term holiday lets",
        "Residents' groups blame holiday rentals for rising rents, and hosts say they are being made "
        "scapegoats.",
    ),
    _Story(
        "four-day-week",
        "A four-day working week should become the standard",
        "The four-day working week should become standard",
        "Trial schemes are reportedly expanding, and business groups question whether the results "
        "carry over to every sector.",
    ),
    _Story(
        "nuclear-green",
        "Nuclear power should count as green energy",
        "Nuclear energy should be counted as green",
        "A dispute over which investments count as sustainable has put nuclear power back at the "
        "centre of climate debate.",
    ),
    _Story(
        "museum-returns",
        "Museums should return artefacts taken during colonial rule",
        "Museums should give back artefacts taken under colonial rule",
        "Restitution claims are widely reported to be multiplying, and curators are split over how to "
        "answer them.",
    ),
)


class Controversy(TypedDict):
    motion: str
    context: str
    citations: list[str]


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("\n".join(str(p) for p in parts).encode("utf-8")).digest()


def date_of(conversation: Sequence[Turn], today: dt.date) -> dt.date:
    """The date the conversation gives (its first ``TODAY'S DATE:`` line that is a real date), else today."""
    for _, text in conversation:
        for found in _DATE.finditer(text):
            try:
                return dt.date.fromisoformat(found.group(1))
            except ValueError:
                continue
    return today


def _url(outlet: str, day: dt.date, slug: str) -> str:
    return f"https://{outlet}/{day:%Y/%m/%d}/{slug}"


def controversies(model: str, day: dt.date) -> list[Controversy]:
    """The day's four to six items, one of them a near-duplicate of another."""
    head = _digest(model, day.isoformat())
    stories = sorted(_STORIES, key=lambda s: _digest(model, day.isoformat(), s.slug))
    distinct = stories[: 3 + head[0] % 3]
    items: list[Controversy] = []
    for story in distinct:
        pick = _digest(model, day.isoformat(), story.slug, "outlets")
        outlets = [OUTLETS[(pick[0] + k) % len(OUTLETS)] for k in range(1 + pick[1] % 2)]
        citations = [_url(o, day, story.slug) for o in outlets]
        items.append(Controversy(motion=story.motion, context=story.context, citations=citations))
    twin = distinct[head[1] % len(distinct)]
    # The same story from an outlet the original did not cite, so its URL is new.
    cited = {url for item in items for url in item["citations"]}
    outlet = next((o for o in OUTLETS if _url(o, day, twin.slug) not in cited), OUTLETS[0])
    duplicate = Controversy(
        motion=twin.variant, context=twin.context, citations=[_url(outlet, day, twin.slug + "-reaction")]
    )
    items.insert(1 + head[2] % len(items), duplicate)
    return items


def search_reply(
    conversation: Sequence[Turn], *, model: str, garbled: bool = False, today: dt.date
) -> tuple[str, list[str]]:
    """(message content, the top-level citations) for a live-search request."""
    items = controversies(model, date_of(conversation, today))
    citations = list(dict.fromkeys(url for item in items for url in item["citations"]))
    if not garbled:
        return json.dumps({"controversies": items}, ensure_ascii=False), citations
    lines = ["Sure! Here is what people are arguing about today:", ""]
    lines += [f"* {item['motion']}: {item['context']} (see {item['citations'][0]})" for item in items]
    lines += ["", "Let me know if you want more detail on any of these {controversies: ..."]
    return "\n".join(lines), citations
